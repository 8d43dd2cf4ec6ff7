/* The bulge-chasing sweeps of dense_band_chase.c for one scalar type: included once with
 * SCALAR = double, CONJ(x) = (x), ABS = fabs, MAKE(re, im) = (re), NAME(x) = x##_real and once with
 * double complex, conj, cabs, re + i im, _complex. Sums run as simd reductions of real and imaginary
 * parts apart (an OpenMP simd reduction over a complex type is not portable).
 * The working band is lower, 2b wide: A(i, j) at a[(i - j) + ld j]. */

/* x = (alpha, x1..): H^H x = beta e1 with H = I - tau v v^H, v = (1, v1..), beta real (LAPACK's
 * ?larfg convention). x1.. is overwritten by v1... */
static void NAME(reflector)(int64_t len, SCALAR *alpha, SCALAR *x1, SCALAR *tau) {
  double ssq = 0, xnorm = 0;
  const double *re = (const double *)x1; /* the real and imaginary parts alike */
#pragma omp simd reduction(+ : ssq)
  for (int64_t p = 0; p < (len - 1) * (int64_t)(sizeof(SCALAR) / sizeof(double)); p++) ssq += re[p] * re[p];
  if (ssq > DBL_MIN / DBL_EPSILON && ssq < DBL_MAX / 4) xnorm = sqrt(ssq); /* else scaled: no under- or overflow */
  else
    for (int64_t p = 0; p < len - 1; p++) xnorm = hypot(xnorm, ABS(x1[p]));
  const double ar = creal(*alpha), ai = cimag(*alpha);
  if (xnorm == 0 && ai == 0) { *tau = 0; return; }
  const double beta = -copysign(hypot(hypot(ar, ai), xnorm), ar);
  *tau = (SCALAR)((beta - *alpha) / beta);
  const SCALAR scale = 1 / (*alpha - beta);
  for (int64_t p = 0; p < len - 1; p++) x1[p] *= scale;
  *alpha = beta;
}

/* The Hermitian block D = A[s:s+len, s:s+len] <- H^H D H as D - v x^H - x v^H, x = tau D v + alpha v,
 * alpha = -tau (x^H v) / 2 (LAPACK's ?hetd2), on its lower triangle; x: len scalars of workspace. */
static void NAME(two_sided)(SCALAR *a, int64_t ld, int64_t s, int64_t len, const SCALAR *v, SCALAR tau, SCALAR *x) {
  for (int64_t p = 0; p < len; p++) x[p] = 0;
  for (int64_t q = 0; q < len; q++) {
    const SCALAR *col = a + ld * (s + q); /* A(s + p, s + q) = col[p - q] */
    double xr = 0, xi = 0; /* x_q's sum in real parts: a simd reduction that holds for complex too */
    const SCALAR vq = v[q];
    x[q] += creal(col[0]) * vq;
#pragma omp simd reduction(+ : xr, xi)
    for (int64_t p = q + 1; p < len; p++) {
      const SCALAR cv = CONJ(col[p - q]) * v[p];
      x[p] += col[p - q] * vq, xr += creal(cv), xi += cimag(cv);
    }
    x[q] += MAKE(xr, xi);
  }
  double xvr = 0, xvi = 0;
#pragma omp simd reduction(+ : xvr, xvi)
  for (int64_t p = 0; p < len; p++) {
    x[p] *= tau;
    const SCALAR t = CONJ(x[p]) * v[p];
    xvr += creal(t), xvi += cimag(t);
  }
  const SCALAR alpha = -0.5 * tau * MAKE(xvr, xvi);
  for (int64_t p = 0; p < len; p++) x[p] += alpha * v[p];
  for (int64_t q = 0; q < len; q++) {
    SCALAR *col = a + ld * (s + q);
    const SCALAR cvq = CONJ(v[q]), cxq = CONJ(x[q]);
    for (int64_t p = q; p < len; p++) col[p - q] -= v[p] * cxq + x[p] * cvq;
    col[0] = creal(col[0]);
  }
}

/* O (rows r1.., columns s..s+len, m2 x len, all below the diagonal) <- O H = O - tau (O v) v^H. */
static void NAME(right)(SCALAR *a, int64_t ld, int64_t r1, int64_t m2, int64_t s, int64_t len, const SCALAR *v,
                        SCALAR tau, SCALAR *x) {
  for (int64_t p = 0; p < m2; p++) x[p] = 0;
  for (int64_t j = 0; j < len; j++) {
    const SCALAR *col = a + (r1 - s - j) + ld * (s + j);
    for (int64_t p = 0; p < m2; p++) x[p] += col[p] * v[j];
  }
  for (int64_t p = 0; p < m2; p++) x[p] *= tau;
  for (int64_t j = 0; j < len; j++) {
    SCALAR *col = a + (r1 - s - j) + ld * (s + j);
    const SCALAR cv = CONJ(v[j]);
    for (int64_t p = 0; p < m2; p++) col[p] -= x[p] * cv;
  }
}

/* Keep a reflector as column c of its step's block (rows x b, then b taus); blk NULL: not our group. */
static void NAME(keep)(SCALAR *blk, int64_t rows, int b, int64_t c, int64_t len, const SCALAR *v, SCALAR tau) {
  if (!blk) return;
  memcpy(blk + rows * c + c, v, sizeof *v * (size_t)len);
  blk[rows * b + c] = tau;
}

/* Sweep i, step by step; done[i] counts its finished steps (all: INT64_MAX) for the next sweep. */
static void NAME(sweep)(hm_dense_chase *q, SCALAR *a, int64_t ld, int64_t i, SCALAR *v, SCALAR *x,
                        _Atomic int64_t *done) {
  const int64_t n = q->n, b = q->b;
  int64_t s = i + 1, len = n - 1 - i < b ? n - 1 - i : b;
  chase_wait(done, i, 0);
  SCALAR tau, *col = a + 1 + ld * i; /* A(s + p, i) = col[p] */
  for (int64_t p = 0; p < len; p++) v[p] = col[p];
  NAME(reflector)(len, &v[0], v + 1, &tau);
  col[0] = v[0];
  for (int64_t p = 1; p < len; p++) col[p] = 0;
  v[0] = 1;
  /* this sweep's column in its group's blocks, step by step (blk NULL where the group is not ours) */
  const int64_t i0 = i / b * b;
  SCALAR *blk = (SCALAR *)q->blocks[i / b];
  int64_t rows = block_rows(n, (int)b, i0, 0);
  NAME(keep)(blk, rows, (int)b, i - i0, len, v, tau);
  NAME(two_sided)(a, ld, s, len, v, tau, x);
  for (int64_t k = 1; s + len < n; k++) {
    atomic_store_explicit(&done[i], k, memory_order_release);
    chase_wait(done, i, k);
    const int64_t r1 = s + len, m2 = n - r1 < b ? n - r1 : b;
    NAME(right)(a, ld, r1, m2, s, len, v, tau, x);
    if (m2 < 2) break; /* nothing below the band */
    SCALAR *v2 = v + b, tau2, *first = a + (r1 - s) + ld * s; /* O(p, 0) = first[p] */
    for (int64_t p = 0; p < m2; p++) v2[p] = first[p];
    NAME(reflector)(m2, &v2[0], v2 + 1, &tau2);
    first[0] = v2[0];
    for (int64_t p = 1; p < m2; p++) first[p] = 0;
    v2[0] = 1;
    for (int64_t j = 1; j < len; j++) { /* the block's other columns <- H2^H O */
      SCALAR *oj = a + (r1 - s - j) + ld * (s + j);
      double yr = 0, yi = 0;
#pragma omp simd reduction(+ : yr, yi)
      for (int64_t p = 0; p < m2; p++) {
        const SCALAR t = CONJ(v2[p]) * oj[p];
        yr += creal(t), yi += cimag(t);
      }
      const SCALAR y = MAKE(yr, yi) * CONJ(tau2);
      for (int64_t p = 0; p < m2; p++) oj[p] -= v2[p] * y;
    }
    if (blk) blk += rows * b + b;
    rows = block_rows(n, (int)b, i0, k);
    NAME(keep)(blk, rows, (int)b, i - i0, m2, v2, tau2);
    NAME(two_sided)(a, ld, r1, m2, v2, tau2, x);
    memcpy(v, v2, sizeof *v * (size_t)m2);
    s = r1, len = m2, tau = tau2;
  }
  atomic_store_explicit(&done[i], INT64_MAX, memory_order_release);
}

/* The sweeps on the host's threads, sweep i on thread i % T, each step once the sweep before is far
 * enough ahead (chase_wait): the same operations in the same order on every entry as one thread. */
static int NAME(chase)(hm_dense_chase *q, SCALAR *a, int64_t ld, _Atomic int64_t *done) {
  const int64_t n = q->n, b = q->b;
  int failed = 0;
#pragma omp parallel reduction(| : failed)
  {
    SCALAR *v = malloc(sizeof *v * (size_t)(2 * b)), *x = malloc(sizeof *x * (size_t)b);
    const int64_t T = omp_get_num_threads(), t = omp_get_thread_num();
    failed = !v || !x;
    /* a thread without workspace still marks its sweeps done, so that no other thread waits forever */
    for (int64_t i = t; i + 1 < n; i += T)
      if (v && x) NAME(sweep)(q, a, ld, i, v, x, done);
      else atomic_store_explicit(&done[i], INT64_MAX, memory_order_release);
    free(v);
    free(x);
  }
  return failed;
}
