/* FedAvg's local steps on quadratic client losses from their Gram statistics (verify/algorithms/two_phase.py,
 * Phase2Round.local_update, backend "gram"), bitwise the torch loop there:
 *
 *     for each of s steps:  g = G v  (torch.matmul, one bmm over the clients);  g = g - b;  g = g * c;  v = v - g
 *
 * for n clients with G [n, d, d], b [n, d], c [n] and v [n, d] (updated in place). With d * d < 400 torch computes
 * the batched product with its own loop (aten LinearAlgebra.cpp, baddbmm_cpu_kernel): each g_i summed from 0.0 in k
 * order, every product rounded before its add; the caller sends only such d here. The other three are one rounding
 * each. "fp-contract=off" keeps the compiler from fusing a product into its add (-march=native allows FMA; torch's
 * generic build of that loop has none). One client at a time, all s steps while its G stays in L1; four rows of G v
 * side by side (independent sums, each in k order). Built into the one kernel library (verify/native.py). */
#include <stdint.h>

#define GRAM_STEPS_MAX_D 19 /* d * d < 400 */

__attribute__((optimize("fp-contract=off")))
int64_t gram_local_steps(int64_t n, int64_t d, int64_t s, const double *G, const double *b, const double *c,
                         double *v) {
  if (d > GRAM_STEPS_MAX_D) return -1;
  double g[GRAM_STEPS_MAX_D];
  for (int64_t q = 0; q < n; q++) {
    const double *Gq = G + q * d * d, *bq = b + q * d;
    double *vq = v + q * d;
    const double cq = c[q];
    for (int64_t step = 0; step < s; step++) {
      int64_t i = 0;
      for (; i + 4 <= d; i += 4) {
        const double *r0 = Gq + i * d, *r1 = r0 + d, *r2 = r1 + d, *r3 = r2 + d;
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
        for (int64_t k = 0; k < d; k++) {
          a0 += r0[k] * vq[k];
          a1 += r1[k] * vq[k];
          a2 += r2[k] * vq[k];
          a3 += r3[k] * vq[k];
        }
        g[i] = a0;
        g[i + 1] = a1;
        g[i + 2] = a2;
        g[i + 3] = a3;
      }
      for (; i < d; i++) {
        const double *r = Gq + i * d;
        double a = 0.0;
        for (int64_t k = 0; k < d; k++) a += r[k] * vq[k];
        g[i] = a;
      }
      for (i = 0; i < d; i++) {
        double t = g[i] - bq[i];
        t = t * cq;
        vq[i] = vq[i] - t;
      }
    }
  }
  return 0;
}
