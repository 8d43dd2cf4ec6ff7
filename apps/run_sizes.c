/* The size the deck implies (its lattice, or a Matrix Market file's size line), checked before
 * anything is built: the rows one rank would own against the 32-bit local row limit (linalg/core/
 * dist.c) and against the host memory its matrix and two vectors need at the least, and nev against
 * what the eigensolver can hold in that many rows. A refusal names the
 * deck's line (and the model file's) and ends every rank with exit 2; every rank decides the same. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include "dense_internal.h"
#include "mtx_internal.h"
#include "run_lobpcg_transform.h"
#include "run_state.h"

/* hm_dist_create refuses local >= INT32_MAX; beyond 2^62 rows even the global indices overflow. */
static const double local_row_limit = (double)INT32_MAX - 1, global_row_limit = 0x1p62;

static _Noreturn void refuse(const run_state *s, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void refuse(const run_state *s, int line, const char *fmt, ...) {
  if (s->rank == 0) {
    fprintf(stderr, "hamlet: %s:%d: ", s->deck.name, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
  }
  hm_app_exit(HM_EXIT_USAGE);
}

/* The most rows one rank would own when n rows are split in whole blocks as hm_dist_create splits
 * them (shares proportional to the ranks' weights, cumulative shares rounded). Collective. */
static double largest_share(const run_state *s, double n, double block) {
  double w = 1, *all = malloc(sizeof(double) * (size_t)s->size);
  MPI_Comm comm;
  APP_CALL(all == NULL || hm_context_weight(s->ctx, &w));
  APP_CALL(hm_context_comm(s->ctx, &comm));
  MPI_Allgather(&w, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, comm);
  double total = 0, cum = 0, prev = 0, most = 0;
  for (int r = 0; r < s->size; r++) total += all[r];
  const double nblocks = n / block;
  for (int r = 0; r < s->size; r++) {
    cum += all[r];
    const double b = r == s->size - 1 ? nblocks : round(nblocks * (cum / total));
    most = fmax(most, (b - prev) * block);
    prev = b;
  }
  free(all);
  return most;
}

/* LOBPCG's basis [X P W] holds 3 x block vectors in n rows; Krylov-Schur at most n - 1 pairs. */
static void check_nev(const run_state *s, double n, int size_line, const char *what) {
  const hm_deck *d = &s->deck;
  if (d->solver.method != HM_METHOD_LOBPCG) return;
  const int nev = d->solver.nev, given = hm_deck_line(d, "solver", "nev");
  const int line = given ? given : hm_deck_line(d, "solver", "method");
  char where[96];
  snprintf(where, sizeof where, "(from %s, line %d)", what, size_line);
  if (d->solver.transform && run_outer_is_krylov_schur(s)) {
    if (nev < n) return;
    refuse(s, line, "[solver] nev = %d%s: the matrix has N = %.0f rows %s; Krylov-Schur finds at most N - 1 = %.0f "
           "eigenpairs (method = dense gives all N)", nev, given ? "" : " (the default)", n, where, n - 1);
  }
  if (d->solver.block) {
    if (3.0 * d->solver.block <= n) return;
    refuse(s, hm_deck_line(d, "solver", "block"), "[solver] block = %d: LOBPCG's basis [X P W] of 3 x block = %d "
           "vectors must fit in the matrix's N = %.0f rows %s: block at most %.0f, and nev at most block "
           "(method = dense gives all N eigenvalues)", d->solver.block, 3 * d->solver.block, n, where, floor(n / 3));
  }
  const int block = nev + (nev / 4 > 2 ? nev / 4 : 2);
  if (3.0 * block <= n) return;
  int most = nev;
  while (most >= 1 && 3.0 * (most + (most / 4 > 2 ? most / 4 : 2)) > n) most--;
  char allowed[64] = "no nev fits: LOBPCG needs at least 9 rows";
  if (most >= 1) snprintf(allowed, sizeof allowed, "nev at most %d here", most);
  refuse(s, line, "[solver] nev = %d%s: LOBPCG's basis [X P W] of 3 x block = %d vectors (block = nev + max(2, "
         "nev/4) = %d) must fit in the matrix's N = %.0f rows %s: %s (method = dense gives all N eigenvalues)", nev,
         given ? "" : " (the default)", 3 * block, block, n, where, allowed);
}

/* The host memory the largest rank's rows need at the least: its stored entries (8-byte value and
 * 4-byte column each; complex ones take more) and two complex vectors (every method holds more),
 * against what the node has available for each of its ranks (HAMLET_DENSE_MEMORY_LIMIT caps it, as
 * for the dense solvers). The smallest share on any rank decides, so every rank decides the same.
 * GPU ranks keep their vectors and operators on the device: they are not counted here. */
static void check_host_memory(const run_state *s, int line, const char *what, double most, double entries_per_row) {
  MPI_Comm comm, node;
  hm_backend backend;
  APP_CALL(hm_context_backend(s->ctx, &backend));
  int on_gpu = backend == HM_BACKEND_CUDA, all_gpu = 0;
  APP_CALL(hm_context_comm(s->ctx, &comm));
  MPI_Allreduce(&on_gpu, &all_gpu, 1, MPI_INT, MPI_MIN, comm);
  if (all_gpu) return;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  double avail = (double)hm_dense_host_available(on_node);
  MPI_Allreduce(MPI_IN_PLACE, &avail, 1, MPI_DOUBLE, MPI_MIN, comm);
  const double need = most * (12.0 * entries_per_row + 2 * 16.0);
  if (need <= avail) return;
  char need_text[32], avail_text[32];
  refuse(s, line, "%s: one rank's %.4g rows need at least %s of host memory (%s), but %s is available to each of the "
         "%d rank%s on a node: use more nodes, %s", what, most, hm_dense_bytes_text(need, need_text),
         entries_per_row > 0 ? "the matrix's entries and two vectors" : "two vectors of the matrix-free operator",
         hm_dense_bytes_text(avail, avail_text), on_node, on_node > 1 ? "s" : "",
         entries_per_row > 0 && s->deck.model == HM_MODEL_LATTICE ? "storage = matrix_free, or a smaller model"
                                                                  : "or a smaller model");
}

void run_check_size(run_state *s, int line, const char *what, double n, double block, double entries_per_row) {
  if (!(n < global_row_limit))
    refuse(s, line, "%s: N = %.4g rows, more than hamlet can index (2^62): use a smaller model", what, n);
  const double most = largest_share(s, n, block);
  if (most > local_row_limit) {
    if (block > local_row_limit)
      refuse(s, line, "%s: N = %.4g rows, distributed in indivisible blocks of %.4g rows, more than one rank may own "
             "(local rows are 32-bit: at most %.0f); use a smaller model", what, n, block, local_row_limit);
    refuse(s, line, "%s: N = %.4g rows; on %d rank%s one rank would own %.4g of them, but local rows are 32-bit "
           "(at most %.0f per rank): use at least %.0f ranks, or a smaller model", what, n, s->size, s->size > 1 ? "s" : "",
           most, local_row_limit, ceil(n / local_row_limit));
  }
  check_host_memory(s, line, what, most, entries_per_row);
  check_nev(s, n, line, what);
}

/* The line of the largest of nx, ny, nz (where a lattice too large is named). */
static int largest_dimension_line(const hm_deck *d) {
  const char *name = d->ti.nx >= d->ti.ny && d->ti.nx >= d->ti.nz ? "nx" : d->ti.ny >= d->ti.nz ? "ny" : "nz";
  const int line = hm_deck_line(d, "hamiltonian", name);
  return line ? line : hm_deck_line(d, "hamiltonian", "model");
}

void run_check_lattice_size(run_state *s, const int64_t cells[3], int orbitals, const char *model,
                            double entries_per_row) {
  const hm_deck *d = &s->deck;
  const int slow = cells[2] > 1 ? 2 : cells[1] > 1 ? 1 : 0; /* whole slabs across it per rank (stencil storage) */
  double slab = orbitals;
  for (int a = 0; a < slow; a++) slab *= (double)cells[a];
  char what[HM_PATH_MAX + 160];
  snprintf(what, sizeof what, "[hamiltonian] nx ny nz = %lld %lld %lld cells of %d orbital%s (%s)", (long long)d->ti.nx,
           (long long)d->ti.ny, (long long)d->ti.nz, orbitals, orbitals > 1 ? "s" : "", model);
  run_check_size(s, largest_dimension_line(d), what, (double)cells[0] * (double)cells[1] * (double)cells[2] * orbitals,
                 slab, entries_per_row);
}

void run_check_ti_size(run_state *s, double entries_per_row) {
  const hm_deck *d = &s->deck;
  char what[160];
  snprintf(what, sizeof what, "[hamiltonian] nx ny nz = %lld %lld %lld sites of 4 orbitals (model = ti)",
           (long long)d->ti.nx, (long long)d->ti.ny, (long long)d->ti.nz);
  run_check_size(s, largest_dimension_line(d), what, 4.0 * (double)d->ti.nx * (double)d->ti.ny * (double)d->ti.nz,
                 4, entries_per_row);
}

/* From the size line alone; a file whose header is malformed is left to the reader's own message. */
void run_check_mtx_size(run_state *s) {
  const hm_deck *d = &s->deck;
  mtx_file f;
  if (hm_mtx_open(d->matrix_file, &f)) {
    hm_error_clear();
    return;
  }
  hm_mtx_close(&f);
  char what[2 * HM_PATH_MAX + 160];
  snprintf(what, sizeof what, "[hamiltonian] matrix = %s: %s:%lld: the size line declares %lld x %lld", d->matrix_file,
           d->matrix_file, (long long)f.size_line, (long long)f.rows, (long long)f.cols);
  /* stored entries: at least the file's per row (a symmetric file's other triangle not counted) */
  run_check_size(s, hm_deck_line(d, "hamiltonian", "matrix"), what, (double)f.rows, 1,
                 f.rows > 0 ? (double)f.entries / (double)f.rows : 0);
}
