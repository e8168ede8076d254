"""buttaci2024's numbered statements (analytic/statements.py), in the paper's order, with the lines of the paper's text.

The appendices number their lemmas afresh (Appendix A: FedProx, Lemmas 1-4; Appendix B: the perturbed method, Lemmas
1-4); the project writes them Lemma A1-A4 and B1-B4, as docs/papers/buttaci2024.md does. Quotes give the printed words
with the formulas in plain text.
"""
from __future__ import annotations

from analytic.papers import buttaci2024 as B
from analytic.statements import Hypothesis, Statement, statement_table

K = "buttaci2024"
VARIANCE = Hypothesis("Assumption 2 (bounded variance sigma^2)", r"Assumption 2|sigma = 0|sigma\^2, Gamma")
GRAD_NORM = Hypothesis("Assumption 3 (bounded stochastic gradient norm G^2)", r"Assumption 3|G\^2")
SMOOTH = Hypothesis("Assumption 4 (L-smooth clients)", r"Assumption 4|L planted|mu, L planted|quadratic clients")
STRONG = Hypothesis("Assumption 5 (mu-strongly convex clients)", r"Assumption 5|mu, L planted|mu/L")
HETERO = Hypothesis("Definition 3 (statistical heterogeneity Gamma)", r"Gamma")
LOWER = Hypothesis("Assumption 6 (lower bounded objective)", r"f_inf")
STEP = Hypothesis("the step size of the statement", r"gamma (<=|within|= 0\.25|= 1/\(2L\))|step satisfies")

STATEMENTS = statement_table(
    K,
    Statement(K, "Section 1", "FedProx's extra term O(G^2/sqrt(T)) 'may be a reason of decelerated convergence'; "
              "the perturbed method is motivated by statistical similarity between clients.", 46),
    Statement(K, "Section 2", "FedProx ([23]) as a generalization of FedAvg with proximal updates: each client "
              "minimises its loss plus (alpha/2)||w - w_t||^2 (eqs. (4)-(5)).", 52),
    Statement(K, "Definition 1", "The client misalignment mis(i, n) in [0, 1] between the datasets of clients i and n.",
              72),
    Statement(K, "Definition 2", "The adjacency matrix of the complete graph of the clients, [A]_in = -ln(mis(i, n)) "
              "1_{i != n}, and its neighbourhoods N_i.", 82),
    Statement(K, "Algorithm 1", "Pseudocode of our algorithm: the set-up phase builds the graph of Definitions 1-2; "
              "each client takes local steps from the perturbed point beta w + (1 - beta) u_t^i.", 147),
    Statement(K, "Lemma 1", "At local step k of round t, sum_i p_i w~_{t,k}^i = beta w_{t,k} + (1 - beta) w_{t,0}.",
              151),
    Statement(K, "Theorem 1", "Under Assumptions 1 to 5, FedProx with alpha > 0 and step gamma = [2 E L_alpha]^-1 "
              "satisfies E f(w_t) - f* <= (1 - mu/(3(alpha + L)))^t Delta + a floor in sigma^2, G^2 and Gamma "
              "(eq. (7)).", 195, bounds=(B.THM1, B.FLOOR_1, B.KAPPA_THM1, B.KAPPA_THM_AVG, B.FLOOR_ALPHA_FACTOR),
              hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, STRONG, HETERO, STEP), main=True),
    Statement(K, "Theorem 2", "Under Assumptions 1 to 4 and 6, FedProx with alpha > 0 and step [2 L_alpha sqrt(TE)]^-1 "
              "for T >= 1 rounds: the average squared gradient norm is O(Delta/sqrt(TE)) plus terms in sigma^2 and "
              "G^2.", 213, bounds=(B.THM2,), hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, LOWER, STEP), main=True),
    Statement(K, "Theorem 3", "Under Assumptions 1 to 5, our algorithm with beta in (0, 1) and step [2LE]^-1 "
              "satisfies E f(w_t) - f* <= (1 - mu/((beta + 2) L))^t Delta + a floor in sigma^2, G^2 and Gamma "
              "(eq. (8)).", 225, bounds=(B.THM3, B.FLOOR_3, B.KAPPA_THM3),
              hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, STRONG, HETERO, STEP), main=True),
    Statement(K, "Theorem 4", "Under Assumptions 1 to 4 and 6, our algorithm with beta in (0, 1), T >= 1 rounds and "
              "step [2L sqrt(TE)]^-1: the average squared gradient norm is O(Delta/sqrt(TE)) plus terms in sigma^2 "
              "and G^2.", 235, bounds=(B.THM4,), hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, LOWER, STEP), main=True),
    Statement(K, "Corollary 1", "Consider Theorem 4 and choose E = O(T^{1/3}) local steps: the error asymptotically "
              "decreases as O(T^{-2/3}).", 245),
    Statement(K, "eq. (9)", "(1 - mu/((beta + 2)L))^t [ours] <= (1 - mu/(3L))^t [FedAvg] <= (1 - mu/(3(alpha + L)))^t "
              "[FedProx] (9): 'our algorithm ... accelerates', with the same rate at beta = 1 and alpha = 0.", 257,
              bounds=(B.SPEEDUP_THEOREM,)),
    Statement(K, "Section 5", "The discussion of (9) (lines 259-271): alpha > 0 shrinks FedProx's floor by the factor "
              "L/(L + alpha), and the nonconvex iteration complexities of FedProx and of our algorithm compare as "
              "Theorems 2 and 4 give.", 259, bounds=(B.FLOOR_ALPHA_FACTOR,)),
    Statement(K, "Table 1", "Numerical results on FEMNIST and CIFAR10: diminishing beta 'positively and consistently "
              "affects convergence on unseen data' (line 314).", 277),
    Statement(K, "Fig. 2", "Simulation on balanced and imbalanced FEMNIST with the convex and nonconvex loss.", 290),
    Statement(K, "Lemma A1", "(Single round local deviation of FedProx) E||w_{t,k}^i - w_t||^2 <= gamma^2 k^2 G^2 "
              "(eq. (13)).", 383, bounds=(B.LEMMA_A1,), hypotheses=(GRAD_NORM,)),
    Statement(K, "Lemma A2", "(Single round local divergence of FedProx) the clients' spread around their average "
              "(eq. (17)).", 417, bounds=(B.LEMMA_A2,), hypotheses=(GRAD_NORM,)),
    Statement(K, "Lemma A3", "(Single round progress of FedProx for strongly convex loss) E D_{t+1} <= kappa D_t + A "
              "with kappa and A of eqs. (23)-(24).", 459, bounds=(B.KAPPA_A3, B.KAPPA_AVG, B.A_A3),
              hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, STRONG, HETERO, STEP)),
    Statement(K, "Lemma A4", "(Single round progress of FedProx for nonconvex loss) eq. (59), with the step of its "
              "proof, eq. (76).", 636, bounds=(B.A_A4,), hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, STEP)),
    Statement(K, "Lemma B1", "The neighbour averages u_t^i stay within the clients' last-round spread (eq. (99)).", 751,
              bounds=(B.LEMMA_B1,), hypotheses=(GRAD_NORM,)),
    Statement(K, "Lemma B2", "The perturbed point's deviation (eqs. (119)-(121)).", 778,
              bounds=(B.LEMMA_B2, B.LEMMA_B2_EQ121), hypotheses=(GRAD_NORM,)),
    Statement(K, "Lemma B3", "(Single round progress of our algorithm for strongly convex loss) E D_{t+1} <= kappa D_t "
              "+ A with kappa and A of eqs. (122)-(123).", 823, bounds=(B.KAPPA_B3, B.A_B3),
              hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, STRONG, HETERO, STEP)),
    Statement(K, "Lemma B4", "(Single round progress of our algorithm for nonconvex loss) eq. (192).", 992,
              bounds=(B.A_B4,), hypotheses=(VARIANCE, GRAD_NORM, SMOOTH, STEP)),
    Statement(K, "Table 2", "Grid of parameters used for the convergence simulations on FEMNIST and CIFAR10.", 1147),
    Statement(K, "Fig. 6", "Client misalignment (Definition 1) for the three datasets under examination (Appendix C.1 "
              "partitions).", 1179),
    Statement(K, "Fig. 7", "The distribution of the eigenvalues of the Laplacian of the graph representation; data "
              "imbalance affects homogeneous networks more (line 1188).", 1186),
    Statement(K, "Fig. 12", "Varying the step size of our algorithm with a strongly convex loss (Figs. 12-13).", 1237),
)
