/* Threshold-Clustering balls by the Gram identity (werner2023 eq. (24)), float64, one thread, plain C (no torch
 * headers): gcc builds it in about a second (verify/algorithms/tc_c.py, `make setup`), ctypes calls it on tensor
 * data pointers. Given the dot products g = <v_k, z_i> (a batched matrix product, done by torch), for each row r,
 * center k and point i:
 *     D = ||v_k||^2 + ||z_i||^2 - 2 g,   m = D - tau_k^2,
 *     inside = m <= 0,   unsure = |m| <= bound_k,   gap_k = min_i |m|,
 * in one pass (in torch these are eight passes over [R, K, N]). The caller (verify/algorithms/threshold_clustering.py,
 * gram_balls) rechecks the unsure pairs by exact differences, so the balls are bitwise the exact-difference test
 * (the rounding bound, verify.aggregators.classic.gram_error_factor, holds for any order of the sums, with or
 * without FMA). Returns the number of unsure pairs. */
#include <math.h>
#include <stdint.h>

int64_t tc_gram_balls(int64_t R, int64_t K, int64_t N, const double *g, const double *z_sq, const double *v_sq,
                      const double *t2, const double *bound, uint8_t *inside, uint8_t *unsure, double *gap) {
  int64_t n_unsure = 0;
  for (int64_t r = 0; r < R; ++r) {
    const double *zs = z_sq + r * N;
    for (int64_t k = 0; k < K; ++k) {
      const int64_t rk = r * K + k;
      const double c = v_sq[rk] - t2[rk], b = bound[rk];
      const double *gk = g + rk * N;
      uint8_t *in = inside + rk * N, *un = unsure + rk * N;
      double lo = INFINITY;
      int64_t cnt = 0;
#pragma omp simd reduction(min : lo) reduction(+ : cnt)
      for (int64_t i = 0; i < N; ++i) {
        const double m = (c + zs[i]) - 2.0 * gk[i];
        const double a = fabs(m);
        in[i] = m <= 0.0;
        un[i] = a <= b;
        cnt += a <= b;
        lo = a < lo ? a : lo;
      }
      gap[rk] = lo;
      n_unsure += cnt;
    }
  }
  return n_unsure;
}

/* The same balls with the dot products computed here too, fused with the test while a replicate's points are in
 * cache (no [R, K, N] product in memory, no BLAS call): for the n replicates rows[a] of z [R, N, d] (z_sq [R, N]
 * their squared norms) and the centers v [n, K, d], with c = ||v_k||^2 - tau_k^2 and bound [n, K], the outputs
 * inside, unsure [n, K, N] and gap [n, K] are as in tc_gram_balls with g = <v_k, z_i> summed in another order (the
 * bound holds for any order). Points go in tiles of 16 (transposed into a scratch tile in L1), centers in blocks
 * of 4 (8 independent FMA chains of 8 lanes). GCC/clang vector extensions: plain C on any target. */
#include <stdlib.h>
#include <string.h>

typedef double v8d __attribute__((vector_size(64)));
typedef long long v8l __attribute__((vector_size(64)));
typedef signed char v8c __attribute__((vector_size(8)));
#define TILE 16

/* The points i0 .. i0 + 15 of row zr [N, d] transposed into the [d, TILE] tile scratch (zero-padded past N). (A
 * tile-major copy of all the points, made once a clustering, cost more than it saved: a fresh 16 MB buffer's page
 * faults, 20 ms against 14 ms a TC benchmark clustering under load.) */
#if defined(__clang__)
#define SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define SHUF(a, b, ...) __builtin_shuffle(a, b, (v8l){__VA_ARGS__})
#endif

/* o[c * ld + e] = r[e][c] for an 8 x 8 block whose rows r[e] = src + e * sd (three levels of shuffles) */
static inline void transpose8(const double *src, int64_t sd, double *o, int64_t ld) {
  v8d r[8], t[8], w[8];
  for (int e = 0; e < 8; ++e) memcpy(&r[e], src + e * sd, sizeof(v8d));
  for (int q = 0; q < 4; ++q) {
    t[2 * q] = SHUF(r[2 * q], r[2 * q + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[2 * q + 1] = SHUF(r[2 * q], r[2 * q + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int h = 0; h < 2; ++h) { /* rows 4h .. 4h + 3 */
    const v8d *tt = t + 4 * h;
    w[4 * h + 0] = SHUF(tt[0], tt[2], 0, 1, 8, 9, 4, 5, 12, 13);  /* columns 0, 4 */
    w[4 * h + 1] = SHUF(tt[0], tt[2], 2, 3, 10, 11, 6, 7, 14, 15); /* columns 2, 6 */
    w[4 * h + 2] = SHUF(tt[1], tt[3], 0, 1, 8, 9, 4, 5, 12, 13);  /* columns 1, 5 */
    w[4 * h + 3] = SHUF(tt[1], tt[3], 2, 3, 10, 11, 6, 7, 14, 15); /* columns 3, 7 */
  }
  static const int col_lo[4] = {0, 2, 1, 3};
  for (int q = 0; q < 4; ++q) {
    const v8d lo = SHUF(w[q], w[4 + q], 0, 1, 2, 3, 8, 9, 10, 11), hi = SHUF(w[q], w[4 + q], 4, 5, 6, 7, 12, 13, 14, 15);
    memcpy(o + col_lo[q] * ld, &lo, sizeof lo);
    memcpy(o + (col_lo[q] + 4) * ld, &hi, sizeof hi);
  }
}

/* r[e] = the sum of the lanes of x[e], e < 8 (three levels of pairwise shuffles and adds) */
static inline v8d hsum8(const v8d x[8]) {
  v8d t[4], w[2];
  for (int q = 0; q < 4; ++q)
    t[q] = SHUF(x[2 * q], x[2 * q + 1], 0, 8, 2, 10, 4, 12, 6, 14) + SHUF(x[2 * q], x[2 * q + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  for (int q = 0; q < 2; ++q)
    w[q] = SHUF(t[2 * q], t[2 * q + 1], 0, 1, 8, 9, 4, 5, 12, 13) + SHUF(t[2 * q], t[2 * q + 1], 2, 3, 10, 11, 6, 7, 14, 15);
  return SHUF(w[0], w[1], 0, 1, 2, 3, 8, 9, 10, 11) + SHUF(w[0], w[1], 4, 5, 6, 7, 12, 13, 14, 15);
}

static inline const double *tile_of(const double *zr, int64_t i0, int64_t N, int64_t d, double *scratch) {
  const int64_t w = N - i0 < TILE ? N - i0 : TILE;
  if (w == TILE && d % 8 == 0) {
    for (int64_t p0 = 0; p0 < TILE; p0 += 8)
      for (int64_t j0 = 0; j0 < d; j0 += 8) transpose8(zr + (i0 + p0) * d + j0, d, scratch + j0 * TILE + p0, TILE);
  } else if (w == TILE) {
    for (int64_t p = 0; p < TILE; ++p)
      for (int64_t j = 0; j < d; ++j) scratch[j * TILE + p] = zr[(i0 + p) * d + j];
  } else {
    for (int64_t p = 0; p < TILE; ++p)
      for (int64_t j = 0; j < d; ++j) scratch[j * TILE + p] = p < w ? zr[(i0 + p) * d + j] : 0.0;
  }
  return scratch;
}

/* The dot products of 4 centers (v0 and the 3 rows after it, d apart) with the 16 points of a transposed tile: acc[q][h]
   holds center q against points 8h..8h+7, each summed over the coordinates in order. */
static inline void dot_4x16(const double *tl, const double *v0, int64_t d, v8d acc[4][2]) {
  const double *v1 = v0 + d, *v2 = v1 + d, *v3 = v2 + d;
  v8d a00 = {0}, a01 = {0}, a10 = {0}, a11 = {0}, a20 = {0}, a21 = {0}, a30 = {0}, a31 = {0};
  for (int64_t j = 0; j < d; ++j) {
    const v8d x0 = *(const v8d *)(tl + j * TILE), x1 = *(const v8d *)(tl + j * TILE + 8);
    a00 += v0[j] * x0;
    a01 += v0[j] * x1;
    a10 += v1[j] * x0;
    a11 += v1[j] * x1;
    a20 += v2[j] * x0;
    a21 += v2[j] * x1;
    a30 += v3[j] * x0;
    a31 += v3[j] * x1;
  }
  acc[0][0] = a00, acc[0][1] = a01, acc[1][0] = a10, acc[1][1] = a11;
  acc[2][0] = a20, acc[2][1] = a21, acc[3][0] = a30, acc[3][1] = a31;
}

/* The ball test of one center against the w points of a tile, from their dot products g (acc, as dot_4x16 leaves them):
   m = (c + |z|^2) - 2 g, inside when m <= 0, unsure (decided exactly later) when |m| <= b; writes in[0, w), un[0, w)
   and, when M is not NULL, m; lowers *gap to the smallest |m|; returns the number of unsure points. */
static inline int64_t tile_test(const v8d acc[2], double ck, double b, const double *zs, int64_t w, uint8_t *in,
                                uint8_t *un, double *M, double *gap) {
  if (w == TILE) { /* vectorised: 8 lanes at a time */
    v8d lo = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
    v8l cnt = {0};
    for (int h = 0; h < 2; ++h) {
      v8d zsv;
      memcpy(&zsv, zs + 8 * h, sizeof zsv);
      const v8d m = (ck + zsv) - 2.0 * acc[h];
      const v8d am = (v8d)((v8l)m & 0x7fffffffffffffffLL); /* fabs, lane-wise */
      const v8l isun = am <= b;
      const v8c bin = __builtin_convertvector((m <= 0.0) & 1, v8c), bun = __builtin_convertvector(isun & 1, v8c);
      if (M) memcpy(M + 8 * h, &m, sizeof m);
      memcpy(in + 8 * h, &bin, 8);
      memcpy(un + 8 * h, &bun, 8);
      cnt -= isun;
      const v8l lt = am < lo;
      lo = (v8d)(((v8l)am & lt) | ((v8l)lo & ~lt));
    }
    double l = *gap;
    int64_t n = 0;
    for (int e = 0; e < 8; ++e) {
      l = lo[e] < l ? lo[e] : l;
      n += cnt[e];
    }
    *gap = l;
    return n;
  }
  double g[TILE];
  memcpy(g, &acc[0], sizeof(v8d));
  memcpy(g + 8, &acc[1], sizeof(v8d));
  double lo = *gap;
  int64_t n = 0;
  for (int64_t p = 0; p < w; ++p) {
    const double m = (ck + zs[p]) - 2.0 * g[p];
    const double am = fabs(m);
    if (M) M[p] = m;
    in[p] = m <= 0.0;
    un[p] = am <= b;
    n += am <= b;
    lo = am < lo ? am : lo;
  }
  *gap = lo;
  return n;
}

int64_t tc_dot_balls(int64_t n, const int64_t *rows, int64_t N, int64_t d, int64_t K, const double *z,
                     const double *z_sq, const double *v, const double *c, const double *bound, uint8_t *inside,
                     uint8_t *unsure, double *gap) {
  const int64_t Kp = (K + 3) / 4 * 4;
  double *zt = aligned_alloc(64, sizeof(double) * TILE * (size_t)(d > 0 ? d : 1));
  double *vp = aligned_alloc(64, sizeof(double) * (size_t)(Kp * (d > 0 ? d : 1)));
  if (!zt || !vp) {
    free(zt);
    free(vp);
    return -1;
  }
  int64_t n_unsure = 0;
  for (int64_t a = 0; a < n; ++a) {
    const double *zr = z + rows[a] * N * d, *zs = z_sq + rows[a] * N;
    memset(vp, 0, sizeof(double) * (size_t)(Kp * d));
    memcpy(vp, v + a * K * d, sizeof(double) * (size_t)(K * d));
    for (int64_t k = 0; k < K; ++k) gap[a * K + k] = INFINITY;
    for (int64_t i0 = 0; i0 < N; i0 += TILE) {
      const int64_t w = N - i0 < TILE ? N - i0 : TILE;
      const double *tl = tile_of(zr, i0, N, d, zt);
      for (int64_t kb = 0; kb < Kp; kb += 4) {
        v8d acc[4][2];
        dot_4x16(tl, vp + kb * d, d, acc);
        for (int64_t q = 0; q < 4 && kb + q < K; ++q) {
          const int64_t ak = a * K + kb + q;
          const double ck = c[ak], b = bound[ak];
          uint8_t *in = inside + ak * N + i0, *un = unsure + ak * N + i0;
          n_unsure += tile_test(acc[q], ck, b, zs + i0, w, in, un, NULL, gap + ak);
        }
      }
    }
  }
  free(zt);
  free(vp);
  return n_unsure;
}

/* The squared norms z_sq[r, i] = ||z_ri||^2 and their maxima z_max[r] of the n replicates rows[a] of z [R, N, d]. */
void tc_norms(int64_t n, const int64_t *rows, int64_t N, int64_t d, const double *z, double *z_sq, double *z_max) {
  for (int64_t a = 0; a < n; ++a) {
    const int64_t r = rows[a];
    double hi = -INFINITY;
    for (int64_t i = 0; i < N; ++i) {
      const double *zi = z + (r * N + i) * d;
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int64_t j = 0; j < d; ++j) s += zi[j] * zi[j];
      z_sq[r * N + i] = s;
      hi = s > hi || s != s ? s : hi;
    }
    z_max[r] = hi;
  }
}

/* sk[j] = the sum of zr[i, j] over the points i with in[i] != 0 (zr [N, d]), each coordinate summed in the order of
 * the points, from 0: ((0 + z_i1j) + z_i2j) + ... for i1 < i2 < ... (a fixed order, whatever the vector width, the
 * blocking or the caller: the in-ball sums of the step cache's C path, tc_dot_anchor and tc_masked_sums). */
static void masked_sum(const double *zr, int64_t N, int64_t d, const uint8_t *in, double *sk) {
  memset(sk, 0, sizeof(double) * (size_t)d);
  int64_t j0 = 0;
  for (; j0 + 32 <= d; j0 += 32) { /* 32 coordinates at a time in registers (no store-to-load chain) */
    v8d s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    for (int64_t i = 0; i < N; ++i)
      if (in[i]) {
        const double *zi = zr + i * d + j0;
        v8d x0, x1, x2, x3;
        memcpy(&x0, zi, 64), memcpy(&x1, zi + 8, 64), memcpy(&x2, zi + 16, 64), memcpy(&x3, zi + 24, 64);
        s0 += x0, s1 += x1, s2 += x2, s3 += x3;
      }
    memcpy(sk + j0, &s0, 64), memcpy(sk + j0 + 8, &s1, 64), memcpy(sk + j0 + 16, &s2, 64), memcpy(sk + j0 + 24, &s3, 64);
  }
  if (j0 < d)
    for (int64_t i = 0; i < N; ++i)
      if (in[i]) {
        const double *zi = zr + i * d;
#pragma omp simd
        for (int64_t j = j0; j < d; ++j) sk[j] += zi[j];
      }
}

/* The in-ball sums and counts of the n replicates rows[a] of z [R, N, d] for the balls inside [n, K, N] (bool):
 * sum [n, K, d], cnt [n, K] (as doubles), by masked_sum (the numbers tc_dot_anchor's out_sum gives for the same
 * balls). */
void tc_masked_sums(int64_t n, const int64_t *rows, int64_t N, int64_t d, int64_t K, const double *z,
                    const uint8_t *inside, double *sum, double *cnt) {
  for (int64_t a = 0; a < n; ++a)
    for (int64_t k = 0; k < K; ++k) {
      const uint8_t *in = inside + (a * K + k) * N;
      int64_t c = 0;
      for (int64_t i = 0; i < N; ++i) c += in[i];
      masked_sum(z + rows[a] * N * d, N, d, in, sum + (a * K + k) * d);
      cnt[a * K + k] = (double)c;
    }
}

/* tc_dot_balls and the anchors of the step cache in one call, a replicate at a time while its points are in cache
 * (verify/algorithms/threshold_clustering.py, _reanchor_c). Besides tc_dot_balls's outputs (m, the test quantities,
 * are kept in scratch), for each center k with no undecided pair: the in-ball mean (summed by masked_sum; out_sum
 * [n, K, d] and out_cnt [n, K], when not NULL, get these sums and counts of the balls before the caller's recheck of
 * the undecided pairs) and the points anchor[a, j, k] = mean + keep^js[j] (v - mean),
 * keep = 1 - |S| / N (js[j] = inf: the mean; an empty ball: v), and slack[a, j, k] > 0 when the ball at that anchor is
 * the one at v_k, every point's true distance to the anchor being more than it away from tau_k (0 otherwise). A
 * point is pruned by the triangle inequality: its true distance to v_k lies in sqrt(m + tau^2 -+ bound) and the
 * anchor is delta = |anchor - v_k| away, so a point more than tau / 2 + delta inside (or outside) the ball at v_k is
 * more than tau / 2 inside (outside) the ball at the anchor; only the others get a dot product with the anchor. u = unit roundoff; cf = gram_error_factor(d) (bounds the
 * rounding of delta). Returns the number of undecided pairs, or -1 when out of memory. */
int64_t tc_dot_anchor(int64_t n, const int64_t *rows, int64_t N, int64_t d, int64_t K, int64_t A, const double *js,
                      const double *z, const double *z_sq, const double *z_max, const double *v, const double *c,
                      const double *t2, const double *bound, double cf, double u, uint8_t *inside, uint8_t *unsure,
                      double *gap, double *anchor, double *slack, double *out_sum, double *out_cnt) {
  const int64_t Kp = (K + 3) / 4 * 4;
  double *zt = aligned_alloc(64, sizeof(double) * TILE * (size_t)(d > 0 ? d : 1));
  double *vp = aligned_alloc(64, sizeof(double) * (size_t)(Kp * (d > 0 ? d : 1)));
  double *M = malloc(sizeof(double) * (size_t)((K * N) > 0 ? K * N : 1));
  double *sum = malloc(sizeof(double) * (size_t)((K * d) > 0 ? K * d : 1));
  int64_t *cnt = malloc(sizeof(int64_t) * (size_t)(K > 0 ? K : 1));
  int64_t *unk = malloc(sizeof(int64_t) * (size_t)(K > 0 ? K : 1));
  if (!zt || !vp || !M || !sum || !cnt || !unk) {
    free(zt), free(vp), free(M), free(sum), free(cnt), free(unk);
    return -1;
  }
  int64_t n_unsure = 0;
  for (int64_t a = 0; a < n; ++a) {
    const double *zr = z + rows[a] * N * d, *zs = z_sq + rows[a] * N;
    memset(vp, 0, sizeof(double) * (size_t)(Kp * d));
    memcpy(vp, v + a * K * d, sizeof(double) * (size_t)(K * d));
    for (int64_t k = 0; k < K; ++k) gap[a * K + k] = INFINITY, unk[k] = 0;
    /* 1. the balls at v: m for every pair, the test, the undecided pairs */
    for (int64_t i0 = 0; i0 < N; i0 += TILE) {
      const int64_t w = N - i0 < TILE ? N - i0 : TILE;
      const double *tl = tile_of(zr, i0, N, d, zt);
      for (int64_t kb = 0; kb < Kp; kb += 4) {
        v8d acc[4][2];
        dot_4x16(tl, vp + kb * d, d, acc);
        for (int64_t q = 0; q < 4 && kb + q < K; ++q) {
          const int64_t k = kb + q, ak = a * K + k;
          const double ck = c[ak], b = bound[ak];
          unk[k] += tile_test(acc[q], ck, b, zs + i0, w, inside + ak * N + i0, unsure + ak * N + i0, M + k * N + i0,
                              gap + ak);
        }
      }
    }
    /* 2. the in-ball sums and the anchors */
    memset(sum, 0, sizeof(double) * (size_t)(K * d));
    for (int64_t k = 0; k < K; ++k) {
      const uint8_t *in = inside + (a * K + k) * N;
      double *sk = sum + k * d;
      int64_t ck = 0;
      for (int64_t i = 0; i < N; ++i) ck += in[i];
      masked_sum(zr, N, d, in, sk);
      cnt[k] = ck;
      n_unsure += unk[k];
    }
    if (out_sum) memcpy(out_sum + a * K * d, sum, sizeof(double) * (size_t)(K * d));
    if (out_cnt)
      for (int64_t k = 0; k < K; ++k) out_cnt[a * K + k] = (double)cnt[k];
    for (int64_t k = 0; k < K; ++k) {
      const int64_t ak = a * K + k;
      const double *vk = v + ak * d;
      const double keep = 1.0 - (double)cnt[k] / (double)N, inv = 1.0 / (double)(cnt[k] > 0 ? cnt[k] : 1);
      const double tk2 = t2[ak], tk = sqrt(tk2), zm = z_max[a];
      for (int64_t jj = 0; jj < A; ++jj) {
        double *an = anchor + ((a * A + jj) * K + k) * d;
        const double f = isinf(js[jj]) ? 0.0 : pow(keep, js[jj]);
        double an_sq = 0.0, dl = 0.0;
        for (int64_t j = 0; j < d; ++j) {
          const double mean = cnt[k] > 0 ? sum[k * d + j] * inv : vk[j];
          an[j] = mean + f * (vk[j] - mean);
          an_sq += an[j] * an[j];
          dl += (an[j] - vk[j]) * (an[j] - vk[j]);
        }
        double *sl = slack + (a * A + jj) * K + k;
        *sl = 0.0;
        if (unk[k] > 0 || !(tk > 0.0)) continue; /* an undecided pair at v: no slack at its anchors */
        const double delta = sqrt(dl) * (1.0 + cf) + 4.0 * u * tk; /* >= the true |anchor - v_k| */
        const double ca = an_sq - tk2, ba = cf * (an_sq + zm) + 4.0 * u * tk2;
        /* pruned: the points the triangle inequality puts more than H = tau / 2 inside or outside (the slack is then
         * at most H: a larger one is rarely of use, and the exact distances of the points nearer than it are) */
        const double H = 0.5 * tk, ein = tk - delta - H, eout = tk + delta + H;
        const double tin = ein > 0.0 ? ein * ein * (1.0 - 4.0 * u) : -INFINITY;
        const double tout = eout * eout * (1.0 + 4.0 * u), bk = bound[ak];
        const double *Mk = M + k * N;
        const uint8_t *in = inside + ak * N;
        double hi_in = -INFINITY, lo_out = INFINITY, lo_m = INFINITY;
        int ok = 1;
        int64_t i = 0;
        { /* 8 points at a time: the pruned ones in vector registers, the others one by one */
          const v8d NINF = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
          v8d hv = NINF, lv = -NINF;
          for (; i + 8 <= N && ok; i += 8) {
            v8d D;
            v8c ib;
            memcpy(&D, Mk + i, sizeof D);
            memcpy(&ib, in + i, sizeof ib);
            D += tk2;
            const v8l inb = __builtin_convertvector(ib, v8l) != 0;
            const v8d Dhi = (D + bk) * (1.0 + 4.0 * u), Dlo = (D - bk) * (1.0 - 4.0 * u);
            const v8l pin = inb & (Dhi < tin), pout = ~inb & (Dlo > tout);
            const v8l up = pin & (Dhi > hv), dn = pout & (Dlo < lv);
            hv = (v8d)(((v8l)Dhi & up) | ((v8l)hv & ~up));
            lv = (v8d)(((v8l)Dlo & dn) | ((v8l)lv & ~dn));
            const v8c prb = __builtin_convertvector(pin | pout, v8c);
            uint64_t bits;
            memcpy(&bits, &prb, 8);
            if (bits == ~(uint64_t)0) continue; /* all 8 pruned (each byte 0xff) */
            if (d % 8 == 0) { /* the 8 dot products at once, over the lanes of d / 8 vectors */
              v8d x[8] = {{0}};
              for (int64_t j = 0; j < d; j += 8) {
                v8d av;
                memcpy(&av, an + j, sizeof av);
                for (int e = 0; e < 8; ++e) {
                  v8d zz;
                  memcpy(&zz, zr + (i + e) * d + j, sizeof zz);
                  x[e] += zz * av;
                }
              }
              v8d zsv;
              memcpy(&zsv, zs + i, sizeof zsv);
              const v8d m8 = (ca + zsv) - 2.0 * hsum8(x);
              for (int e = 0; e < 8; ++e) {
                if ((bits >> (8 * e)) & 1) continue;
                const double m = m8[e], am = fabs(m);
                if (am <= ba || (m <= 0.0) != (in[i + e] != 0)) ok = 0;
                lo_m = am < lo_m ? am : lo_m;
              }
              continue;
            }
            for (int e = 0; e < 8; ++e) {
              if ((bits >> (8 * e)) & 1) continue;
              const double *zi = zr + (i + e) * d;
              double gd = 0.0;
#pragma omp simd reduction(+ : gd)
              for (int64_t j = 0; j < d; ++j) gd += an[j] * zi[j];
              const double m = (ca + zs[i + e]) - 2.0 * gd, am = fabs(m);
              if (am <= ba || (m <= 0.0) != (in[i + e] != 0)) ok = 0; /* too near to say, or another ball */
              lo_m = am < lo_m ? am : lo_m;
            }
          }
          for (int e = 0; e < 8; ++e) {
            hi_in = hv[e] > hi_in ? hv[e] : hi_in;
            lo_out = lv[e] < lo_out ? lv[e] : lo_out;
          }
        }
        for (; i < N && ok; ++i) {
          const double D = Mk[i] + tk2;
          if (in[i]) {
            const double Dhi = (D + bk) * (1.0 + 4.0 * u);
            if (Dhi < tin) {
              hi_in = Dhi > hi_in ? Dhi : hi_in;
              continue;
            }
          } else {
            const double Dlo = (D - bk) * (1.0 - 4.0 * u);
            if (Dlo > tout) {
              lo_out = Dlo < lo_out ? Dlo : lo_out;
              continue;
            }
          }
          const double *zi = zr + i * d;
          double gd = 0.0;
#pragma omp simd reduction(+ : gd)
          for (int64_t j = 0; j < d; ++j) gd += an[j] * zi[j];
          const double m = (ca + zs[i]) - 2.0 * gd, am = fabs(m);
          if (am <= ba || (m <= 0.0) != (in[i] != 0)) ok = 0; /* too near to say, or another ball */
          lo_m = am < lo_m ? am : lo_m;
        }
        if (!ok) continue;
        double h = INFINITY;
        if (lo_m < INFINITY) h = sqrt(tk2 + (lo_m - ba)) - tk;
        if (hi_in > -INFINITY) {
          const double e = (tk - delta) - sqrt(hi_in);
          h = e < h ? e : h;
        }
        if (lo_out < INFINITY) {
          const double e = sqrt(lo_out) - (tk + delta);
          h = e < h ? e : h;
        }
        h -= 16.0 * u * (tk + delta); /* the rounding of the subtractions and square roots above */
        *sl = h > 0.0 && h < INFINITY ? h : 0.0;
      }
    }
  }
  free(zt), free(vp), free(M), free(sum), free(cnt), free(unk);
  return n_unsure;
}

typedef double v4d __attribute__((vector_size(32)));

/* the sum of the 4 lanes of x, in lane order */
static inline double lanes4(v4d x) { return ((x[0] + x[1]) + x[2]) + x[3]; }

/* g[i] = <v, z_i> for the N points of zr [N, d] (d % 4 == 0): 8 points at a time, 8 independent 4-wide FMA chains,
 * each point's dot product summed over the coordinates in 4 interleaved lanes, then the lanes in order. */
static void dots_1(const double *zr, int64_t N, int64_t d, const double *v, double *g) {
  int64_t i = 0;
  for (; i + 8 <= N; i += 8) {
    const double *z0 = zr + i * d;
    v4d a[8] = {{0}};
    for (int64_t j = 0; j < d; j += 4) {
      v4d vv;
      memcpy(&vv, v + j, 32);
      for (int e = 0; e < 8; ++e) {
        v4d x;
        memcpy(&x, z0 + e * d + j, 32);
        a[e] += x * vv;
      }
    }
    for (int e = 0; e < 8; ++e) g[i + e] = lanes4(a[e]);
  }
  for (; i < N; ++i) {
    const double *zi = zr + i * d;
    v4d a = {0};
    for (int64_t j = 0; j < d; j += 4) {
      v4d vv, x;
      memcpy(&vv, v + j, 32), memcpy(&x, zi + j, 32);
      a += x * vv;
    }
    g[i] = lanes4(a);
  }
}

/* g[q * N + i] = <v_q, z_i> for 4 centers v_q = v + q d and the N points of zr [N, d] (d % 4 == 0): 2 points at a
 * time against the 4 centers, 8 independent chains, each point's z read once for the 4 centers; the same lane order
 * as dots_1. */
static void dots_4(const double *zr, int64_t N, int64_t d, const double *v, double *g) {
  const double *v1 = v + d, *v2 = v1 + d, *v3 = v2 + d;
  int64_t i = 0;
  for (; i + 2 <= N; i += 2) {
    const double *z0 = zr + i * d, *z1 = z0 + d;
    v4d a00 = {0}, a01 = {0}, a10 = {0}, a11 = {0}, a20 = {0}, a21 = {0}, a30 = {0}, a31 = {0};
    for (int64_t j = 0; j < d; j += 4) {
      v4d x0, x1, w0, w1, w2, w3;
      memcpy(&x0, z0 + j, 32), memcpy(&x1, z1 + j, 32);
      memcpy(&w0, v + j, 32), memcpy(&w1, v1 + j, 32), memcpy(&w2, v2 + j, 32), memcpy(&w3, v3 + j, 32);
      a00 += x0 * w0, a01 += x1 * w0, a10 += x0 * w1, a11 += x1 * w1;
      a20 += x0 * w2, a21 += x1 * w2, a30 += x0 * w3, a31 += x1 * w3;
    }
    g[i] = lanes4(a00), g[i + 1] = lanes4(a01), g[N + i] = lanes4(a10), g[N + i + 1] = lanes4(a11);
    g[2 * N + i] = lanes4(a20), g[2 * N + i + 1] = lanes4(a21), g[3 * N + i] = lanes4(a30);
    g[3 * N + i + 1] = lanes4(a31);
  }
  for (int q = 0; q < 4; ++q)
    for (int64_t k = i; k < N; ++k) {
      const double *zi = zr + k * d, *vq = v + q * d;
      v4d a = {0};
      for (int64_t j = 0; j < d; j += 4) {
        v4d vv, x;
        memcpy(&vv, vq + j, 32), memcpy(&x, zi + j, 32);
        a += x * vv;
      }
      g[q * N + k] = lanes4(a);
    }
}

/* g[i] = <v, z_i> for any d (one point at a time, the compiler's reduction order). */
static void dots_any(const double *zr, int64_t N, int64_t d, const double *v, double *g) {
  for (int64_t i = 0; i < N; ++i) {
    const double *zi = zr + i * d;
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t j = 0; j < d; ++j) s += v[j] * zi[j];
    g[i] = s;
  }
}

/* A whole Threshold-Clustering run, `steps` steps of eq. (24) v_k <- v_k + (S_k - |S_k| v_k) / N, for each of the n
 * rows of z [n, N, d] (centers v0 [n, K, d], radii tau [n, K]) while the row's points are in cache: they are read
 * from memory once a run instead of once a step (verify/algorithms/threshold_clustering.py, whole_run). Each step's
 * ball of center k comes from the Gram identity with the rounding bound of tc_gram_balls (bound = cf (|v_k|^2 +
 * max_i |z_i|^2) + 4 u tau_k^2): when a pair lies within the bound of the sphere it is not decided here, the row's
 * status becomes 1 and the caller runs that row again by the step-by-step path (which rechecks such pairs by exact
 * differences); so every ball of a row with status 0 is the exact-difference test's. A ball is kept without a test
 * while its center stays within the slack of the point where it was last computed (the rule of the step cache,
 * StepCache.stale_rows: moved (1 + cf) + cf tau < slack (1 - cf)). The in-ball sum S_k is summed in the points' order
 * (masked_sum) when the ball is first computed or when more than N / 8 points entered or left it, otherwise updated by
 * the points that entered (added) and left (subtracted), in the points' order: within a few roundings of |z| per
 * changed point of a fresh sum. strict: the test dist < tau (it decides like <= on every pair outside the bound).
 * Outputs: v_out [n, K, d] the centers after the run, inside [n, K, N] the balls of the last step (those at its
 * starting centers), status [n]. Returns the number of rows with status 1, -1 when out of memory. */
int64_t tc_run(int64_t n, int64_t N, int64_t d, int64_t K, int64_t steps, const double *z, const double *v0,
               const double *tau, double cf, double u, uint8_t *v_status, double *v_out, uint8_t *inside) {
  const int64_t Kp = K > 1 ? (K + 3) / 4 * 4 : K;
  const size_t dd = (size_t)(d > 0 ? d : 1), NN = (size_t)(N > 0 ? N : 1), KK = (size_t)(Kp > 0 ? Kp : 1);
  double *zs = malloc(sizeof(double) * NN), *g = malloc(sizeof(double) * NN * KK);
  double *vp = calloc(KK * dd, sizeof(double));
  double *sum = malloc(sizeof(double) * KK * dd), *anc = malloc(sizeof(double) * KK * dd);
  double *slack = malloc(sizeof(double) * KK), *cnt = malloc(sizeof(double) * KK);
  uint8_t *ball = calloc(NN, 1), *need = malloc(KK);
  if (!zs || !g || !vp || !sum || !anc || !slack || !cnt || !ball || !need) {
    free(zs), free(g), free(vp), free(sum), free(anc), free(slack), free(cnt), free(ball), free(need);
    return -1;
  }
  int64_t bad = 0;
  for (int64_t a = 0; a < n; ++a) {
    const double *zr = z + a * N * d;
    double *V = v_out + a * K * d;
    uint8_t *in_a = inside + a * K * N;
    memcpy(V, v0 + a * K * d, sizeof(double) * (size_t)(K * d));
    double zm = -INFINITY;
    for (int64_t i = 0; i < N; ++i) {
      const double *zi = zr + i * d;
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int64_t j = 0; j < d; ++j) s += zi[j] * zi[j];
      zs[i] = s;
      zm = s > zm || s != s ? s : zm;
    }
    int ok = N == 0 || zm < 1e280;
    for (int64_t k = 0; k < K; ++k) slack[k] = -1.0; /* no ball yet */
    for (int64_t st = 0; st < steps && ok; ++st) {
      int any = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double *vk = V + k * d, *ak = anc + k * d;
        const double tk = tau[a * K + k];
        need[k] = 1;
        if (slack[k] > 0.0) {
          double m2 = 0.0;
          for (int64_t j = 0; j < d; ++j) m2 += (vk[j] - ak[j]) * (vk[j] - ak[j]);
          need[k] = !(sqrt(m2) * (1.0 + cf) + cf * tk < slack[k] * (1.0 - cf));
        }
        any |= need[k];
      }
      if (any) { /* the dot products of the centers to test (in blocks of 4 when K > 1) */
        if (d % 4 != 0) {
          for (int64_t k = 0; k < K; ++k)
            if (need[k]) dots_any(zr, N, d, V + k * d, g + k * N);
        } else if (K == 1) {
          dots_1(zr, N, d, V, g);
        } else {
          memcpy(vp, V, sizeof(double) * (size_t)(K * d));
          for (int64_t kb = 0; kb < K; kb += 4) {
            int blk = 0;
            for (int64_t q = kb; q < kb + 4 && q < K; ++q) blk |= need[q];
            if (blk) dots_4(zr, N, d, vp + kb * d, g + kb * N);
          }
        }
      }
      for (int64_t k = 0; k < K && ok; ++k) {
        double *vk = V + k * d, *ak = anc + k * d, *sk = sum + k * d;
        uint8_t *in = in_a + k * N;
        const double tk = tau[a * K + k], t2 = tk * tk;
        if (need[k]) {
          double vsq = 0.0;
          for (int64_t j = 0; j < d; ++j) vsq += vk[j] * vk[j];
          if (!(vsq < 1e280)) {
            ok = 0;
            break;
          }
          const double c = vsq - t2, b = cf * (vsq + zm) + 4.0 * u * t2, *gk = g + k * N;
          double lo = INFINITY;
          int64_t moved = 0;
          int undecided = 0;
          for (int64_t i = 0; i < N; ++i) {
            const double m = (c + zs[i]) - 2.0 * gk[i], am = fabs(m);
            const uint8_t b_i = m <= 0.0;
            undecided |= !(am > b);
            moved += b_i != in[i];
            ball[i] = b_i;
            lo = am < lo ? am : lo;
          }
          if (undecided) {
            ok = 0;
            break;
          }
          if (st == 0 || 8 * moved > N) { /* a fresh sum */
            if (N > 0) memcpy(in, ball, (size_t)N);
            int64_t ck = 0;
            for (int64_t i = 0; i < N; ++i) ck += in[i];
            masked_sum(zr, N, d, in, sk);
            cnt[k] = (double)ck;
          } else if (moved) { /* the points that entered and left */
            for (int64_t i = 0; i < N; ++i)
              if (ball[i] != in[i]) {
                const double *zi = zr + i * d, sg = ball[i] ? 1.0 : -1.0;
                for (int64_t j = 0; j < d; ++j) sk[j] += sg * zi[j];
                cnt[k] += sg;
                in[i] = ball[i];
              }
          }
          memcpy(ak, vk, sizeof(double) * (size_t)d);
          const double gp = lo - b;
          slack[k] = gp > 0.0 && gp < INFINITY ? sqrt(t2 + gp) - tk : (N == 0 ? INFINITY : 0.0);
        }
        for (int64_t j = 0; j < d; ++j) vk[j] = vk[j] + (sk[j] - cnt[k] * vk[j]) / (double)N;
      }
    }
    v_status[a] = !ok;
    bad += !ok;
  }
  free(zs), free(g), free(vp), free(sum), free(anc), free(slack), free(cnt), free(ball), free(need);
  return bad;
}
