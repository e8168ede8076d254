/* The coordinate-wise trimmed mean of row-major [N, C] float64 arrays (verify/aggregators/classic.py, trimmed_mean),
 * plain C, one thread, O(N) a column instead of a sort's O(N log N): for each column, the sum of its order statistics
 * of ranks f .. N - f - 1 (the sorted values s[f:N-f]) by a quickselect that looks for both ranks at once, divided by
 * N - 2f.
 *
 * A column is copied (CWTM_TILE columns at a time, default 1: the buffers stay in L1) into a contiguous buffer. Each
 * step partitions a range around a pivot (the median of its first, middle and last values) into the values below,
 * equal to and above it, out of place into a second buffer (the parts below at the range's start, above at its end;
 * the equal ones only counted, they are all the pivot), summing the parts below and above on the way. A part whose
 * ranks all lie in [f, N - f - 1] adds its sum, a part outside it is dropped, a part that holds f or N - f - 1 is
 * partitioned again; the equal part adds pivot * (the number of its ranks in the range), which is where ties at the
 * boundaries go; ranges of at most 16 values are insertion-sorted and add the values of their ranks in the range one
 * by one. The multiset summed is exactly s[f:N-f]; the order of the additions is fixed by the data (8 lanes by
 * position within a partition pass, each lane's sum reduced in the same tree, the parts in the order the selection
 * visits them): deterministic, not the sorted order (the result differs from a sort's mean by rounding, ~1e-16
 * relative). With AVX-512 the partition is 8 values an instruction (compress and masked stores; the same arithmetic as
 * the scalar code, which any other target compiles). A column holding a NaN: returns 1 and the caller sorts (a sort
 * puts NaN last). Built with tc_balls.c (verify/algorithms/tc_c.py). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#ifndef CWTM_TILE
#define CWTM_TILE 1
#endif

typedef struct {
  int64_t off, n, r0;
  int which, depth;
} cwtm_range;

static inline double reduce8(const double a[8]) {
  const double t0 = a[0] + a[4], t1 = a[1] + a[5], t2 = a[2] + a[6], t3 = a[3] + a[7];
  return (t0 + t2) + (t1 + t3);
}

/* partition s[0..n) around p: below -> dl[0..), above -> down from dg_end; their counts and sums */
static void cwtm_partition(const double *s, int64_t n, double p, double *dl, double *dg_end, int64_t *n_lo,
                           int64_t *n_hi, double *s_lo, double *s_hi) {
  int64_t nl = 0, ng = 0;
  double al[8], ag[8];
#if defined(__AVX512F__)
  const __m512d pv = _mm512_set1_pd(p);
  __m512d vl = _mm512_setzero_pd(), vg = _mm512_setzero_pd();
  for (int64_t i = 0; i < n; i += 8) {
    const __mmask8 valid = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
    const __m512d x = _mm512_maskz_loadu_pd(valid, s + i);
    const __mmask8 ml = _mm512_mask_cmp_pd_mask(valid, x, pv, _CMP_LT_OQ);
    const __mmask8 mg = _mm512_mask_cmp_pd_mask(valid, x, pv, _CMP_GT_OQ);
    vl = _mm512_mask_add_pd(vl, ml, vl, x);
    vg = _mm512_mask_add_pd(vg, mg, vg, x);
    const int cl = __builtin_popcount(ml), cg = __builtin_popcount(mg);
    _mm512_mask_storeu_pd(dl + nl, (__mmask8)((1u << cl) - 1), _mm512_maskz_compress_pd(ml, x));
    nl += cl;
    ng += cg;
    _mm512_mask_storeu_pd(dg_end - ng, (__mmask8)((1u << cg) - 1), _mm512_maskz_compress_pd(mg, x));
  }
  _mm512_storeu_pd(al, vl);
  _mm512_storeu_pd(ag, vg);
#else
  for (int e = 0; e < 8; ++e) al[e] = ag[e] = 0.0;
  for (int64_t i0 = 0; i0 < n; i0 += 8) {
    const int64_t w = n - i0 < 8 ? n - i0 : 8;
    int64_t cg = 0;
    double gb[8];
    for (int64_t e = 0; e < w; ++e) {
      const double x = s[i0 + e];
      const int lt = x < p, gt = x > p;
      al[e] += lt ? x : 0.0;
      ag[e] += gt ? x : 0.0;
      dl[nl] = x;
      nl += lt;
      gb[cg] = x;
      cg += gt;
    }
    ng += cg;
    memcpy(dg_end - ng, gb, sizeof(double) * (size_t)cg);
  }
#endif
  *n_lo = nl;
  *n_hi = ng;
  *s_lo = reduce8(al);
  *s_hi = reduce8(ag);
}

static inline double med3(double a, double b, double c) {
  return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
}

/* the sum of the order statistics of ranks lo .. hi of A[0..N) (A and B: buffers of N values; A is overwritten) */
static double cwtm_select_sum(double *A, double *B, int64_t N, int64_t lo, int64_t hi) {
  cwtm_range st[256];
  int sp = 0;
  double total = 0.0;
  st[sp++] = (cwtm_range){0, N, 0, 0, 0};
  while (sp) {
    const cwtm_range r = st[--sp];
    double *src = (r.which ? B : A) + r.off, *dst = (r.which ? A : B) + r.off;
    const int64_t n = r.n;
    if (n <= 16 || r.depth >= 60 || sp >= 250) { /* insertion sort, then the ranks in [lo, hi] one by one */
      for (int64_t i = 1; i < n; ++i) {
        const double x = src[i];
        int64_t j = i;
        for (; j > 0 && src[j - 1] > x; --j) src[j] = src[j - 1];
        src[j] = x;
      }
      for (int64_t i = 0; i < n; ++i)
        if (r.r0 + i >= lo && r.r0 + i <= hi) total += src[i];
      continue;
    }
    const double p = med3(src[0], src[n / 2], src[n - 1]);
    int64_t nl, ng;
    double sl, sg;
    cwtm_partition(src, n, p, dst, dst + n, &nl, &ng, &sl, &sg);
    const int64_t ne = n - nl - ng, e0 = r.r0 + nl, e1 = e0 + ne - 1; /* the equal part's ranks e0 .. e1 */
    const int64_t a = e0 > lo ? e0 : lo, b = e1 < hi ? e1 : hi;
    if (a <= b) total += p * (double)(b - a + 1);
    const int64_t parts[2][3] = {{0, nl, r.r0}, {n - ng, ng, e1 + 1}}; /* offset, size, first rank */
    for (int q = 0; q < 2; ++q) {
      const int64_t m = parts[q][1], f0 = parts[q][2], f1 = f0 + m - 1;
      if (m == 0 || f1 < lo || f0 > hi) continue;
      if (f0 >= lo && f1 <= hi) {
        total += q ? sg : sl;
        continue;
      }
      st[sp++] = (cwtm_range){r.off + parts[q][0], m, f0, !r.which, r.depth + 1};
    }
  }
  return total;
}

/* out[b, c] = the mean of the sorted values s[f:N-f] of column c of each [N, C] array b of x [blocks, N, C];
 * returns 0, 1 when a column holds a NaN (out is then incomplete: the caller sorts), -1 when out of memory. */
int64_t trimmed_mean_columns(const double *x, int64_t blocks, int64_t N, int64_t C, int64_t f, double *out) {
  if (N <= 0 || 2 * f >= N) return -1;
  double *cols = malloc(sizeof(double) * (size_t)((CWTM_TILE + 1) * N));
  if (!cols) return -1;
  double *B = cols + CWTM_TILE * N;
  const double inv = (double)(N - 2 * f);
  for (int64_t b = 0; b < blocks; ++b) {
    const double *xb = x + b * N * C;
    for (int64_t c0 = 0; c0 < C; c0 += CWTM_TILE) {
      const int64_t w = C - c0 < CWTM_TILE ? C - c0 : CWTM_TILE;
      int bad = 0;
      for (int64_t i = 0; i < N; ++i) {
        const double *row = xb + i * C + c0;
        for (int64_t e = 0; e < w; ++e) {
          cols[e * N + i] = row[e];
          bad |= row[e] != row[e];
        }
      }
      if (bad) {
        free(cols);
        return 1;
      }
      for (int64_t e = 0; e < w; ++e) out[b * C + c0 + e] = cwtm_select_sum(cols + e * N, B, N, f, N - f - 1) / inv;
    }
  }
  free(cols);
  return 0;
}
