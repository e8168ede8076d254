"""werner2023's numbered statements (analytic/statements.py), in the paper's order, with the lines of the paper's text.

Examples 1-3 are stated in Section 2.1 with Fig. 1 and revisited in Section 3.1.3 (the lines given). Quotes give the
printed words with the formulas in plain text.
"""
from __future__ import annotations

from analytic.papers import werner2023 as W
from analytic.statements import Hypothesis, Statement, statement_table

K = "werner2023"
SEPARATION = Hypothesis("separation Delta >~ sigma/delta (Assumptions 1-3)", r"separation|Delta >= 2 sigma|Delta\^2 >=")
BYZ = Hypothesis("beta <~ delta (fraction of Byzantine points)", r"beta <= delta")
STEPS = Hypothesis("clipping steps l >= eq. (13), (22) or (27)", r"steps l >=")
START = Hypothesis("initial error c_1^2 <= sigma^2 (used by the proof, not stated)", r"c_1\^2")
MODEL = Hypothesis("Assumptions 1-3 (i.i.d. points, gap Delta, variance sigma^2)",
                   r"Assumptions 1-3|n i\.i\.d\.|variance")
A2 = Hypothesis("Assumption 4 (A^2) and Assumption 5 (Delta, D^2)", r"A\^2|Assumption 5")
SMOOTH = Hypothesis("Assumptions 6-7 (smooth, strongly convex; eta <= 1/L)", r"eta <= 1/L|strong convexity|smooth")
MOMENTUM = Hypothesis("Assumption 9 (cluster means of the momenta stay apart)", r"Assumption 9")

STATEMENTS = statement_table(
    K,
    Statement(K, "Section 1.1", "Related work: IFCA is 'sensitive to initialization'; existing clustered methods "
              "can miscluster and fail to converge.", 30),
    Statement(K, "Section 1.2", "Contributions (line 62): Federated-Clustering recovers the clusters and converges; "
              "Algorithms 2 and 4 'converge at the optimal O(1/sqrt(n_i T)) rate'.", 52),
    Statement(K, "Example 1", "Example 1 (Fig. 1(a), eqs. (2)-(4)): Myopic-Clustering with eta = 0.5 misclusters "
              "three quadratic clients whose correct clustering is {1, 2} and {3}; Federated-Clustering recovers it "
              "(Section 3.1.3).", 219),
    Statement(K, "Example 2", "Example 2 (Fig. 1(b), eqs. (5)-(6)): IFCA and HypCluster assign both clients to one "
              "model although the correct clustering is {1}, {2}; Federated-Clustering separates them under "
              "Assumption 5 (17).", 223),
    Statement(K, "Example 3", "Example 3 (Fig. 1(c), eqs. (7)-(9)): clustering by the FedAvg optimum puts clients "
              "in the wrong clusters; Federated-Clustering with batches (Theorem 3.3) does not.", 227),
    Statement(K, "Theorem 3.1", "Suppose N points for which Assumptions 1-3 hold with separation Delta >~ "
              "sigma/delta_i "
              "and beta_i <~ delta_i. Threshold-Clustering with l >~ max{1, log(sigma/Delta)/log(1 - delta_i/2)} "
              "steps (13) gives E||v_{k_i,l} - E z_i||^2 <~ sigma^2/n_i + sigma^3/Delta + beta_i sigma Delta (14).",
              166, bounds=(W.THM_3_1, W.ORACLE, W.BYZANTINE_TERM, W.TC_STEPS_TO_FLOOR),
              hypotheses=(SEPARATION, BYZ, STEPS, START, MODEL), main=True),
    Statement(K, "Definition 1", "(Robustness) a fraction beta_i of the points of cluster i may be arbitrary "
              "(Byzantine).", 191),
    Statement(K, "Theorem 3.2", "(Near-optimality of Threshold-Clustering) For any algorithm there is a mixture of "
              "distributions with gap Delta and variance sigma^2 on which its error is >~ sigma^2/n + sigma^3/Delta "
              "(15).", 206, bounds=(W.THM_3_2, W.THM_3_2_FLOOR), hypotheses=(MODEL,), main=True),
    Statement(K, "Section 3.2", "After Theorem 3.3 (line 291): clustering the gradients rather than the models costs "
              "no more than the remark states; no proof is given.", 231),
    Statement(K, "Lemma 1", "For smooth strongly convex clients, A^2 <= (2L/mu)^2 (18) and Assumption 5 holds with "
              "D^2 = 2(1 + (L/mu)^2) and Delta^2 = (1/2) max_j ||grad f_j(x*_i)||^2 (19).", 251,
              bounds=(W.LEMMA_1_A2, W.LEMMA_1_D2, W.LEMMA_1_MAX_FORM), hypotheses=(SMOOTH,)),
    Statement(K, "Theorem 3.3", "Let Assumptions 4-7 hold with Delta >~ max(1, A^4) max(1, D^2) sigma/delta_i. "
              "Federated-Clustering with batches |B_i|, eta <= 1/L and l >= eq. (22) gives (1/T) sum_t E||grad "
              "f_i(x_{i,t-1})||^2 <~ F/(eta T) + sigma^2/(n_i |B_i|) + ... (23).", 276,
              bounds=(W.THM_3_3, W.THM_3_3_GROWING_BATCH, W.FULL_BATCH, W.FC_FIXED_BATCH, W.FC_FLOOR),
              hypotheses=(A2, SMOOTH, STEPS, BYZ), main=True),
    Statement(K, "Algorithm 2", "Federated-Clustering: every client sends its gradient to every other (N(N-1) "
              "messages per round, 'O(N^2) rounds of communication') and runs Threshold-Clustering (Algorithm 3).",
              301, bounds=(W.FC_MESSAGES, W.FC_EVALUATIONS, W.SERVER_MESSAGES)),
    Statement(K, "Section 3.3", "Momentum-Clustering 'for which there is no batch-size restriction' (line ~303).", 326,
              not_checked="the claim compares a requirement of the proofs (a batch size), which no run can measure; "
                          "Theorem 3.4's checks (c27, c28, x12) test what the momentum version guarantees"),
    Statement(K, "Theorem 3.4", "Let Assumptions 6-9 hold with Delta >~ sigma/delta_i. Momentum-Clustering (Algorithm "
              "4) for T rounds with eta and tau ~ sqrt(delta_i sigma Delta) gives (1/T) sum_t E||grad f_i||^2 <~ "
              "sigma/sqrt(n_i T) + beta_i-dependent T^{-1/4} terms (28).", 348,
              bounds=(W.THM_3_4, W.THM_3_4_BYZANTINE), hypotheses=(MOMENTUM, SMOOTH, STEPS, BYZ), main=True),
    Statement(K, "Fig. 2", "On a synthetic dataset the intra-cluster variance ratio (31)-(32) stays bounded: "
              "Assumption 4's A^2 is moderate in practice.", 385),
    Statement(K, "Fig. 3", "The performance of Federated-Clustering against the baselines on a synthetic dataset, "
              "as n_i grows.", 404),
    Statement(K, "Table 1", "Test losses and accuracies of the federated personalization algorithms on MNIST: "
              "Federated-Clustering matches the oracle and beats the baselines.", 411),
    Statement(K, "Fig. 4", "Figs. 4-5 (CIFAR-10, CIFAR-100): 'adopting a more conservative value for tau (lower "
              "percentile) does not substantially compromise accuracy' (line ~436).", 441,
              not_checked="the figures' tau-percentile sweep needs the CIFAR models of section 4.3; the bundled data "
                          "has no such task (analytic/papers/werner2023.py, not_checked)"),
    Statement(K, "Fig. 6", "Federated-Clustering against a large gradient attack and bit flips: its accuracy barely "
              "moves, FedAvg's collapses (section 4.4).", 446,
              bounds=(W.FC_BYZANTINE_FACTOR, W.FEDAVG_BYZANTINE_FACTOR)),
    Statement(K, "Fig. 7", "The average distance to the cluster centres as a function of the number of clipping "
              "iterations of Algorithm 3 (section 4.5): a few iterations suffice.", 465),
    Statement(K, "eq. (41)", "In the proof of Theorem 3.1, each clipping step contracts the error by 1 - delta_i/2 "
              "(iii), down to sigma^2/n_i + sigma^3/Delta + beta_i sigma Delta (41).", 534,
              bounds=(W.TC_CONTRACTION, W.TC_STEPS_TO_FLOOR)),
    Statement(K, "Lemma 3", "(Bound T_1) the good points' contribution to the clustering error (58).", 579),
    Statement(K, "Lemma 4", "(Bound T_2) eqs. (68)-(71): the cross term between good and clipped points.", 598),
    Statement(K, "eq. (95)", "The construction of Theorem 3.2's proof: the worst-case error is at least delta^2 p^2/4 "
              "with p chosen as in (95).", 700, bounds=(W.PAPER_CLAIMED, W.CORRECTED)),
    Statement(K, "eq. (118)", "The proof of Theorem 3.3 with a fixed batch: the average squared gradient is at most "
              "F/(eta T) plus the floor sigma^2/(n_i |B|) and Byzantine terms (118).", 835,
              bounds=(W.FC_FIXED_BATCH, W.FC_FLOOR)),
    Statement(K, "Lemma 7", "(Variance reduction using batches) Var(batch mean) = sigma^2/|B| (124).", 847,
              bounds=(W.LEMMA_7,)),
    Statement(K, "Lemma 8", "(Bound on clustering error) eq. (127): avg_t E||v_{i,l_t,t} - grad f_i||^2 <~ delta_i "
              "avg ||grad f_i||^2 + ... .", 863,
              not_checked="a bound on the clustering step inside Federated-Clustering's rounds that no check isolates; "
                          "Theorem 3.3's checks test its consequence (23)"),
    Statement(K, "Lemma 14", "(Variance reduction using momentum) Var(m_t) <= alpha sigma^2 (228).", 1127,
              bounds=(W.LEMMA_14, W.MOMENTUM_VARIANCE)),
)
