/* /eigen of a shift-and-invert run: the eigenvalues nearest the shift with the true residuals of
 * A x = lambda B x (relative and norm-relative), the transform, its factorization and LOBPCG's
 * convergence on the transformed operator (which decides the exit status). */
#include <math.h>
#include "lobpcg_report.h"
#include "run_lobpcg_transform.h"

static const char *const energy_unit = "energy (units of the Hamiltonian)";

static const char *stop_word(hm_lobpcg_reason r) {
  return r == HM_LOBPCG_CONVERGED ? "converged" : r == HM_LOBPCG_MAXIT ? "maxit" : r == HM_LOBPCG_STAGNATED ? "stagnated" : "not run";
}

void run_write_shift_invert(run_state *s, hm_output *out, hm_lobpcg *lob, hm_shift_invert *si, hm_matrix *H) {
  const int nev = s->deck.solver.nev;
  hm_lobpcg_options opt;
  int iterations, converged;
  hm_lobpcg_reason reason;
  APP_CALL(hm_lobpcg_options_get(lob, &opt));
  APP_CALL(hm_lobpcg_info(lob, &iterations, &converged, &reason));
  const hm_dist *dist;
  hm_scalar type;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
  hm_mvec *X, *V = NULL;
  APP_CALL(hm_mvec_create(s->ctx, dist, type, opt.block, &X));
  APP_CALL(hm_lobpcg_eigenvectors(lob, X));
  if (s->deck.solver.vectors) APP_CALL(hm_mvec_create(s->ctx, dist, type, nev, &V));
  double *values = malloc(sizeof(double) * nev), *rel = malloc(sizeof(double) * nev);
  double *nrm = malloc(sizeof(double) * nev), *inner = malloc(sizeof(double) * nev), norms[2];
  APP_CALL(hm_shift_invert_ritz(si, X, nev, values, rel, nrm, norms, V));
  APP_CALL(hm_lobpcg_residuals(lob, inner));
  run_write_pairs(s, out, values, rel, nrm, V);
  const int64_t dims = nev;
  APP_CALL(hm_output_write_array(out, "/eigen/residuals_transformed", HM_REAL, 1, &dims, inner, "1",
                                 "LOBPCG's relative residuals on the transformed operator (the convergence test)"));
  int definite;
  APP_CALL(hm_shift_invert_info(si, NULL, &definite, NULL, NULL, NULL));
  run_transform_info ti;
  run_write_transform(s, out, si, "lobpcg",
                      definite ? "B (A - shift B)^-1 B" : "B ((A - shift B)^-1 B)^2 (shift inside the spectrum)", norms,
                      &ti);
  hm_lobpcg_report rep; /* the transformed operator's norm of LOBPCG's NORM test: from its Ritz pairs */
  APP_CALL(hm_lobpcg_convergence_report(lob, &rep, NULL));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "norm_T_estimate", rep.norm_a));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "stopped", stop_word(reason)));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "iterations", iterations));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "converged", converged));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "tol", s->deck.solver.tol));
  if (s->rank == 0) {
    printf("  lobpcg       shift-and-invert at %.10g (%s, %s): %d iterations, %d of %d converged (%s), tol %g\n",
           s->deck.solver.shift, ti.method, definite ? "definite" : "indefinite", iterations, converged, nev,
           stop_word(reason), s->deck.solver.tol);
  }
  run_print_transform_summary(s, &ti, values, nrm);
  hm_mvec_destroy(&V);
  hm_mvec_destroy(&X);
  free(values), free(rel), free(nrm), free(inner);
}

void run_write_transform(run_state *s, hm_output *out, hm_shift_invert *si, const char *outer, const char *op,
                         const double *norms, run_transform_info *ti) {
  double rcond, fill;
  APP_CALL(hm_shift_invert_info(si, &ti->method, &ti->definite, &rcond, &fill, &ti->solves));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "method", "lobpcg"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "outer", outer));
  static const char *const asked[] = {"lobpcg", "krylov_schur", "auto"};
  APP_CALL(hm_output_write_attribute(out, "/eigen", "outer_requested", asked[s->deck.solver.outer]));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "which", "nearest"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "transform", "shift_invert"));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "shift", s->deck.solver.shift));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "factorization", ti->method));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "transformed_operator", op));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "factor_rcond", rcond));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "factor_nnz", fill));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "inner_solves", (double)ti->solves));
  double inner_tol;
  APP_CALL(hm_shift_invert_inner_info(si, &ti->iterative, &ti->inner_iterations, &ti->inner_worst, &inner_tol));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "inner", ti->iterative ? "iterative" : "direct"));
  if (ti->iterative) {
    APP_CALL(hm_output_write_attribute_double(out, "/eigen", "inner_iterations", (double)ti->inner_iterations));
    APP_CALL(hm_output_write_attribute_double(out, "/eigen", "inner_residual_max", ti->inner_worst));
    APP_CALL(hm_output_write_attribute_double(out, "/eigen", "inner_tol_final", inner_tol));
  }
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "norm_A_estimate", norms[0]));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "norm_B_estimate", norms[1]));
}

void run_print_transform_summary(const run_state *s, const run_transform_info *ti, const double *values,
                                 const double *nrm) {
  if (s->rank != 0) return;
  const int nev = s->deck.solver.nev;
  if (ti->iterative)
    printf("  inner        %s: %lld solves, %lld iterations (%.1f per solve), worst true residual %.3g\n", ti->method,
           (long long)ti->solves, (long long)ti->inner_iterations,
           ti->solves ? (double)ti->inner_iterations / (double)ti->solves : 0.0, ti->inner_worst);
  printf("  eigenvalues ");
  for (int i = 0; i < nev && i < 8; i++) printf(" %.12g", values[i]);
  printf("%s\n", nev > 8 ? " ..." : "");
  double worst = 0;
  for (int i = 0; i < nev; i++) worst = fmax(worst, nrm[i]);
  printf("  residuals    worst ||Ax - lambda Bx|| / ((||A|| + |lambda| ||B||) ||x||) = %.3g\n", worst);
}

void run_write_pairs(run_state *s, hm_output *out, const double *values, const double *rel, const double *nrm,
                     hm_mvec *V) {
  const int64_t dims = s->deck.solver.nev;
  APP_CALL(hm_output_write_array(out, "/eigen/values", HM_REAL, 1, &dims, values, energy_unit,
                                 "the nev eigenvalues nearest the shift, ascending"));
  APP_CALL(hm_output_write_array(out, "/eigen/residuals", HM_REAL, 1, &dims, rel, "1",
                                 "relative residuals ||Ax - lambda Bx|| / (|lambda| ||Bx||) of the original problem"));
  APP_CALL(hm_output_write_array(out, "/eigen/residuals_norm", HM_REAL, 1, &dims, nrm, "1",
                                 "norm-relative residuals ||Ax - lambda Bx|| / ((||A||_est + |lambda| ||B||_est) ||x||)"));
  if (V) APP_CALL(hm_output_write_mvec(out, "/eigen/vectors", V, "1", "eigenvectors, B-orthonormal (column j: pair j)"));
}
