"""Real datasets for the papers' experiments: loaders and the papers' partition schemes.

* :mod:`verify.data.datasets`: scikit-learn's bundled handwritten digits (8x8, 1797 images, shipped inside the
  package, the default everywhere) and MNIST read from a local path (``fedverify run --data PATH``). Nothing
  is ever downloaded.
* :mod:`verify.data.partition`: the partition schemes the papers use (werner2023's rotation and
  private-label clusters, allouah2025's Dirichlet / extreme label splits, buttaci2024's Dirichlet class and
  log-normal size imbalance), pure functions of explicit generators, batched as ``[N, n_i, d]`` arrays.
* :mod:`verify.data.softmax`: the multinomial logistic model the reproductions train, batched over any
  leading axes (replicates, clients, models).
"""
