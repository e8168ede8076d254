// Fused Threshold-Clustering step sums (werner2023 eq. (24)), float64, one thread.
// For every row r, point i and center k: dist = sqrt(sum_j (z_ij - v_kj)^2) from exact differences,
// then the inclusive (or strict) test against tau_rk, and z_i added to the center's in-ball sum while the
// point is still in L1. The points are read once. verify/algorithms/tc_native.py builds and loads it;
// verify/algorithms/threshold_clustering.py falls back to the torch step when it is absent.
#include <torch/extension.h>
#include <cmath>

std::vector<torch::Tensor> tc_sums(torch::Tensor Z, torch::Tensor V, torch::Tensor tau, bool inclusive, bool want_inside) {
  TORCH_CHECK(Z.dtype() == torch::kFloat64 && V.dtype() == torch::kFloat64 && tau.dtype() == torch::kFloat64, "float64 only");
  TORCH_CHECK(Z.is_contiguous() && V.is_contiguous() && tau.is_contiguous(), "contiguous inputs only");
  const int64_t R = Z.size(0), N = Z.size(1), d = Z.size(2), K = V.size(1);
  auto S = torch::zeros({R, K, d}, Z.options());
  auto C = torch::zeros({R, K, 1}, Z.options());
  auto I = want_inside ? torch::zeros({R, K, N}, Z.options().dtype(torch::kBool)) : torch::empty({0}, Z.options().dtype(torch::kBool));
  const double* z = Z.data_ptr<double>();
  const double* v = V.data_ptr<double>();
  const double* t = tau.data_ptr<double>();
  double* s = S.data_ptr<double>();
  double* c = C.data_ptr<double>();
  bool* in = want_inside ? I.data_ptr<bool>() : nullptr;
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t i = 0; i < N; ++i) {
      const double* zi = z + (r * N + i) * d;
      for (int64_t k = 0; k < K; ++k) {
        const double* vk = v + (r * K + k) * d;
        double acc = 0.0;
#pragma omp simd reduction(+ : acc)
        for (int64_t j = 0; j < d; ++j) {
          const double df = zi[j] - vk[j];
          acc += df * df;
        }
        const double dist = std::sqrt(acc), tk = t[r * K + k];
        if (inclusive ? dist <= tk : dist < tk) {
          double* sk = s + (r * K + k) * d;
#pragma omp simd
          for (int64_t j = 0; j < d; ++j) sk[j] += zi[j];
          c[r * K + k] += 1.0;
          if (in) in[(r * K + k) * N + i] = true;
        }
      }
    }
  }
  return {S, C, I};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("tc_sums", &tc_sums, "fused Threshold-Clustering step sums"); }
