"""ClusteredQuadratics.noise scales its draws in place: bitwise the former xi * (sigma / sqrt d) / sqrt|B|."""
import math

import torch

from verify.problems.clustered_quadratics import clustered_quadratics


def test_noise_in_place_matches_former_formula():
    prob = clustered_quadratics(torch.Generator().manual_seed(0), 3, 2, 4, 5, 10.0, hessian="planted", mu=1.0, L=2.0,
                                dtype=torch.float64).with_noise(0.7)
    for B in (1, 4, torch.tensor([1.0, 2.0, 9.0], dtype=torch.float64)):  # an int, and per replicate (edge: |B| = 1)
        got = prob.noise((3, 8, 5), torch.Generator().manual_seed(1), B)
        xi = torch.randn((3, 8, 5), generator=torch.Generator().manual_seed(1), dtype=torch.float64)
        Bt = B if not isinstance(B, torch.Tensor) else B[:, None, None]
        want = xi * (0.7 / math.sqrt(5)) / (torch.sqrt(Bt) if isinstance(Bt, torch.Tensor) else math.sqrt(Bt))
        assert torch.equal(got, want)
