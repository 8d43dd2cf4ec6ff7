/* Checkpoints of a Green's-function run: after a finished energy, every result of the energies done
 * so far (z, G, the solver's figures, the LDOS) as the solver checkpoint's scalars, with no blocks:
 * a restart continues at the next energy and ends with the /green of an uninterrupted run. */
#include <string.h>
#include "checkpoint_state.h"
#include "run_green.h"

enum { HEAD = 3 }; /* done, energies, systems per energy */

static int per_energy(const green_results *g) { return 3 + 5 * g->k + g->ns; }

int green_checkpoint_write(run_state *s, const green_results *g, int done) {
  run_mark m = {0};
  run_mark_now(s, &m);
  const int per = per_energy(g), n = HEAD + done * per;
  double *v = malloc(sizeof(double) * (size_t)n), *p = v + HEAD;
  if (!v) return HM_ERR_MEMORY;
  v[0] = done;
  v[1] = g->ne;
  v[2] = g->k;
  for (int e = 0; e < done; e++) {
    const size_t ek = (size_t)e * g->k;
    *p++ = g->energy[e];
    *p++ = creal(g->z[e]);
    *p++ = cimag(g->z[e]);
    for (int j = 0; j < g->k; j++) {
      *p++ = creal(g->G[ek + j]);
      *p++ = cimag(g->G[ek + j]);
    }
    memcpy(p, g->iterations + ek, sizeof(double) * g->k), p += g->k;
    memcpy(p, g->converged + ek, sizeof(double) * g->k), p += g->k;
    memcpy(p, g->true_residual + ek, sizeof(double) * g->k), p += g->k;
    memcpy(p, g->rho + (size_t)e * g->ns, sizeof(double) * g->ns), p += g->ns;
  }
  const int st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "green", 0, NULL, n, v,
                                           run_identity(s));
  free(v);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

void green_checkpoint_restore(run_state *s, green_results *g, int *done) {
  const char *path = s->args->checkpoint_path;
  int n;
  double *v;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "green", &n, &v));
  const int per = per_energy(g);
  const int ok = n >= HEAD && v[1] == g->ne && v[2] == g->k && v[0] >= 0 && v[0] <= g->ne && v[0] == (int)v[0] &&
                 n == HEAD + (int)v[0] * per;
  if (!ok) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s holds %d values, not the %d energies x %d systems of its deck's Green's-function run\n",
              path, n, g->ne, g->k);
    hm_app_exit(HM_EXIT_USAGE);
  }
  *done = (int)v[0];
  const double *p = v + HEAD;
  for (int e = 0; e < *done; e++) {
    const size_t ek = (size_t)e * g->k;
    g->energy[e] = *p++;
    g->z[e] = CMPLX(p[0], p[1]), p += 2;
    for (int j = 0; j < g->k; j++, p += 2) g->G[ek + j] = CMPLX(p[0], p[1]);
    memcpy(g->iterations + ek, p, sizeof(double) * g->k), p += g->k;
    memcpy(g->converged + ek, p, sizeof(double) * g->k), p += g->k;
    memcpy(g->true_residual + ek, p, sizeof(double) * g->k), p += g->k;
    memcpy(g->rho + (size_t)e * g->ns, p, sizeof(double) * g->ns), p += g->ns;
    for (int j = 0; j < g->k; j++) g->all_converged &= g->converged[ek + j] != 0;
  }
  free(v);
}
