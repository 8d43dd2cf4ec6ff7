/* hm_output end to end: a TI lattice, a small KPM run and its DOS written collectively, read back
 * on rank 0 with the plain HDF5 C API and checked value by value against what the API returned
 * (exact equality: the file must hold the same doubles); the atomic commit (.tmp before, final
 * name after), destroy removing the .tmp, and the errors users meet. Leaves output_np<ranks>.h5
 * for the h5dump and plot tests. */
#include <stdio.h>
#include "compare.h"
#include "test_output_util.h"

enum { M = 32, R = 4, P = 64 };
static const char *deck = "[lattice]\nnx = 4\nny = 4\nnz = 2\n\n[kpm]\nmoments = 32\n";

typedef struct {
  hm_ti_params p;
  hm_matrix *H;
  hm_kpm *kpm;
  hm_dos *dos;
  hm_dos_options dopt;
  double mu[M], mu_vec[R * M], scale, shift, emin, emax, energy[P], rho[P], err[P];
  int64_t n, nnz;
} run;

static void make_run(hm_context *ctx, run *r) {
  hm_ti_params_default(&r->p);
  r->p.nx = 4; r->p.ny = 4; r->p.nz = 2;
  r->p.boundary[2] = HM_BC_OPEN;
  r->p.disorder_w = 0.5;
  r->p.disorder_seed = 3;
  HM_TEST_OK(hm_ti_build(ctx, &r->p, &r->H));
  HM_TEST_OK(hm_matrix_info(r->H, &r->n, &r->nnz, NULL));
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M; opt.vectors = R; opt.seed = 5; opt.bounds = HM_BOUNDS_GERSHGORIN;
  HM_TEST_OK(hm_kpm_create(r->H, &opt, &r->kpm));
  HM_TEST_OK(hm_kpm_run(r->kpm));
  HM_TEST_OK(hm_kpm_moments(r->kpm, r->mu, r->mu_vec));
  HM_TEST_OK(hm_kpm_info(r->kpm, NULL, NULL, NULL, &r->scale, &r->shift, NULL));
  HM_TEST_OK(hm_kpm_interval(r->kpm, &r->emin, &r->emax));
  hm_dos_options_default(&r->dopt);
  r->dopt.points = P;
  r->dopt.kernel = HM_KERNEL_LORENTZ;
  r->dopt.lorentz_lambda = 3.5;
  HM_TEST_OK(hm_dos_create(M, R, r->mu_vec, r->scale, r->shift, r->n, &r->dopt, &r->dos));
  HM_TEST_OK(hm_dos_get(r->dos, r->energy, r->rho, r->err));
}

static void write_all(hm_context *ctx, run *r, const char *path, double build_seconds) {
  char tmp[256];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int rank;
  hm_context_rank(ctx, &rank, NULL);
  hm_output *out = NULL;
  HM_TEST_OK(hm_output_create(ctx, path, &out));
  if (!out) return;
  HM_TEST_OK(hm_output_write_input(out, deck));
  HM_TEST_OK(hm_output_write_provenance(out));
  HM_TEST_OK(hm_output_write_ti(out, &r->p, r->H));
  HM_TEST_OK(hm_output_write_kpm(out, r->kpm, &r->dopt));
  HM_TEST_OK(hm_output_write_dos(out, r->dos));
  HM_TEST_OK(hm_output_write_scalar(out, "/timing/build", build_seconds, "s"));
  HM_TEST_OK(hm_output_write_scalar(out, "/timing/kpm/moments", 0.25, "s"));
  HM_TEST_OK(hm_output_write_scalar(out, "/energy_per_moment", 3.0, "J"));
  HM_TEST_FAILS(hm_output_write_scalar(out, "/timing/build", 1.0, "s"), HM_ERR_ARGUMENT, "already");
  HM_TEST_FAILS(hm_output_write_scalar(out, "timing/x", 1.0, "s"), HM_ERR_ARGUMENT, "absolute");
  HM_TEST_FAILS(hm_output_write_scalar(out, "/timing/", 1.0, "s"), HM_ERR_ARGUMENT, "end in a name");
  HM_TEST_FAILS(hm_output_write_scalar(out, "/timing//x", 1.0, "s"), HM_ERR_ARGUMENT, "end in a name");
  HM_TEST_FAILS(hm_output_write_scalar(out, "/timing/build/x", 1.0, "s"), HM_ERR_ARGUMENT, "is not a group");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    HM_TEST_ASSERT(file_exists(tmp), "%s missing before commit", tmp);
    HM_TEST_ASSERT(!file_exists(path), "%s exists before commit", path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  HM_TEST_OK(hm_output_commit(&out));
  HM_TEST_ASSERT(out == NULL, "commit did not null the handle");
  if (rank == 0) {
    HM_TEST_ASSERT(!file_exists(tmp), "%s left after commit", tmp);
    HM_TEST_ASSERT(file_exists(path), "%s missing after commit", path);
  }
}

static void check_provenance(hid_t f, int size) {
  char s[512];
  HM_TEST_ASSERT(t_attr_string(f, "/provenance", "version", s, sizeof s) == 0 && !strcmp(s, hm_version()),
                 "version '%s', expected '%s'", s, hm_version());
  HM_TEST_ASSERT(t_attr_int(f, "/provenance", "ranks") == size, "ranks %lld, expected %d", t_attr_int(f, "/provenance", "ranks"), size);
  HM_TEST_ASSERT(t_attr_int(f, "/provenance", "threads") >= 1, "threads %lld", t_attr_int(f, "/provenance", "threads"));
  HM_TEST_ASSERT(t_attr_string(f, "/provenance", "backend", s, sizeof s) == 0 && !strcmp(s, "cpu"), "backend '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/provenance", "date", s, sizeof s) == 0 && strlen(s) == 20 && s[4] == '-' &&
                     s[10] == 'T' && s[19] == 'Z', "date '%s' is not ISO 8601 UTC", s);
  HM_TEST_ASSERT(t_attr_string(f, "/provenance", "host", s, sizeof s) == 0 && s[0], "host '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/provenance", "git_commit", s, sizeof s) == 0 && s[0], "git_commit '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/provenance", "mpi_library", s, sizeof s) == 0 && strstr(s, "MPICH"),
                 "mpi_library '%s' does not name MPICH", s);
}

static void check_hamiltonian(hid_t f, const run *r) {
  char s[64];
  HM_TEST_ASSERT(t_attr_string(f, "/hamiltonian", "model", s, sizeof s) == 0 && !strcmp(s, "ti"), "model '%s'", s);
  HM_TEST_ASSERT(t_attr_int(f, "/hamiltonian", "N") == r->n, "N %lld, expected %lld", t_attr_int(f, "/hamiltonian", "N"), (long long)r->n);
  HM_TEST_ASSERT(r->n == 4 * 4 * 4 * 2, "the TI lattice has %lld rows, expected 4 orbitals x 32 sites", (long long)r->n);
  HM_TEST_ASSERT(t_attr_int(f, "/hamiltonian", "nnz") == r->nnz, "nnz %lld, expected %lld",
                 t_attr_int(f, "/hamiltonian", "nnz"), (long long)r->nnz);
  HM_TEST_ASSERT(t_attr_int(f, "/hamiltonian", "nx") == 4 && t_attr_int(f, "/hamiltonian", "nz") == 2, "nx, nz wrong");
  HM_TEST_ASSERT(t_attr_double(f, "/hamiltonian", "m") == r->p.m && t_attr_double(f, "/hamiltonian", "disorder_w") == 0.5,
                 "m or disorder_w wrong");
  HM_TEST_ASSERT(t_attr_string(f, "/hamiltonian", "boundary_z", s, sizeof s) == 0 && !strcmp(s, "open"), "boundary_z '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/hamiltonian", "boundary_x", s, sizeof s) == 0 && !strcmp(s, "periodic"), "boundary_x '%s'", s);
}

static void check_kpm(hid_t f, const run *r) {
  double mu[M], mu_vec[R * M];
  char s[64];
  HM_TEST_ASSERT(t_read_doubles(f, "/kpm/moments", mu, M) == M, "/kpm/moments unreadable or not %d values", M);
  HM_TEST_ASSERT(t_read_doubles(f, "/kpm/moments_per_vector", mu_vec, R * M) == R * M, "/kpm/moments_per_vector size");
  int same = 1;
  for (int i = 0; i < M; i++) same &= mu[i] == r->mu[i];
  for (int i = 0; i < R * M; i++) same &= mu_vec[i] == r->mu_vec[i];
  HM_TEST_ASSERT(same, "moments in the file differ from hm_kpm_moments");
  HM_TEST_ASSERT(fabs(mu[0] - 1) < 1e-14, "moment 0 = %.17g, expected 1", mu[0]);
  HM_TEST_ASSERT(t_attr_double(f, "/kpm", "scale") == r->scale && t_attr_double(f, "/kpm", "shift") == r->shift &&
                     t_attr_double(f, "/kpm", "emin") == r->emin && t_attr_double(f, "/kpm", "emax") == r->emax,
                 "interval attributes differ from the kpm's");
  HM_TEST_ASSERT(t_attr_int(f, "/kpm", "moments") == M && t_attr_int(f, "/kpm", "vectors") == R &&
                     t_attr_int(f, "/kpm", "seed") == 5, "moments / vectors / seed attributes wrong");
  HM_TEST_ASSERT(t_attr_string(f, "/kpm", "kernel", s, sizeof s) == 0 && !strcmp(s, "lorentz"), "kernel '%s'", s);
  HM_TEST_ASSERT(t_attr_double(f, "/kpm", "lambda") == 3.5, "lambda %g", t_attr_double(f, "/kpm", "lambda"));
  HM_TEST_ASSERT(t_attr_string(f, "/kpm", "bounds", s, sizeof s) == 0 && !strcmp(s, "gershgorin"), "bounds '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/kpm/moments", "unit", s, sizeof s) == 0 && !strcmp(s, "1"), "moments unit '%s'", s);
}

static void check_dos(hid_t f, const run *r) {
  double e[P], rho[P], err[P];
  char s[64];
  HM_TEST_ASSERT(t_read_doubles(f, "/dos/energy", e, P) == P && t_read_doubles(f, "/dos/rho", rho, P) == P &&
                     t_read_doubles(f, "/dos/error", err, P) == P, "/dos datasets unreadable or not %d values", P);
  int same = 1;
  for (int i = 0; i < P; i++) same &= e[i] == r->energy[i] && rho[i] == r->rho[i] && err[i] == r->err[i];
  HM_TEST_ASSERT(same, "/dos differs from hm_dos_get");
  HM_TEST_ASSERT(t_attr_string(f, "/dos", "normalization", s, sizeof s) == 0 && !strcmp(s, "states"), "normalization '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/dos/energy", "unit", s, sizeof s) == 0 && !strcmp(s, "energy (units of t)"), "energy unit '%s'", s);
  HM_TEST_ASSERT(t_attr_string(f, "/dos/rho", "unit", s, sizeof s) == 0 && strstr(s, "states"), "rho unit '%s'", s);
}

/* Every dataset carries a "unit" attribute. */
static herr_t has_unit(hid_t obj, const char *name, const H5L_info_t *info, void *missing) {
  (void)info;
  hid_t o = H5Oopen(obj, name, H5P_DEFAULT);
  if (H5Iget_type(o) == H5I_DATASET && H5Aexists(o, "unit") <= 0) {
    fprintf(stderr, "dataset /%s has no unit attribute\n", name);
    (*(int *)missing)++;
  }
  H5Oclose(o);
  return 0;
}

static void check_file(const char *path, const run *r, int size) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  HM_TEST_ASSERT(f >= 0, "cannot open %s", path);
  if (f < 0) return;
  char text[512];
  hid_t d = H5Dopen2(f, "/input", H5P_DEFAULT), t = H5Dget_type(d), m = H5Tcopy(H5T_C_S1);
  H5Tset_size(m, sizeof text);
  H5Tset_strpad(m, H5T_STR_NULLTERM);
  HM_TEST_ASSERT(H5Dread(d, m, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) >= 0 && !strcmp(text, deck), "/input is '%s'", text);
  H5Tclose(m); H5Tclose(t); H5Dclose(d);
  int missing = 0;
  H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, has_unit, &missing);
  HM_TEST_ASSERT(missing == 0, "%d datasets without a unit", missing);
  check_provenance(f, size);
  check_hamiltonian(f, r);
  check_kpm(f, r);
  check_dos(f, r);
  double v[1];
  char s[16];
  HM_TEST_ASSERT(t_read_doubles(f, "/timing/build", v, 1) == 1 && v[0] == 1.5, "/timing/build %g", v[0]);
  HM_TEST_ASSERT(t_read_doubles(f, "/timing/kpm/moments", v, 1) == 1 && v[0] == 0.25, "/timing/kpm/moments %g", v[0]);
  HM_TEST_ASSERT(t_attr_string(f, "/energy_per_moment", "unit", s, sizeof s) == 0 && !strcmp(s, "J"), "unit '%s'", s);
  H5Fclose(f);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  int rank, size;
  hm_context_rank(ctx, &rank, &size);
  char path[64], path_b[64], gone[64], gone_tmp[80];
  snprintf(path, sizeof path, "output_np%d.h5", size);
  snprintf(path_b, sizeof path_b, "output_np%d_b.h5", size);
  snprintf(gone, sizeof gone, "destroyed_np%d.h5", size);
  snprintf(gone_tmp, sizeof gone_tmp, "%s.tmp", gone);
  if (rank == 0) { remove(path); remove(path_b); remove(gone); }
  MPI_Barrier(MPI_COMM_WORLD);

  run r;
  make_run(ctx, &r);
  write_all(ctx, &r, path, 1.5);
  write_all(ctx, &r, path_b, 2.5); /* differs only in a timing */
  if (rank == 0) {
    check_file(path, &r, size);
    int equal = 0;
    HM_TEST_OK(hm_compare_files(path, path_b, 0, 0, NULL, &equal));
    HM_TEST_ASSERT(equal, "files differing only in /timing compare as different");
  }

  /* destroy: the .tmp goes, nothing appears under the final name */
  hm_output *out = NULL;
  HM_TEST_OK(hm_output_create(ctx, gone, &out));
  HM_TEST_OK(hm_output_write_input(out, deck));
  HM_TEST_OK(hm_output_destroy(&out));
  HM_TEST_ASSERT(out == NULL, "destroy did not null the handle");
  if (rank == 0) HM_TEST_ASSERT(!file_exists(gone) && !file_exists(gone_tmp), "destroy left %s or its .tmp", gone);

  HM_TEST_FAILS(hm_output_create(ctx, "no_such_dir/x.h5", &out), HM_ERR_IO, "no_such_dir/x.h5.tmp");
  HM_TEST_ASSERT(out == NULL, "failed create left a handle");
  HM_TEST_FAILS(hm_output_commit(&out), HM_ERR_ARGUMENT, "NULL");

  hm_dos_destroy(&r.dos);
  hm_kpm_destroy(&r.kpm);
  hm_matrix_destroy(&r.H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
