"""su2022's numbered statements (analytic/statements.py), in the paper's order, with the lines of the paper's text.

Phase 1 (federated moment descent, Section 4.1) and Phase 2 (FedX+clustering, Section 4.2) are listings without a
number in the paper: they are cited by their section. Quotes give the printed words with the formulas in plain text.
"""
from __future__ import annotations

from analytic.papers import su2022 as S
from analytic.statements import Hypothesis, Statement, statement_table

K = "su2022"
CLIENTS = Hypothesis("N_j >~ d (every cluster has enough points)", r"N_j >= d|N_j >~ d")
FEATURES = Hypothesis("sub-Gaussian features (Section 3)", r"features")
SAMPLES = Hypothesis("m >= p_min^-2 Omega~(d) anchor clients (eq. (3))", r"regime m|sample supports")
SETTLED = Hypothesis("the run reached the regime of the statement (labels settled, converged)",
                     r"settled|converged|reached|contracted")

STATEMENTS = statement_table(
    K,
    Statement(K, "Section 1", "Previous clustered methods (IFCA, [GCYR20]) need an initialization close to the truth "
              "or many random restarts; the two-phase algorithm converges globally.", 19),
    Statement(K, "Section 4.1", "Phase 1 (federated moment descent): anchor clients estimate the subspace, then run "
              "moment descent; line 13 sets the step beta-hat from the moment estimate.", 73,
              bounds=(S.ELL_FREE_OF_D,)),
    Statement(K, "Theorem 1", "Let eps in (0, 1/4) be fixed. Suppose m >= p_min^-2 Omega~(d), ell = Omega~(k), "
              "T = Omega(1), T1 = Omega(k log(Nd)), T2 = Omega(log(Nd)) (3). Then sup_i ||theta_{i,T} - "
              "theta*_{z_i}||_2 <= eps Delta (4), and d(theta-hat, theta*) <= eps Delta (5) with probability "
              "1 - O(N^-9).", 119,
              bounds=(S.THM_1_LITERAL, S.THM_1_5_LITERAL, S.THM_1_5_FAILURE, S.THM_1_ITERATIONS, S.PHASE1_CLIENTS,
                      S.PHASE1_ANCHOR_POINTS, S.COUPON),
              hypotheses=(FEATURES, SAMPLES, SETTLED), main=True),
    Statement(K, "Remark 1", "(Comparison to previous work) the algorithm is partly inspired by [LL18] (noiseless "
              "mixed linear regression) and needs only sub-Gaussian features.", 143),
    Statement(K, "Section 4.2", "Phase 2 (FedX+clustering), and after Theorem 2: with the true labels each cluster's "
              "oracle least squares reaches sigma sqrt(d/N_j); kappa is defined from the local solver (FedAvg, "
              "FedProx).", 149, bounds=(S.ORACLE, S.KAPPA_FEDAVG, S.KAPPA_FEDPROX)),
    Statement(K, "eq. (10)", "The effective client count: chi^2(n) + 1 = M sum_i n_i^2/N^2, i.e. (chi^2 + 1)/M = "
              "1/M_eff (10).", 203, bounds=(S.CHI2_IDENTITY,)),
    Statement(K, "Theorem 2", "Suppose k >= 2, eta <~ 1/s and N_j >~ d, rho = min_j N_j/N. If nu log(e/nu) <~ "
              "rho/kappa, then d(theta_t, theta*) <= (1 - C_1 s eta rho/kappa) d(theta_{t-1}, theta*) + C_2 s eta "
              "sigma nu log(e/nu) (9), with nu <= (1/N) sum_i n_i p_e(n_i) + C sqrt(dk log k/(M(chi^2(n)+1))).",
              195, bounds=(S.THM_2_RATE, S.FLOOR_9, S.BASIN_RADIUS, S.PE_EXPONENT, S.CLIENT_FAILURE,
                           S.ROUNDS_PER_EFOLD),
              hypotheses=(CLIENTS, FEATURES, SETTLED), main=True),
    Statement(K, "Lemma 1", "phi(x)^T phi(x) and phi(x)^T y stacked over the clients give the global iteration of "
              "FedX+clustering as a least-squares fixed point (11).", 217),
    Statement(K, "Lemma 2", "There is a universal C such that, with probability 1 - C e^-d, the moment terms of "
              "misclustered points are bounded by their fraction nu (13), (15).", 237, bounds=(S.LEMMA_2,)),
    Statement(K, "Theorem 3", "Under the conditions of Theorems 1 and 2, Phase 1 with T = Theta(1) from any "
              "||theta_0|| <= R followed by Phase 2 with T' = Theta((kappa/(s eta rho)) log(Delta/nu)) iterations "
              "gives d(theta-hat, theta*) <~ sigma (kappa/rho) nu log(e/nu) (18).", 283,
              bounds=(S.THM_3, S.ROUNDS), hypotheses=(CLIENTS, FEATURES, SAMPLES, SETTLED), main=True),
    Statement(K, "Algorithm 3", "Federated orthogonal iteration: the anchor clients' Y_i = X_i^T diag(b_i^2) X_i "
              "applied to an orthonormal basis, averaged and re-orthonormalized for T1 rounds.", 317),
    Statement(K, "Proposition 1", "(Subspace estimation) If T1 >= Ck log(Nd), then with probability at least "
              "1 - N^-10 the estimated subspace is within the error of Lemma 3 of the span of the theta*_j.", 321,
              bounds=(S.PROP_1,), hypotheses=(FEATURES, SAMPLES), main=True),
    Statement(K, "Proposition 2", "Fix an anchor client i with T2 >~ log(Nd): on an event of probability 1 - O(N^-10) "
              "its moment descent contracts to the error of eq. (19), and eq. (21) bounds the step.", 335,
              bounds=(S.PROP_2_19, S.PROP_2_21), hypotheses=(FEATURES, SAMPLES), main=True),
    Statement(K, "Lemma 3", "The sample moment matrix deviates from its expectation by at most xi_1 = sqrt((d/m) log "
              "N) + (d/m) log^3 N (times sigma^2 terms).", 437, bounds=(S.LEMMA_3, S.LEMMA_3_LEADING)),
    Statement(K, "Lemma 4", "The orthogonal iteration's angle after t steps is at most tanh(gamma) (lambda_{k+1}/"
              "lambda_k)^t (as printed; Golub and Van Loan's Theorem 8.2.2 has tan).", 488,
              bounds=(S.LEMMA_4_PRINTED, S.LEMMA_4)),
    Statement(K, "Lemma 5", "(Gap-free bound on projection errors) the projection error is bounded by the operator "
              "norm of the perturbation.", 496, bounds=(S.LEMMA_5,)),
    Statement(K, "Lemma 6", "The anchor's moment estimate deviates by at most xi_2 = sqrt((k/ell) log N) + ... .", 568,
              bounds=(S.LEMMA_6, S.LEMMA_6_LEADING)),
    Statement(K, "Lemma 7", "The Phase 2 operator P_j has its spectrum in [alpha s N_j/(kappa N), beta s N_j/N].", 703,
              bounds=(S.LEMMA_7_LOWER, S.LEMMA_7_UPPER, S.P_SPECTRUM_LOWER), hypotheses=(CLIENTS,)),
    Statement(K, "Lemma 8", "The noise term of Phase 2 is at most sigma s sqrt(d/N) ||K|| with high probability.", 720,
              bounds=(S.LEMMA_8, S.LEMMA_8_MEAN)),
    Statement(K, "eq. (32)", "sup_theta |G_j(theta) - E G_j(theta)| <~ sqrt(dk log k sum_i n_i^2) = N sqrt(dk log k/"
              "(M (chi^2(n) + 1))) (32).", 835, bounds=(S.UNIFORM_DEVIATION,)),
    Statement(K, "Lemma 10", "A point is misclustered with probability at most exp(-c alpha^2 Delta^2/sigma^2) within "
              "the basin d(theta, theta*) <= c Delta alpha/beta.", 836, bounds=(S.MISCLUSTER_EXPONENT,)),
    Statement(K, "Lemma 11", "The features and the noise of misclustered points contribute at most nu log(e/nu) "
              "and sigma nu log(e/nu).", 877, bounds=(S.LEMMA_11_FEATURES, S.LEMMA_11_NOISE)),
    Statement(K, "Lemma 14", "(Truncated matrix Bernstein) the sum of n independent rank-one matrices deviates by "
              "at most the bound of Lemma 14 with the stated failure probability.", 1002, bounds=(S.LEMMA_14,)),
    Statement(K, "Lemma 15", "The largest principal angle between a random d-dimensional subspace and a fixed one is "
              "bounded as in Lemma 15.", 1082, bounds=(S.LEMMA_15,)),
)
