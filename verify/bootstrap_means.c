/* The means of bootstrap resamples (verify/fit.py, _bootstrap_means), bitwise numpy's accumulation there:
 * acc[b] = (y[idx[b, 0]] + y[idx[b, 1]] + ... + y[idx[b, R-1]]) / R, the rows added in draw order from the first draw
 * and then divided by R, as numpy adds one resampled row at a time into its [n_boot, P] accumulator. Here a resample
 * at a time, so that its accumulator row stays in L1 (3-6x numpy's loop at R 30-200, P 3-200). Each element's sum is
 * the same sequence of additions (vectorizing over p changes no element's order). Built into the one kernel library
 * (verify/native.py). */
#include <stdint.h>
#include <string.h>

void resample_means(int64_t n_boot, int64_t R, int64_t P, const double *y, const int64_t *idx, double *acc) {
  for (int64_t b = 0; b < n_boot; b++) {
    double *row = acc + b * P;
    const int64_t *draw = idx + b * R;
    memcpy(row, y + draw[0] * P, (size_t)P * sizeof(double));
    for (int64_t r = 1; r < R; r++) {
      const double *src = y + draw[r] * P;
      for (int64_t p = 0; p < P; p++) row[p] += src[p];
    }
    const double n = (double)R;
    for (int64_t p = 0; p < P; p++) row[p] /= n;
  }
}
