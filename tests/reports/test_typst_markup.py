"""Escaping, number formatting and table helpers for the typst report."""
from __future__ import annotations

import math

import numpy as np
import pytest
import typst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reports.pdf import PREAMBLE
from reports.typst_markup import (
    check_mark,
    escape,
    fmt_duration,
    fmt_num,
    fmt_value,
    one_line,
    string_literal,
    summarise_mapping,
    table,
    verdict_badge,
)


def compile_markup(body: str) -> bytes:
    return typst.compile((PREAMBLE + "\n" + body).encode("utf-8"), format="pdf")


def contexts(text: str, k: int = 0) -> str:
    """The escaped text in every position the report puts text: paragraph start, after an
    embedded call, headings, list-like line starts, table cells, content blocks, strings."""
    e = escape(text)
    h = escape(one_line(text))
    return "\n\n".join([
        e,
        "#strong[" + e + "]" + e,
        "== " + h + f" <lab{k}>",
        "#note[" + e + "] #h(1em) " + e,
        "- " + e + "\n+ " + e + "\n" + e,
        table(["a", "b"], [[e, h], [check_mark(True), verdict_badge(text)]]),
        "#let s = " + string_literal(text) + "\n#s",
        f"#link(<lab{k}>)[" + e + "]" + e,
        "#finding[*Finding.* " + e + "]",
    ])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=4))
def test_escaped_random_text_always_compiles(texts):
    compile_markup("\n\n".join(contexts(t, k) for k, t in enumerate(texts)))


MARKUP_ALPHABET = st.sampled_from(list("\\#$*_`<>@[]=-+/~.:{}();,!?|&%^\"' \n\tau0123{}") + ["//", "/*", "*/", "--", "...", "\\u{41}", "#{", "https://a.b"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MARKUP_ALPHABET, min_size=1, max_size=60).map("".join))
def test_escaped_markup_heavy_text_compiles(text):
    compile_markup(contexts(text))


@pytest.mark.parametrize("text", ["#", "$", "\\", "[", "]", "`", "*", "_", "<", "@", "/*", "//", "=",
                                  "\\u{41}", "a\\", "x\x00y\x1b", "\ud800", "\u2028", "1. x"])
def test_escape_edge_cases(text):
    compile_markup(contexts(text))


def test_escape_shows_text_literally():
    """The text typst lays out is the text given (checked via typst's own plain-text query)."""
    import json

    text = r"a#b $c$ *d* _e_ <f> @g [h] \i `j` // k /* l = m - n + o ~ p ... q: r"
    src = (PREAMBLE + f"#metadata([{escape(text)}]) <probe>").encode()
    doc = json.loads(typst.query(src, "<probe>", field="value", one=True, format="json"))

    def plain(node) -> str:
        if isinstance(node, str):
            return node
        if isinstance(node, list):
            return "".join(plain(n) for n in node)
        if isinstance(node, dict):
            if node.get("func") == "space":
                return " "
            if node.get("func") == "smartquote":
                return '"' if node.get("double", True) else "'"
            for key in ("text", "children", "body"):
                if key in node:
                    return plain(node[key])
        return ""

    assert plain(doc) == text


def test_escape_none_and_non_strings():
    assert escape(None) == ""
    assert escape(3) == "3"
    assert escape("-1.5") == "\\-1\\.5"


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=30))
def test_string_literal_roundtrip(s):
    import json

    expected = s.encode("utf-8", "replace").decode("utf-8")
    assert json.loads(typst.eval(b"", string_literal(s), format="json")) == expected


@pytest.mark.parametrize(
    "x, s",
    [
        (3.2e-05, "3.2e-05"),
        (0.98523, "0.9852"),
        (-0.9852, "-0.9852"),
        (120.0, "120"),
        (7, "7"),
        (np.int64(12), "12"),
        (np.float32(0.5), "0.5"),
        (1234567.0, "1.235e+06"),
        (0.0, "0"),
        (float("nan"), "NaN"),
        (float("inf"), "inf"),
        (-math.inf, "-inf"),
        (True, "true"),
        (None, "—"),
        ("abc", "abc"),
    ],
)
def test_fmt_num(x, s):
    assert fmt_num(x) == s


def test_fmt_duration():
    assert fmt_duration(0.0421) == "0.042 s"
    assert fmt_duration(12.34) == "12.3 s"
    assert fmt_duration(125) == "2 min 05 s"
    assert fmt_duration(3725) == "1 h 02 min"
    assert fmt_duration(None) == "—"
    assert fmt_duration("x") == "—"


def test_fmt_value_summarises_long_lists():
    assert fmt_value([1, 2, 4]) == "[1, 2, 4]"
    assert fmt_value(list(range(1, 301))) == "300 values from 1 to 300"
    assert fmt_value([1.0, float("nan")] * 5) == "10 values from 1 to 1 (5 not finite)"
    assert fmt_value(np.ones((30, 12))) == "360 values (30 by 12) from 1 to 1"
    assert fmt_value([]) == "[]"
    assert fmt_value({"a": 1}) == "(nested: in the Result's JSON)"  # tables flatten mappings before this
    assert fmt_value("x" * 500).endswith(" [cut]") and len(fmt_value("x" * 500)) <= 120
    assert fmt_value(["a", "b"]) == "[a, b]"
    assert fmt_value([[1, 2], [3]]) == "[[1, 2], [3]]"  # ragged: its values, never a bare count
    assert fmt_value([{"f": 1}, {"f": 2}]) == "2 records (in the Result's JSON)"


def test_summarise_mapping_caps_entries_and_flattens():
    d = {f"k{i}": i for i in range(20)}
    rows = summarise_mapping(d, max_entries=12)
    assert len(rows) == 12
    assert rows[-1] == ("…", "9 more entries not shown")
    rows = summarise_mapping({"ci": {"lo": 0.1, "hi": 0.2}, "T": [1, 10, 100], "deep": {"a": {"b": 3}}})
    assert rows == [("ci / lo", "0.1"), ("ci / hi", "0.2"), ("T", "[1, 10, 100]"), ("deep / a / b", "3")]
    assert summarise_mapping({}) == [] and summarise_mapping(None) == []


def test_lists_of_records_become_tables_of_their_own():
    from reports.typst_markup import record_tables

    d = {"configs": [{"f": 2, "attack": "ALIE", "final": 1e-3, "trace": [1, 2]}, {"f": 5, "attack": "A6"}], "x": 1}
    assert summarise_mapping(d) == [("x", "1")]
    [(name, header, rows)] = record_tables(d)
    assert name == "configs" and header == ["f", "attack", "final"]
    assert rows == [["2", "ALIE", "0.001"], ["5", "A6", "None"]] or rows[1][2] in ("—", "None")


def test_table_rejects_ragged_rows_and_compiles():
    with pytest.raises(ValueError):
        table(["a", "b"], [["1"]])
    compile_markup(table(["a", "b"], [["1", "2"]], columns=["auto", "1fr"], align=["left", "right"], size="8pt"))
    compile_markup(verdict_badge("not_reproduced") + verdict_badge("weird") + check_mark(None))
