"""dutta2023 problems: the regression agents' costs, gradients and Hessians against finite differences and
direct evaluation, their exact constants, the noise models, the label-flip attack, and ``fedverify constants``."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from analytic.papers import dutta2023 as D
from verify import cli
from verify.problems import dutta2023_problems as P
from verify.problems.least_squares import SQUARE, from_arrays, gaussian_agents, stack_rows

LINKS = [SQUARE, P.P1_LINK, P.P1NC_LINK, P.P2_LINK]


def _data(seed=0, N=4, l=6, d=3, noise=0.3):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((N, l, d))
    b = A @ rng.standard_normal(d) + noise * rng.standard_normal((N, l))
    return A, b


def _phi(link, r):
    return {"square": r**2, P.P1_LINK.name: r**2 + np.sin(r) ** 2, P.P1NC_LINK.name: r**2 + 3 * np.sin(r) ** 2,
            "logistic": 1 / (1 + np.exp(-r))}[link.name]


@pytest.mark.parametrize("link", LINKS, ids=lambda k: k.name)
def test_cost_gradient_and_hessian_match_direct_evaluation_and_finite_differences(link):
    A, b = _data()
    prob = from_arrays(A, b, link)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5, 4, 3))
    direct = _phi(link, np.linalg.norm(np.einsum("nld,mnd->mnl", A, X) - b[None], axis=-1))
    Xt = torch.tensor(X)
    assert np.allclose(prob.loss(Xt).numpy(), direct, rtol=1e-12)
    h = 1e-6
    G = prob.grad(Xt).numpy()
    H = prob.hessian(Xt).numpy()
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        fd = (_phi(link, np.linalg.norm(np.einsum("nld,mnd->mnl", A, X + e) - b[None], axis=-1)) - direct
              - (_phi(link, np.linalg.norm(np.einsum("nld,mnd->mnl", A, X - e) - b[None], axis=-1)) - direct)) / (2 * h)
        assert np.allclose(G[..., j], fd, rtol=1e-5, atol=1e-6)
        gfd = (prob.grad(torch.tensor(X + e)).numpy() - prob.grad(torch.tensor(X - e)).numpy()) / (2 * h)
        assert np.allclose(H[..., :, j], gfd, rtol=1e-5, atol=1e-5)


def test_the_hessian_formula_is_accurate_at_tiny_residuals():
    prob, x_opt = gaussian_agents(3, 5, 2, torch.Generator().manual_seed(0), link=P.P1NC_LINK)
    X = (x_opt + 1e-9)[None, None].expand(1, 3, 2)
    G = prob.G[0].numpy()
    assert np.allclose(prob.hessian(X)[0].numpy(), 2 * 4 * G, rtol=1e-6)  # psi'(0) = 1 + kappa = 4: Hessian 8 A^T A


def test_sufficient_statistics_reproduce_the_residual_whatever_the_rank():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((3, 2, 5))  # l < d: rank-deficient agents
    b = rng.standard_normal((3, 2))
    prob = from_arrays(A, b)
    X = rng.standard_normal((4, 3, 5))
    direct = np.linalg.norm(np.einsum("nld,mnd->mnl", A, X) - b[None], axis=-1) ** 2
    assert np.allclose(prob.loss(torch.tensor(X)).numpy(), direct, rtol=1e-10)


def test_exact_smoothness_constant_is_attained_and_never_exceeded():
    for kind, curv in (("ls", 2.0), ("p1", 4.0), ("p1nc", 8.0)):
        prob, x_opt = P.build(kind, torch.Generator().manual_seed(3), N=6, rows=8, dim=3)
        L = P.exact_smoothness(prob).value
        a2 = np.linalg.eigvalsh(prob.G[0].numpy())[:, -1].max()
        assert L == pytest.approx(curv * a2)
        rng = np.random.default_rng(0)
        X = x_opt.numpy() + rng.standard_normal((400, 3)) * rng.uniform(0, 2, (400, 1))
        Hs = prob.numpy_oracle().hessians(X)
        assert np.abs(np.linalg.eigvalsh(Hs)).max() <= L * (1 + 1e-9)
        at_opt = np.abs(np.linalg.eigvalsh(prob.numpy_oracle().hessians(x_opt.numpy()[None]))).max()
        assert at_opt == pytest.approx(L, rel=1e-9)
    p2, _ = P.build("p2", torch.Generator().manual_seed(3), N=4, rows=5, dim=2)
    assert math.isinf(P.exact_smoothness(p2).value)


def test_isotropic_pl_constants_and_the_p1_bounds():
    assert D.isotropic_pl_constant(1.0)[0] == pytest.approx(1.07423, abs=1e-5)
    assert D.isotropic_pl_constant(3.0)[0] == pytest.approx(0.17553, abs=1e-5)
    assert D.isotropic_pl_constant(1.0)[1] == pytest.approx(2.1156, abs=1e-3)
    lo, hi = D.p1_pl_bounds(lambda_min_sum=50.0, n_honest=50)
    assert (lo, hi) == (0.5, 4.0)
    assert D.f_max_condition_9(50, 1.07423, 4.0) == 4 and D.condition_9(4, 50, 1.07423, 4.0)
    assert not D.condition_9(5, 50, 1.07423, 4.0)
    assert D.redundancy_by_rank(50, 10, 1, 40, False) is False and D.redundancy_by_rank(50, 2, 1, 40, False) is True


def test_honest_average_gap_is_exact_and_least_squares_constants_are_exact():
    prob, _ = gaussian_agents(8, 30, 4, torch.Generator().manual_seed(4), label_noise=0.5)
    avg = prob.honest_average(2)
    G, z, s = prob.gram_numpy(slice(2, None))
    x = np.random.default_rng(0).standard_normal((5, 4))
    val = np.mean([np.einsum("mi,ij,mj->m", x - z[i], G[i], x - z[i]) + s[i] for i in range(len(G))], axis=0)
    xs = avg.x_star[0].numpy()
    v_star = np.mean([(xs - z[i]) @ G[i] @ (xs - z[i]) + s[i] for i in range(len(G))])
    assert np.allclose(avg.gap(torch.tensor(x)).numpy(), val - v_star, rtol=1e-9)
    c = prob.constants(2)
    assert c["L"].value == pytest.approx(2 * np.linalg.eigvalsh(G)[:, -1].max())
    assert c["mu"].value == pytest.approx(2 * np.linalg.eigvalsh(G.mean(0))[0])


def test_noise_models_n1_and_n2():
    assert P.coordinate_std(2.0, 4) == pytest.approx(1.0)  # E||noise||^2 = d std^2 = sigma^2
    assert P.coordinate_std(2.0, 4, 16) == pytest.approx(0.25)  # N2: variance sigma^2 / m
    assert torch.allclose(P.coordinate_std(torch.tensor([2.0, 4.0]), 4, torch.tensor([1.0, 4.0])),
                          torch.tensor([1.0, 1.0], dtype=torch.float64))


def test_label_flip_negates_only_the_byzantine_rows_agents():
    prob, x_opt = gaussian_agents(5, 6, 2, torch.Generator().manual_seed(5))
    flipped = P.label_flip(prob, 2, torch.tensor([True, False]))
    assert torch.equal(flipped.z[0, :2], -prob.z[0, :2]) and torch.equal(flipped.z[0, 2:], prob.z[0, 2:])
    assert torch.equal(flipped.z[1], prob.z[0])


def test_stacked_rows_keep_each_rows_optimum():
    a, _ = gaussian_agents(5, 20, 3, torch.Generator().manual_seed(6), label_noise=0.0)
    b, _ = gaussian_agents(5, 20, 3, torch.Generator().manual_seed(6), label_noise=0.3,
                           noise_generator=torch.Generator().manual_seed(9))
    both = stack_rows([a, b]).honest_average(1)
    assert torch.allclose(both.x_star[0], a.honest_average(1).x_star[0])
    assert torch.allclose(both.x_star[1], b.honest_average(1).x_star[0])


# -- fedverify constants ---------------------------------------------------------------------------------------
def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_constants_p1_isotropic_prints_the_exact_pl_constant_and_how(capsys):
    code, out, _ = run(capsys, "constants", "dutta2023-p1", "--isotropic", "--N", "12", "--f", "2", "--d", "4", "--l", "4")
    assert code == 0
    line = next(x for x in out.splitlines() if x.strip().startswith("mu_PL "))
    assert float(line.split("=")[1].split()[0]) == pytest.approx(1.0742, rel=0.005)
    assert "(exact)" in line and "rho" in line  # says how it was obtained


def test_constants_least_squares_user_file(capsys, tmp_path):
    rng = np.random.default_rng(0)
    N, l, d = 10, 8, 3
    A = rng.standard_normal((N, l, d))
    x = rng.standard_normal(d)
    np.savez(tmp_path / "clean.npz", A=A, b=A @ x)
    np.savez(tmp_path / "noisy.npz", A=A, b=A @ x + 0.1 * rng.standard_normal((N, l)))
    out_json = tmp_path / "c.json"
    code, out, _ = run(capsys, "constants", "least-squares", str(tmp_path / "clean.npz"), "--f", "2", "--json", str(out_json))
    assert code == 0
    doc = json.loads(out_json.read_text())["constants"]
    G = np.einsum("nli,nlj->nij", A, A)
    assert doc["L"]["value"] == pytest.approx(2 * np.linalg.eigvalsh(G)[:, -1].max()) and doc["L"]["label"] == "exact"
    assert doc["mu_PL"]["value"] == pytest.approx(2 * np.linalg.eigvalsh(G.mean(0))[0])
    assert doc["redundancy_2f"]["value"] is True and doc["redundancy_2f"]["label"] == "exact"  # C(10, 8) = 45: enumerated
    code, out, _ = run(capsys, "constants", "least-squares", str(tmp_path / "noisy.npz"), "--f", "2", "--json", str(out_json))
    doc = json.loads(out_json.read_text())["constants"]
    assert code == 0 and doc["redundancy_2f"]["value"] is False and doc["redundancy_2f_gap"]["value"] > 1e-4
    assert "worst subset" in doc["redundancy_2f_gap"]["how"]


@pytest.mark.parametrize("content,needle", [
    ({"A": np.zeros((3, 4)), "b": np.zeros((3, 4))}, "A"),
    ({"A": np.zeros((3, 4, 2)), "b": np.zeros((3, 5))}, "b"),
    ({"A": np.full((3, 4, 2), np.nan), "b": np.zeros((3, 4))}, "NaN"),
    ({"A": np.zeros((3, 4, 2))}, "lacks"),
])
def test_constants_least_squares_bad_files_one_line_exit_2(capsys, tmp_path, content, needle):
    path = tmp_path / "bad.npz"
    np.savez(path, **content)
    code, out, err = run(capsys, "constants", "least-squares", str(path), "--f", "1")
    assert code == 2 and err.count("\n") == 1 and "FILE" in err and needle in err


def test_constants_least_squares_missing_file_and_bad_f(capsys, tmp_path):
    code, _, err = run(capsys, "constants", "least-squares", str(tmp_path / "nope.npz"))
    assert code == 2 and "FILE" in err and err.count("\n") == 1
    (tmp_path / "text.npz").write_text("not a zip")
    code, _, err = run(capsys, "constants", "least-squares", str(tmp_path / "text.npz"))
    assert code == 2 and err.count("\n") == 1
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 5, 2))
    np.savez(tmp_path / "ok.npz", A=A, b=A @ np.ones(2))
    code, _, err = run(capsys, "constants", "least-squares", str(tmp_path / "ok.npz"), "--f", "4")
    assert code == 2 and "--f" in err


def test_isotropic_agents_match_the_general_costs_exactly():
    from verify.problems.least_squares import RegressionAgents

    g = torch.Generator().manual_seed(0)
    G = torch.eye(5, dtype=torch.float64).expand(1, 50, 5, 5).clone()
    z = torch.randn(5, generator=g, dtype=torch.float64).expand(1, 50, 5).clone()
    s = torch.zeros(1, 50, dtype=torch.float64)
    a, b = RegressionAgents(G, z, s, P.sin_link(1.5)), P.IsotropicAgents(G, z, s, P.sin_link(1.5))
    X = torch.randn(7, 50, 5, generator=g, dtype=torch.float64)
    assert torch.allclose(a.grad(X), b.grad(X), rtol=1e-14, atol=0) and torch.allclose(a.loss(X), b.loss(X), rtol=1e-14)
    assert torch.allclose(a.honest_average(3).gap(X[:, 0]), b.honest_average(3).gap(X[:, 0]), rtol=1e-14)
    with pytest.raises(Exception):
        P.IsotropicAgents(2 * G, z, s, P.sin_link(1.5))
