"""allouah2025's numbered statements (analytic/statements.py), in the paper's order, with the lines of the paper's text.

Quotes give the printed words with the formulas in plain text (sigma_cor^2, sigma_ind^2: the correlated and the
independent noise of SecLDP; q <= f the malicious workers colluding with the server).
"""
from __future__ import annotations

from analytic.papers import allouah2025 as A
from analytic.statements import Hypothesis, Statement, statement_table

K = "allouah2025"
HETERO = Hypothesis("Assumption 2.1 (bounded heterogeneity G_cov^2)", r"G_cov|heterogeneity")
VARIANCE = Hypothesis("Assumption 2.2 (bounded variance sigma^2)", r"variance|sigma\^2 is|sigma_bar\^2")
GRADS = Hypothesis("Assumption 2.3 (bounded gradients: clipping inactive)", r"clipping|Assumption 2\.3")
SMOOTH = Hypothesis("L_H is L-smooth", r"L-smooth|L = mu = 1")
STRONG = Hypothesis("L_H is mu-strongly convex (Theorem 4.2 (1))", r"strongly convex|L = mu = 1")
EPS = Hypothesis("epsilon in (0, log(1/delta))", r"eps < log|eps lies in")
MINORITY = Hypothesis("f < n/2 (n >= (2 + eta) f in Corollary 4.1)", r"f < n/2|n >= \(2 \+ eta\) f")

STATEMENTS = statement_table(
    K,
    Statement(K, "Definition 2.1", "(f, rho)-robustness: an aggregation F satisfies ||F(x_1..x_n) - x_S||^2 <= rho "
              "lambda_max(covariance of x_S) for every subset S of n - f inputs.", 44),
    Statement(K, "Section 3", "CafCor: each honest worker adds correlated noise, 'pairwise-canceling' across workers "
              "(line 108), plus independent noise, to its clipped momentum before sending it.", 84,
              bounds=(A.MARGINAL_VAR, A.MARGINAL_COV, A.HONEST_RESIDUAL)),
    Statement(K, "Algorithm 1", "CafCor: clipped mini-batch gradients, the SecLDP noise of lines 6-7, Polyak momentum, "
              "the server's CAF aggregate and the returned theta-hat (line 12).", 91),
    Statement(K, "Algorithm 2", "CAF (Covariance bound-Agnostic Filter): repeatedly down-weight the inputs along the "
              "top "
              "eigenvector of the weighted covariance until the total weight falls to n - 2f (line 10).", 112),
    Statement(K, "Section 4.1", "Privacy analysis: computing the top eigenvector by the power method 'can be easily "
              "shown' to satisfy Proposition 4.1 up to constants.", 135),
    Statement(K, "Theorem 4.1", "Let delta in (0,1), epsilon in (0, log(1/delta)), q <= f < n/2. Algorithm 1 "
              "satisfies (epsilon, delta)-SecLDP if ((n-q) sigma_cor^2 + sigma_ind^2)/(1 + sigma_cor^2/((f-q) "
              "sigma_cor^2 + sigma_ind^2)) >= 16 C^2 T log(1/delta)/epsilon^2.", 139,
              bounds=(A.THM_4_1, A.SIGMA_EFF2, A.THM_4_1_EPS_BOUND),
              hypotheses=(EPS, MINORITY), main=True),
    Statement(K, "Section 4.2", "After Proposition 4.1: standard aggregations such as CWTM and CWMED meet only a trace "
              "criterion (Allouah et al. 2023b), which grows with d where CAF's lambda_max does not.", 159,
              bounds=(A.TRACE_CRITERION,)),
    Statement(K, "Proposition 4.1", "Let 0 <= f < n/2 and kappa = (6f/(n-f))(1 + f/(n-2f))^2. CAF returns x-hat with "
              "||x-hat - x_S||^2 <= kappa lambda_max((1/|S|) sum_{i in S}(x_i - x_S)(x_i - x_S)^T) (4.1).", 153,
              bounds=(A.PROP_4_1, A.APP_B_SIGMA_STAR, A.PROP_4_1_EXACT_SQUARE, A.PROP_4_1_JENSEN, A.SMEA_CONSTANT),
              hypotheses=(MINORITY,)),
    Statement(K, "Theorem 4.2", "Under Assumptions 2.1-2.3 with L_H L-smooth and sigma_bar^2 = (sigma_b^2 + d(f "
              "sigma_cor^2 + sigma_ind^2))/(n - f): (1) if L_H is mu-strongly convex, E[L_H(theta-hat) - L_*] "
              "<= a_1 kappa G_cov^2/mu + O(L sigma_bar^2/(mu^2 T) + ...); (2) otherwise the average squared gradient "
              "is at most a_2 kappa G_cov^2 + O(sqrt(L L_0 sigma_bar^2/T) + ...).", 167,
              bounds=(A.THM_4_2_SC, A.THM_4_2_NC, A.THM_4_2_SC_RATE, A.THM_4_2_SC_FLOOR),
              hypotheses=(HETERO, VARIANCE, GRADS, SMOOTH, STRONG, MINORITY), main=True),
    Statement(K, "Corollary 4.1", "Let delta in (0,1), epsilon in (0, log(1/delta)) and n >= (2 + eta) f. With the "
              "noise of Theorem 4.1, CafCor is (epsilon, delta)-SecLDP and its error is rho = O(d C^2 log(1/delta) "
              "(f + 1)/(n^2 epsilon^2)) + O(f G_cov^2/n) (privacy-utility trade-off).", 195,
              bounds=(A.COR_4_1, A.COR_4_1_UTILITY, A.COR_4_1_DP_TERM, A.COR_4_1_DP_TERM_T, A.COR_4_1_UTILITY_F1,
                      A.COR_4_1_HET),
              hypotheses=(HETERO, VARIANCE, GRADS, SMOOTH, STRONG, EPS, MINORITY), main=True),
    Statement(K, "Fig. 1", "Comparison of CafCor and DSGD under four privacy threat models on (Fashion-)MNIST "
              "(Appendix D.1).", 215),
    Statement(K, "Fig. 2", "Performance of CafCor versus standard robust algorithms, f = 5 malicious workers: 'the "
              "clear superiority of CafCor (and CAF) over competing aggregations across all' settings (line 247).",
              239),
    Statement(K, "Lemma A.1", "(Gil et al., 2013) the Renyi divergence of order alpha between two Gaussians with "
              "covariance Sigma is (alpha/2)(mu_1 - mu_2)^T Sigma^-1 (mu_1 - mu_2).", 343, bounds=(A.RENYI_GAUSSIAN,)),
    Statement(K, "Lemma A.2", "(RDP adaptive composition, Mironov 2017) T mechanisms each (alpha, eps_i)-RDP compose "
              "to (alpha, sum eps_i)-RDP.", 361, bounds=(A.COMPOSITION,)),
    Statement(K, "Lemma A.3", "(RDP to DP conversion, Mironov 2017) (alpha, eps)-RDP implies (eps + log(1/delta)/"
              "(alpha - 1), delta)-DP.", 365, bounds=(A.EPS_STAR, A.THM_4_1_EPS_BOUND)),
    Statement(K, "Lemma A.4", "Let alpha > 1 and q <= f. Each iteration of Algorithm 1 is (alpha, alpha eps)-SecRDP "
              "with eps = 2C^2/((n-q) sigma_cor^2 + sigma_ind^2) [1 + sigma_cor^2/((f-q) sigma_cor^2 + "
              "sigma_ind^2)] (2).", 371, bounds=(A.LEMMA_A4, A.SIGMA_EFF2)),
    Statement(K, "Lemma C.1", "Under Assumptions 2.2 and 2.3, E[Delta_{t+1}] <= beta_t E[Delta_t] + 2(1 - beta_t)^2 "
              "(sigma_b^2 + 108 (n sigma_cor^2 + sigma_ind^2)(1 + d/(n-f))) + (1 - beta_t) G_cov^2.", 527,
              bounds=(A.LEMMA_C1, A.LEMMA_C1_NOISE, A.LEMMA_C1_EQ58), hypotheses=(VARIANCE, GRADS)),
    Statement(K, "Lemma C.2", "Under Assumptions 2.2 and 2.3 with L_H L-smooth: E||delta_{t+1}||^2 <= beta_t^2 "
              "(1 + gamma_t L)(1 + 4 gamma_t L) E||delta_t||^2 + ... (the momentum deviation recursion).", 549,
              bounds=(A.LEMMA_C2, A.LEMMA_C2_PRINTED_SAMPLING), hypotheses=(VARIANCE, GRADS, SMOOTH)),
    Statement(K, "Lemma C.3", "If L_H is L-smooth: E[L_H(theta_{t+1}) - L_H(theta_t)] <= -(gamma_t/2)(1 - 4 gamma_t "
              "L) E||grad L_H(theta_t)||^2 + ... (descent).", 568, bounds=(A.LEMMA_C3,), hypotheses=(SMOOTH,)),
    Statement(K, "Appendix C.5", "The privacy-utility trade-off for standard aggregation methods (CWTM): their "
              "trace-based robustness gives an error larger by a factor d/n (line 875; section 4.3, line 203).", 875,
              bounds=(A.APP_C5_CWTM,)),
    Statement(K, "Lemma C.4", "For a random symmetric M and an increasing g, E[sup_{||v||<=1} g(<v, Mv>)] <= 9^d "
              "sup_{||v||<=1} E[g(2<v, Mv>)].", 912, bounds=(A.LEMMA_C4,)),
    Statement(K, "Lemma C.5", "Under Assumptions 2.2 and 2.3, E||g~_t^(i) - grad L_i(theta_t)||^2 <= 2(1 - b/m) "
              "sigma^2/b + d sigma_DP^2.", 938, bounds=(A.LEMMA_C5, A.LEMMA_C5_EXACT), hypotheses=(VARIANCE,)),
    Statement(K, "Lemma C.6", "Let sigma_DP >= 0 and d, n >= 1, and xi^(1..n) i.i.d. N(0, sigma_DP^2 I_d): "
              "E[sup_{||v||<=1} (1/n) sum_i <v, xi^(i)>^2] <= 36 sigma_DP^2 (1 + d/n).", 980,
              bounds=(A.LEMMA_C6, A.LEMMA_C6_PROOF)),
)
