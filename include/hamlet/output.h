/* HDF5 results: one self-describing file per run, written collectively by all ranks of the
 * context under a temporary name and renamed into place by hm_output_commit, so a crash never
 * leaves a half-written result. Every dataset carries a "unit" attribute. */
#ifndef HAMLET_OUTPUT_H
#define HAMLET_OUTPUT_H
#include "export.h"
#include "context.h"
#include "dos.h"
#include "kpm.h"
#include "ti.h"

typedef struct hm_output_s hm_output;

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. Opens "<path>.tmp" for writing. */
HM_API int hm_output_create(hm_context *ctx, const char *path, hm_output **out);
/* Collective. Closes and renames to path. out is destroyed and nulled. */
HM_API int hm_output_commit(hm_output **out);
/* Collective. Closes and deletes the temporary file (on failure paths); nulls out. */
HM_API int hm_output_destroy(hm_output **out);

HM_API int hm_output_write_input(hm_output *out, const char *deck_text);     /* /input */
HM_API int hm_output_write_provenance(hm_output *out);                       /* /provenance */
HM_API int hm_output_write_ti(hm_output *out, const hm_ti_params *p, const hm_matrix *H); /* /hamiltonian */
HM_API int hm_output_write_kpm(hm_output *out, hm_kpm *kpm, const hm_dos_options *dopt); /* /kpm (collective reduction) */
HM_API int hm_output_write_dos(hm_output *out, const hm_dos *dos);          /* /dos */
/* A named scalar, e.g. ("/timing/moments", 1.5, "s"); groups are created as needed. */
HM_API int hm_output_write_scalar(hm_output *out, const char *path, double value, const char *unit);
/* Collective: an array of rank 0's data at path ("/eigen/values"), ndim dimensions dims[] (C
 * order), double or double _Complex (a trailing dimension of 2 is added: real, imaginary). */
HM_API int hm_output_write_array(hm_output *out, const char *path, hm_scalar type, int ndim, const int64_t *dims,
                          const void *data, const char *unit, const char *description);
/* Collective: a distributed block as a dataset [N][k] (complex: [N][k][2]), each rank its rows. */
HM_API int hm_output_write_mvec(hm_output *out, const char *path, const hm_mvec *v, const char *unit,
                         const char *description);
/* Collective: a string attribute `name` on the group at path (created as needed). */
HM_API int hm_output_write_attribute(hm_output *out, const char *path, const char *name, const char *value);
/* Collective: a number attribute `name` on the group at path (created as needed). */
HM_API int hm_output_write_attribute_double(hm_output *out, const char *path, const char *name, double value);

#ifdef __cplusplus
}
#endif
#endif
