/* Matrix-free storage of a lattice description: the rows are whole slabs of the slowest direction
 * with more than one cell, the halo whole neighbour slabs (hm_halo_plan with their rows in global
 * order), and the products come from the cell's blocks (kernels_cpu_stencil.c, gpu/stencil_cuda.cu).
 * Host memory per rank: the blocks, one table entry per slab, and the halo plan of the ghost slabs. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "halo.h"
#include "stencil_free.h"
#include "stencil_kernel_count.h"

/* Host copies of the description's arrays (the caller may free its own). */
static int copy_description(struct hm_stencil_part *P, const hm_stencil *s) {
  const size_t nb = (size_t)s->nblocks, o = (size_t)s->orbitals;
  HM_MALLOC(P->shift, 3 * nb);
  memcpy(P->shift, s->shift, sizeof(int32_t) * 3 * nb);
  HM_MALLOC(P->block, 2 * nb * o * o);
  memcpy(P->block, s->block, sizeof(double) * 2 * nb * o * o);
  if (s->peierls) {
    HM_MALLOC(P->peierls, 3 * nb * o * o);
    memcpy(P->peierls, s->peierls, sizeof(double) * 3 * nb * o * o);
    HM_MALLOC(P->wrap_phase, 3 * nb * o * 4);
    memcpy(P->wrap_phase, s->wrap_phase, sizeof(double) * 3 * nb * o * 4);
  }
  P->host = *s;
  P->host.shift = P->shift;
  P->host.block = P->block;
  P->host.peierls = P->peierls;
  P->host.wrap_phase = P->wrap_phase;
  return HM_SUCCESS;
}

/* The slab a hop of dz slabs from global slab g lands in, or -1 where an open boundary drops it. */
static int64_t target_slab(const hm_stencil *s, int slow, int64_t g, int32_t dz) {
  const int64_t n = s->cells[slow], t = g + dz;
  if (t >= 0 && t < n) return t;
  if (s->boundary[slow] == HM_BC_OPEN) return -1;
  return ((t % n) + n) % n;
}

/* Ghost slabs (marked 1 in need[]) and, per local slab, whether every slab it reads is local. */
static void mark_slabs(const hm_stencil *s, int slow, int64_t first, int64_t local, char *need, char *interior) {
  for (int64_t l = 0; l < local; l++) {
    interior[l] = 1;
    for (int b = 0; b < s->nblocks; b++) {
      const int64_t t = target_slab(s, slow, first + l, s->shift[3 * b + slow]);
      if (t < 0 || (t >= first && t < first + local)) continue;
      need[t] = 1;
      interior[l] = 0;
    }
  }
}

/* The runs of local slabs with interior[l] == want into E's list; too many runs: -1. */
static int make_runs(hm_stencil_exec *E, int list, const char *interior, int64_t local, int want, int64_t *rows,
                     int64_t slab_rows) {
  int n = 0;
  *rows = 0;
  for (int64_t l = 0; l < local; l++) {
    if (interior[l] != want) continue;
    if (n > 0 && E->run[list][n - 1][1] == l) {
      E->run[list][n - 1][1]++;
    } else {
      if (n == HM_STENCIL_RUNS) return -1;
      E->run[list][n][0] = l;
      E->run[list][n][1] = l + 1;
      n++;
    }
    *rows += slab_rows;
  }
  E->nruns[list] = n;
  return 0;
}

/* Entries the assembled matrix would store: each block's nonzero entries times the cells whose hop
 * an open boundary keeps, and the disorder's diagonal (before vacancies or coinciding hops merge). */
static int64_t equivalent_nnz(const hm_stencil *s) {
  const int o = s->orbitals;
  int64_t nnz = 0, sites = s->cells[0] * s->cells[1] * s->cells[2];
  for (int b = 0; b < s->nblocks; b++) {
    int64_t cells = 1, nonzero = 0;
    for (int a = 0; a < 3; a++) {
      const int64_t r = llabs((long long)s->shift[3 * b + a]), n = s->cells[a];
      cells *= s->boundary[a] == HM_BC_OPEN ? (r < n ? n - r : 0) : n;
    }
    for (int e = 0; e < o * o; e++) nonzero += s->block[2 * (size_t)(o * o * b + e)] != 0 || s->block[2 * (size_t)(o * o * b + e) + 1] != 0;
    nnz += cells * nonzero;
  }
  if (s->disorder_w != 0) {
    int64_t diag = 0; /* orbitals whose diagonal no R = 0 block stores */
    for (int i = 0; i < o; i++) {
      int stored = 0;
      for (int b = 0; b < s->nblocks; b++) {
        const double *a = s->block + 2 * ((size_t)o * o * b + (size_t)i * o + i);
        stored |= s->shift[3 * b] == 0 && s->shift[3 * b + 1] == 0 && s->shift[3 * b + 2] == 0 && (a[0] != 0 || a[1] != 0);
      }
      diag += !stored;
    }
    nnz += diag * sites;
  }
  return nnz;
}

static int upload_array(const hm_kernels *K, const void *src, size_t bytes, const void **dst) {
  if (!K->device_memory || !src) {
    *dst = src;
    return HM_SUCCESS;
  }
  void *p = NULL;
  HM_CALL(K->alloc(bytes, &p));
  *dst = p;
  HM_CALL(K->upload(p, src, bytes));
  return HM_SUCCESS;
}

/* Each of `entries` summed entries' kind in 2 bits at 2 e: bit 0 its real part non-zero, bit 1 its
 * imaginary part (stencil_exec.h: face_kinds, box_kinds). */
static uint32_t entry_kinds(const double (*sum)[2], int entries) {
  uint32_t kinds = 0;
  for (int e = 0; e < entries; e++) kinds |= (uint32_t)((sum[e][0] != 0) | (sum[e][1] != 0) << 1) << (2 * e);
  return kinds;
}

/* A 4-orbital face-hop cell's blocks summed per direction, in block order, and their entries' kinds
 * (stencil_exec.h: face_sums, face_kinds; the staged CUDA kernel's table). */
static int face_table(struct hm_stencil_part *P) {
  const hm_stencil *s = &P->host;
  uint32_t *kinds = P->exec.face_kinds;
  HM_MALLOC(P->face_sums, 7 * 16 * 2);
  double(*sum)[16][2] = (double(*)[16][2])P->face_sums;
  for (int b = 0; b < s->nblocks; b++) {
    const int32_t *R = s->shift + 3 * b;
    int d = 0; /* the site itself, else 1 + 2 axis + (step > 0) */
    for (int a = 0; a < 3; a++)
      if (R[a] != 0) d = 1 + 2 * a + (R[a] > 0);
    for (int e = 0; e < 16; e++)
      for (int p = 0; p < 2; p++) sum[d][e][p] += s->block[2 * (16 * (size_t)b + e) + p];
  }
  for (int d = 0; d < 7; d++) kinds[d] = entry_kinds(sum[d], 16);
  return HM_SUCCESS;
}

/* A cell of 1 or 2 orbitals whose shifts stay within one cell along each axis, slabs along z or y: its
 * blocks summed per shift in the slab frame, and their entries' kinds (stencil_exec.h: box_sums,
 * box_kinds; the box CUDA kernel's table). Slabs along y (a 2D lattice): z has one cell, so a hop
 * along z lands on its own site (periodic, twisted: the kernel declines twists) or is dropped (open). */
static int box_table(struct hm_stencil_part *P) {
  const hm_stencil *s = &P->host;
  const int o = s->orbitals, slow = P->exec.slow;
  if (o > 2 || slow == 0) return HM_SUCCESS;
  for (int b = 0; b < s->nblocks; b++)
    for (int a = 0; a < 3; a++)
      if (abs(s->shift[3 * b + a]) > 1) return HM_SUCCESS;
  HM_MALLOC(P->box_sums, 27 * 4 * 2);
  double(*sum)[4][2] = (double(*)[4][2])P->box_sums;
  for (int b = 0; b < s->nblocks; b++) {
    const int32_t *R = s->shift + 3 * b;
    if (slow == 1 && R[2] != 0 && s->boundary[2] == HM_BC_OPEN) continue;
    const int d = (R[0] + 1) + 3 * ((slow == 2 ? R[1] : 0) + 1) + 9 * (R[slow] + 1);
    for (int e = 0; e < o * o; e++)
      for (int p = 0; p < 2; p++) sum[d][e][p] += s->block[2 * ((size_t)o * o * b + e) + p];
  }
  for (int d = 0; d < 27; d++) P->exec.box_kinds[d] = entry_kinds(sum[d], o * o);
  return HM_SUCCESS;
}

/* The blocks' non-zero entries by row orbital, and each block's target offset (stencil_exec.h). */
static int list_hops(struct hm_stencil_part *P) {
  const hm_stencil *s = &P->host;
  const int o = s->orbitals, nb = s->nblocks;
  HM_MALLOC(P->hops, (size_t)nb * o * o + 1);
  HM_MALLOC(P->hop_first, (size_t)o + 1);
  HM_MALLOC(P->hop_delta, (size_t)nb);
  int n = 0;
  for (int i = 0; i < o; i++) {
    P->hop_first[i] = n;
    for (int b = 0; b < nb; b++)
      for (int j = 0; j < o; j++) {
        const double *v = s->block + 2 * (((size_t)b * o + i) * o + j);
        if (v[0] != 0 || v[1] != 0) P->hops[n++] = (hm_stencil_hop){v[0], v[1], b, j};
      }
  }
  P->hop_first[o] = n;
  P->exec.nhops = n;
  P->exec.face_hops = 1;
  for (int b = 0; b < nb; b++) {
    const int32_t *R = s->shift + 3 * b;
    P->hop_delta[b] = (int64_t)o * (R[0] + s->cells[0] * (R[1] + s->cells[1] * (int64_t)R[2]));
    const int reach = abs(R[0]) + abs(R[1]) + abs(R[2]);
    if (reach > 1) P->exec.face_hops = 0;
  }
  if (P->exec.face_hops && o == 4) HM_CALL(face_table(P));
  HM_CALL(box_table(P));
  return HM_SUCCESS;
}

/* The exec struct's scalars and the arrays in backend memory. */
static int place_exec(hm_matrix *M) {
  struct hm_stencil_part *P = M->stencil;
  const hm_stencil *s = &P->host;
  hm_stencil_exec *E = &P->exec;
  const hm_kernels *K = M->ctx->kernels;
  const size_t nb = (size_t)s->nblocks, o = (size_t)s->orbitals;
  E->orbitals = s->orbitals;
  E->nblocks = s->nblocks;
  for (int a = 0; a < 3; a++) {
    E->cells[a] = s->cells[a];
    E->boundary[a] = s->boundary[a];
    E->twist[a] = s->twist[a];
  }
  E->disorder_w = s->disorder_w;
  E->disorder_seed = s->disorder_seed;
  E->disorder_stream = s->disorder_stream;
  E->disorder_per_site = s->disorder_per_site;
  E->vacancy_p = s->vacancy_p;
  E->vacancy_seed = s->vacancy_seed;
  E->vacancy_stream = s->vacancy_stream;
  E->has_peierls = s->peierls != NULL;
  HM_CALL(upload_array(K, P->shift, sizeof(int32_t) * 3 * nb, (const void **)&E->shift));
  HM_CALL(upload_array(K, P->block, sizeof(double) * 2 * nb * o * o, (const void **)&E->block));
  HM_CALL(upload_array(K, P->peierls, sizeof(double) * 3 * nb * o * o, (const void **)&E->peierls));
  HM_CALL(upload_array(K, P->wrap_phase, sizeof(double) * 3 * nb * o * 4, (const void **)&E->wrap_phase));
  HM_CALL(upload_array(K, P->slab_row, sizeof(int64_t) * (size_t)s->cells[E->slow], (const void **)&E->slab_row));
  HM_CALL(list_hops(P));
  HM_CALL(upload_array(K, P->hops, sizeof(hm_stencil_hop) * (size_t)(E->nhops + 1), (const void **)&E->hops));
  HM_CALL(upload_array(K, P->hop_first, sizeof(int32_t) * (o + 1), (const void **)&E->hop_first));
  HM_CALL(upload_array(K, P->hop_delta, sizeof(int64_t) * nb, (const void **)&E->hop_delta));
  HM_CALL(upload_array(K, P->face_sums, sizeof(double) * 7 * 16 * 2, (const void **)&E->face_sums));
  HM_CALL(upload_array(K, P->box_sums, sizeof(double) * 27 * 4 * 2, (const void **)&E->box_sums));
  M->exec = (struct hm_csr_view){(int32_t)M->dist.local, NULL, NULL, NULL, NULL, E};
  M->exec_interior = &E->key[HM_STENCIL_INTERIOR];
  M->exec_boundary = &E->key[HM_STENCIL_BOUNDARY];
  M->exec_send_rows = M->halo.send_rows;
  const int32_t nsend = M->halo.send_start ? M->halo.send_start[M->halo.nsend_ranks] : 0;
  HM_CALL(upload_array(K, M->halo.send_rows, sizeof(int32_t) * (size_t)nsend, (const void **)&M->exec_send_rows));
  return HM_SUCCESS;
}

/* Rows, halo and slab lists of M from its description. */
static int lay_out(hm_matrix *M) {
  struct hm_stencil_part *P = M->stencil;
  const hm_stencil *s = &P->host;
  hm_stencil_exec *E = &P->exec;
  const int slow = s->cells[2] > 1 ? 2 : s->cells[1] > 1 ? 1 : 0;
  int64_t slab_sites = 1;
  for (int a = 0; a < slow; a++) slab_sites *= s->cells[a];
  const int64_t slab_rows = slab_sites * s->orbitals, nslabs = s->cells[slow];
  E->slow = slow;
  E->slab_sites = slab_sites;
  hm_dist *d = NULL;
  HM_CALL(hm_dist_create(M->ctx, slab_rows * nslabs, slab_rows, 1.0, &d));
  int st = hm_dist_copy(d, &M->dist);
  hm_dist_destroy(&d);
  HM_CALL(st);
  HM_CHECK(M->dist.local < INT32_MAX, HM_ERR_ARGUMENT,
           "rank %d would own %lld rows of the matrix-free lattice; at most %d per rank (use more ranks)", M->ctx->rank,
           (long long)M->dist.local, INT32_MAX - 1);
  const int64_t first = M->dist.first / slab_rows, local = M->dist.local / slab_rows;
  E->first_slab = first;
  E->local_slabs = local;
  char *need = NULL, *interior = NULL;
  int64_t *remote = NULL;
  HM_MALLOC(P->slab_row, nslabs);
  HM_MALLOC(need, nslabs);
  interior = calloc((size_t)local + 1, 1);
  HM_CHECK(interior, HM_ERR_MEMORY, "could not allocate %lld slab flags", (long long)local);
  mark_slabs(s, slow, first, local, need, interior);
  int64_t nghost = 0;
  for (int64_t g = 0; g < nslabs; g++) nghost += need[g];
  st = HM_SUCCESS;
  if (local + nghost * slab_rows >= INT32_MAX)
    st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                        "%lld local rows plus %lld halo rows exceed 32-bit indices", (long long)M->dist.local,
                        (long long)(nghost * slab_rows));
  if (!st) {
    remote = malloc(sizeof *remote * (size_t)(nghost * slab_rows + 1));
    if (!remote) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the halo rows");
  }
  for (int64_t g = 0, q = 0; !st && g < nslabs; g++) {
    if (g >= first && g < first + local) {
      P->slab_row[g] = (g - first) * slab_rows;
    } else if (need[g]) { /* halo slots come in global order: ghost slab q at nlocal + q slabs */
      P->slab_row[g] = M->dist.local + q * slab_rows;
      for (int64_t r = 0; r < slab_rows; r++) remote[q * slab_rows + r] = g * slab_rows + r;
      q++;
    } else {
      P->slab_row[g] = -1;
    }
  }
  if (!st) st = hm_halo_plan(M, remote, (int32_t)(nghost * slab_rows));
  int64_t rows[2] = {0, 0};
  if (!st && (make_runs(E, HM_STENCIL_INTERIOR, interior, local, 1, &rows[0], slab_rows) ||
              make_runs(E, HM_STENCIL_BOUNDARY, interior, local, 0, &rows[1], slab_rows))) {
    memset(interior, 0, (size_t)local); /* scattered interior slabs: every slab waits for the halo */
    make_runs(E, HM_STENCIL_INTERIOR, interior, local, 1, &rows[0], slab_rows);
    make_runs(E, HM_STENCIL_BOUNDARY, interior, local, 0, &rows[1], slab_rows);
  }
  M->n_interior = (int32_t)rows[0];
  M->n_boundary = (int32_t)rows[1];
  free(need);
  free(interior);
  free(remote);
  HM_CALL(st);
  return HM_SUCCESS;
}

static int create(hm_context *ctx, const hm_stencil *s, int real, hm_matrix **A) {
  HM_CHECK(ctx && s && A, HM_ERR_ARGUMENT, "ctx, s or A is NULL");
  *A = NULL;
  HM_CHECK(s->cells[0] >= 1 && s->cells[1] >= 1 && s->cells[2] >= 1 && s->orbitals >= 1 && s->nblocks >= 1,
           HM_ERR_ARGUMENT, "a lattice of %lld x %lld x %lld cells, %d orbitals, %d blocks: each must be >= 1",
           (long long)s->cells[0], (long long)s->cells[1], (long long)s->cells[2], s->orbitals, s->nblocks);
  HM_CHECK(s->shift && s->block, HM_ERR_ARGUMENT, "the description's shift or block is NULL");
  HM_CHECK(!s->peierls || s->wrap_phase, HM_ERR_ARGUMENT, "peierls is given without wrap_phase");
  hm_matrix *M;
  HM_MALLOC(M, 1);
  M->ctx = ctx;
  M->type = real ? HM_REAL : HM_COMPLEX;
  M->stencil = calloc(1, sizeof *M->stencil);
  int st = M->stencil ? HM_SUCCESS
                      : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the stencil");
  if (!st) st = copy_description(M->stencil, s);
  if (!st) st = lay_out(M);
  M->stencil->exec.real = real;
  hm_stencil_kernel kernel = HM_STENCIL_KERNEL_AUTO;
  if (!st) st = hm_stencil_kernel_default(&kernel);
  if (!st) M->stencil->exec.kernel = (int)kernel;
  if (!st) st = place_exec(M);
  if (!st) st = hm_stencil_wrap_defect(M); /* the blocks were checked; the wrapping hops are here */
  if (st) {
    hm_matrix_destroy(&M);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  M->nnz_global = equivalent_nnz(s);
  double largest = 0;
  for (size_t e = 0; e < (size_t)s->nblocks * (size_t)s->orbitals * (size_t)s->orbitals; e++)
    largest = fmax(largest, hypot(s->block[2 * e], s->block[2 * e + 1]));
  M->largest_entry = fmax(largest, fabs(s->disorder_w) / 2);
  *A = M;
  return HM_SUCCESS;
}

int hm_stencil_matrix_free_create(hm_context *ctx, const hm_stencil *s, hm_matrix **A) {
  HM_CALL(create(ctx, s, 0, A));
  return HM_SUCCESS;
}

int hm_stencil_matrix_free_create_real(hm_context *ctx, const hm_stencil *s, hm_matrix **A) {
  HM_CHECK(ctx && s && A, HM_ERR_ARGUMENT, "ctx, s or A is NULL");
  char term[200];
  int is_complex = 0;
  HM_CALL(hm_stencil_complex_term(s, &is_complex, term, sizeof term));
  HM_CHECK(!is_complex, HM_ERR_ARGUMENT, "the lattice is not real (%s): real arithmetic needs real hoppings and on-site "
           "terms, no field and no twist; use complex arithmetic", term);
  HM_CALL(create(ctx, s, 1, A));
  return HM_SUCCESS;
}

void hm_stencil_part_release(struct hm_matrix_s *M) {
  struct hm_stencil_part *P = M->stencil;
  if (!P) return;
  const hm_kernels *K = M->ctx->kernels;
  hm_stencil_exec *E = &P->exec;
  if (K->device_memory) {
    if (E->shift && E->shift != P->shift) K->release((void *)E->shift);
    if (E->block && E->block != P->block) K->release((void *)E->block);
    if (E->peierls && E->peierls != P->peierls) K->release((void *)E->peierls);
    if (E->wrap_phase && E->wrap_phase != P->wrap_phase) K->release((void *)E->wrap_phase);
    if (E->slab_row && E->slab_row != P->slab_row) K->release((void *)E->slab_row);
    if (E->hops && E->hops != P->hops) K->release((void *)E->hops);
    if (E->hop_first && E->hop_first != P->hop_first) K->release((void *)E->hop_first);
    if (E->hop_delta && E->hop_delta != P->hop_delta) K->release((void *)E->hop_delta);
    if (E->face_sums && E->face_sums != P->face_sums) K->release((void *)E->face_sums);
    if (E->box_sums && E->box_sums != P->box_sums) K->release((void *)E->box_sums);
  }
  free(P->shift);
  free(P->block);
  free(P->peierls);
  free(P->wrap_phase);
  free(P->slab_row);
  free(P->hops);
  free(P->hop_first);
  free(P->hop_delta);
  free(P->face_sums);
  free(P->box_sums);
  free(P);
  M->stencil = NULL;
  M->exec_interior = M->interior_rows; /* the keys lived in P */
  M->exec_boundary = M->boundary_rows;
  if (!M->exec_send_rows) M->exec_send_rows = M->halo.send_rows;
}

static int zero_shift(const hm_stencil *s, int b) {
  return s->shift[3 * b] == 0 && s->shift[3 * b + 1] == 0 && s->shift[3 * b + 2] == 0;
}

int hm_stencil_gershgorin(const struct hm_matrix_s *M, double *emin, double *emax) {
  const hm_stencil *s = &M->stencil->host;
  const int o = s->orbitals;
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < o; i++) {
    double centre = 0, radius = 0; /* phases have modulus 1: the radius holds for every cell */
    for (int b = 0; b < s->nblocks; b++)
      for (int j = 0; j < o; j++) {
        const double *a = s->block + 2 * ((size_t)o * o * b + (size_t)i * o + j);
        if (zero_shift(s, b) && i == j && !s->peierls) centre += a[0];
        else radius += hypot(a[0], a[1]);
      }
    const double spread = fabs(s->disorder_w) / 2;
    lo = fmin(lo, centre - radius - spread);
    hi = fmax(hi, centre + radius + spread);
  }
  if (s->vacancy_p > 0) { /* vacant sites' orbitals are zero modes */
    lo = fmin(lo, 0);
    hi = fmax(hi, 0);
  }
  *emin = lo;
  *emax = hi;
  return HM_SUCCESS;
}

int hm_stencil_diagonal(const struct hm_matrix_s *M, double *diag) {
  const hm_stencil_exec *E = &M->stencil->exec;
  const hm_stencil *s = &M->stencil->host;
  const int o = s->orbitals;
  hm_stencil_exec host = *E; /* the arithmetic of stencil_exec.h on the host arrays */
  host.shift = s->shift;
  host.peierls = s->peierls;
  host.wrap_phase = s->wrap_phase;
  host.slab_row = M->stencil->slab_row;
#pragma omp parallel for schedule(static)
  for (int64_t l = 0; l < E->local_slabs; l++)
    for (int64_t q = 0; q < E->slab_sites; q++) {
      int64_t c[3];
      const int64_t site = hm_stencil_cell(&host, l, q, c), self = (l * E->slab_sites + q) * o;
      const int vacant = hm_stencil_vacant(&host, site);
      for (int i = 0; i < o; i++) {
        double complex d = hm_stencil_disorder(&host, site, i);
        for (int b = 0; b < s->nblocks; b++) { /* every hop that lands on its own site (small boxes wrap) */
          int64_t w[3];
          double angle;
          if (hm_stencil_target(&host, s->shift + 3 * b, c, w, &angle) != self) continue;
          const double *a = s->block + 2 * ((size_t)o * o * b + (size_t)i * o + i);
          double complex term = (a[0] + I * a[1]) * cexp(I * angle);
          if (s->peierls) term *= cexp(I * 6.283185307179586 * hm_stencil_peierls_turns(&host, b, i, i, c, w));
          d += term;
        }
        if (M->type == HM_REAL) {
          diag[self + i] = vacant ? 0 : creal(d);
          continue;
        }
        diag[2 * (size_t)(self + i)] = vacant ? 0 : creal(d);
        diag[2 * (size_t)(self + i) + 1] = vacant ? 0 : cimag(d);
      }
    }
  return HM_SUCCESS;
}
