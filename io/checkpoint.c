/* KPM checkpoints: written completely to "<path>.tmp", closed, then renamed over path, so the
 * previous checkpoint survives a crash while writing. Vectors are stored by global row, so a
 * checkpoint restores on any rank count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkpoint_identity_write.h"
#include "h5util.h"
#include "hamlet/checkpoint.h"
#include "kpm_sums.h"

#define FORMAT "hamlet-kpm-checkpoint"
enum { FORMAT_VERSION = 2 }; /* 2: moment_sums (bitwise restarts), checksums */

typedef struct {
  int M, R, done;
  int pass, passes, block; /* KPM's passes (hm_kpm_options.block) */
  double emin, emax;
  int64_t n;
  hm_kpm_options opt;
  hm_mvec *v_prev, *v_curr;
  hm_context *ctx; /* the vectors' */
  int ranks;
  hm_scalar type;
} state;

static int get_state(hm_kpm *kpm, state *s) {
  HM_CALL(hm_kpm_info(kpm, &s->M, &s->R, &s->done, NULL, NULL, &s->n));
  HM_CALL(hm_kpm_passes(kpm, &s->pass, &s->passes, &s->block));
  HM_CALL(hm_kpm_interval(kpm, &s->emin, &s->emax));
  HM_CALL(hm_kpm_options_get(kpm, &s->opt));
  HM_CALL(hm_kpm_state_vectors(kpm, &s->v_prev, &s->v_curr));
  HM_CALL(hm_mvec_context(s->v_prev, &s->ctx));
  HM_CALL(hm_context_rank(s->ctx, NULL, &s->ranks));
  HM_CALL(hm_mvec_type(s->v_prev, &s->type));
  return HM_SUCCESS;
}

static int write_attrs(hid_t f, const state *s, const hm_ham_identity *id) {
  HM_CALL(hm_h5_attr_string(f, "format", FORMAT));
  HM_CALL(hm_h5_attr_int(f, "version", FORMAT_VERSION));
  HM_CALL(hm_h5_attr_double(f, "emin", s->emin));
  HM_CALL(hm_h5_attr_double(f, "emax", s->emax));
  HM_CALL(hm_h5_attr_int(f, "moments", s->M));
  HM_CALL(hm_h5_attr_int(f, "vectors", s->R));
  HM_CALL(hm_h5_attr_uint64(f, "seed", s->opt.seed));
  HM_CALL(hm_h5_attr_int(f, "moments_done", s->done));
  HM_CALL(hm_h5_attr_int(f, "block", s->block));
  HM_CALL(hm_h5_attr_int(f, "pass", s->pass));
  HM_CALL(hm_h5_attr_int(f, "n_global", s->n));
  HM_CALL(hm_h5_attr_string(f, "scalar", s->type == HM_COMPLEX ? "complex" : "real"));
  HM_CALL(hm_h5_attr_int(f, "ranks", s->ranks));
  HM_CALL(hm_checkpoint_identity_write(f, id));
  return HM_SUCCESS;
}

static int write_body(hid_t f, const state *s, const double *mu_vec, const double *sums, const char *deck_text,
                      const hm_ham_identity *id) {
  hm_context *ctx = s->ctx;
  HM_CALL(write_attrs(f, s, id));
  HM_CALL(hm_h5_write_text(ctx, f, "input", deck_text, "the input deck of the run"));
  hsize_t dims[2] = {(hsize_t)s->R, (hsize_t)s->M};
  HM_CALL(hm_h5_write_small_checksum(ctx, f, "moments_per_vector", 2, dims, mu_vec, "1",
                            "moments of each random vector so far (row r = vector r); entries >= moments_done are 0"));
  HM_CALL(hm_h5_write_small_checksum(ctx, f, "moment_sums", 2, dims, sums, "1",
                                     "raw sums the moments come from (what a restart continues from, bit for bit)"));
  HM_CALL(hm_h5_write_mvec_checksum(f, "v_prev", s->v_prev, "1",
                                    "KPM recurrence vector v_{m-1} (one column per random vector of the current pass)"));
  HM_CALL(hm_h5_write_mvec_checksum(f, "v_curr", s->v_curr, "1",
                                    "KPM recurrence vector v_m (one column per random vector of the current pass)"));
  return HM_SUCCESS;
}

static char *tmp_name(const char *path) {
  size_t n = strlen(path) + 5;
  char *t = malloc(n);
  if (t) snprintf(t, n, "%s.tmp", path);
  return t;
}

int hm_checkpoint_write(hm_kpm *kpm, const char *path, const char *deck_text) {
  HM_CALL(hm_kpm_checkpoint_write_identified(kpm, path, deck_text, NULL));
  return HM_SUCCESS;
}

int hm_kpm_checkpoint_write_identified(hm_kpm *kpm, const char *path, const char *deck_text,
                                       const hm_ham_identity *id) {
  HM_CHECK(kpm && path && path[0], HM_ERR_ARGUMENT, "kpm or path is NULL or empty");
  state s;
  HM_CALL(get_state(kpm, &s));
  hm_context *ctx = s.ctx;
  double *mu, *mu_vec, *sums;
  HM_MALLOC(mu, s.M);
  mu_vec = malloc(sizeof(double) * (size_t)s.R * (size_t)s.M);
  sums = malloc(sizeof(double) * (size_t)s.R * (size_t)s.M);
  char *tmp = tmp_name(path);
  hid_t f = H5I_INVALID_HID;
  int st = !mu_vec || !sums || !tmp ? hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory") : 0;
  if (!st) st = hm_kpm_moments(kpm, mu, mu_vec); /* collective reductions of the partial sums */
  if (!st) st = hm_kpm_sums(kpm, sums);
  if (!st) st = hm_h5_create(ctx, tmp, &f);
  if (!st) st = write_body(f, &s, mu_vec, sums, deck_text, id);
  st = hm_h5_commit(ctx, f, tmp, path, st);
  free(tmp);
  free(mu);
  free(mu_vec);
  free(sums);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* Open, and make sure it is a checkpoint of a version this code reads. */
static int open_checkpoint(hm_context *ctx, const char *path, hid_t *f) {
  HM_CALL(hm_h5_open_read(ctx, path, f));
  int st = HM_SUCCESS;
  char *format = NULL;
  int64_t version = 0;
  htri_t has = H5Aexists(*f, "format");
  if (has > 0) st = hm_h5_read_attr_string(*f, "format", &format);
  if (!st && (has <= 0 || strcmp(format, FORMAT) != 0))
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "'%s' is not a hamlet KPM checkpoint (its attribute 'format' is %s%s%s, expected \"" FORMAT "\")",
                        path, format ? "\"" : "", format ? format : "missing", format ? "\"" : "");
  if (!st) st = hm_h5_read_attr_int(*f, "version", &version);
  if (!st && version != FORMAT_VERSION)
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "checkpoint '%s' has format version %lld; this hamlet reads version %d", path,
                        (long long)version, FORMAT_VERSION);
  free(format);
  if (st) {
    H5Fclose(*f);
    *f = H5I_INVALID_HID;
    HM_CALL(st);
  }
  return HM_SUCCESS;
}

int hm_checkpoint_read_header(hm_context *ctx, const char *path, char **deck_text, double *emin, double *emax) {
  HM_CHECK(ctx && path && deck_text && emin && emax, HM_ERR_ARGUMENT, "ctx, path, deck_text, emin or emax is NULL");
  *deck_text = NULL;
  hid_t f;
  HM_CALL(open_checkpoint(ctx, path, &f));
  int st = hm_h5_read_attr_double(f, "emin", emin);
  if (!st) st = hm_h5_read_attr_double(f, "emax", emax);
  if (!st) st = hm_h5_read_text(f, "input", deck_text);
  H5Fclose(f);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* The checkpoint must describe the same run the kpm was made for. */
static int check_int(const char *path, const char *field, int64_t stored, int64_t mine) {
  HM_CHECK(stored == mine, HM_ERR_INPUT,
           "checkpoint '%s' has %s = %lld, but the kpm to restore into has %s = %lld; make the kpm with the "
           "checkpoint's %s", path, field, (long long)stored, field, (long long)mine, field);
  return HM_SUCCESS;
}

static int check_interval(const char *path, const char *field, double stored, double mine) {
  HM_CHECK(fabs(stored - mine) <= 1e-12 * fmax(1.0, fabs(stored)), HM_ERR_INPUT,
           "checkpoint '%s' has %s = %.17g, but the kpm to restore into has %s = %.17g; make it with "
           "bounds = HM_BOUNDS_GIVEN at the checkpoint's interval", path, field, stored, field, mine);
  return HM_SUCCESS;
}

static int check_match(hid_t f, const char *path, const state *s, int64_t *done) {
  int64_t M, R, n;
  uint64_t seed;
  double emin, emax;
  char *scalar = NULL;
  HM_CALL(hm_h5_read_attr_int(f, "moments", &M));
  HM_CALL(check_int(path, "moments", M, s->M));
  HM_CALL(hm_h5_read_attr_int(f, "vectors", &R));
  HM_CALL(check_int(path, "vectors", R, s->R));
  HM_CALL(hm_h5_read_attr_int(f, "n_global", &n));
  HM_CALL(check_int(path, "n_global", n, s->n));
  HM_CALL(hm_h5_read_attr_uint64(f, "seed", &seed));
  HM_CHECK(seed == s->opt.seed, HM_ERR_INPUT,
           "checkpoint '%s' has seed = %llu, but the kpm to restore into has seed = %llu", path,
           (unsigned long long)seed, (unsigned long long)s->opt.seed);
  HM_CALL(hm_h5_read_attr_double(f, "emin", &emin));
  HM_CALL(check_interval(path, "emin", emin, s->emin));
  HM_CALL(hm_h5_read_attr_double(f, "emax", &emax));
  HM_CALL(check_interval(path, "emax", emax, s->emax));
  HM_CALL(hm_h5_read_attr_string(f, "scalar", &scalar));
  const char *mine = s->type == HM_COMPLEX ? "complex" : "real";
  char stored[32];
  snprintf(stored, sizeof stored, "%s", scalar);
  free(scalar);
  HM_CHECK(strcmp(stored, mine) == 0, HM_ERR_INPUT,
           "checkpoint '%s' holds %s vectors, but the kpm's matrix is %s", path, stored, mine);
  HM_CALL(hm_h5_read_attr_int(f, "moments_done", done));
  HM_CHECK(*done >= 2 && *done <= M && *done % 2 == 0, HM_ERR_INPUT,
           "checkpoint '%s' has moments_done = %lld, not even and in [2, %lld]", path, (long long)*done, (long long)M);
  return HM_SUCCESS;
}

/* The pass of the checkpoint (absent before passes: one pass of all R vectors) made current: its
 * vectors, of its width, are what the file holds. */
static int restore_pass(hid_t f, const char *path, hm_kpm *kpm, state *s) {
  int64_t block = s->R, pass = 0;
  if (H5Aexists(f, "block") > 0) HM_CALL(hm_h5_read_attr_int(f, "block", &block));
  if (H5Aexists(f, "pass") > 0) HM_CALL(hm_h5_read_attr_int(f, "pass", &pass));
  HM_CALL(check_int(path, "block", block, s->block));
  HM_CHECK(pass >= 0 && pass < s->passes, HM_ERR_INPUT, "checkpoint '%s' has pass = %lld; a run of %d passes has 0 .. %d",
           path, (long long)pass, s->passes, s->passes - 1);
  HM_CALL(hm_kpm_restore_pass(kpm, (int)pass));
  HM_CALL(hm_kpm_state_vectors(kpm, &s->v_prev, &s->v_curr));
  return HM_SUCCESS;
}

static int restore_from(hid_t f, const char *path, hm_kpm *kpm, state *s) {
  int64_t done;
  HM_CALL(check_match(f, path, s, &done));
  HM_CALL(restore_pass(f, path, kpm, s));
  double *sums = malloc(sizeof(double) * (size_t)s->R * (size_t)s->M);
  HM_CHECK(sums, HM_ERR_MEMORY, "could not allocate %d x %d moments", s->R, s->M);
  int st = hm_h5_read_small(f, "moment_sums", (size_t)s->R * (size_t)s->M, sums);
  if (!st) st = hm_h5_read_mvec(f, "v_prev", s->v_prev);
  if (!st) st = hm_h5_read_mvec(f, "v_curr", s->v_curr);
  if (!st) st = hm_kpm_restore_sums(kpm, (int)done, sums);
  free(sums);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_checkpoint_restore(hm_kpm *kpm, const char *path) {
  HM_CHECK(kpm && path, HM_ERR_ARGUMENT, "kpm or path is NULL");
  state s;
  HM_CALL(get_state(kpm, &s));
  hid_t f;
  HM_CALL(open_checkpoint(s.ctx, path, &f));
  int st = restore_from(f, path, kpm, &s);
  H5Fclose(f);
  HM_CALL(st);
  return HM_SUCCESS;
}
