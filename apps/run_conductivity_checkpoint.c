/* Checkpoints of a conductivity run at chunk granularity: the solver checkpoint's scalars hold the
 * interval (bit for bit), the sizes, the progress (start vectors and left chunks done) and the raw
 * moment sums of hm_conductivity_state; there are no blocks (a restore replays the start vector's
 * left recursion up to its chunk). A restart continues to the moments of the uninterrupted run bit
 * for bit on the same rank count. */
#include <string.h>
#include "checkpoint_state.h"
#include "run_conductivity.h"

/* scalars: emin, emax, moments, components, start vectors, per-vector blocks (R or 0), start vectors
 * done, chunks done, start vectors per block (B), chunk (K), then sum, part ([B] blocks) and per ([R]
 * blocks), each block [C][M][M] complex. A restart takes B and K as saved (the state's layout). */
enum { HEAD = 10 };

static size_t moment_block(int M, int C) { return 2 * (size_t)C * (size_t)M * (size_t)M; }

size_t conductivity_checkpoint_values(int M, int C, int B, int R) { return HEAD + (1 + (size_t)B + (size_t)R) * moment_block(M, C); }

int conductivity_checkpoint_write(run_state *s, hm_conductivity *c, int phase) {
  int M, C, starts, done, chunks, B, K;
  double emin, emax;
  int st = hm_conductivity_info(c, &M, &C, &starts, NULL, &K, NULL, NULL, NULL);
  if (!st) st = hm_conductivity_interval(c, &emin, &emax);
  if (!st) st = hm_conductivity_block(c, &B);
  if (st) return st;
  const int R = s->deck.conductivity.trace == HM_TRACE_RANDOM ? starts : 0;
  const size_t block = moment_block(M, C), n = conductivity_checkpoint_values(M, C, B, R);
  if (n > CONDUCTIVITY_CHECKPOINT_MAX) { /* the run refused checkpoint keys for this size at its start */
    if (s->rank == 0)
      fprintf(stderr, "hamlet: a conductivity checkpoint of %zu values is too large (at most 2^30)\n", n);
    return HM_ERR_ARGUMENT;
  }
  double *v = malloc(sizeof(double) * n);
  if (!v) return HM_ERR_MEMORY;
  run_mark m = {0};
  run_mark_now(s, &m);
  st = hm_conductivity_state(c, &done, &chunks, v + HEAD, v + HEAD + block, R ? v + HEAD + (1 + B) * block : NULL);
  if (!st) {
    const double head[HEAD] = {emin, emax, M, C, starts, R, done, chunks, B, K};
    memcpy(v, head, sizeof head);
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "conductivity", 0, NULL, (int)n, v,
                                   run_identity(s));
  }
  free(v);
  run_checkpoint_done(s, &m, phase);
  return st;
}

void conductivity_checkpoint_read(run_state *s, int M, int C, int starts, conductivity_saved *saved) {
  const char *path = s->args->checkpoint_path;
  int n;
  double *v;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "conductivity", &n, &v));
  const int R = s->deck.conductivity.trace == HM_TRACE_RANDOM ? starts : 0;
  const size_t block = moment_block(M, C);
  const int B = n >= HEAD && v[8] >= 1 && v[8] <= CONDUCTIVITY_BLOCK_MAX && v[8] <= starts ? (int)v[8] : 0;
  const int ok = B && v[8] == B && v[9] >= 1 && v[9] <= M && v[9] == (int)v[9] && v[2] == M && v[3] == C &&
                 v[4] == starts && v[5] == R && (size_t)n == conductivity_checkpoint_values(M, C, B, R) && v[6] >= 0 && v[6] <= starts && v[7] >= 0 &&
                 v[6] == (int)v[6] && v[7] == (int)v[7];
  if (!ok) {
    if (s->rank == 0)
      fprintf(stderr,
              "hamlet: %s holds %d values, not the %d x %d moments of %d component(s) and %d start vectors of its "
              "deck's conductivity run\n",
              path, n, M, M, C, starts);
    free(v);
    hm_app_exit(HM_EXIT_USAGE);
  }
  saved->emin = v[0];
  saved->emax = v[1];
  saved->starts_done = (int)v[6];
  saved->chunks_done = (int)v[7];
  saved->block = B;
  saved->chunk = (int)v[9];
  saved->values = v;
  saved->sum = v + HEAD;
  saved->part = v + HEAD + block;
  saved->per = R ? v + HEAD + (1 + (size_t)B) * block : NULL;
}
