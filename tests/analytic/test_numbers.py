"""analytic/numbers.py: a number beyond 10^100 is shown as a divergence, never as digits (one rule for the report's
tables and the checks' texts)."""
import math

from analytic.numbers import magnitude
from reports.text_lint import problems
from reports.typst_markup import fmt_num


def test_a_diverged_number_is_shown_as_such_and_passes_the_report_lint():
    for x in (3.8e146, -1e300, math.inf, 1.7976931348623157e308):
        assert "beyond 10^100" in magnitude(x)
        assert not problems(fmt_num(x) + " " + magnitude(x))
    assert magnitude(2e99) == "2e+99" and fmt_num(0.9852) == "0.9852"
    assert problems("factor 2.48e+307")  # the lint still catches a raw one
