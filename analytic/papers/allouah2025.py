"""allouah2025 (Allouah, Guerraoui, Stephan, ICML 2025, "Towards Trustworthy Federated Learning with
Untrusted Participants"; CafCor): the privacy statements as data.

Each statement is an :class:`analytic.bounds.Bound` (sympy right-hand side, kind, statement text,
source, typst math) so that checks evaluate the paper's formula rather than a copy of it. The
numbers from the paper's experiments and the reference values of our reading (docs/papers/allouah2025.md) (section 3.5, 3.6)
are kept here as plain data, labelled with where they come from.

Notation (docs/papers/allouah2025.md §1, 3): n workers, f < n/2 malicious, q <= f colluding with the server;
sigma_cor^2, sigma_ind^2 the per-worker correlated and independent noise variances; C the
clipping threshold (sensitivity 2C, user-level replace-one); T steps; L = log(1/delta).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from analytic.bounds import Bound
from analytic.papers import Paper

PAPER = Paper(
    key="allouah2025",
    title="Towards Trustworthy Federated Learning with Untrusted Participants",
    authors="Youssef Allouah, Rachid Guerraoui, John Stephan",
    venue="International Conference on Machine Learning (ICML)", year=2025,
    summary=("CafCor adds pairwise correlated noise from shared seeds (which cancels between honest workers) to "
             "independent noise, and aggregates with the CAF robust filter, against an honest-but-curious server "
             "colluding with q of the f malicious workers. The toolkit regenerates the noise exactly, accounts for its "
             "Renyi privacy spend (SecLDP, Lemma A.4 and Theorem 4.1) against Monte Carlo estimates and the field's "
             "reference accountants, and finds that the experiments' budgets lie outside Theorem 4.1's range. "
             "On adversarial inputs of 13 attack families (including label flipping) CAF met Proposition 4.1 with a "
             "worst ratio of 0.16 to kappa lambda_max (0.21 over every honest subset), while the trimmed mean and the "
             "median lost the factor Tr/lambda_max as d grew; the power-method variant stayed within the same bound "
             "(worst 0.58 with one power step). Algorithm 2 as printed (max over all points) can stall: it ran past 2f "
             "iterations on 40% of the inputs tried, the repaired loop never did, and ByzFL's CAF has the printed form. "
             "Proposition 4.1's last proof step (squares and Jensen with weights 1/3, 2/3) gives at most kappa, exactly "
             "(kappa minus it is 3f^2/((n-f)(n-2f))), and Lemma C.2 as printed misses the factor 2 of its sampling term. CafCor's excess loss decays as 1/T without "
             "heterogeneity and keeps a floor with it; at a fixed budget its error falls like n^-2.05 in n under "
             "SecLDP against n^-1.04 under LDP, and the DP error does not shrink with T, as Corollary 4.1 says; "
             "Theorem 4.2's explicit bounds hold but are loose (by 10^6 in the strongly convex case), and in the "
             "non-convex case the theorem's own step size is so small that the average squared gradient does not "
             "move over hundreds of rounds. Lemma C.4 (the 9^d covering) is false as printed for indefinite M or "
             "negative g (harmless where Lemma C.6 uses it); Lemmas C.1 and C.3 hold along CafCor runs (C.1's "
             "heterogeneity term is attained exactly); Theorem 4.2 (1) bounds theta_T, and for the theta_hat that "
             "Algorithm 1 returns its L_0 term decays like 1/T, not 1/T^2, and with Corollary 4.1's noise its DP "
             "error grows like log T (the corollary's T-free rho holds for theta_T only). Corollary 4.1's (f+1) "
             "factor, f/(n eps^2) "
             "and (f/n) G_cov^2 terms show in the errors' exponents, the trimmed mean is n times worse than CAF at a "
             "fixed fraction f/n (Appendix C.5), and SMEA meets Proposition 4.1 with constant 1."),
    not_checked=(
        ("Theorem 4.2: 'our upper bound in the strongly convex case also applies to non-convex loss functions that "
         "satisfy the Polyak-Lojasiewicz inequality' (paper line 189)",
         "the proof of Theorem 4.2 (1) (Appendix C.3.1) uses strong convexity only through the PL inequality, eq. (42) "
         "(paper line 715), so the extension follows from the proof as written; a run could only confirm it vacuously: "
         "on the classic PL function x^2 + 3 sin^2 x (L = 8, mu = 1/32) the schedule starts at gamma_0 = 1/192 and the "
         "bound's 115200 L^2 L_0/(mu^2 T^2) = 7.5e9 L_0/T^2 exceeds L_0 for every T below 8.7e4 rounds, far beyond "
         "the quick suite's budget"),
        ("Fig. 1 and Appendix D.1: CafCor under SecLDP against DSGD under CDP and against ByzLDP, MNIST and "
         "Fashion-MNIST, eps = 13.7 to 39.6 at delta = 1e-4 (section 5.1)",
         "the paper reports neither its noise levels nor how the CDP and LDP baselines were calibrated (Opacus, line "
         "225; docs/papers/allouah2025.md §7 items 3 and 14), and every reported eps lies outside Theorem 4.1's range "
         "(check c07), so a run on the bundled data would compare our calibration of the three mechanisms, not the "
         "paper's; c10 compares the mechanisms' accounted eps at equal noise instead. A run would not fit the quick "
         "suite either: x20 (one mechanism, no noise, 12 partitions, T = 50 on the 8x8 digits) already takes about "
         "6 s, and Fig. 1 needs three mechanisms at each of its budgets"),
    ),
)

n, f, q, T, C, d = sp.symbols("n f q T C d", positive=True)
s_cor2, s_ind2 = sp.symbols("sigma_cor2 sigma_ind2", nonnegative=True)
eps, delta, alpha, R = sp.symbols("epsilon delta alpha R", positive=True)
L = sp.log(1 / delta)

A = (n - q) * s_cor2 + s_ind2  # Lemma A.4 proof, step 4
B = (f - q) * s_cor2 + s_ind2

#: Lemma A.4, eq. (2): one step is (alpha, alpha * eps_step)-SecRDP against q colluders.
LEMMA_A4 = Bound(
    name="Lemma A.4 (per-step SecRDP, eq. 2)",
    expr=2 * C**2 / A * (1 + s_cor2 / B),
    kind="exact",
    statement=("Each iteration of Algorithm 1 is (alpha, alpha*eps_step)-SecRDP against an honest-but-curious server "
               "colluding with q <= f malicious workers, with eps_step = 2C^2/((n-q) sigma_cor^2 + sigma_ind^2) * "
               "[1 + sigma_cor^2/((f-q) sigma_cor^2 + sigma_ind^2)]."),
    source="allouah2025, Lemma A.4, eq. (2); proof eqs. (7)-(10)",
    hidden_constant=False,
    typst=('epsilon_"step" = (2 C^2) / ((n-q) sigma_"cor"^2 + sigma_"ind"^2) '
           '(1 + sigma_"cor"^2 / ((f-q) sigma_"cor"^2 + sigma_"ind"^2))'),
)
LEMMA_A4_LATEX = (r"\varepsilon_{\mathrm{step}}=\frac{2C^2}{(n-q)\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2}"
                  r"\left[1+\frac{\sigma_{\mathrm{cor}}^2}{(f-q)\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2}\right]")

#: The effective noise (docs/papers/allouah2025.md §3.2, derived): eps_step = 2C^2 / sigma_eff^2; the LHS of Theorem 4.1.
SIGMA_EFF2 = Bound(
    name="effective noise sigma_eff^2",
    expr=A * B / (B + s_cor2),
    kind="exact",
    statement="One step of CafCor is exactly as private as a Gaussian mechanism of sensitivity 2C and variance "
              "sigma_eff^2 = a b / (b + sigma_cor^2), a = (n-q) sigma_cor^2 + sigma_ind^2, b = (f-q) sigma_cor^2 + "
              "sigma_ind^2.",
    source="allouah2025, Lemma A.4 and Theorem 4.1 (left-hand side)",
    hidden_constant=False,
    typst='sigma_"eff"^2 = (a b) / (b + sigma_"cor"^2)',
)

#: Lemma C.2 proof: the honest-only average of the noise does not cancel (docs/papers/allouah2025.md §2.2, check C2).
HONEST_RESIDUAL = Bound(
    name="honest-only noise residual",
    expr=d * (f * s_cor2 + s_ind2) / (n - f),
    kind="exact",
    statement="E || (1/|H|) sum_{i in H} xi^(i) ||^2 = d (f sigma_cor^2 + sigma_ind^2) / (n - f): the honest-honest "
              "pairs cancel, the pairs with the f malicious workers remain.",
    source="allouah2025, proof of Lemma C.2",
    hidden_constant=False,
    typst='EE norm(1/abs(cal(H)) sum_(i in cal(H)) xi^((i)))^2 = (d (f sigma_"cor"^2 + sigma_"ind"^2)) / (n - f)',
)

#: Per-worker marginals of the noise (docs/papers/allouah2025.md §2.2, derived; check C3).
MARGINAL_VAR = Bound(
    name="per-worker noise variance", expr=(n - 1) * s_cor2 + s_ind2, kind="exact",
    statement="Var(xi^(i)) = ((n-1) sigma_cor^2 + sigma_ind^2) I_d.", source="allouah2025, Algorithm 1 and section 3 (derived; cf. eq. (8))",
    hidden_constant=False, typst='"Var"(xi^((i))) = (n-1) sigma_"cor"^2 + sigma_"ind"^2')
MARGINAL_COV = Bound(
    name="cross-worker noise covariance", expr=-s_cor2, kind="exact",
    statement="Cov(xi^(i), xi^(k)) = -sigma_cor^2 I_d for i != k.", source="allouah2025, Algorithm 1 and section 3 (derived; cf. eq. (8))",
    hidden_constant=False, typst='"Cov"(xi^((i)), xi^((k))) = -sigma_"cor"^2')

#: Eq. (8): the covariance of the server's de-noised view of the honest rows.
SERVER_VIEW_TEXT = ("After subtracting the terms it learns from q colluders, the server sees the honest rows with "
                    "covariance Sigma = ((n-q) sigma_cor^2 + sigma_ind^2) I_{n-f} - sigma_cor^2 1 1^T.")
SERVER_VIEW_SOURCE = "allouah2025, Lemma A.4 proof, eqs. (7)-(8) (eq. 7 prints I_{n-q}; the size is n-f)"
SERVER_VIEW_TYPST = 'Sigma = ((n-q) sigma_"cor"^2 + sigma_"ind"^2) I_(n-f) - sigma_"cor"^2 bb(1) bb(1)^T'
SERVER_VIEW_LATEX = (r"\Sigma=\left((n-q)\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2\right)I_{n-f}"
                     r"-\sigma_{\mathrm{cor}}^2\mathbf{1}\mathbf{1}^\top")

#: Lemma A.1 as used: D_alpha between the two adjacent views.
RENYI_GAUSSIAN = Bound(
    name="Lemma A.1 at the worst adjacent pair",
    expr=alpha * (2 * C) ** 2 / 2 * (1 / (A * B / (B + s_cor2))),
    kind="exact",
    statement="D_alpha(N(mu_1, Sigma) || N(mu_2, Sigma)) = (alpha/2)(mu_1-mu_2)^T Sigma^{-1} (mu_1-mu_2); with "
              "mu_1 - mu_2 = 2C e_i this is alpha * eps_step.",
    source="allouah2025, Lemma A.1 (Gil et al. 2013) and Lemma A.4, eq. (10)",
    hidden_constant=False,
    typst='D_alpha (P_A || P_B) = alpha / 2 (2 C)^2 e_i^T Sigma^(-1) e_i = alpha epsilon_"step"',
)

#: Theorem 4.1's condition (right-hand side R); the LHS is sigma_eff^2.
THM_4_1 = Bound(
    name="Theorem 4.1 (noise condition)",
    expr=16 * C**2 * T * L / eps**2,
    kind="lower",
    statement=("Let delta in (0,1), eps in (0, log(1/delta)) and q <= f < n/2. Algorithm 1 is (eps, delta)-SecLDP "
               "against an honest-but-curious server colluding with q malicious workers if "
               "((n-q) sigma_cor^2 + sigma_ind^2) / (1 + sigma_cor^2/((f-q) sigma_cor^2 + sigma_ind^2)) >= "
               "16 C^2 T log(1/delta) / eps^2."),
    source="allouah2025, Theorem 4.1; proof in Appendix A",
    hidden_constant=False,
    typst=('((n-q) sigma_"cor"^2 + sigma_"ind"^2) / (1 + sigma_"cor"^2 / ((f-q) sigma_"cor"^2 + sigma_"ind"^2)) '
           '>= (16 C^2 T log(1 \\/ delta)) / epsilon^2'),
)
THM_4_1_LATEX = (r"\frac{(n-q)\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2}{1+\frac{\sigma_{\mathrm{cor}}^2}"
                 r"{(f-q)\sigma_{\mathrm{cor}}^2+\sigma_{\mathrm{ind}}^2}}\geq\frac{16C^2T\log(1/\delta)}{\varepsilon^2}")

#: The proof's optimum of Mironov's conversion (Lemma A.3 with Lemma A.2).
e_step = sp.Symbol("e", positive=True)
EPS_STAR = Bound(
    name="eps* at the optimal order (Thm 4.1 proof)",
    expr=T * e_step + 2 * sp.sqrt(T * e_step * L),
    kind="exact",
    statement="Composing T steps (Lemma A.2) and converting with Lemma A.3 at alpha* = 1 + sqrt(log(1/delta)/(T e)) "
              "gives eps* = T e + 2 sqrt(T e log(1/delta)), e = eps_step.",
    source="allouah2025, proof of Theorem 4.1 (Lemmas A.2, A.3)",
    hidden_constant=False,
    typst='epsilon_star = T e + 2 sqrt(T e log(1 \\/ delta)), quad alpha_star = 1 + sqrt(log(1 \\/ delta) / (T e))',
)
EPS_STAR_LATEX = r"\varepsilon_\star=Te+2\sqrt{Te\log(1/\delta)},\quad \alpha_\star=1+\sqrt{\log(1/\delta)/(Te)}"

#: The last line of the proof: under the condition eps* <= eps^2/(8 L) + eps/sqrt(2) <= eps.
THM_4_1_EPS_BOUND = Bound(
    name="eps* bound under the condition",
    expr=eps**2 / (8 * L) + eps / sp.sqrt(2),
    kind="upper",
    statement="Under the condition of Theorem 4.1, eps* <= eps^2/(8 log(1/delta)) + eps/sqrt(2) <= eps.",
    source="allouah2025, proof of Theorem 4.1",
    hidden_constant=False,
    typst='epsilon_star <= epsilon^2 / (8 log(1 \\/ delta)) + epsilon / sqrt(2) <= epsilon',
)

#: Corollary 4.1's calibration (privacy part).
COR_4_1 = Bound(
    name="Corollary 4.1 noise",
    expr=32 * C**2 * T * L / (eps**2 * (n - f)),
    kind="exact",
    statement="sigma_cor^2 = sigma_ind^2 = 32 C^2 T log(1/delta) / (eps^2 (n-f)) gives (eps, delta)-SecLDP against "
              "the server colluding with all f malicious workers (for eps < log(1/delta)).",
    source="allouah2025, Corollary 4.1",
    hidden_constant=False,
    typst='sigma_"cor"^2 = sigma_"ind"^2 = (32 C^2 T log(1 \\/ delta)) / (epsilon^2 (n-f))',
)

#: Minimal equal noise under q = f and the n-fold saving over LDP (docs/papers/allouah2025.md §3.3, derived; check C9).
MIN_EQUAL_NOISE_QF = Bound(
    name="least equal noise, q = f", expr=2 * R / (n - f + 1), kind="exact",
    statement="With sigma_cor = sigma_ind = s and q = f, Theorem 4.1's condition is s^2 >= 2R/(n-f+1), "
              "R = 16 C^2 T log(1/delta)/eps^2; LDP needs sigma_ind^2 >= R.",
    source="allouah2025, Theorem 4.1 and its discussion (sigma^2 = Theta(1/(n eps^2)) vs Theta(1/eps^2))",
    hidden_constant=False, typst='s^2_min = (2 R) / (n - f + 1), quad R = (16 C^2 T log(1 \\/ delta)) / epsilon^2')
NOISE_SAVING = Bound(
    name="n-fold noise saving", expr=(n - f + 1) / 2, kind="exact",
    statement="The LDP noise R divided by the least equal SecLDP noise 2R/(n-f+1) is (n-f+1)/2 = Theta(n).",
    source="allouah2025, discussion after Theorem 4.1",
    hidden_constant=False, typst='R / s^2_min = (n - f + 1) / 2')

#: T-composition (Claim 10): eps_total(T) = T e + 2 sqrt(T e L).
COMPOSITION = Bound(
    name="T-composition", expr=T * e_step + 2 * sp.sqrt(T * e_step * L), kind="exact",
    statement="The accountant's eps after T steps grows as T e + 2 sqrt(T e log(1/delta)): like sqrt(T) while "
              "T e << log(1/delta), then linearly.",
    source="allouah2025, Lemmas A.2 and A.3 (proof of Theorem 4.1)",
    hidden_constant=False, typst='epsilon(T) = T e + 2 sqrt(T e log(1 \\/ delta))')


# -- numbers from the paper and from our reading (docs/papers/allouah2025.md) ------------------------------------------------------
@dataclass(frozen=True)
class ExperimentBudget:
    """A privacy budget the paper reports for an experiment (paper section 5; docs/papers/allouah2025.md §5.2)."""

    dataset: str
    n: int
    f: int
    epsilon: float
    delta: float
    T: int
    C: float
    source: str


EXPERIMENT_BUDGETS: tuple[ExperimentBudget, ...] = (
    ExperimentBudget("MNIST", 100, 10, 26.4, 1e-4, 30, 2.25, "allouah2025 section 5.1 (Fig. 1, App. D.1)"),
    ExperimentBudget("MNIST", 100, 5, 27.8, 1e-4, 30, 2.25, "allouah2025 section 5.1 (Fig. 1, App. D.1)"),
    ExperimentBudget("Fashion-MNIST", 100, 5, 39.6, 1e-4, 30, 1.0, "allouah2025 section 5.1 (App. D.1)"),
    ExperimentBudget("Fashion-MNIST", 100, 10, 39.6, 1e-4, 30, 1.0, "allouah2025 section 5.1 (App. D.1)"),
)
#: Experiment 2 (section 5.2) uses example-level CDP at (13.7, 1e-4): also outside the theorem's range.
EXPERIMENT2_EPSILON, EXPERIMENT2_DELTA = 13.7, 1e-4

#: docs/papers/allouah2025.md §3.6, first table: (C, n, f, q, sigma_cor^2, sigma_ind^2, T, delta, eps_step, eps*, alpha*), as printed
#: (strings keep the printed precision). Derived in docs/papers/allouah2025.md, not stated in the paper.
REGRESSION_VECTORS: tuple[tuple[str, ...], ...] = (
    ("1", "10", "3", "1", "0.5", "0.2", "100", "1e-5", "0.602836879", "112.973027", "1.437012"),
    ("1", "10", "3", "0", "0.5", "0.0", "100", "1e-5", "0.533333333", "102.892296", "1.464615"),
    ("1", "10", "3", "3", "0.5", "0.2", "100", "1e-5", "1.891891892", "282.529878", "1.246686"),
    ("1", "10", "3", "3", "0.0", "1.0", "100", "1e-5", "2.000000000", "295.970518", "1.239926"),
    ("2.25", "100", "10", "10", "1.0", "1.0", "30", "1e-4", "0.222527473", "22.358504", "2.174588"),
    ("2.25", "100", "10", "0", "1.0", "0.0", "30", "1e-4", "0.111375000", "14.436123", "2.660288"),
)

#: docs/papers/allouah2025.md §3.6, second table: Corollary 4.1 noise at the experiments' settings and the eps* it achieves with q = f:
#: (C, n, f, eps, T, delta, sigma^2, achieved eps*), as printed.
COROLLARY_VECTORS: tuple[tuple[str, ...], ...] = (
    ("2.25", "100", "10", "26.4", "30", "1e-4", "0.713611", "27.9198"),
    ("2.25", "100", "5", "27.8", "30", "1e-4", "0.609676", "29.9344"),
    ("1", "100", "5", "39.6", "30", "1e-4", "0.059352", "48.9161"),
    ("1", "100", "10", "39.6", "30", "1e-4", "0.062649", "48.8959"),
    ("1", "100", "10", "1.0", "100", "1e-5", "409.348461", "0.7139"),
)
#: docs/papers/allouah2025.md §3.4: the exact minimum 2R/(n-f+1) at (n=100, f=10, eps=1, delta=1e-5, T=100, C=1).
COROLLARY_EXACT_MINIMUM = ("404.850126", dict(n=100, f=10, epsilon=1.0, delta=1e-5, T=100, C=1.0))

#: docs/papers/allouah2025.md §3.5: the effective noise multiplier z = sigma_eff/(2C) behind each reported eps (T=30, delta=1e-4),
#: (eps, z with the Opacus/Balle grid, z with Mironov's optimal order), as printed.
OPACUS_Z_VECTORS: tuple[tuple[str, str, str], ...] = (
    ("26.4", "1.2708", "1.3207"),
    ("27.8", "1.2239", "1.2703"),
    ("39.6", "0.9528", "0.9801"),
)


def printed_tolerance(text: str) -> float:
    """Half a unit in the last printed digit of a decimal string ("0.713611" -> 5e-7)."""
    mantissa = text.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    return 0.5 * 10.0 ** (exponent - decimals)


# -- robustness (CAF, Proposition 4.1, Appendix B) and utility (Theorem 4.2, Corollary 4.1) --------------
lam = sp.Symbol("lambda_max", nonnegative=True)  # lambda_max(Cov_S), the honest spread's top eigenvalue
trace_cov = sp.Symbol("trace", nonnegative=True)  # Tr(Cov_S)

#: kappa of Proposition 4.1 (eq. 4.1); equal to 6 f (n-f) / (n-2f)^2.
KAPPA = 6 * f / (n - f) * (1 + f / (n - 2 * f)) ** 2
KAPPA_TYPST = 'kappa = (6 f) / (n - f) (1 + f / (n - 2 f))^2'

#: Proposition 4.1: CAF's error against any honest subset S of size n - f.
PROP_4_1 = Bound(
    name="Proposition 4.1 (CAF robustness)",
    expr=KAPPA * lam,
    kind="upper",
    statement=("Let 0 <= f < n/2 and kappa = 6f/(n-f) (1 + f/(n-2f))^2. For any x_1..x_n in R^d and any S of size n-f, "
               "the output of CAF satisfies ||CAF(x_1..x_n) - xbar_S||^2 <= kappa lambda_max((1/|S|) sum_{i in S} "
               "(x_i - xbar_S)(x_i - xbar_S)^T)."),
    source="allouah2025, Proposition 4.1 (eq. 4.1); proof in Appendix B",
    hidden_constant=False,
    typst='norm(hat(x) - macron(x)_S)^2 <= kappa lambda_max (1/abs(S) sum_(i in S) (x_i - macron(x)_S)(x_i - macron(x)_S)^T)',
)
PROP_4_1_LATEX = (r"\|\hat x-\bar x_S\|^2\leq\kappa\,\lambda_{\max}\left(\frac{1}{|S|}\sum_{i\in S}(x_i-\bar x_S)"
                  r"(x_i-\bar x_S)^\top\right),\ \kappa=\frac{6f}{n-f}\left(1+\frac{f}{n-2f}\right)^2")

#: Appendix B, key step: some iteration of CAF has sigma_c^2 <= 2n(n-f)/(n-2f)^2 sigma_S^2.
APP_B_SIGMA_STAR = Bound(
    name="Appendix B: smallest top eigenvalue seen by CAF",
    expr=2 * n * (n - f) / (n - 2 * f) ** 2 * lam,
    kind="upper",
    statement=("Some iteration of CAF's loop has a weighted covariance whose top eigenvalue is at most "
               "2n(n-f)/(n-2f)^2 lambda_max(Cov_S), for every S of size n-f; hence sigma*^2 is at most that."),
    source="allouah2025, Appendix B (proof of Proposition 4.1, eqs. 12-13)",
    hidden_constant=False,
    typst='sigma_star^2 = min_c hat(sigma)_c^2 <= (2 n (n-f)) / (n - 2 f)^2 lambda_max ("Cov"_S)',
)

#: The two ways of squaring the resilience bound (eq. 14) in the proof's last line (docs/papers/allouah2025.md §4.1, 7.9).
PROP_4_1_EXACT_SQUARE = Bound(
    name="Proposition 4.1 proof, exact square of eq. (14)",
    expr=f / (n - f) * (1 + sp.sqrt(2 * n * (n - f)) / (n - 2 * f)) ** 2 * lam,
    kind="upper",
    statement=("Squaring eq. (14), ||mu* - xbar_S|| <= sqrt(f/(n-f)) (1 + sqrt(2n(n-f))/(n-2f)) sigma_S, exactly gives "
               "(f/(n-f)) (1 + sqrt(2n(n-f))/(n-2f))^2 lambda_max(Cov_S)."),
    source="allouah2025, Appendix B, eq. (14) (the exact square)",
    hidden_constant=False,
    typst='f/(n-f) (1 + sqrt(2 n (n-f)) / (n - 2 f))^2 lambda_max ("Cov"_S)',
)
#: The paper's last step, "We conclude by taking squares and using Jensen's inequality" (Appendix B, after eq. 14),
#: with Jensen's weights (1/3, 2/3): (a+b)^2 = (1/3 * 3a + 2/3 * (3/2) b)^2 <= 3a^2 + (3/2) b^2. With a = 1 and
#: b = sqrt(2n(n-f))/(n-2f) this is (3f/(n-f))(1 + n(n-f)/(n-2f)^2) = kappa (1 - f(n-2f)/(2(n-f)^2)) <= kappa:
#: kappa - it = 3 f^2 / ((n-f)(n-2f)) >= 0 for 0 <= f < n/2 (the weighting is where kappa's factor 6 comes from).
PROP_4_1_JENSEN = Bound(
    name="Proposition 4.1 proof, last step (squares and Jensen, weights 1/3, 2/3)",
    expr=3 * f / (n - f) * (1 + n * (n - f) / (n - 2 * f) ** 2) * lam,
    kind="upper",
    statement=("Appendix B ends the proof of Proposition 4.1 with 'We conclude by taking squares and using Jensen's "
               "inequality' on eq. (14), ||mu* - xbar_S|| <= sqrt(f/(n-f)) (1 + sqrt(2n(n-f))/(n-2f)) sigma_S. Jensen with "
               "weights (1/3, 2/3), (a+b)^2 <= 3a^2 + (3/2)b^2, gives (3f/(n-f))(1 + n(n-f)/(n-2f)^2) lambda_max(Cov_S), "
               "which must be at most kappa lambda_max(Cov_S) for every 0 < f < n/2."),
    source="allouah2025, Appendix B, proof of Proposition 4.1, eq. (14) and its last line (paper line 475)",
    hidden_constant=False,
    typst='(3 f)/(n-f) (1 + (n (n-f))/(n - 2 f)^2) lambda_max ("Cov"_S) <= kappa lambda_max ("Cov"_S)',
)
PROP_4_1_JENSEN_LATEX = (r"\left(a+b\right)^2\leq3a^2+\frac{3}{2}b^2:\ \frac{3f}{n-f}\left(1+\frac{n(n-f)}{(n-2f)^2}\right)"
                         r"\lambda_{\max}\leq\kappa\,\lambda_{\max}")
#: Not the paper's step: the equal-weight form (a+b)^2 <= 2a^2 + 2b^2, which an earlier reading of ours took for the
#: paper's Jensen step; it overshoots kappa by the factor 1 + f^2/(3(n-f)^2). Kept as a planted wrong theory.
PROP_4_1_PROOF_LINE = Bound(
    name="Proposition 4.1 proof, last step read with equal weights, (a+b)^2 <= 2a^2 + 2b^2 (not the paper's)",
    expr=2 * f / (n - f) * (1 + 2 * n * (n - f) / (n - 2 * f) ** 2) * lam,
    kind="upper",
    statement=("Squaring eq. (14) with the equal-weight inequality (a+b)^2 <= 2a^2 + 2b^2 gives (2f/(n-f))(1 + "
               "2n(n-f)/(n-2f)^2) lambda_max(Cov_S) = kappa (1 + f^2/(3(n-f)^2)) lambda_max(Cov_S), above kappa. This "
               "is not the paper's step (which uses Jensen's inequality with weights 1/3, 2/3); a planted wrong reading."),
    source="allouah2025, Appendix B, eq. (14) squared with equal weights (a reading of ours, not the paper's)",
    hidden_constant=False,
    typst='(2 f)/(n-f) (1 + (2 n (n-f))/(n - 2 f)^2) lambda_max ("Cov"_S) <= kappa lambda_max ("Cov"_S)',
)

#: Section 4.2: the trace criterion that trimmed mean and median satisfy (no explicit constant in the paper).
TRACE_CRITERION = Bound(
    name="trace criterion (CWTM, CWMED)",
    expr=f / n * trace_cov,
    kind="upper",
    statement=("Standard robust aggregations such as the trimmed mean and the median satisfy only ||x_hat - xbar_S||^2 <= "
               "kappa' Tr(Cov_S) with kappa' = O(f/n); since Tr <= d lambda_max they satisfy Proposition 4.1 only with an "
               "extra factor d in kappa."),
    source="allouah2025, discussion after Proposition 4.1 (citing Allouah et al. 2023b)",
    hidden_constant=True,
    typst='norm(hat(x) - macron(x)_S)^2 <= kappa prime "Tr"("Cov"_S), quad kappa prime = O(f/n), quad "Tr" <= d lambda_max',
)

#: Lemma C.6 and the intermediate bound of its proof.
s_dp2 = sp.Symbol("sigma_DP2", nonnegative=True)
LEMMA_C6 = Bound(
    name="Lemma C.6 (Gaussian covariance concentration)",
    expr=36 * s_dp2 * (1 + d / n),
    kind="upper",
    statement=("For xi^(1..n) i.i.d. N(0, sigma_DP^2 I_d), E[sup_{||v|| <= 1} (1/n) sum_i <v, xi^(i)>^2] "
               "= E[lambda_max((1/n) sum_i xi^(i) xi^(i)T)] <= 36 sigma_DP^2 (1 + d/n)."),
    source="allouah2025, Lemma C.6 (Appendix C.6)",
    hidden_constant=False,
    typst='EE[lambda_max (1/n sum_i xi^((i)) xi^((i)T))] <= 36 sigma_"DP"^2 (1 + d/n)',
)
LEMMA_C6_PROOF = Bound(
    name="Lemma C.6, intermediate bound", expr=16 * s_dp2 / n * (d * sp.log(9) + n * sp.log(2)), kind="upper",
    statement="The proof of Lemma C.6 first shows E[lambda_max] <= 16 (sigma_DP^2/n)(d ln 9 + n ln 2).",
    source="allouah2025, proof of Lemma C.6", hidden_constant=False,
    typst='EE[lambda_max] <= 16 sigma_"DP"^2 / n (d ln 9 + n ln 2)')
#: Not a claim of the paper: the Bai-Yin edge of a Wishart spectrum, against which the lemma's slack is read.
WISHART_EDGE = Bound(
    name="Wishart top-eigenvalue edge (reference)", expr=s_dp2 * (1 + sp.sqrt(d / n)) ** 2, kind="exact",
    statement="lambda_max((1/n) sum_i xi xi^T) -> sigma^2 (1 + sqrt(d/n))^2 as n, d grow (Bai-Yin); a reference only.",
    source="allouah2025, Lemma C.6 (compared with the Bai-Yin law: a reference value, not a claim of the paper)", hidden_constant=False,
    typst='sigma^2 (1 + sqrt(d/n))^2')

#: Lemma C.1, the noise part (eq. 58) and its simplified form used in Theorem 4.2.
LEMMA_C1_NOISE = Bound(
    name="Lemma C.1, noise part",
    expr=108 * (n * s_cor2 + s_ind2) * (1 + d / (n - f)),
    kind="upper",
    statement=("The honest workers' DP noise satisfies E[lambda_max((1/|H|) sum_{i in H} xi^(i) xi^(i)T)] <= "
               "108 (n sigma_cor^2 + sigma_ind^2)(1 + d/(n-f))."),
    source="allouah2025, Lemma C.1 (proof, eq. 58)",
    hidden_constant=False,
    typst='EE[lambda_max (1/abs(cal(H)) sum_(i in cal(H)) xi^((i)) xi^((i)T))] <= 108 (n sigma_"cor"^2 + sigma_"ind"^2)(1 + d/(n-f))',
)
LEMMA_C1_EQ58 = Bound(
    name="Lemma C.1, eq. (58) before simplification",
    expr=36 * (n - f / 2 - 1) * s_cor2 * (1 + 3 * d / (n - f)) + 36 * s_ind2 * (1 + d / (n - f)),
    kind="upper",
    statement="Eq. (58) first bounds the same expectation by 36 (n - f/2 - 1) sigma_cor^2 (1 + 3d/(n-f)) + "
              "36 sigma_ind^2 (1 + d/(n-f)).",
    source="allouah2025, proof of Lemma C.1, eq. (58)", hidden_constant=False,
    typst='36 (n - f/2 - 1) sigma_"cor"^2 (1 + (3 d)/(n-f)) + 36 sigma_"ind"^2 (1 + d/(n-f))')

#: Lemma C.5: minibatch sampling without replacement.
m_pts, b_batch, s_pop2 = sp.symbols("m b sigma2", positive=True)
LEMMA_C5_EXACT = Bound(
    name="Lemma C.5, exact sampling variance",
    expr=(m_pts - b_batch) / (m_pts - 1) * s_pop2 / b_batch,
    kind="exact",
    statement=("The mean of b of m points drawn without replacement has E||g - grad L_i||^2 = ((m-b)/(m-1)) sigma^2/b, "
               "sigma^2 the population variance (1/m) sum_x ||grad l(x) - grad L_i||^2 (m >= 2)."),
    source="allouah2025, proof of Lemma C.5 (first step, with equality at the population variance)",
    hidden_constant=False,
    typst='EE norm(g - nabla cal(L)_i)^2 = (m - b)/(m - 1) sigma^2 / b',
)
LEMMA_C5 = Bound(
    name="Lemma C.5 (minibatch variance)", expr=2 * (1 - b_batch / m_pts) * s_pop2 / b_batch, kind="upper",
    statement="E||g - grad L_i||^2 <= 2 (1 - b/m) sigma^2 / b (the sampling part of Lemma C.5; sigma_b^2 of Theorem 4.2).",
    source="allouah2025, Lemma C.5", hidden_constant=False, typst='EE norm(g - nabla cal(L)_i)^2 <= 2 (1 - b/m) sigma^2 / b')
LEMMA_C2_PRINTED_SAMPLING = Bound(
    name="Lemma C.2 as printed, sampling term", expr=(1 - b_batch / m_pts) * s_pop2 / b_batch, kind="upper",
    statement=("Lemma C.2's statement defines sigma_DP_bar^2 = (1 - b/m) sigma^2/b + d f sigma_cor^2 + d sigma_ind^2: its "
               "sampling term is (1 - b/m) sigma^2/b, without the factor 2 of sigma_b^2."),
    source="allouah2025, Lemma C.2 (statement)", hidden_constant=False,
    typst='overline(sigma)_"DP"^2 = (1 - b/m) sigma^2 / b + d f sigma_"cor"^2 + d sigma_"ind"^2 quad "(as printed)"')

#: Theorem 4.2 (strongly convex), with the explicit constants of its proof (docs/papers/allouah2025.md §4.3).
mu_sc, L_sm, G2, L0, s_bar2, s_b2 = sp.symbols("mu L G_cov2 L_0 sigma_bar2 sigma_b2", nonnegative=True)
SIGMA_BAR2 = ((s_b2 + d * (f * s_cor2 + s_ind2)) / (n - f)
              + 4 * KAPPA * (s_b2 + 108 * (n * s_cor2 + s_ind2) * (1 + d / (n - f))))
SIGMA_BAR2_TYPST = ('overline(sigma)^2 = (sigma_b^2 + d (f sigma_"cor"^2 + sigma_"ind"^2))/(n-f) + 4 kappa (sigma_b^2 + '
                    '108 (n sigma_"cor"^2 + sigma_"ind"^2)(1 + d/(n-f)))')
THM_4_2_SC = Bound(
    name="Theorem 4.2 (1), strongly convex",
    expr=960 * KAPPA * G2 / mu_sc + 115200 * L_sm * s_bar2 / (mu_sc**2 * T) + 115200 * L_sm**2 * L0 / (mu_sc**2 * T**2),
    kind="upper",
    statement=("Under Assumptions 2.1-2.3, L-smooth and mu-strongly convex L_H, gamma_t = 10/(mu (t + 240 L/mu)) and "
               "beta_t = 1 - 24 L gamma_t: E[L_H(theta_T) - L_*] <= 960 kappa G_cov^2/mu + 115200 L sigma_bar^2/(mu^2 T) + "
               "115200 L^2 L_0/(mu^2 T^2) (stated as <~ kappa G_cov^2/mu + L sigma_bar^2/(mu^2 T) + L^2 L_0/(mu^2 T^2))."),
    source="allouah2025, Theorem 4.2 (1); constants a_1 = 240 from the proof in Appendix C.3",
    hidden_constant=False,
    typst=('EE[cal(L)_cal(H)(theta_T) - cal(L)_star] <= (960 kappa G_"cov"^2)/mu + (115200 L overline(sigma)^2)/(mu^2 T) '
           '+ (115200 L^2 cal(L)_0)/(mu^2 T^2)'),
)
#: Theorem 4.2 (2), non-convex, with the explicit constants of its proof (a_2 = 480, a_3 = 5760, a_4 = 270).
THM_4_2_NC = Bound(
    name="Theorem 4.2 (2), non-convex",
    expr=480 * KAPPA * G2 + sp.sqrt(5760 * 270) * sp.sqrt(s_bar2 * L_sm * L0 / T) + 270 * L_sm * L0 / T,
    kind="upper",
    statement=("Under Assumptions 2.1-2.3 and L-smooth L_H, with gamma = min{1/(24L), sqrt(3 L_0)/(16 sigma_bar sqrt(L T))} "
               "and beta = 1 - 24 L gamma: E||grad L_H(theta_hat)||^2 = (1/T) sum_{t<T} E||grad L_H(theta_t)||^2 <= "
               "480 kappa G_cov^2 + sqrt(5760 * 270) sigma_bar sqrt(L L_0/T) + 270 L L_0/T (stated as <~ kappa G_cov^2 + "
               "sigma_bar sqrt(L L_0)/sqrt(T) + L L_0/T)."),
    source="allouah2025, Theorem 4.2 (2); constants a_2, a_3, a_4 from the proof in Appendix C.3",
    hidden_constant=False,
    typst=('1/T sum_(t<T) EE norm(nabla cal(L)_cal(H)(theta_t))^2 <= 480 kappa G_"cov"^2 + sqrt(5760 dot 270) '
           'overline(sigma) sqrt((L cal(L)_0)/T) + (270 L cal(L)_0)/T'),
)

#: Its O(1/T) rate once the heterogeneity floor is zero (Claim 21).
THM_4_2_SC_RATE = Bound(
    name="Theorem 4.2 (1), rate without heterogeneity",
    expr=L_sm * s_bar2 / (mu_sc**2 * T) + L_sm**2 * L0 / (mu_sc**2 * T**2),
    kind="upper",
    statement="With G_cov = 0 the strongly convex bound decays as L sigma_bar^2/(mu^2 T) + L^2 L_0/(mu^2 T^2): O(1/T).",
    source="allouah2025, Theorem 4.2 (1) with G_cov = 0",
    hidden_constant=True,
    typst='EE[cal(L)_cal(H)(theta_T) - cal(L)_star] lt.tilde (L overline(sigma)^2)/(mu^2 T) + (L^2 cal(L)_0)/(mu^2 T^2)',
)

#: Its heterogeneity floor (the T -> infinity limit of the strongly convex bound; Claim 21).
THM_4_2_SC_FLOOR = Bound(
    name="Theorem 4.2 (1), heterogeneity floor",
    expr=960 * KAPPA * G2 / mu_sc,
    kind="upper",
    statement="As T grows the strongly convex bound tends to 960 kappa G_cov^2/mu: the excess loss's floor stays under it.",
    source="allouah2025, Theorem 4.2 (1), T -> infinity; constant from the proof in Appendix C.3",
    hidden_constant=False,
    typst='lim_(T -> oo) EE[cal(L)_cal(H)(theta_T) - cal(L)_star] <= (960 kappa G_"cov"^2)/mu',
)

#: Corollary 4.1's privacy-utility trade-off, and the LDP rate it is compared with (section 4.3).
COR_4_1_UTILITY = Bound(
    name="Corollary 4.1 (privacy-utility, SecLDP, q = f)",
    expr=(f + 1) * C**2 * d * L / (n**2 * eps**2) + f * C**2 * L / (n * eps**2),
    kind="upper",
    statement=("With sigma_cor^2 = sigma_ind^2 = 32 C^2 T log(1/delta)/(eps^2 (n-f)), Algorithm 1 is (eps, delta)-SecLDP "
               "against the server colluding with all f malicious workers and (f, rho)-robust with rho = "
               "O((f+1) C^2 d log(1/delta)/(n^2 eps^2) + f C^2 log(1/delta)/(n eps^2) + (f/n) G_cov^2)."),
    source="allouah2025, Corollary 4.1 and section 4.3",
    hidden_constant=True,
    typst=('rho = O(((f+1) C^2 d log(1 \\/ delta))/(n^2 epsilon^2) + (f C^2 log(1 \\/ delta))/(n epsilon^2) '
           '+ f/n G_"cov"^2)'),
)
LDP_UTILITY = Bound(
    name="LDP privacy-utility rate (Duchi et al. 2018)",
    expr=C**2 * d * L / (n * eps**2),
    kind="tight",
    statement="Under local DP the minimax privacy-utility trade-off is Theta~(d/(n eps^2)); CafCor with sigma_cor = 0 "
              "recovers it.",
    source="allouah2025, section 4.3 (citing Duchi et al. 2018)",
    hidden_constant=True,
    typst='Theta(d / (n epsilon^2)) quad "(LDP)"',
)
#: Corollary 4.1's DP term: with sigma^2 proportional to T it does not depend on T (proof in C.4).
COR_4_1_DP_TERM = Bound(
    name="Corollary 4.1, DP term of the strongly convex bound",
    expr=sp.cancel((L_sm / (mu_sc**2 * T)) * SIGMA_BAR2.subs({s_b2: 0, s_cor2: COR_4_1.expr, s_ind2: COR_4_1.expr})),
    kind="lower",
    statement=("With Corollary 4.1's noise sigma_cor^2 = sigma_ind^2 proportional to T, the DP part L sigma_bar^2/(mu^2 T) "
               "of the strongly convex bound does not depend on T: at a fixed privacy budget, more iterations do not "
               "reduce the privacy error (it is Omega(T^0), not a term that vanishes as T grows)."),
    source="allouah2025, proof of Corollary 4.1 (Appendix C.4)",
    hidden_constant=True,
    typst='(L overline(sigma)_"DP"^2)/(mu^2 T) prop T^0 quad "with" sigma_"cor"^2 = sigma_"ind"^2 prop T',
)

#: The same DP term with the noise levels left as symbols (sigma_cor^2 = sigma_ind^2 given per horizon T by Corollary
#: 4.1, proportional to T): T stays a symbol of the bound, so its exponent in T (0 on Corollary 4.1's noise) is tested.
COR_4_1_DP_TERM_T = Bound(
    name="Corollary 4.1, DP term of the strongly convex bound (noise per horizon)",
    expr=(L_sm / (mu_sc**2 * T)) * SIGMA_BAR2.subs({s_b2: 0}),
    kind="lower",
    statement=COR_4_1_DP_TERM.statement,
    source="allouah2025, proof of Corollary 4.1 (Appendix C.4); Theorem 4.2 (1)",
    hidden_constant=True,
    typst='(L overline(sigma)_"DP"^2)/(mu^2 T) quad "with" sigma_"cor"^2 = sigma_"ind"^2 = 32 C^2 T log(1/delta)/(epsilon^2 (n-f))',
)

#: Numbers found by simulation while writing our reading (docs/papers/allouah2025.md §4.1, 4.2, 2.4); the checks report beside them.
SPEC_SIM_WORST_RATIO = {"exact": 0.18, "power_1": 0.34, "power_3": 0.24, "power_10": 0.18, "all_subsets": 0.24,
                        "sigma_star_ratio": 0.50}


ALL_BOUNDS: tuple[Bound, ...] = (LEMMA_A4, SIGMA_EFF2, HONEST_RESIDUAL, MARGINAL_VAR, MARGINAL_COV, RENYI_GAUSSIAN,
                                 THM_4_1, EPS_STAR, THM_4_1_EPS_BOUND, COR_4_1, MIN_EQUAL_NOISE_QF, NOISE_SAVING,
                                 COMPOSITION, PROP_4_1, APP_B_SIGMA_STAR, PROP_4_1_EXACT_SQUARE, PROP_4_1_JENSEN,
                                 PROP_4_1_PROOF_LINE,
                                 TRACE_CRITERION, LEMMA_C6, LEMMA_C6_PROOF, WISHART_EDGE, LEMMA_C1_NOISE, LEMMA_C1_EQ58,
                                 LEMMA_C5_EXACT, LEMMA_C5, LEMMA_C2_PRINTED_SAMPLING, THM_4_2_SC, THM_4_2_SC_RATE, THM_4_2_SC_FLOOR,
                                 COR_4_1_UTILITY, LDP_UTILITY, COR_4_1_DP_TERM, COR_4_1_DP_TERM_T, THM_4_2_NC)


# -- the supporting lemmas C.1, C.3, C.4, Theorem 4.2 on Algorithm 1's output, Corollary 4.1 in f,
# -- Appendix C.5 (trimmed mean) and SMEA ------------------------------------------------------------------------
gam, bet, grad2 = sp.symbols("gamma beta grad2", nonnegative=True)

#: Lemma C.3 (descent), printed as E[L_H(theta_{t+1}) - L_H(theta_t)] <= -(gamma_t/2)(1 - 4 gamma_t L) E||grad||^2 +
#: gamma_t (1 + 2 gamma_t L) E||delta_t||^2 + gamma_t (1 + gamma_t L) E||eps_t||^2. Rearranged so that both sides are
#: non-negative: Q_t := L_H(theta_t) - L_H(theta_{t+1}) + gamma_t (1 + 2 gamma_t L)||delta_t||^2 + gamma_t (1 + gamma_t L)
#: ||eps_t||^2 >= (gamma_t/2)(1 - 4 gamma_t L)||grad L_H(theta_t)||^2 (the right-hand side below, a lower bound on Q_t).
LEMMA_C3 = Bound(
    name="Lemma C.3 (descent), rearranged",
    expr=gam / 2 * (1 - 4 * gam * L_sm) * grad2,
    kind="lower",
    statement=("Lemma C.3: if L_H is L-smooth, Algorithm 1 satisfies E[L_H(theta_{t+1}) - L_H(theta_t)] <= -(gamma_t/2)"
               "(1 - 4 gamma_t L) E||grad L_H(theta_t)||^2 + gamma_t (1 + 2 gamma_t L) E||delta_t||^2 + gamma_t (1 + gamma_t "
               "L) E||epsilon_t||^2, delta_t = mbar_t - grad L_H(theta_t), epsilon_t = R_t - mbar_t. Rearranged: Q_t = "
               "L_H(theta_t) - L_H(theta_{t+1}) + gamma_t (1 + 2 gamma_t L)||delta_t||^2 + gamma_t (1 + gamma_t L)"
               "||epsilon_t||^2 >= (gamma_t/2)(1 - 4 gamma_t L)||grad L_H(theta_t)||^2."),
    source="allouah2025, Lemma C.3 (Appendix C.2, paper line 568; proof in Appendix C.6.4)",
    hidden_constant=False,
    typst=('cal(L)_cal(H)(theta_t) - cal(L)_cal(H)(theta_(t+1)) + gamma_t (1 + 2 gamma_t L) norm(delta_t)^2 + gamma_t '
           '(1 + gamma_t L) norm(epsilon_t)^2 >= gamma_t / 2 (1 - 4 gamma_t L) norm(nabla cal(L)_cal(H)(theta_t))^2'),
)

#: Lemma C.1 (drift), as printed: E[Delta_{t+1}] <= beta_t E[Delta_t] + 2(1-beta_t)^2 (sigma_b^2 + 108 (n sigma_cor^2 +
#: sigma_ind^2)(1 + d/(n-f))) + (1-beta_t) G_cov^2; the right-hand side minus beta_t E[Delta_t] (the increment form).
LEMMA_C1 = Bound(
    name="Lemma C.1 (drift recursion), increment form",
    expr=(2 * (1 - bet) ** 2 * (s_b2 + 108 * (n * s_cor2 + s_ind2) * (1 + d / (n - f))) + (1 - bet) * G2),
    kind="upper",
    statement=("Lemma C.1: for every t in {0, ..., T-1}, E[Delta_{t+1}] <= beta_t E[Delta_t] + 2(1 - beta_t)^2 (sigma_b^2 + "
               "108 (n sigma_cor^2 + sigma_ind^2)(1 + d/(n-f))) + (1 - beta_t) G_cov^2, Delta_t the top eigenvalue of "
               "the honest momentums' covariance; checked as E[Delta_{t+1} - beta_t Delta_t] <= the last two terms."),
    source="allouah2025, Lemma C.1 (Appendix C.2, paper line 527; proof in Appendix C.6.2)",
    hidden_constant=False,
    typst=('EE[Delta_(t+1) - beta_t Delta_t] <= 2 (1 - beta_t)^2 (sigma_b^2 + 108 (n sigma_"cor"^2 + sigma_"ind"^2)'
           '(1 + d/(n-f))) + (1 - beta_t) G_"cov"^2'),
)

#: Lemma C.2 (deviation recursion) at every t, in increment form: E||delta_{t+1}||^2 - beta_t^2 (1 + gamma_t L)
#: (1 + 4 gamma_t L) E||delta_t||^2 - 4 gamma_t L (1 + gamma_t L) beta_t^2 E||grad L_H(theta_t)||^2
#: - 2 gamma_t L (1 + gamma_t L) beta_t^2 E||eps_t||^2 <= (1 - beta_t)^2 sigma_DP_bar^2/(n - f),
#: sigma_DP_bar^2 = sigma_b^2 + d (f sigma_cor^2 + sigma_ind^2).
LEMMA_C2 = Bound(
    name="Lemma C.2 (deviation recursion), increment form",
    expr=(1 - bet) ** 2 * (s_b2 + d * (f * s_cor2 + s_ind2)) / (n - f),
    kind="upper",
    statement=("Lemma C.2: E||delta_{t+1}||^2 <= beta_t^2 (1 + gamma_t L)(1 + 4 gamma_t L) E||delta_t||^2 + "
               "4 gamma_t L (1 + gamma_t L) beta_t^2 E||grad L_H(theta_t)||^2 + (1 - beta_t)^2 sigma_DP_bar^2/(n - f) "
               "+ 2 gamma_t L (1 + gamma_t L) beta_t^2 E||eps_t||^2, sigma_DP_bar^2 = sigma_b^2 + d (f sigma_cor^2 + "
               "sigma_ind^2), "
               "delta_t = mbar_t - grad L_H(theta_t), eps_t = R_t - mbar_t; checked as the left-hand side minus the "
               "recursion's three other terms <= (1 - beta_t)^2 sigma_DP_bar^2/(n - f)."),
    source="allouah2025, Lemma C.2 (Appendix C.2; proof in Appendix C.6.3)",
    hidden_constant=False,
    typst=('EE[norm(delta_(t+1))^2 - beta_t^2 (1 + gamma_t L)(1 + 4 gamma_t L) norm(delta_t)^2 - 4 gamma_t L '
           '(1 + gamma_t L) '
           'beta_t^2 norm(nabla cal(L)_cal(H)(theta_t))^2 - 2 gamma_t L (1 + gamma_t L) beta_t^2 norm(epsilon_t)^2] <= '
           '(1 - beta_t)^2 (sigma_b^2 + d (f sigma_"cor"^2 + sigma_"ind"^2))/(n-f)'),
)

#: Lemma C.4 (covering), as printed, with s_sup := sup_{||v|| <= 1} E[g(2 <v, M v>)].
s_sup = sp.Symbol("sup_E_g2", real=True)
LEMMA_C4 = Bound(
    name="Lemma C.4 (covering), as printed",
    expr=9**d * s_sup,
    kind="lower",
    statement=("Lemma C.4: let M in R^{d x d} be a random real symmetric matrix and g: R -> R an increasing function. Then "
               "E[sup_{||v|| <= 1} g(<v, M v>)] <= 9^d sup_{||v|| <= 1} E[g(2 <v, M v>)]."),
    source="allouah2025, Lemma C.4 (Appendix C.6.1, paper line 912)",
    hidden_constant=False,
    typst='EE[sup_(norm(v) <= 1) g(chevron.l v, M v chevron.r)] <= 9^d sup_(norm(v) <= 1) EE[g(2 chevron.l v, M v chevron.r)]',
)

#: Corollary 4.1's privacy-utility rate with f + 1 as the variable (so that f = 0 lies on a log-log grid).
f1 = sp.Symbol("f_plus_1", positive=True)
COR_4_1_UTILITY_F1 = Bound(
    name="Corollary 4.1 (privacy-utility), in f + 1",
    expr=COR_4_1_UTILITY.expr.subs(f, f1 - 1),
    kind="upper",
    statement=COR_4_1_UTILITY.statement,
    source="allouah2025, Corollary 4.1 (paper line 195) and section 4.3 ('our rate converges to CDP as f decreases')",
    hidden_constant=True,
    typst=COR_4_1_UTILITY.typst,
)

#: Appendix C.5: CafCor with the coordinate-wise trimmed mean in place of CAF.
APP_C5_CWTM = Bound(
    name="Appendix C.5 (CafCor with CWTM)",
    expr=f / n * C**2 * d * L / eps**2 + C**2 * d * L / (n**2 * eps**2) + f / n * d * G2,
    kind="upper",
    statement=("Appendix C.5: under the setting of Corollary 4.1 but with the coordinate-wise trimmed mean in place of CAF, "
               "Algorithm 1 is (f, rho)-robust with rho = O((f/n) C^2 d log(1/delta)/eps^2 + C^2 d log(1/delta)/(n^2 eps^2) "
               "+ (f/n) d G_cov^2), i.e. O~(f d/(n eps^2)) for f > 0: 'n times worse than that achieved with CAF'."),
    source="allouah2025, Appendix C.5 (paper line 875) and section 4.3 (paper line 203)",
    hidden_constant=True,
    typst=('rho = O(f/n (C^2 d log(1 \\/ delta))/epsilon^2 + (C^2 d log(1 \\/ delta))/(n^2 epsilon^2) + f/n d '
           'G_"cov"^2)'),
)

#: SMEA (Allouah et al. 2023b): the mean of the size-(n-f) subset with the smallest top covariance eigenvalue. The
#: paper says it 'satisfies Proposition 4.1 up to constants'; our derivation (two resilience steps through S and the
#: chosen subset, which share >= n - 2f points) gives the constant 4f/(n-2f) <= (2/3)((n-2f)/(n-f)) kappa < kappa.
SMEA_CONSTANT = Bound(
    name="SMEA robustness constant (derived)",
    expr=4 * f / (n - 2 * f) * lam,
    kind="upper",
    statement=("SMEA's output satisfies ||SMEA - xbar_S||^2 <= (4f/(n-2f)) lambda_max(Cov_S) for every S of size n-f: "
               "resilience of a subset of >= n-2f points within each of S and the chosen subset (derived, not the "
               "paper's)."),
    source="allouah2025, line 161 ('SMEA ... also satisfies Proposition 4.1 up to constants'); constant derived here",
    hidden_constant=False,
    typst='norm("SMEA" - macron(x)_S)^2 <= (4 f)/(n - 2 f) lambda_max ("Cov"_S)',
)

#: Corollary 4.1's heterogeneity term, (f/n) G_cov^2 (hidden constant).
COR_4_1_HET = Bound(
    name="Corollary 4.1, heterogeneity term",
    expr=f / n * G2 / mu_sc,
    kind="upper",
    statement=("Corollary 4.1: the heterogeneity part of rho is O((f/n) G_cov^2) (from 960 kappa G_cov^2/mu with kappa = "
               "O(f/n) when n >= (2 + eta) f): it does not vanish as n grows at a fixed fraction f/n of malicious "
               "workers, and it is at most of order f/n."),
    source="allouah2025, Corollary 4.1 (paper line 195) and its proof (Appendix C.4)",
    hidden_constant=True,
    typst='rho_"het" = O(f/n G_"cov"^2 / mu)',
)

ALL_BOUNDS = ALL_BOUNDS + (LEMMA_C3, LEMMA_C1, LEMMA_C4, COR_4_1_UTILITY_F1, APP_C5_CWTM, SMEA_CONSTANT, COR_4_1_HET,
                            LEMMA_C2)
