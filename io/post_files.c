/* hamlet post's file helpers (post_files.h). */
#include <stdio.h>
#include "hamlet.h"
#include "error_macros.h"
#include "h5util.h"
#include "post_files.h"

int hm_post_copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  char buf[1 << 16];
  size_t n;
  int ok = in && out;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  ok = ok && !ferror(in);
  if (in) fclose(in);
  if (out && fclose(out)) ok = 0;
  if (!ok) return hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "cannot copy %s to %s", from, to);
  return HM_SUCCESS;
}

int hm_post_replace_attr(hid_t g, const char *name, const char *text, double value) {
  if (H5Aexists(g, name) > 0 && H5Adelete(g, name) < 0) return 1;
  return text ? hm_h5_attr_string(g, name, text) : hm_h5_attr_double(g, name, value);
}

int hm_post_rewrite(const char *in, const char *dest, const char *group, hm_post_fill fill, void *user) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.post.tmp", dest);
  hm_context *self = NULL;
  HM_CALL(hm_post_copy_file(in, tmp));
  int st = hm_context_create(MPI_COMM_SELF, HM_BACKEND_CPU, &self);
  if (st) {
    remove(tmp);
    HM_CALL(st);
  }
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS); /* the writers use collective MPI-IO transfers */
  if (fapl >= 0) H5Pset_fapl_mpio(fapl, MPI_COMM_SELF, MPI_INFO_NULL);
  hid_t w = H5Fopen(tmp, H5F_ACC_RDWR, fapl), g = w < 0 ? -1 : H5Gopen2(w, group, H5P_DEFAULT);
  int bad = g < 0 || fill(self, g, user);
  if (g >= 0) H5Gclose(g);
  if (w >= 0 && H5Fclose(w) < 0) bad = 1;
  if (fapl >= 0) H5Pclose(fapl);
  hm_context_destroy(&self);
  if (bad) {
    remove(tmp);
    return hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "could not write %s (writing /%s)", dest, group);
  }
  if (rename(tmp, dest) != 0) {
    remove(tmp);
    return hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "could not write %s (renaming the temporary copy)",
                          dest);
  }
  return HM_SUCCESS;
}

int hm_post_replace_dataset(hm_context *self, hid_t g, const char *name, int ndim, const hsize_t *dims,
                            const double *data, const char *unit, const char *description) {
  if (H5Lexists(g, name, H5P_DEFAULT) > 0 && H5Ldelete(g, name, H5P_DEFAULT) < 0) return 1;
  return hm_h5_write_small(self, g, name, ndim, dims, data, unit, description);
}
