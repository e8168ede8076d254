"""ASCII math in the report's prose becomes symbols; everything else is left as written."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports.prose_math import prose_math


@pytest.mark.parametrize("ascii_text, shown", [
    ("the residual is <~ (delta^2+sigma^2) xi_1 / p_j", "the residual is ≲ (δ²+σ²) ξ₁ / pⱼ"),
    ("|sigma_hat^2 - ||Sigma e||^2|", "|σ̂² - ||Σ e||²|"),
    ("mu_PL <= L/2 and f >= 1", "μ_PL ≤ L/2 and f ≥ 1"),
    ("sqrt(1/n_i) falls as m^-1, A^T x", "√(1/nᵢ) falls as m⁻¹, Aᵀ x"),
    ("Delta >~ sigma/delta_i, +- 0.25", "Δ ≳ σ/δᵢ, ± 0.25"),
])
def test_ascii_math_becomes_symbols(ascii_text, shown):
    assert prose_math(ascii_text) == shown


@pytest.mark.parametrize("text", [
    "n_boot speedup.rtol max_rel_error",      # identifiers: a multi-letter index is not a subscript
    "sigmoid, betas, alphabet, etat, nudge, mute, Sigmas",  # Greek names inside words
    "x^(-1/4) and T^-1.25 and e^-x",           # powers that are not a plain integer stay as written
    "python -m verify.cli run su2022.c10 --seed 1",
    "1e-5 and 2 < 3 > 1",
])
def test_text_that_is_not_ascii_math_is_unchanged(text):
    assert prose_math(text) == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list("abcdeiklmnpstuxTAL_^-+<>=~()|/0123 ") + ["sigma", "mu", "xi", "Delta", "_hat"]),
                max_size=40).map("".join))
def test_prose_math_never_loses_a_digit_or_a_parenthesis(text):
    out = prose_math(text)
    for ch in "()|/":
        assert out.count(ch) == text.count(ch)
