/* Solver checkpoints: attributes format, version, method, nblocks, nscalars; datasets input (the
 * deck), scalars, block0, block1, ... (rows by global index). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkpoint_state.h"
#include "checkpoint_identity_write.h"
#include "h5util.h"

#define FORMAT "hamlet-solver-checkpoint"
#define KPM_FORMAT "hamlet-kpm-checkpoint"
enum { FORMAT_VERSION = 2 }; /* 2: checksums, the Hamiltonian identity, LOBPCG images */

static int write_block(hid_t f, int i, const hm_mvec *v) {
  char name[32];
  snprintf(name, sizeof name, "block%d", i);
  HM_CALL(hm_h5_write_mvec_checksum(f, name, v, "1", "a block of the solver's state"));
  return HM_SUCCESS;
}

static int write_body(hm_context *ctx, hid_t f, const char *deck_text, const char *method, int nblocks,
                      hm_mvec *const *blocks, int nscalars, const double *scalars, const hm_ham_identity *id) {
  HM_CALL(hm_h5_attr_string(f, "format", FORMAT));
  HM_CALL(hm_h5_attr_int(f, "version", FORMAT_VERSION));
  HM_CALL(hm_h5_attr_string(f, "method", method));
  HM_CALL(hm_h5_attr_int(f, "nblocks", nblocks));
  HM_CALL(hm_h5_attr_int(f, "nscalars", nscalars));
  HM_CALL(hm_checkpoint_identity_write(f, id));
  HM_CALL(hm_h5_write_text(ctx, f, "input", deck_text, "the input deck of the run"));
  hsize_t dims[1] = {(hsize_t)nscalars};
  HM_CALL(hm_h5_write_small_checksum(ctx, f, "scalars", 1, dims, scalars, "1", "the solver's small state"));
  for (int i = 0; i < nblocks; i++) HM_CALL(write_block(f, i, blocks[i]));
  return HM_SUCCESS;
}

int hm_state_checkpoint_write(hm_context *ctx, const char *path, const char *deck_text, const char *method,
                              int nblocks, hm_mvec *const *blocks, int nscalars, const double *scalars,
                              const hm_ham_identity *id) {
  HM_CHECK(ctx && path && path[0] && method && (blocks || !nblocks) && (scalars || !nscalars), HM_ERR_ARGUMENT,
           "ctx, path, method, blocks or scalars is NULL");
  size_t n = strlen(path) + 5;
  char *tmp = malloc(n);
  HM_CHECK(tmp, HM_ERR_MEMORY, "out of memory");
  snprintf(tmp, n, "%s.tmp", path);
  hid_t f = H5I_INVALID_HID;
  int st = hm_h5_create(ctx, tmp, &f);
  if (!st) st = write_body(ctx, f, deck_text ? deck_text : "", method, nblocks, blocks, nscalars, scalars, id);
  st = hm_h5_commit(ctx, f, tmp, path, st);
  free(tmp);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* Open a solver checkpoint of this method and check its counts. */
static int open_state(hm_context *ctx, const char *path, const char *method, hid_t *f) {
  HM_CALL(hm_h5_open_read(ctx, path, f));
  char *format = NULL, *m = NULL;
  int64_t version = 0;
  int st = H5Aexists(*f, "format") > 0 ? hm_h5_read_attr_string(*f, "format", &format)
                                        : hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                                                         "'%s' is not a hamlet checkpoint (no 'format')", path);
  if (!st && strcmp(format, FORMAT))
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "'%s' is a %s, not a " FORMAT, path, format);
  if (!st) st = hm_h5_read_attr_int(*f, "version", &version);
  if (!st && version != FORMAT_VERSION)
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "'%s' has format version %lld; this hamlet reads %d",
                        path, (long long)version, FORMAT_VERSION);
  if (!st) st = hm_h5_read_attr_string(*f, "method", &m);
  if (!st && method && strcmp(m, method))
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "'%s' is a checkpoint of method %s, not %s", path, m,
                        method);
  free(format);
  free(m);
  if (st) {
    H5Fclose(*f);
    HM_CALL(st);
  }
  return HM_SUCCESS;
}

static int count_matches(hid_t f, const char *path, const char *what, int want) {
  int64_t have;
  HM_CALL(hm_h5_read_attr_int(f, what, &have));
  HM_CHECK(have == want, HM_ERR_INPUT, "'%s' holds %lld %s; this run's solver has %d (a different deck or s?)", path,
           (long long)have, what + 1, want);
  return HM_SUCCESS;
}

int hm_state_checkpoint_read_scalars(hm_context *ctx, const char *path, const char *method, int *nscalars,
                                     double **scalars) {
  HM_CHECK(ctx && path && method && nscalars && scalars, HM_ERR_ARGUMENT, "ctx, path, method or an output is NULL");
  *scalars = NULL;
  hid_t f;
  HM_CALL(open_state(ctx, path, method, &f));
  int64_t n = 0;
  int st = hm_h5_read_attr_int(f, "nscalars", &n);
  if (!st && (n < 0 || n > (1 << 30))) st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "'%s': nscalars = %lld", path, (long long)n);
  if (!st) {
    *scalars = malloc(sizeof(double) * (size_t)(n + 1));
    st = *scalars ? hm_h5_read_small(f, "scalars", (size_t)n, *scalars)
                  : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
  }
  H5Fclose(f);
  if (st) {
    free(*scalars);
    *scalars = NULL;
    HM_CALL(st);
  }
  *nscalars = (int)n;
  return HM_SUCCESS;
}

int hm_state_checkpoint_read_blocks(hm_context *ctx, const char *path, int nblocks, hm_mvec *const *blocks) {
  HM_CHECK(ctx && path && (blocks || !nblocks), HM_ERR_ARGUMENT, "ctx, path or blocks is NULL");
  hid_t f;
  HM_CALL(open_state(ctx, path, NULL, &f));
  int st = count_matches(f, path, "nblocks", nblocks);
  for (int i = 0; i < nblocks && !st; i++) {
    char name[32];
    snprintf(name, sizeof name, "block%d", i);
    st = hm_h5_read_mvec(f, name, blocks[i]);
  }
  H5Fclose(f);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_state_checkpoint_method(hm_context *ctx, const char *path, char **method) {
  HM_CHECK(ctx && path && method, HM_ERR_ARGUMENT, "ctx, path or method is NULL");
  *method = NULL;
  hid_t f;
  HM_CALL(open_state(ctx, path, NULL, &f));
  const int st = hm_h5_read_attr_string(f, "method", method);
  H5Fclose(f);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_checkpoint_read_deck(hm_context *ctx, const char *path, char **deck_text, int *is_kpm) {
  HM_CHECK(ctx && path && deck_text && is_kpm, HM_ERR_ARGUMENT, "ctx, path, deck_text or is_kpm is NULL");
  *deck_text = NULL;
  hid_t f;
  HM_CALL(hm_h5_open_read(ctx, path, &f));
  char *format = NULL;
  int st = H5Aexists(f, "format") > 0 ? hm_h5_read_attr_string(f, "format", &format)
                                       : hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                                                        "'%s' is not a hamlet checkpoint (no attribute 'format')", path);
  if (!st && strcmp(format, FORMAT) && strcmp(format, KPM_FORMAT))
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "'%s' is not a hamlet checkpoint (format \"%s\", expected \"" KPM_FORMAT "\" or \"" FORMAT "\")",
                        path, format);
  if (!st) {
    *is_kpm = !strcmp(format, KPM_FORMAT);
    st = hm_h5_read_text(f, "input", deck_text);
  }
  free(format);
  H5Fclose(f);
  HM_CALL(st);
  return HM_SUCCESS;
}
