/* hamlet structure tbg M R -o FILE.xyz: a commensurate twisted bilayer graphene cell written as an
 * extended XYZ structure (rank 0 writes; every rank returns the same exit code). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "structure.h"

static void tbg_usage(FILE *f) {
  fprintf(f, "usage: hamlet structure tbg M R -o FILE.xyz [--a A] [--distance D] [--distance-aa D --distance-ab D] "
             "[--vacuum C]\n"
             "  twisted bilayer graphene at cos(theta) = (3M^2 + 3MR + R^2/2) / (3M^2 + 3MR + R^2), 1 <= M, R <= 2000\n"
             "  (M = 31, R = 1: 1.05 degrees, 11908 atoms); lengths in angstrom: graphene's lattice constant A (2.46),\n"
             "  the interlayer distance D (3.35) or D_AA in AA and D_AB in AB regions, the cell height C (20)\n");
}

static int number(const char *flag, const char *text, double *v) {
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  if (end == text || *end || errno || !isfinite(*v) || *v <= 0) {
    fprintf(stderr, "hamlet structure tbg: %s %s: want a positive number (angstrom)\n", flag, text);
    return 0;
  }
  return 1;
}

static int integer(const char *what, const char *text, int *v) {
  char *end;
  errno = 0;
  const long x = strtol(text, &end, 10);
  if (end == text || *end || errno || x < 1 || x > 2000) {
    fprintf(stderr, "hamlet structure tbg: %s = %s: want an integer from 1 to 2000\n", what, text);
    return 0;
  }
  *v = (int)x;
  return 1;
}

/* Parse and write on rank 0: an exit code. */
static int tbg(int argc, char **argv) {
  if (argc < 5) {
    tbg_usage(stderr);
    return HM_EXIT_USAGE;
  }
  int m, r;
  if (!integer("M", argv[3], &m) || !integer("R", argv[4], &r)) return HM_EXIT_USAGE;
  hm_tbg_params p;
  hm_tbg_params_default(&p);
  const char *out = NULL;
  for (int i = 5; i < argc; i++) {
    const char *flag = argv[i];
    if (i + 1 >= argc) {
      fprintf(stderr, "hamlet structure tbg: %s needs a value\n", flag);
      return HM_EXIT_USAGE;
    }
    const char *v = argv[++i];
    double d = 0;
    int ok = 1;
    if (!strcmp(flag, "-o")) out = v;
    else if (!strcmp(flag, "--a")) ok = number(flag, v, &p.a);
    else if (!strcmp(flag, "--distance")) ok = number(flag, v, &d), p.d_aa = p.d_ab = d;
    else if (!strcmp(flag, "--distance-aa")) ok = number(flag, v, &p.d_aa);
    else if (!strcmp(flag, "--distance-ab")) ok = number(flag, v, &p.d_ab);
    else if (!strcmp(flag, "--vacuum")) ok = number(flag, v, &p.vacuum);
    else {
      fprintf(stderr, "hamlet structure tbg: unexpected argument '%s'\n", flag);
      tbg_usage(stderr);
      return HM_EXIT_USAGE;
    }
    if (!ok) return HM_EXIT_USAGE;
  }
  if (!out) {
    fprintf(stderr, "hamlet structure tbg: -o FILE.xyz is required\n");
    return HM_EXIT_USAGE;
  }
  hm_structure s;
  double theta;
  int st = hm_structure_tbg(m, r, &p, &s, &theta);
  if (st) {
    fprintf(stderr, "hamlet structure tbg: %s\n", hm_error_message());
    return hm_app_exit_code(st == HM_ERR_ARGUMENT ? HM_ERR_DECK : st);
  }
  char comment[512];
  snprintf(comment, sizeof comment,
           "twist=\"m %d r %d theta %.12g degrees\" a=%.12g d_aa=%.12g d_ab=%.12g source=\"hamlet structure tbg\"", m,
           r, theta, p.a, p.d_aa, p.d_ab);
  st = hm_structure_write(out, &s, comment);
  if (st) fprintf(stderr, "hamlet structure tbg: %s\n", hm_error_message());
  else
    printf("%s: twisted bilayer graphene (m, r) = (%d, %d), theta = %.6f degrees, %lld atoms, |t1| = %.4f A\n", out, m,
           r, theta, (long long)s.natoms, hypot(s.cell[0][0], s.cell[0][1]));
  hm_structure_free(&s);
  return st ? hm_app_exit_code(st) : HM_EXIT_OK;
}

int hm_app_structure(int argc, char **argv, int rank) {
  int code = HM_EXIT_USAGE;
  if (rank == 0) {
    if (argc > 2 && !strcmp(argv[2], "tbg")) code = tbg(argc, argv);
    else {
      fprintf(stderr, "hamlet structure: the generator to run is missing or unknown (allowed: tbg)\n");
      tbg_usage(stderr);
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}
