/* Krum's approximate scores from a Gram matrix, their rounding intervals, and which of them can change the first
 * `lead` ranks: the part of verify/aggregators/classic.py's krum_scores that follows the Gram product, in one call
 * for all replicates (plain C, one thread; numpy's dozen calls cost more than the arithmetic below N ~ 100).
 *
 * For replicate r, with n_i = g_ii (written to `nrm`) and g the row-major [N, N] Gram matrix (overwritten by the
 * distances):  D_ij = max(n_i + n_j - 2 g_ij, 0), D_ii = 0;  score_i = the sum of the k + 1 smallest D_ij of row i
 * (D_ii = 0 among them), found by quickselect and summed in any order;  err_i = c (N n_i + sum_j n_j) + 2 N u
 * |score_i|, the bound of krum_scores' docstring, which holds for any summation order.  `order` receives each
 * replicate's rows sorted by (score, index), the stable order; `flag[i]` is 1 when row i's interval
 * [score_i - err_i, score_i + err_i] meets another row's and the row can matter for the first `lead` ranks (a row
 * ranked after them only when its lower end is at most the largest upper end of the first `lead` intervals).
 * Returns the number of flagged rows, or -1 when a score is not finite or memory runs out (the caller then takes
 * the exact path). Built with the other kernels (verify/algorithms/tc_c.py). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static void swap_d(double *a, double *b) { const double t = *a; *a = *b; *b = t; }

/* The `m` smallest of v[0..n) moved to v[0..m) (any order), by Hoare-partition quickselect (Wirth's). */
static void select_smallest(double *v, int64_t n, int64_t m) {
  int64_t lo = 0, hi = n - 1;
  const int64_t kth = m - 1;
  while (lo < hi) {
    const double pivot = v[lo + (hi - lo) / 2];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) swap_d(&v[i++], &v[j--]);
    }
    if (kth <= j) hi = j;
    else if (kth >= i) lo = i;
    else return;
  }
}

int64_t krum_gram_scores(int64_t R, int64_t N, int64_t k, double *g, double *nrm, double c, double u,
                         int64_t lead, double *score, double *err, int64_t *order, uint8_t *flag) {
  double *row = malloc(sizeof(double) * N), *up = malloc(sizeof(double) * N), *low = malloc(sizeof(double) * N);
  uint8_t *meets = malloc(N);
  int64_t flagged = 0;
  if (!row || !up || !low || !meets) { flagged = -1; goto done; }
  if (lead < 0 || lead > N) lead = N;
  for (int64_t r = 0; r < R; ++r) {
    double *G = g + r * N * N, *s = score + r * N, *e = err + r * N;
    double *n = nrm + r * N;
    int64_t *o = order + r * N;
    uint8_t *fl = flag + r * N;
    double total = 0.0;
    for (int64_t j = 0; j < N; ++j) {
      n[j] = G[j * N + j];
      total += n[j];
    }
    if (!isfinite(total)) { flagged = -1; goto done; }  /* finite norms: finite Gram entries (|g_ij| <= sqrt(n_i n_j)) */
    for (int64_t i = 0; i < N; ++i) {
      double *Gi = G + i * N;
      for (int64_t j = 0; j < N; ++j) {
        const double dij = n[i] + n[j] - 2.0 * Gi[j];
        Gi[j] = dij > 0.0 ? dij : 0.0;  /* a NaN becomes 0 here: the non-finite check is on n below */
      }
      Gi[i] = 0.0;
      for (int64_t j = 0; j < N; ++j) row[j] = Gi[j];
      select_smallest(row, N, k + 1);
      double sum = 0.0;
      for (int64_t j = 0; j <= k; ++j) sum += row[j];
      if (!isfinite(sum)) { flagged = -1; goto done; }
      s[i] = sum;
      e[i] = c * ((double)N * n[i] + total) + 2.0 * (double)N * u * fabs(sum);
      o[i] = i;
    }
    /* insertion sort, stable: the caller sends N <= 32 (KRUM_C_MAX_N), where it beats qsort's call per comparison */
    for (int64_t p = 1; p < N; ++p) {
      const int64_t v = o[p];
      int64_t q = p;
      while (q > 0 && s[o[q - 1]] > s[v]) { o[q] = o[q - 1]; --q; }
      o[q] = v;
    }
    for (int64_t p = 0; p < N; ++p) {
      up[p] = s[o[p]] + e[o[p]];
      low[p] = s[o[p]] - e[o[p]];
      meets[p] = 0;
    }
    double run_max = -INFINITY;  /* an interval meets an earlier one iff its lower end <= their largest upper end */
    for (int64_t p = 0; p < N; ++p) {
      if (p > 0 && low[p] <= run_max) meets[p] = 1;
      if (up[p] > run_max) run_max = up[p];
    }
    double run_min = INFINITY;  /* ... and a later one iff its upper end >= their smallest lower end */
    for (int64_t p = N - 1; p >= 0; --p) {
      if (p < N - 1 && up[p] >= run_min) meets[p] = 1;
      if (low[p] < run_min) run_min = low[p];
    }
    double lead_top = -INFINITY;
    for (int64_t p = 0; p < lead; ++p)
      if (up[p] > lead_top) lead_top = up[p];
    for (int64_t p = 0; p < N; ++p) {
      const uint8_t f = meets[p] && (p < lead || low[p] <= lead_top);
      fl[o[p]] = f;
      flagged += f;
    }
  }
done:
  free(row); free(up); free(low); free(meets);
  return flagged;
}

/* The Gram matrix g [R, N, N] overwritten by the squared distances of krum_scores' numpy path, in one pass:
 * D_ij = max((n_i + (-2 g_ij)) + n_j, 0), D_ii = 0, with n_i = g_ii written to `nrm` [R, N] (the same operations in
 * the same order as numpy's `D *= -2; D += n_i; D += n_j; maximum(D, 0)`, so bitwise its D; -2 g is exact, so a
 * contracted multiply-add rounds the same). Returns -1 when a replicate's norms are not finite (the caller then takes
 * the exact path, as numpy's non-finite scores would make it), else 0. */
int64_t krum_gram_distances(int64_t R, int64_t N, double *g, double *nrm) {
  for (int64_t r = 0; r < R; ++r) {
    double *G = g + r * N * N, *n = nrm + r * N;
    double total = 0.0;
    for (int64_t j = 0; j < N; ++j) {
      n[j] = G[j * N + j];
      total += n[j];
    }
    if (!isfinite(total)) return -1;
    for (int64_t i = 0; i < N; ++i) {
      double *Gi = G + i * N;
      const double ni = n[i];
      for (int64_t j = 0; j < N; ++j) {
        const double dij = (ni + (-2.0 * Gi[j])) + n[j];
        Gi[j] = dij >= 0.0 ? dij : 0.0;  /* numpy's maximum(D, 0) keeps a -0.0 (finite norms: no NaN here) */
      }
      Gi[i] = 0.0;
    }
  }
  return 0;
}
