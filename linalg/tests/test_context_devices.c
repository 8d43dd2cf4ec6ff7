/* CUDA contexts on every visible device of the node, plus a second one on device 0, used in turns:
 * the same TI slab built in each, products H x and dots of fresh random blocks and KPM moments
 * computed context after context, each compared with the CPU context's. The backend keeps scratch,
 * handles and staging per device (gpu/gpu_device.cuh), so a context must find its own device's
 * state whatever ran before it. The contexts are then destroyed in another order than made (the
 * first context of device 0 first: the second must still work, its device's state kept), and made
 * again (the state made anew after the last context of each device freed it). */
#include <math.h>
#include <stdlib.h>
#include "testing.h"
#include "gpu_probe.h" /* hm_gpu_device_count (linalg/core, internal) */

enum { kMoments = 48, kVectors = 4, kRounds = 3, kMaxSlots = 17 };

typedef struct {
  const char *what;
  int device; /* -1: the CPU reference */
  hm_context *ctx;
  hm_matrix *H;
  hm_mvec *x, *y;
  int64_t local;
} Slot;

static void slot_open(Slot *s, const char *what, int device) {
  s->what = what;
  s->device = device;
  if (device < 0) HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &s->ctx));
  else HM_TEST_OK(hm_context_create_on_device(MPI_COMM_WORLD, device, &s->ctx));
  HM_TEST_OK(hm_test_ti_slab(s->ctx, 6, 5, 4, 1.5, NULL, &s->H));
  const hm_dist *dist;
  HM_TEST_OK(hm_matrix_dist(s->H, &dist));
  HM_TEST_OK(hm_dist_range(dist, NULL, &s->local, NULL));
  HM_TEST_OK(hm_mvec_create(s->ctx, dist, HM_COMPLEX, kVectors, &s->x));
  HM_TEST_OK(hm_mvec_create(s->ctx, dist, HM_COMPLEX, kVectors, &s->y));
}

static void slot_close(Slot *s) {
  HM_TEST_OK(hm_mvec_destroy(&s->x));
  HM_TEST_OK(hm_mvec_destroy(&s->y));
  HM_TEST_OK(hm_matrix_destroy(&s->H));
  HM_TEST_OK(hm_context_destroy(&s->ctx));
}

/* A fresh block (uniform in [-1, 1), from a 64-bit LCG seeded by seed and round). */
static void random_block(uint64_t seed, int round, size_t len, double *v) {
  uint64_t state = seed * 6364136223846793005ull + (uint64_t)round * 1442695040888963407ull + 1;
  for (size_t i = 0; i < len; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = (double)(state >> 11) / 4503599627370496.0 - 1;
  }
}

static double max_abs_diff(const double *a, const double *b, size_t n, double *scale) {
  double worst = 0, big = 0;
  for (size_t i = 0; i < n; i++) {
    worst = fmax(worst, fabs(a[i] - b[i]));
    big = fmax(big, fabs(b[i]));
  }
  *scale = big > 0 ? big : 1;
  return worst;
}

/* One round: x set in every slot, then y = H x in every slot, then <x|y> in every slot (so each
 * device's calls follow another device's), each compared with the CPU slot (slots[0]). */
static void products_round(Slot *slots, int nslots, uint64_t seed, int round) {
  const size_t len = (size_t)slots[0].local * kVectors * 2;
  double *x = malloc(len * sizeof(double)), *y = malloc(len * sizeof(double)), *ref = malloc(len * sizeof(double));
  double dots[kMaxSlots][2 * kVectors] = {{0}};
  random_block(seed, round, len, x);
  for (int i = 0; i < nslots; i++) HM_TEST_OK(hm_mvec_set(slots[i].x, x));
  for (int i = 0; i < nslots; i++) HM_TEST_OK(hm_matrix_apply(slots[i].H, slots[i].x, slots[i].y));
  for (int i = 0; i < nslots; i++) HM_TEST_OK(hm_mvec_dot(slots[i].x, slots[i].y, dots[i]));
  HM_TEST_OK(hm_mvec_get(slots[0].y, ref));
  for (int i = 1; i < nslots; i++) {
    HM_TEST_OK(hm_mvec_get(slots[i].y, y));
    double scale, worst = max_abs_diff(y, ref, len, &scale);
    HM_TEST_ASSERT(worst <= 1e-13 * scale, "round %d, %s: H x differs from the CPU's by %g (largest %g)", round,
                   slots[i].what, worst, scale);
    worst = max_abs_diff(dots[i], dots[0], 2 * kVectors, &scale);
    HM_TEST_ASSERT(worst <= 1e-12 * scale, "round %d, %s: <x|H x> differs from the CPU's by %g (largest %g)", round,
                   slots[i].what, worst, scale);
  }
  free(x);
  free(y);
  free(ref);
}

/* KPM moments in each slot in turn, each compared with the CPU slot's. */
static void moments_round(Slot *slots, int nslots, uint64_t seed) {
  double mu[kMaxSlots][kMoments] = {{0}};
  for (int i = 0; i < nslots; i++) {
    hm_kpm_options opt;
    hm_kpm_options_default(&opt);
    opt.moments = kMoments;
    opt.vectors = kVectors;
    opt.seed = seed;
    hm_kpm *kpm = NULL;
    HM_TEST_OK(hm_kpm_create(slots[i].H, &opt, &kpm));
    HM_TEST_OK(hm_kpm_run(kpm));
    HM_TEST_OK(hm_kpm_moments(kpm, mu[i], NULL));
    HM_TEST_OK(hm_kpm_destroy(&kpm));
  }
  HM_TEST_ASSERT(fabs(mu[0][0] - 1) < 1e-14, "CPU: mu_0 = %.17g, must be 1", mu[0][0]);
  for (int i = 1; i < nslots; i++) {
    double scale, worst = max_abs_diff(mu[i], mu[0], kMoments, &scale);
    HM_TEST_ASSERT(worst <= 1e-12, "%s: KPM moments differ from the CPU's by %g", slots[i].what, worst);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  int devices = 0;
  HM_TEST_OK(hm_gpu_device_count(&devices));
  if (devices > kMaxSlots - 2) devices = kMaxSlots - 2;
  const uint64_t seed = hm_test_seed();
  static const char *names[] = {"device 0", "device 1", "device 2", "device 3", "device 4", "device 5",
                                "device 6", "device 7", "device 8", "device 9", "device 10", "device 11",
                                "device 12", "device 13", "device 14"};
  /* slots[0]: CPU; 1..devices: one context per device; last: a second context on device 0 */
  Slot slots[kMaxSlots];
  const int nslots = devices + 2, extra = devices + 1;
  for (int pass = 0; pass < 2; pass++) {
    slot_open(&slots[0], "CPU", -1);
    for (int d = 0; d < devices; d++) slot_open(&slots[1 + d], names[d], d);
    slot_open(&slots[extra], "second context on device 0", 0);
    for (int round = 0; round < kRounds; round++) products_round(slots, nslots, seed + (uint64_t)pass, round);
    moments_round(slots, nslots, seed + (uint64_t)pass);
    /* device 0's first context goes first: the second must still find device 0's state */
    slot_close(&slots[1]);
    slots[1] = slots[extra];
    products_round(slots, nslots - 1, seed + 7, pass);
    moments_round(slots, nslots - 1, seed + 7);
    for (int i = nslots - 2; i >= 0; i--) slot_close(&slots[i]); /* the rest, last made first */
  }
  return hm_test_finish();
}
