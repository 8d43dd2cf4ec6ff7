/* The layout of hm_output, shared by the files that write its groups. */
#ifndef HAMLET_OUTPUT_INTERNAL_H
#define HAMLET_OUTPUT_INTERNAL_H
#include "h5util.h"
#include "hamlet/output.h"

struct hm_output_s {
  hm_context *ctx;
  hid_t file;
  char *path, *tmp_path;  /* final name, and "<path>.tmp" written until commit */
  int have_dos_options;   /* the DOS options seen by hm_output_write_kpm, for /dos */
  hm_dos_options dos_options;
};
#endif
