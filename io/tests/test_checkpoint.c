/* KPM checkpoints: a run on all ranks writes a checkpoint from its checkpoint hook (three times,
 * each replacing the last through the .tmp + rename); the last state is restored into fresh kpm
 * objects on 1, 2 and all ranks (other row ranges than the writer's): moments and both vectors
 * must equal the written state exactly (N = 128 is a power of two, so mu*N/N is exact), and the
 * continued run must reach the uninterrupted run's moments (1e-13: only the order of the rank
 * sums differs). Real and complex matrices. Then the errors: mismatched moments, seed, interval,
 * scalar type, a missing file, a result file, a text file. */
#include <stdio.h>
#include "test_output_util.h"
#include "objects.h" /* a white-box test: reads the blocks' context directly */

enum { N = 128, M = 32, R = 3 };
static const char *deck = "[kpm]\nmoments = 32\nvectors = 3\n";

typedef struct {
  const char *path;
  int calls, done, type;
  double mu_vec[R * M], *v_prev, *v_curr;
} snapshot;

/* The checkpoint hook: write, then remember exactly what was written. */
static int hook(hm_kpm *kpm, void *user) {
  snapshot *s = user;
  int st = hm_checkpoint_write(kpm, s->path, deck);
  if (st) return st;
  hm_mvec *vp, *vc;
  double mu[M];
  hm_kpm_state_vectors(kpm, &vp, &vc);
  hm_kpm_info(kpm, NULL, NULL, &s->done, NULL, NULL, NULL);
  hm_kpm_moments(kpm, mu, s->mu_vec);
  free(s->v_prev);
  free(s->v_curr);
  s->v_prev = t_gather(vp->ctx, vp, N, s->type);
  s->v_curr = t_gather(vc->ctx, vc, N, s->type);
  s->calls++;
  char tmp[128];
  snprintf(tmp, sizeof tmp, "%s.tmp", s->path);
  if (vp->ctx->rank == 0) HM_TEST_ASSERT(file_exists(s->path) && !file_exists(tmp), "after a write: %s missing or .tmp left", s->path);
  return 0;
}

static hm_kpm_options options(double emin, double emax) {
  hm_kpm_options o;
  hm_kpm_options_default(&o);
  o.moments = M; o.vectors = R; o.seed = 11;
  o.bounds = HM_BOUNDS_GIVEN;
  o.emin = emin; o.emax = emax;
  return o;
}

/* Restore into a fresh kpm on the first `ranks` ranks and compare with the snapshot. */
static void restore_on(int ranks, hm_scalar type, const snapshot *s, double emin, double emax, const double *mu_ref) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub);
  if (sub == MPI_COMM_NULL) return;
  hm_context *ctx;
  hm_matrix *H;
  hm_kpm *kpm;
  HM_TEST_OK(hm_context_create(sub, HM_BACKEND_CPU, &ctx));
  HM_TEST_OK(t_ring(ctx, N, type, &H));
  hm_kpm_options o = options(emin, emax);
  HM_TEST_OK(hm_kpm_create(H, &o, &kpm));
  HM_TEST_OK(hm_checkpoint_restore(kpm, s->path));
  int done = 0;
  double mu[M], mu_vec[R * M];
  hm_kpm_info(kpm, NULL, NULL, &done, NULL, NULL, NULL);
  HM_TEST_ASSERT(done == s->done, "on %d ranks: moments_done %d, written %d", ranks, done, s->done);
  HM_TEST_OK(hm_kpm_moments(kpm, mu, mu_vec));
  int same = 1;
  for (int i = 0; i < R * M; i++) same &= mu_vec[i] == s->mu_vec[i];
  HM_TEST_ASSERT(same, "on %d ranks: restored moments differ from the written ones", ranks);
  hm_mvec *vp, *vc;
  hm_kpm_state_vectors(kpm, &vp, &vc);
  double *gp = t_gather(ctx, vp, N, type), *gc = t_gather(ctx, vc, N, type);
  same = 1;
  for (int i = 0; i < N * R * (int)type; i++) same &= gp[i] == s->v_prev[i] && gc[i] == s->v_curr[i];
  HM_TEST_ASSERT(same, "on %d ranks: restored vectors differ from the written ones", ranks);
  free(gp);
  free(gc);
  HM_TEST_OK(hm_kpm_run(kpm));
  HM_TEST_OK(hm_kpm_moments(kpm, mu, NULL));
  double worst = 0;
  for (int i = 0; i < M; i++) worst = fmax(worst, fabs(mu[i] - mu_ref[i]));
  HM_TEST_ASSERT(worst < 1e-13, "on %d ranks: continued run differs from the uninterrupted one by %g", ranks, worst);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  MPI_Comm_free(&sub);
}

/* Run with checkpoints on all ranks; restore on 1, 2 and all ranks. */
static void round_trip(hm_context *ctx, hm_scalar type, snapshot *s) {
  int rank, size;
  hm_context_rank(ctx, &rank, &size);
  hm_matrix *H;
  hm_kpm *kpm;
  HM_TEST_OK(t_ring(ctx, N, type, &H));
  hm_kpm_options o;
  hm_kpm_options_default(&o);
  o.moments = M; o.vectors = R; o.seed = 11;
  o.bounds = HM_BOUNDS_GERSHGORIN;
  o.checkpoint_every = 4;
  o.checkpoint = hook;
  o.checkpoint_user = s;
  HM_TEST_OK(hm_kpm_create(H, &o, &kpm));
  HM_TEST_OK(hm_kpm_run(kpm));
  HM_TEST_ASSERT(s->calls == 3 && s->done == 26, "hook called %d times, last at %d moments; expected 3, 26", s->calls, s->done);
  double mu_ref[M], emin, emax, hmin, hmax;
  HM_TEST_OK(hm_kpm_moments(kpm, mu_ref, NULL));
  HM_TEST_OK(hm_kpm_interval(kpm, &emin, &emax));
  char *text = NULL;
  HM_TEST_OK(hm_checkpoint_read_header(ctx, s->path, &text, &hmin, &hmax));
  HM_TEST_ASSERT(text && !strcmp(text, deck), "deck text read back as '%s'", text ? text : "(null)");
  HM_TEST_ASSERT(hmin == emin && hmax == emax, "interval read back [%.17g, %.17g], written [%.17g, %.17g]", hmin, hmax, emin, emax);
  free(text);
  int counts[3] = {1, 2, size};
  for (int i = 0; i < 3; i++)
    if (counts[i] <= size && (i < 2 || counts[i] > 2)) restore_on(counts[i], type, s, hmin, hmax, mu_ref);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
}

/* A kpm on all ranks made with changed options must refuse the checkpoint, naming the field. */
static void mismatch(hm_context *ctx, hm_scalar type, const char *path, hm_kpm_options o, int code, const char *needle) {
  hm_matrix *H;
  hm_kpm *kpm;
  HM_TEST_OK(t_ring(ctx, N, type, &H));
  HM_TEST_OK(hm_kpm_create(H, &o, &kpm));
  HM_TEST_FAILS(hm_checkpoint_restore(kpm, path), code, needle);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  int rank, size;
  hm_context_rank(ctx, &rank, &size);
  char path_c[64], path_r[64], bad[64], text_file[64];
  snprintf(path_c, sizeof path_c, "ckpt_complex_np%d.h5", size);
  snprintf(path_r, sizeof path_r, "ckpt_real_np%d.h5", size);
  snprintf(bad, sizeof bad, "not_ckpt_np%d.h5", size);
  snprintf(text_file, sizeof text_file, "text_np%d.h5", size);
  if (rank == 0) { remove(path_c); remove(path_r); }

  snapshot sc = {.path = path_c, .type = HM_COMPLEX}, sr = {.path = path_r, .type = HM_REAL};
  round_trip(ctx, HM_COMPLEX, &sc);
  round_trip(ctx, HM_REAL, &sr);

  double emin, emax;
  char *text;
  HM_TEST_OK(hm_checkpoint_read_header(ctx, path_c, &text, &emin, &emax));
  free(text);
  hm_kpm_options o = options(emin, emax);
  o.moments = 64;
  mismatch(ctx, HM_COMPLEX, path_c, o, HM_ERR_INPUT, "has moments = 32, but the kpm to restore into has moments = 64");
  o = options(emin, emax);
  o.seed = 12;
  mismatch(ctx, HM_COMPLEX, path_c, o, HM_ERR_INPUT, "seed = 11");
  o = options(emin - 0.5, emax);
  mismatch(ctx, HM_COMPLEX, path_c, o, HM_ERR_INPUT, "emin");
  HM_TEST_OK(hm_checkpoint_read_header(ctx, path_r, &text, &emin, &emax));
  free(text);
  mismatch(ctx, HM_COMPLEX, path_r, options(emin, emax), HM_ERR_INPUT, "holds real vectors");

  /* Files that are not checkpoints. */
  hm_output *out;
  HM_TEST_OK(hm_output_create(ctx, bad, &out));
  HM_TEST_OK(hm_output_write_input(out, deck));
  HM_TEST_OK(hm_output_commit(&out));
  if (rank == 0) {
    FILE *f = fopen(text_file, "w");
    fputs("not hdf5\n", f);
    fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  HM_TEST_FAILS(hm_checkpoint_read_header(ctx, "no_such_checkpoint.h5", &text, &emin, &emax), HM_ERR_IO, "no_such_checkpoint.h5");
  HM_TEST_FAILS(hm_checkpoint_read_header(ctx, bad, &text, &emin, &emax), HM_ERR_INPUT, "is not a hamlet KPM checkpoint");
  HM_TEST_FAILS(hm_checkpoint_read_header(ctx, text_file, &text, &emin, &emax), HM_ERR_IO, "is not an HDF5 file");
  mismatch(ctx, HM_COMPLEX, "no_such_checkpoint.h5", options(emin, emax), HM_ERR_IO, "cannot read 'no_such_checkpoint.h5'");

  free(sc.v_prev); free(sc.v_curr); free(sr.v_prev); free(sr.v_curr);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
