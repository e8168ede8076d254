"""dutta2023's numbered statements (analytic/statements.py), in the paper's order, with the lines of the paper's text.

Lines refer to the text of arXiv:2312.10189 as converted for this project (docs/papers/dutta2023.md); quotes give the
printed words with the formulas in plain text.
"""
from __future__ import annotations

from analytic.papers import dutta2023 as D
from analytic.statements import Hypothesis, Statement, statement_table

K = "dutta2023"
SMOOTH = Hypothesis("Assumption 1 (each honest q^i is L-smooth)", r"mu and L exact|\bL exact|L-smooth|Lipschitz")
PL = Hypothesis("Assumption 2 (q^H is mu-PL with quadratic growth)", r"\bPL\b|mu_PL|mu exact|mu estimated|mu replaced")
NOISE = Hypothesis("Assumption 3 (unbiased gradient noise, E||noise||^2 <= sigma^2)", r"noise N[12]|exact gradients")
REDUNDANT = Hypothesis("2f-redundancy (Definition I.1)", r"2f-redundancy|realizable|common minimiser")
STEP = Hypothesis("step size eq. (8): alpha <= mu/(72 L^2 T)", r"eq\. \(8\)")
COND_9 = Hypothesis("condition (9): f/(N-f) <= mu/(3L)", r"condition \(9\)")

STATEMENTS = statement_table(
    K,
    Statement(K, "Definition I.1", "A set of N agents with at most f faulty ones is 2f-redundant if every subset of "
              "N - 2f honest agents has the same set of minimisers as the whole honest set.", 25),
    Statement(K, "Section II", "Federated local SGD with Byzantine agents: the honest agents minimise q^H, the "
              "average of their costs; Byzantine agents send arbitrary vectors.", 41),
    Statement(K, "Algorithm 1", "Federated local SGD with CE filter: each agent runs T local SGD steps; the server "
              "sorts the distances of the received estimates from its average, removes the f largest (lines 10-11) "
              "and averages the remaining N - f (line 12).", 45),
    Statement(K, "Assumption 1", "(Lipschitz smoothness) For each honest i, q^i has L-Lipschitz continuous gradient "
              "(eq. (4)).", 67, hypotheses=(SMOOTH,)),
    Statement(K, "Assumption 2", "q^H satisfies the PL condition and quadratic growth with some mu >= 0 (eq. (5)).",
              72, hypotheses=(PL,)),
    Statement(K, "Theorem 1", "Let alpha_k = alpha <= mu/(72 L^2 T) (8). If f/(N-f) <= mu/(3L) (9), then "
              "E[q^H(x_{k+1}) - q^H(x*_H)] <= (1 - alpha mu T/36)^{k+1} E[q^H(x_0) - q^H(x*_H)] "
              "+ 180 L T alpha sigma^2/mu + 72 T sigma^2 f/(mu |H|) (10).", 98,
              bounds=(D.THEOREM_1, D.THEOREM_1_LOG_RATE, D.THEOREM_1_FLOOR, D.FLOOR_IN_STEP, D.FLOOR_IN_VARIANCE,
                      D.BYZANTINE_TERM),
              hypotheses=(SMOOTH, PL, NOISE, REDUNDANT, STEP, COND_9), main=True,
              notes="The Byzantine term 72 T sigma^2 f/(mu |H|) cannot be exercised by any admissible run: condition "
                    "(9) caps it at 24 T sigma^2/L, while the settled Byzantine floor CE leaves is about f^2 sigma^2/"
                    "(2 |H|^2 phi''(0) T), orders of magnitude below the step-size term 2.5 sigma^2/L alone (c11 "
                    "measures the floors); removing it from (10) therefore still holds, and the card says so."),
    Statement(K, "Remark 1", "With a constant step the error converges linearly only to a ball; a mini-batch of "
              "size m replaces sigma^2 in (10) by sigma^2/m; with alpha_k ~ 1/k the rate is O(1/k); with exact "
              "gradients x_k converges exactly to x* exponentially.", 113,
              bounds=(D.MINIBATCH_FLOOR, D.DECAYING_STEP_RATE), hypotheses=(SMOOTH, PL, NOISE, REDUNDANT)),
    Statement(K, "eq. (11)", "min_x sum_i (||A^i x - b^i||^2 + sin^2(||A^i x - b^i||)) (11): 'an example of an "
              "invex but non-convex function satisfying the PL condition'; 'since objectives satisfies the PL "
              "condition, the optimal solution x* will be unique'.", 135),
    Statement(K, "eq. (12)", "min_x sum_i 1/(1 + exp(-||A_i x - b_i||)) (12), 'where the objectives are non-convex "
              "and do not satisfy the PL condition'; the figures track (1/|H|) sum_i ||grad q^i(x_k)||^2.", 141),
    Statement(K, "Fig. 1", "Fig. 1 shows CWTM, Multi-KRUM and the CE filter with non-faulty local GD as baseline "
              "for f = 2, 5, 8, 10: 'Local SGD with CE filter out performs other byzantine filters' and 'as the "
              "byzantine agent increase the convergence error increases'.", 143,
              bounds=(D.BYZANTINE_TERM,), hypotheses=(REDUNDANT,)),
    Statement(K, "Fig. 2", "On problem (12) (Fig. 2), 'Local SGD with CE filter out performs other byzantine "
              "filters', measured by the honest agents' mean squared gradient norm.", 143),
    Statement(K, "Fig. 3", "'Fig 2 and 3 shows the performance of CE filter for local iterations T = 1, 3 ... as we "
              "increase the local iterations, Algorithm 1 converges faster'.", 143,
              bounds=(D.LOCAL_STEPS_SPEEDUP, D.PER_STEP_RATE_LOW, D.PER_STEP_RATE_HIGH)),
    Statement(K, "eq. (13)", "In the proof of Theorem 1: E||x^i_{k,t+1} - x*_H|| <= (2/mu) E||grad q^H(x_k)|| + "
              "2 sigma/L; E||x^i_{k,t+1} - x_k|| <= (2 L T alpha/mu) E||grad q^H(x_k)|| + 3 sigma T alpha; "
              "E||x^i_{k,t+1} - x*_H||^2 <= (2/mu^2) E||grad q^H(x_k)||^2 + 2 sigma^2/L^2 (13).", 177,
              bounds=(D.LEMMA_13A, D.LEMMA_13B, D.LEMMA_13C), hypotheses=(SMOOTH, PL, NOISE, STEP)),
    Statement(K, "eq. (15)", "V_x = (1/|H|)[sum_{i in B_k}(x^i_{k,T} - x_k) - sum_{i in H \\ H_k}(x^i_{k,T} - x_k)] "
              "(15), bounded after (16) using 'an agent j in H \\ H_k such that ||x^i_{k,t} - x_k|| <= "
              "||x^j_{k,t} - x_k|| for all i in B_k'.", 193, bounds=(D.VX_BOUND,),
              hypotheses=(SMOOTH, PL, NOISE, STEP)),
    Statement(K, "eq. (21)", "The last step of the proof of Theorem 1, (21): the per-round contraction with the "
              "terms 3 L T^2 sigma^2 alpha^2 + 6 L T^2 alpha^2 sigma^2 |B_k|^2/|H|^2.", 262,
              hypotheses=(STEP, COND_9)),
)
