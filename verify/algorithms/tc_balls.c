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
