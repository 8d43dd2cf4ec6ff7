/* hamlet post OUT.h5 [--energies Emin Emax count] [--temperatures T1,T2,...] [--kernel jackson|lorentz]
 *                    [--lambda L] [--frequencies wmin wmax count] [--eta E] [-o NEW.h5]
 * (argument parsing here; the work in io/conductivity_post.c) recomputes /conductivity/sigma (and its error, where the per-vector moments are stored) from the
 * stored moments on new chemical potentials, temperatures or kernel, without the Hamiltonian. The
 * result goes to NEW.h5 (a copy of OUT.h5 with the new /conductivity/{energy,temperature,sigma,
 * error}, and the optical sigma_omega on new frequencies or the file's), or replaces OUT.h5 through a temporary copy renamed when complete. Rank 0 works.
 * A result of method = spectral gets A(k, E) anew instead (io/spectral_post.c: --energies, --kernel), one
 * of method = evolution its mean-square displacement and sigma(E, t) (io/evolution_post.c: --energies,
 * --kernel, --lambda). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "conductivity_post.h"
#include "evolution_post.h"
#include "spectral_post.h"

static int usage_error(const char *what) {
  fprintf(stderr, "hamlet post: %s\nusage: hamlet post OUT.h5 [--energies Emin Emax count] [--temperatures T1,T2,...] "
          "[--kernel jackson|lorentz] [--lambda L] [--frequencies wmin wmax count] [--eta E] [-o NEW.h5]\n", what);
  return HM_EXIT_USAGE;
}

static int number(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && !*end && isfinite(*v);
}

static int parse(int argc, char **argv, hm_post_args *a) {
  memset(a, 0, sizeof *a);
  a->kernel = -1;
  a->lambda = 4;
  a->eta = -1;
  char msg[512];
  for (int i = 2; i < argc; i++) {
    double c;
    if (!strcmp(argv[i], "--energies")) {
      if (i + 3 >= argc || !number(argv[i + 1], &a->emin) || !number(argv[i + 2], &a->emax) || !number(argv[i + 3], &c) ||
          c != floor(c) || c < 1 || c > 1e7 || !(a->emin <= a->emax) || (c > 1 && a->emin == a->emax))
        return usage_error("--energies needs Emin Emax count: Emin < Emax, count an integer in [1, 10^7]");
      a->nenergy = (int)c;
      i += 3;
    } else if (!strcmp(argv[i], "--frequencies")) {
      if (i + 3 >= argc || !number(argv[i + 1], &a->wmin) || !number(argv[i + 2], &a->wmax) || !number(argv[i + 3], &c) ||
          c != floor(c) || c < 1 || c > 1e7 || !(a->wmin > 0 && a->wmin <= a->wmax) || (c > 1 && a->wmin == a->wmax))
        return usage_error("--frequencies needs wmin wmax count: 0 < wmin < wmax, count an integer in [1, 10^7]");
      a->nfreq = (int)c;
      i += 3;
    } else if (!strcmp(argv[i], "--eta") && i + 1 < argc) {
      if (!number(argv[++i], &a->eta) || a->eta < 0) return usage_error("--eta must be a number >= 0");
    } else if (!strcmp(argv[i], "--temperatures") && i + 1 < argc) {
      char *copy = strdup(argv[++i]), *save = NULL;
      for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        double T;
        if (a->ntemp == 64 || !number(t, &T) || T < 0) {
          snprintf(msg, sizeof msg, "--temperatures %s: 1 to 64 numbers >= 0, separated by commas", argv[i]);
          free(copy);
          return usage_error(msg);
        }
        a->temps[a->ntemp++] = T;
      }
      free(copy);
      if (!a->ntemp) return usage_error("--temperatures is empty: give 1 to 64 numbers >= 0");
    } else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
      i++;
      if (!strcmp(argv[i], "jackson")) a->kernel = HM_KERNEL_JACKSON;
      else if (!strcmp(argv[i], "lorentz")) a->kernel = HM_KERNEL_LORENTZ;
      else {
        snprintf(msg, sizeof msg, "--kernel %s: allowed are jackson and lorentz", argv[i]);
        return usage_error(msg);
      }
    } else if (!strcmp(argv[i], "--lambda") && i + 1 < argc) {
      if (!number(argv[++i], &a->lambda) || a->lambda <= 0) return usage_error("--lambda must be a number > 0");
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      a->out = argv[++i];
    } else if (!a->in && argv[i][0] != '-') {
      a->in = argv[i];
    } else {
      snprintf(msg, sizeof msg, "unexpected argument '%s'", argv[i]);
      return usage_error(msg);
    }
  }
  if (!a->in) return usage_error("no result file given");
  return HM_EXIT_OK;
}

int hm_app_post(int argc, char **argv, int rank) {
  int code = HM_EXIT_OK;
  if (rank == 0) {
    hm_post_args a;
    code = parse(argc, argv, &a);
    char summary[4400] = "";
    if (code == HM_EXIT_OK) {
      int st = hm_spectral_post_applies(a.in)    ? hm_spectral_post(&a, summary, sizeof summary)
               : hm_evolution_post_applies(a.in) ? hm_evolution_post(&a, summary, sizeof summary)
                                                 : hm_conductivity_post(&a, summary, sizeof summary);
      if (st) fprintf(stderr, "hamlet post: %s", hm_error_message());
      else printf("hamlet post: %s\n", summary);
      code = st ? hm_app_exit_code(st) : HM_EXIT_OK;
      hm_error_clear();
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}
