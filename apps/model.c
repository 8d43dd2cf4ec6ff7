/* The deck's Hamiltonian: built distributed by physics/, described in /hamiltonian and the summary. */
#include <math.h>
#include "fem_grid.h"
#include "run_spectral.h" /* HM_SPECTRAL_MAX_WIDTH */
#include "run_state.h"

static const char *const model_name[] = {"ti", "fem", "mtx", "convdiff", "lattice", "structure"};

void run_build_model(run_state *s, hm_matrix **H, hm_matrix **M) {
  hm_deck *d = &s->deck;
  *M = NULL;
  s->site_orbitals = 4; /* the ti's; a lattice model sets its own */
  switch (d->model) {
    case HM_MODEL_TI: {
      /* a GPU rank's KPM products take all R vectors at once: its rows are traversed in tiles cut
       * for that width (the matrix is the same) */
      hm_backend backend;
      APP_CALL(hm_context_backend(s->ctx, &backend));
      d->ti.block_width = backend != HM_BACKEND_CUDA                ? 0
                          : d->solver.method == HM_METHOD_KPM      ? d->kpm.vectors
                          : d->solver.method == HM_METHOD_SPECTRAL ? HM_SPECTRAL_MAX_WIDTH
                                                                   : 0;
      run_check_ti_size(s, backend == HM_BACKEND_CUDA ? 0 : 7); /* CSR on the host: 7 sites' entries per row at the least */
      APP_CALL(hm_ti_build(s->ctx, &d->ti, H));
      break;
    }
    case HM_MODEL_FEM: {
      double *grid = NULL;
      if (d->fem.potential == HM_FEM_POTENTIAL_GRID) {
        int64_t dims[3];
        APP_CALL(hm_fem_grid_read(s->ctx, d->grid_file, d->grid_dataset, dims, &grid));
        d->fem.gx = dims[0];
        d->fem.gy = dims[1];
        d->fem.gz = dims[2];
        d->fem.grid = grid;
      }
      APP_CALL(hm_fem_build(s->ctx, &d->fem, H, M));
      d->fem.grid = NULL; /* used by the build only */
      free(grid);
      break;
    }
    case HM_MODEL_MTX:
      run_check_mtx_size(s);
      APP_CALL(hm_mtx_read(s->ctx, d->matrix_file, H));
      if (d->mass_file[0]) APP_CALL(hm_mtx_read(s->ctx, d->mass_file, M));
      break;
    case HM_MODEL_CONVDIFF:
      APP_CALL(hm_convdiff_build(s->ctx, &d->convdiff, H));
      break;
    case HM_MODEL_LATTICE:
      run_build_lattice(s, H);
      break;
    case HM_MODEL_STRUCTURE:
      run_build_structure(s, H);
      break;
  }
  APP_CALL(hm_matrix_set_format(*H, (hm_format)d->gpu_format, d->sell_sigma)); /* the default keeps the copy made */
  if (*M) APP_CALL(hm_matrix_set_format(*M, (hm_format)d->gpu_format, d->sell_sigma));
}

/* Named numbers as attributes of /hamiltonian. */
static void attributes(run_state *s, hm_output *out, int n, const char *const *names, const double *values) {
  for (int i = 0; i < n; i++) APP_CALL(hm_output_write_attribute_double(out, "/hamiltonian", names[i], values[i]));
}

void run_write_model(run_state *s, hm_output *out, const hm_matrix *H) {
  hm_deck *d = &s->deck;
  if (d->model == HM_MODEL_TI) {
    APP_CALL(hm_output_write_ti(out, &d->ti, H));
    return;
  }
  if (d->model == HM_MODEL_LATTICE) {
    run_write_lattice(s, out, H);
    return;
  }
  if (d->model == HM_MODEL_STRUCTURE) {
    run_write_structure(s, out, H);
    return;
  }
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "model", model_name[d->model]));
  const char *const size_names[] = {"N", "nnz"};
  const double size[] = {(double)n, (double)nnz};
  attributes(s, out, 2, size_names, size);
  if (d->model == HM_MODEL_FEM) {
    const hm_fem_params *f = &d->fem;
    static const char *const kinds[] = {"none", "harmonic", "sphere well", "box well", "grid"};
    APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "description",
                                       "Q1 finite elements of -1/2 laplacian + V on a box, Dirichlet; K x = E M x"));
    APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "potential", kinds[f->potential]));
    const char *const names[] = {"ex", "ey", "ez", "lx", "ly", "lz", "omega_x", "omega_y", "omega_z", "well_depth",
                                 "well_radius", "well_size_x", "well_size_y", "well_size_z"};
    const double values[] = {(double)f->ex, (double)f->ey, (double)f->ez, f->lx, f->ly, f->lz, f->omega[0], f->omega[1],
                             f->omega[2], f->well_depth, f->well_radius, f->well_size[0], f->well_size[1], f->well_size[2]};
    attributes(s, out, 14, names, values);
    if (f->potential == HM_FEM_POTENTIAL_GRID) APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "grid_file", d->grid_file));
  } else if (d->model == HM_MODEL_MTX) {
    APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "description", "Matrix Market files"));
    APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "matrix", d->matrix_file));
    if (d->mass_file[0]) APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "mass", d->mass_file));
  } else {
    const hm_convdiff_params *c = &d->convdiff;
    APP_CALL(hm_output_write_attribute(out, "/hamiltonian", "description",
                                       "-eps laplacian u + beta . grad u + r u on the unit cube, central differences"));
    const char *const names[] = {"n", "eps", "beta_x", "beta_y", "beta_z", "r"};
    const double values[] = {(double)c->n, c->eps, c->beta[0], c->beta[1], c->beta[2], c->r};
    attributes(s, out, 6, names, values);
  }
}

void run_print_model(const run_state *s, const hm_matrix *H) {
  int64_t n, nnz;
  hm_matrix_info(H, &n, &nnz, NULL);
  const hm_deck *d = &s->deck;
  printf("  hamiltonian  ");
  if (d->model == HM_MODEL_TI) {
    const hm_ti_params *p = &d->ti;
    const char *bc[2] = {"periodic", "open"};
    printf("ti %lld x %lld x %lld (%s %s %s), t = %g, m = %g", (long long)p->nx, (long long)p->ny, (long long)p->nz,
           bc[p->boundary[0]], bc[p->boundary[1]], bc[p->boundary[2]], p->t, p->m);
  } else if (d->model == HM_MODEL_LATTICE) {
    run_print_lattice(s);
  } else if (d->model == HM_MODEL_STRUCTURE) {
    run_print_structure(s);
  } else if (d->model == HM_MODEL_FEM) {
    const hm_fem_params *f = &d->fem;
    printf("fem %lld x %lld x %lld elements on %g x %g x %g", (long long)f->ex, (long long)f->ey, (long long)f->ez,
           f->lx, f->ly, f->lz);
  } else if (d->model == HM_MODEL_MTX) {
    printf("mtx %s%s%s", d->matrix_file, d->mass_file[0] ? ", mass " : "", d->mass_file);
  } else {
    const hm_convdiff_params *c = &d->convdiff;
    printf("convdiff n = %lld, eps = %g, beta = (%g, %g, %g), r = %g", (long long)c->n, c->eps, c->beta[0], c->beta[1],
           c->beta[2], c->r);
  }
  printf(": N = %lld, nnz = %lld (%.1f per row)\n", (long long)n, (long long)nnz, (double)nnz / (double)n);
}
