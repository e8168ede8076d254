/* Sorting the columns of row-major [N, C] float64 arrays in place (the client axis of a coordinate-wise
 * aggregator), plain C, one thread: Batcher's odd-even merge network (any N), each compare-exchange a min and a max
 * over a tile of columns (vectorised across coordinates; the tile stays in L1). A network sorts: the values come out
 * as any sort gives them (verify/aggregators/classic.py uses it for N <= SORT_NETWORK_MAX_N without NaN, where it
 * beats numpy's per-column sort; tests/verify/test_aggregators_kernels.py compares). Built with tc_balls.c
 * (verify/algorithms/tc_c.py). */
#include <stdint.h>

static void sort_tile(double *x, int64_t n, int64_t stride, int64_t w) {
  for (int64_t p = 1; p < n; p <<= 1)
    for (int64_t k = p; k >= 1; k >>= 1)
      for (int64_t j = k % p; j + k < n; j += 2 * k)
        for (int64_t i = 0; i < k && i + j + k < n; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            double *a = x + (i + j) * stride, *b = x + (i + j + k) * stride;
#pragma omp simd
            for (int64_t c = 0; c < w; ++c) {
              const double u = a[c], v = b[c];
              a[c] = u < v ? u : v;
              b[c] = u < v ? v : u;
            }
          }
}

/* Sorts each of the `blocks` consecutive row-major [n, cols] arrays of x along its rows (a [blocks, n, cols] block
 * of replicates, one call). */
void sort_columns(double *x, int64_t blocks, int64_t n, int64_t cols, int64_t tile) {
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t c0 = 0; c0 < cols; c0 += tile) {
      const int64_t w = cols - c0 < tile ? cols - c0 : tile;
      sort_tile(x + b * n * cols + c0, n, cols, w);
    }
}
