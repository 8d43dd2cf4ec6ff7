/* The few-orbital CUDA stencil kernel's index arithmetic (gpu/stencil_small_plan.h), replayed on the
 * CPU for every thread of every launch the kernel would make: random lattices of 1 to 7 cells per
 * axis, 1, 2 and 4 orbitals, shifts of reach 1 and 2 (face neighbours, or random pairs), every
 * boundary kind, vacancies half the time, both row lists, every width dividing the block (1..256),
 * both tile shapes, the slabs split over this test's ranks (1, 2 or 3) by the matrix-free storage
 * itself. Checked: every local (site, column) is written by exactly one thread; a fast-path site's
 * row for each block (own row + hop_delta) is where hm_stencil_target says, without a wrap, in a
 * local slab; the other sites' rows lie inside the local and halo rows. Also which cells the
 * kernel serves (the rest go to the per-site kernel): 1 and 2 orbitals automatically, 4 only when
 * forced, any slab split, no fields, not 3 orbitals, widths dividing 256, tables that fit. */
#include <stdlib.h>
#include <string.h>
#include "objects.h"
#include "random.h"
#include "stencil_free.h"
#include "stencil_small_plan.h"
#include "testing.h"

enum { MAX_BLOCKS = 9 };

static uint64_t draw_seed, draw_count;
static int draw_int(int lo, int hi) {
  const double u = hm_random_uniform(draw_seed, 9, draw_count++);
  return lo + (int)(u * (hi - lo + 1)) % (hi - lo + 1);
}

typedef struct {
  hm_stencil s;
  int32_t shift[3 * MAX_BLOCKS];
  double block[2 * MAX_BLOCKS * 16];
} description;

/* faces: R = 0 and the 6 face neighbours (the TI's shape); else R = 0 and 1..4 random pairs +-R
 * with components in [-2, 2]. Blocks random, a quarter of the entries zero (the column masks). */
static void make_lattice(description *d, int faces) {
  hm_stencil *s = &d->s;
  memset(d, 0, sizeof *d);
  const int o = (int[]){1, 2, 4}[draw_int(0, 2)];
  s->orbitals = o;
  for (int a = 0; a < 3; a++) s->cells[a] = draw_int(1, 7);
  int nb = 1;
  const int pairs = faces ? 3 : draw_int(1, 4);
  for (int p = 0; p < pairs; p++) {
    for (int a = 0; a < 3; a++) {
      const int r = faces ? (a == p) : draw_int(-2, 2);
      d->shift[3 * nb + a] = r;
      d->shift[3 * (nb + 1) + a] = -r;
    }
    nb += 2;
  }
  for (int e = 0; e < 2 * nb * o * o; e++) d->block[e] = draw_int(0, 3) ? draw_int(1, 100) / 64.0 : 0;
  s->nblocks = nb;
  s->shift = d->shift;
  s->block = d->block;
  for (int a = 0; a < 3; a++) {
    s->boundary[a] = draw_int(0, 2);
    s->twist[a] = draw_int(0, 100) / 16.0;
  }
  s->vacancy_p = draw_int(0, 1) ? 0.2 : 0;
  s->vacancy_seed = 5;
  s->vacancy_stream = 4;
}

/* Replays one launch (list, width k, tile shape) over the host copy E; counts writes per
 * (local site, column) into written[]. Returns the number of failed checks (the first few named). */
static int replay(const hm_stencil_exec *E, int list, int k, int linear, int64_t local_rows, int64_t all_rows,
                  int *written, const char *what) {
  const hm_small_shape S = hm_small_shape_for(E, list, k, linear);
  if (S.slabs == 0) return 0;
  int32_t reach[6];
  hm_small_reach(E->shift, E->nblocks, reach);
  int64_t fast_lo, fast_hi;
  hm_small_fast_slabs(E, reach, &fast_lo, &fast_hi);
  const int o = E->orbitals;
  int bad = 0;
  for (int64_t by = 0; by < k / S.kc; by++)
    for (int64_t bx = 0; bx < S.ntiles * S.nzchunks; bx++)
      for (int t = 0; t < HM_SMALL_THREADS; t++) {
        int64_t q, zc;
        int col;
        if (!hm_small_thread_site(&S, E, bx, by, t, &q, &col, &zc)) continue;
        if (q < 0 || q >= E->slab_sites || col < 0 || col >= k) {
          if (bad++ < 3) fprintf(stderr, "%s: thread %d of block (%lld, %lld) takes site %lld column %d\n", what, t,
                                 (long long)bx, (long long)by, (long long)q, col);
          continue;
        }
        int64_t c[3];
        hm_small_plane_cell(E, q, c);
        const int plane_inner = hm_small_plane_inner(E, reach, c);
        const int64_t p1 = (zc + 1) * S.zchunk < S.slabs ? (zc + 1) * S.zchunk : S.slabs;
        for (int64_t p = zc * S.zchunk; p < p1; p++) {
          const int64_t l = hm_stencil_slab_at(E, list, p), g = E->first_slab + l;
          const int64_t self = (l * E->slab_sites + q) * o;
          written[(l * E->slab_sites + q) * k + col]++;
          c[E->slow] = g;
          const int fast = plane_inner && g >= fast_lo && g < fast_hi;
          for (int b = 0; b < E->nblocks; b++) {
            int64_t w[3];
            double angle;
            const int64_t target = hm_stencil_target(E, E->shift + 3 * b, c, w, &angle);
            const int wraps = w[0] || w[1] || w[2];
            int ok = fast ? target == self + E->hop_delta[b] && !wraps && target >= 0 && target + o <= local_rows
                          : target < 0 || target + o <= all_rows;
            if (fast && E->vacancy_p > 0) ok = 0;
            if (!ok && bad++ < 3)
              fprintf(stderr, "%s: list %d, k %d%s, cell (%lld %lld %lld) block %d (R %d %d %d): %s row %lld, "
                              "the formula's %lld (wraps %lld %lld %lld), rows %lld local, %lld in all\n",
                      what, list, k, linear ? " linear" : "", (long long)c[0], (long long)c[1], (long long)c[2], b,
                      E->shift[3 * b], E->shift[3 * b + 1], E->shift[3 * b + 2], fast ? "fast" : "general",
                      (long long)(fast ? self + E->hop_delta[b] : target), (long long)target, (long long)w[0],
                      (long long)w[1], (long long)w[2], (long long)local_rows, (long long)all_rows);
          }
        }
      }
  return bad;
}

static void check_lattice(hm_context *ctx, const description *d, const char *what) {
  hm_matrix *M = NULL;
  HM_TEST_OK(hm_stencil_matrix_free_create(ctx, &d->s, &M));
  if (!M) return;
  const hm_stencil_exec *E = &M->stencil->exec; /* CPU context: host arrays */
  const int64_t slab_rows = E->slab_sites * E->orbitals, local_rows = E->local_slabs * slab_rows;
  int64_t all_rows = local_rows;
  for (int64_t g = 0; g < E->cells[E->slow]; g++)
    if (E->slab_row[g] >= 0 && E->slab_row[g] + slab_rows > all_rows) all_rows = E->slab_row[g] + slab_rows;
  const int64_t sites = E->local_slabs * E->slab_sites;
  int *written = malloc(sizeof(int) * (size_t)(sites * 256 + 1));
  int bad = 0;
  for (int k = 1; k <= 256; k *= 2)
    for (int linear = 0; linear < 2; linear++) {
      memset(written, 0, sizeof(int) * (size_t)(sites * k));
      for (int list = 0; list < 2; list++) bad += replay(E, list, k, linear, local_rows, all_rows, written, what);
      for (int64_t e = 0; e < sites * k; e++)
        if (written[e] != 1 && bad++ < 3)
          fprintf(stderr, "%s: k %d%s, local site %lld column %lld written %d times\n", what, k,
                  linear ? " linear" : "", (long long)(e / k), (long long)(e % k), written[e]);
    }
  HM_TEST_ASSERT(bad == 0, "%s: %d index checks failed (the first ones above)", what, bad);
  free(written);
  hm_matrix_destroy(&M);
}

/* Which cells the kernel takes; the others fall back to the per-site kernel. */
static void check_choice(void) {
  hm_stencil_exec E;
  memset(&E, 0, sizeof E);
  E.nblocks = 7;
  E.cells[0] = E.cells[1] = 4;
  E.cells[2] = 6;
  E.slow = 2;
  E.local_slabs = 6; /* one rank: every slab (splits below) */
  for (int o = 1; o <= 8; o++) {
    E.orbitals = o;
    const int forced = hm_small_serves(&E, 8, HM_SMALL_FORCED);
    const int automatic = hm_small_serves(&E, 8, HM_SMALL_AUTO);
    HM_TEST_ASSERT(automatic == (o <= 2), "%d orbitals: chosen automatically %d", o, automatic);
    HM_TEST_ASSERT(forced == (o <= 2 || o == 4), "%d orbitals: served when forced %d", o, forced);
    HM_TEST_ASSERT(!hm_small_serves(&E, 8, HM_SMALL_NEVER), "%d orbitals: served with HAMLET_STENCIL_KERNEL=site", o);
  }
  E.orbitals = 2;
  for (int k = 1; k <= 300; k++)
    HM_TEST_ASSERT(hm_small_serves(&E, k, HM_SMALL_FORCED) == (256 % k == 0), "width %d: served %d", k,
                   hm_small_serves(&E, k, HM_SMALL_FORCED));
  /* a rank with some of the slabs (several ranks): served too, its halo found through slab_row */
  const int64_t splits[3][2] = {{0, 3}, {3, 3}, {2, 1}};
  for (int s = 0; s < 3; s++) {
    E.first_slab = splits[s][0];
    E.local_slabs = splits[s][1];
    HM_TEST_ASSERT(hm_small_serves(&E, 8, HM_SMALL_AUTO), "slabs %lld + %lld of 6 are not served",
                   (long long)E.first_slab, (long long)E.local_slabs);
  }
  E.first_slab = 0;
  E.local_slabs = 6;
  E.has_peierls = 1;
  HM_TEST_ASSERT(!hm_small_serves(&E, 8, HM_SMALL_FORCED), "a field is served");
  E.has_peierls = 0;
  E.nblocks = 700; /* 700 2 x 2 blocks: 47 KB of tables */
  HM_TEST_ASSERT(!hm_small_serves(&E, 8, HM_SMALL_FORCED), "tables of %zu bytes are served",
                 hm_small_table_bytes(E.nblocks, 2));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  draw_seed = hm_test_seed();
  check_choice();
  for (int trial = 0; trial < 120; trial++) {
    description d;
    make_lattice(&d, trial % 2);
    char what[160];
    snprintf(what, sizeof what, "trial %d: %lld x %lld x %lld cells, %d orbitals, %d blocks, bc %d%d%d, p %.2f", trial,
             (long long)d.s.cells[0], (long long)d.s.cells[1], (long long)d.s.cells[2], d.s.orbitals, d.s.nblocks,
             d.s.boundary[0], d.s.boundary[1], d.s.boundary[2], d.s.vacancy_p);
    check_lattice(ctx, &d, what);
  }
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
