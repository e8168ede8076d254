"""``fedverify privacy``: the Rényi privacy spend of CafCor (SecLDP), LDP and CDP for given noise and T.

Two modes:

* **account** -- given the per-worker noise (``--sigma-cor``, ``--sigma-ind``, standard deviations),
  print sigma_eff^2, the per-step RDP, eps at delta under each conversion with its order, and whether
  Theorem 4.1's condition holds (at ``--epsilon`` if given, else at the smallest eps it certifies);
* **calibrate** -- given ``--target-epsilon`` instead of the noise, print the least noise (for the
  shape ``--noise-ratio`` = sigma_cor/sigma_ind) under each conversion and Theorem 4.1's minimum.

``--json FILE`` writes the same fields (``--json -``: to standard output, instead of the table). Bad input prints one line naming the parameter and exits 2.
The math is analytic/privacy.py; this module only parses, formats and writes.
"""
from __future__ import annotations

import argparse
import math
import sys

import importlib
from analytic.errors import InputError
from verify.cli_args import add_json_option, output_file, parse_int, parse_number, write_json

PROG = "fedverify privacy"
#: the flag of each accountant parameter whose name differs from it (the rest: --name-with-dashes)
FLAGS = {"C": "--clip", "T": "--steps", "sigma_cor2": "--sigma-cor", "sigma_ind2": "--sigma-ind",
         "ratio": "--noise-ratio", "sigma_eff2": "--sigma-cor"}
MECHANISM_NAMES = {"secldp": "SecLDP (CafCor correlated noise)", "ldp": "LDP (independent noise only)",
                   "cdp": "CDP (server sees only the honest sum)"}
class _Privacy:
    """analytic.privacy, imported on first use: it pulls in scipy, and ``fedverify --help`` must not wait for it."""

    def __getattr__(self, name):
        return getattr(importlib.import_module("analytic.privacy"), name)


P = _Privacy()
ORDER_GRID_NAMES = {"opacus": "OPACUS_ORDERS", "dp-accounting": "DP_ACCOUNTING_ORDERS"}


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``privacy`` subcommand to an argparse subparsers object and return its parser."""
    p = subparsers.add_parser(
        "privacy", help="Rényi privacy spend of CafCor (SecLDP), LDP and CDP for given noise and T",
        description=("Account for T steps of CafCor's correlated-noise mechanism (allouah2025, Lemma A.4, Theorem "
                     "4.1), or of LDP/CDP at the same per-worker noise; with --target-epsilon, find the least noise."))
    _add_arguments(p)
    return p


def _add_arguments(p: argparse.ArgumentParser) -> None:
    # Values are parsed as text and converted in run(), so every bad value gets one line naming it.
    p.add_argument("--mechanism", default="secldp", help="secldp (default), ldp or cdp")
    p.add_argument("--n", help="number of workers n")
    p.add_argument("--f", default="0", help="malicious workers f < n/2 (default 0)")
    p.add_argument("--q", help="malicious workers colluding with the server, q <= f (default: q = f)")
    p.add_argument("--sigma-cor", help="std of the pairwise correlated noise per pair (sigma_cor)")
    p.add_argument("--sigma-ind", help="std of the independent noise per worker (sigma_ind)")
    p.add_argument("--clip", default="1", help="clipping threshold C; sensitivity is 2C (default 1)")
    p.add_argument("--steps", default="1", help="number of steps T (default 1)")
    p.add_argument("--delta", default="1e-5", help="delta in (0, 1) (default 1e-5)")
    p.add_argument("--epsilon", help="check Theorem 4.1's condition at this eps (must be < log(1/delta))")
    p.add_argument("--target-epsilon", help="instead of the noise: find the least noise reaching this eps")
    p.add_argument("--noise-ratio", help="with --target-epsilon: sigma_cor/sigma_ind (default 1 for secldp, 0 for "
                                         "cdp; 'inf' means sigma_ind = 0)")
    p.add_argument("--orders", default="opacus", help="order grid of the grid conversion: opacus (default) or "
                                                      "dp-accounting")
    add_json_option(p, "the numbers")


# -- parsing of values -------------------------------------------------------------------------------
def _number(text, param: str, *, integer: bool = False, allow_inf: bool = False) -> float | int:
    return parse_int(text, param) if integer else parse_number(text, param, allow_inf=allow_inf)


def _noise_std(text, param: str) -> float:
    s = _number(text, param)
    if s < 0:
        raise InputError(param, f"noise standard deviation must be >= 0 (got {text})")
    if not math.isfinite(s * s):
        raise InputError(param, f"too large: its square (the variance) overflows float64 (got {text})")
    if s > 0 and s * s < sys.float_info.min:  # the variance would underflow to 0 (or lose its digits): eps = inf
        raise InputError(param, f"too small: its square (the variance) underflows float64 (got {text}); "
                                f"give at least {math.sqrt(sys.float_info.min):.3g}, or 0 for no noise")
    return s


def _inputs(args) -> dict:
    mechanism = P.validate_mechanism(args.mechanism)
    if args.n is None:
        if mechanism != "ldp":
            raise InputError("n", f"the number of workers is required for {mechanism}")
        n = 1
    else:
        n = _number(args.n, "--n", integer=True)
    f = _number(args.f, "--f", integer=True)
    q = f if args.q is None else _number(args.q, "--q", integer=True)
    n, f, q = P.validate_workers(n, f, q)
    C = P.validate_clip(_number(args.clip, "--clip"))
    T = P.validate_steps(_number(args.steps, "--steps", integer=True))
    delta = P.validate_delta(_number(args.delta, "--delta"))
    if args.orders not in ORDER_GRID_NAMES:
        raise InputError("orders", f"expected one of {', '.join(ORDER_GRID_NAMES)} (got {args.orders!r})")
    return {"mechanism": mechanism, "n": n, "f": f, "q": q, "C": C, "T": T, "delta": delta, "orders": args.orders}


# -- the two modes ---------------------------------------------------------------------------------------
def account_report(args, inp: dict) -> dict:
    """Account mode: the fields of the report for given noise."""
    if args.sigma_cor is None and args.sigma_ind is None:
        raise InputError("sigma_ind", "give the noise (--sigma-cor and/or --sigma-ind) or --target-epsilon")
    s_cor = _noise_std(args.sigma_cor if args.sigma_cor is not None else "0", "--sigma-cor")
    s_ind = _noise_std(args.sigma_ind if args.sigma_ind is not None else "0", "--sigma-ind")
    m, n, f, q, C, T, delta = (inp[k] for k in ("mechanism", "n", "f", "q", "C", "T", "delta"))
    acc = P.account(m, n, f, q, s_cor**2, s_ind**2, C, T, delta, getattr(P, ORDER_GRID_NAMES[inp["orders"]]))
    L = P.log_inv_delta(delta)
    certified = P.theorem41_certified_epsilon(acc.sigma_eff2, C, T, delta)
    theorem = {"log_1_over_delta": L, "certified_epsilon": certified, "applies": certified < L}
    if args.epsilon is not None:
        eps = P.validate_theorem_epsilon(_number(args.epsilon, "--epsilon"), delta)
        R = P.theorem41_required_sigma_eff2(eps, T, delta, C)
        theorem.update({"epsilon": eps, "required_sigma_eff2": R, "proof_bound_on_eps_star":
                        P.theorem41_epsilon_bound(eps, delta)})
        holds = acc.sigma_eff2 >= R
    else:
        holds = certified < L
    convs = {acc.mironov.conversion: acc.mironov, acc.grid.conversion: acc.grid}
    return {
        "mode": "account", "mechanism": m, "inputs": {**inp, "sigma_cor": s_cor, "sigma_ind": s_ind,
                                                      "sigma_cor2": s_cor**2, "sigma_ind2": s_ind**2},
        "sigma_eff2": acc.sigma_eff2, "z_eff": acc.z_eff, "rdp_per_step": acc.rdp_per_step,
        "rdp_total_per_alpha": acc.rdp_total_slope,
        "epsilon": {k: r.epsilon for k, r in convs.items()}, "alpha": {k: r.alpha for k, r in convs.items()},
        "conversions": {k: r.as_dict() for k, r in convs.items()},
        "condition_holds": bool(holds), "theorem41": theorem,
    }


def calibrate_report(args, inp: dict) -> dict:
    """Calibrate mode: the least noise for --target-epsilon under each conversion, and Theorem 4.1's minimum."""
    if args.sigma_cor is not None or args.sigma_ind is not None:
        raise InputError("target_epsilon", "replaces the noise; do not also give --sigma-cor/--sigma-ind")
    if args.epsilon is not None:
        raise InputError("epsilon", "not used with --target-epsilon (the target is the eps)")
    m, n, f, q, C, T, delta = (inp[k] for k in ("mechanism", "n", "f", "q", "C", "T", "delta"))
    target = _number(args.target_epsilon, "--target-epsilon")
    if target <= 0:
        raise InputError("target_epsilon", f"must be > 0 (got {args.target_epsilon})")
    ratio = None if args.noise_ratio is None else _number(args.noise_ratio, "--noise-ratio", allow_inf=True)
    orders = getattr(P, ORDER_GRID_NAMES[inp["orders"]])
    cals = {conv: P.calibrate(m, n, f, q, target, T, delta, C, ratio=ratio, conversion=conv, orders=orders)
            for conv in (P.MIRONOV_OPTIMAL, P.BALLE_GRID)}
    L = P.log_inv_delta(delta)
    theorem: dict = {"log_1_over_delta": L, "applies": target < L}
    if target < L:
        R = P.theorem41_required_sigma_eff2(target, T, delta, C)
        c2, i2 = P.scale_noise_to_sigma_eff2(R, m, n, f, q, P.noise_shape(m, ratio))
        theorem.update({"min_sigma_eff2": R, "min_sigma_cor": math.sqrt(c2), "min_sigma_ind": math.sqrt(i2)})
    holds = {conv: bool(target < L and c.sigma_eff2 >= theorem["min_sigma_eff2"]) for conv, c in cals.items()}
    return {
        "mode": "calibrate", "mechanism": m, "inputs": {**inp, "noise_ratio": ratio}, "target_epsilon": target,
        "sigma_eff2": {k: c.sigma_eff2 for k, c in cals.items()},
        "sigma_cor": {k: math.sqrt(c.sigma_cor2) for k, c in cals.items()},
        "sigma_ind": {k: math.sqrt(c.sigma_ind2) for k, c in cals.items()},
        "rdp_per_step": {k: P.rdp_slope(c.sigma_eff2, C) for k, c in cals.items()},
        "epsilon": {k: c.achieved.epsilon for k, c in cals.items()},
        "alpha": {k: c.achieved.alpha for k, c in cals.items()},
        "conversions": {k: {**c.as_dict(), **c.achieved.as_dict()} for k, c in cals.items()},
        "condition_holds": holds, "theorem41": theorem,
    }


# -- formatting ------------------------------------------------------------------------------------------
def _setting_line(rep: dict) -> str:
    i = rep["inputs"]
    workers = "" if rep["mechanism"] == "ldp" else f"n={i['n']} f={i['f']} q={i['q']}, "
    return (f"{MECHANISM_NAMES[rep['mechanism']]}: {workers}C={i['C']:g} (sensitivity 2C), T={i['T']}, "
            f"delta={i['delta']:g}")


def format_account(rep: dict) -> str:
    i, th = rep["inputs"], rep["theorem41"]
    lines = [_setting_line(rep),
             f"  noise               sigma_cor={i['sigma_cor']:g}  sigma_ind={i['sigma_ind']:g}",
             f"  effective noise     sigma_eff^2 = {rep['sigma_eff2']:.8g}   (z_eff = sigma_eff/(2C) = {rep['z_eff']:.6g})",
             f"  per-step RDP        RDP(alpha) = alpha * {rep['rdp_per_step']:.10g}   (T steps: alpha * "
             f"{rep['rdp_total_per_alpha']:.10g})"]
    for k, c in rep["conversions"].items():
        edge = "  [optimum on the grid's edge: widen the grid]" if c["on_grid_edge"] else ""
        label = "epsilon at delta" if k == P.MIRONOV_OPTIMAL else ""
        grid = f", {c['grid']} grid" if c["grid"] else ""
        lines.append(f"  {label:<19} {c['epsilon']:.6f}  at alpha = {c['alpha']:.6g}   ({k}{grid}: {c['reference']}){edge}")
    if "epsilon" in th:
        verdict = "holds" if rep["condition_holds"] else "does not hold"
        lines.append(f"  Theorem 4.1         condition {verdict} at eps = {th['epsilon']:g}: sigma_eff^2 = "
                     f"{rep['sigma_eff2']:.6g} vs required 16 C^2 T log(1/delta)/eps^2 = {th['required_sigma_eff2']:.6g}")
    elif rep["condition_holds"]:
        lines.append(f"  Theorem 4.1         condition holds: it certifies eps = {th['certified_epsilon']:.6g} "
                     f"< log(1/delta) = {th['log_1_over_delta']:.6g}")
    else:
        lines.append(f"  Theorem 4.1         condition does not hold for any eps < log(1/delta) = "
                     f"{th['log_1_over_delta']:.6g} (it would need eps >= {th['certified_epsilon']:.6g})")
    if rep["mechanism"] == "cdp":
        lines.append("                      (the paper states the condition for SecLDP; for CDP it is the same "
                     "Gaussian-mechanism condition)")
    return "\n".join(lines)


def format_calibrate(rep: dict) -> str:
    th = rep["theorem41"]
    lines = [_setting_line(rep), f"  least noise for eps = {rep['target_epsilon']:g} at delta = {rep['inputs']['delta']:g}"]
    for k, c in rep["conversions"].items():
        lines.append(f"  {k:<17} sigma_cor = {c['sigma_cor']:.6g}  sigma_ind = {c['sigma_ind']:.6g}  sigma_eff^2 = "
                     f"{c['sigma_eff2']:.6g}  (eps = {c['achieved_epsilon']:.6f} at alpha = {c['alpha']:.6g})")
    if th["applies"]:
        lines.append(f"  Theorem 4.1       needs sigma_eff^2 >= {th['min_sigma_eff2']:.6g}: sigma_cor = "
                     f"{th['min_sigma_cor']:.6g}  sigma_ind = {th['min_sigma_ind']:.6g}")
    else:
        lines.append(f"  Theorem 4.1       does not apply: eps = {rep['target_epsilon']:g} >= log(1/delta) = "
                     f"{th['log_1_over_delta']:.6g}")
    return "\n".join(lines)


def _json_safe(x):
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def run(args) -> int:
    """Run the subcommand; bad input raises InputError (the command line prints one line, exit 2)."""
    if args.json not in (None, "-"):
        output_file(args.json, "--json", create_parents=False)
    inp = _inputs(args)
    rep = calibrate_report(args, inp) if args.target_epsilon is not None else account_report(args, inp)
    if args.json != "-":
        print(format_calibrate(rep) if rep["mode"] == "calibrate" else format_account(rep))
    write_json(args.json, _json_safe(rep))
    return 0
