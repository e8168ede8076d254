import pytest
import torch

from analytic.errors import InputError
from verify.problems.points import clustered_points


def test_planted_constants_exact_and_in_expectation():
    g = torch.Generator().manual_seed(0)
    d = clustered_points(400, 4, 32, 10, 2.0, 8.0, g)
    assert torch.allclose(torch.cdist(d.means, d.means)[~torch.eye(4, dtype=bool)], torch.tensor(8.0, dtype=torch.float64))
    total_var = ((d.Z - d.means[d.labels][None]) ** 2).sum(-1).mean()
    assert total_var.item() == pytest.approx(4.0, rel=0.02)  # E||xi||^2 = sigma^2 (total variance)


def test_start_rules():
    g = torch.Generator().manual_seed(1)
    d = clustered_points(200, 4, 64, 10, 1.0, 8.0, g)
    first = d.initial_error(d.own_point_init("first"))
    near = d.initial_error(d.own_point_init("within_sigma"))
    assert first.mean().item() == pytest.approx(1.0, rel=0.1)  # E c_1^2 = sigma^2
    assert near.max().item() <= 1.0 and torch.all(near <= first)
    with pytest.raises(InputError, match="rule"):
        d.own_point_init("random")
    with pytest.raises(InputError, match="d"):
        clustered_points(1, 4, 2, 3, 1.0, 8.0, g)
