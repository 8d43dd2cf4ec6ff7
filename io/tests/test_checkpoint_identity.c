/* Two Hamiltonians in one process (a library user running two problems): each checkpoint carries
 * the identity its writer was given, never another run's. Two rings (real n = 64, complex n = 48)
 * with their own deck text and identity; KPM and solver checkpoints of both written interleaved
 * (A1, B2, A1 again, then the KPM pair); each must pass the check of its own identity, fail that of
 * the other naming "belongs to another Hamiltonian", and store its own hash. The public
 * hm_checkpoint_write, given no identity, writes none (the check then says so). */
#include <stdio.h>
#include "test_output_util.h"
#include "checkpoint_identity.h"
#include "checkpoint_state.h"

static const char *deck1 = "[hamiltonian]\nmodel = mtx\nmatrix = ring_real\n";
static const char *deck2 = "[hamiltonian]\nmodel = mtx\nmatrix = ring_complex\n";

typedef struct {
  hm_matrix *H;
  hm_ham_identity id;
  hm_kpm *kpm;
  hm_mvec *block;
} problem;

static void make(hm_context *ctx, int64_t n, hm_scalar type, const char *deck, problem *p) {
  HM_TEST_OK(t_ring(ctx, n, type, &p->H));
  HM_TEST_OK(hm_ham_identity_compute(p->H, deck, &p->id));
  hm_kpm_options o;
  hm_kpm_options_default(&o);
  o.moments = 8; o.vectors = 2; o.seed = 3;
  o.bounds = HM_BOUNDS_GIVEN;
  o.emin = -5; o.emax = 5;
  HM_TEST_OK(hm_kpm_create(p->H, &o, &p->kpm));
  HM_TEST_OK(hm_kpm_run(p->kpm));
  const hm_dist *dist;
  HM_TEST_OK(hm_matrix_dist(p->H, &dist));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 2, &p->block));
  HM_TEST_OK(hm_mvec_random_phase(p->block, 9));
}

static unsigned long long stored_hash(const char *path) {
  unsigned long long h = 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 0;
  hid_t a = H5Aopen(f, "hamiltonian_hash", H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_ULLONG, &h);
    H5Aclose(a);
  }
  H5Fclose(f);
  return h;
}

/* path belongs to `own` and not to `other`. */
static void belongs(hm_context *ctx, int rank, const char *path, const problem *own, const problem *other) {
  HM_TEST_OK(hm_checkpoint_identity_check(ctx, path, &own->id));
  HM_TEST_FAILS(hm_checkpoint_identity_check(ctx, path, &other->id), HM_ERR_INPUT, "belongs to another Hamiltonian");
  if (rank == 0)
    HM_TEST_ASSERT(stored_hash(path) == (unsigned long long)own->id.deck_hash, "%s: hash %016llx, its writer's %016llx",
                   path, stored_hash(path), (unsigned long long)own->id.deck_hash);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hm_context *ctx1 = NULL, *ctx2 = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx1));
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx2));
  problem a = {0}, b = {0};
  make(ctx1, 64, HM_REAL, deck1, &a);
  make(ctx2, 48, HM_COMPLEX, deck2, &b);
  HM_TEST_ASSERT(a.id.deck_hash != b.id.deck_hash, "the two decks hash alike");

  const double scalars[2] = {1, 2};
  HM_TEST_OK(hm_state_checkpoint_write(ctx1, "identity_a.h5", deck1, "lobpcg", 1, &a.block, 2, scalars, &a.id));
  HM_TEST_OK(hm_state_checkpoint_write(ctx2, "identity_b.h5", deck2, "lobpcg", 1, &b.block, 2, scalars, &b.id));
  HM_TEST_OK(hm_state_checkpoint_write(ctx1, "identity_a.h5", deck1, "lobpcg", 1, &a.block, 2, scalars, &a.id));
  HM_TEST_OK(hm_kpm_checkpoint_write_identified(a.kpm, "identity_kpm_a.h5", deck1, &a.id));
  HM_TEST_OK(hm_kpm_checkpoint_write_identified(b.kpm, "identity_kpm_b.h5", deck2, &b.id));
  belongs(ctx1, rank, "identity_a.h5", &a, &b);
  belongs(ctx2, rank, "identity_b.h5", &b, &a);
  belongs(ctx1, rank, "identity_kpm_a.h5", &a, &b);
  belongs(ctx2, rank, "identity_kpm_b.h5", &b, &a);

  HM_TEST_OK(hm_checkpoint_write(a.kpm, "identity_none.h5", deck1));
  HM_TEST_FAILS(hm_checkpoint_identity_check(ctx1, "identity_none.h5", &a.id), HM_ERR_INPUT, "carries no identity");
  HM_TEST_OK(hm_state_checkpoint_write(ctx1, "identity_none.h5", deck1, "lobpcg", 1, &a.block, 2, scalars, NULL));
  HM_TEST_FAILS(hm_checkpoint_identity_check(ctx1, "identity_none.h5", &a.id), HM_ERR_INPUT, "carries no identity");

  problem *all[2] = {&a, &b};
  for (int i = 0; i < 2; i++) {
    hm_kpm_destroy(&all[i]->kpm);
    hm_mvec_destroy(&all[i]->block);
    hm_matrix_destroy(&all[i]->H);
  }
  hm_context_destroy(&ctx1);
  hm_context_destroy(&ctx2);
  return hm_test_finish();
}
