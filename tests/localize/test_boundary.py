"""Ordering comparisons the failing run alone evaluated with equal operands (the boundary,
where an off-by-one ``<=`` for ``<`` shows) are evidence among tied lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.localize.helpers import localized, ranked_in
from truegreen.localize.boundary import (
    boundary_lines,
    operand,
    ordering_pairs,
    truth_lines,
    truth_operands,
)
from truegreen.localize.spectrum import Statements

SNAP = {
    "n": 3,
    "flag": True,
    "name": "abc",
    "items": {"type": "list", "len": 40, "items": [1, 2]},
    "text": {"type": "str", "len": 500, "head": "..."},
    "self": {"type": "Reader", "fields": {"pos": 7, "end": 7, "buf": "xyz"}},
    "other": {"type": "Opaque"},
}


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("n", 3),
        ("-2", -2),
        ("n + 1", 4),
        ("n - 1 - 1", 1),
        ("len(name)", 3),
        ("len(items)", 40),
        ("len(text)", 500),
        ("self.pos", 7),
        ("len(self.buf) - 1", 2),
        # what cannot be read without running code, or is not a number, is left alone
        ("flag", None),
        ("name", None),
        ("missing", None),
        ("other.pos", None),
        ("self.missing", None),
        ("len(n)", None),
        ("f(n)", None),
        ("items[0]", None),
        ("n * 2", None),
    ],
)
def test_operands_are_read_from_the_recorded_locals_only(expr, value):
    assert operand(ast.parse(expr, mode="eval").body, SNAP) == value


def test_ordering_pairs_split_chains_and_skip_constant_pairs():
    tree = ast.parse("if 0 <= i < n:\n    pass\nok = a == b\nx = 1 < 2\ny = (k\n  >= m)\n")
    pairs = ordering_pairs(tree, lambda line: 5 if line == 6 else line)
    assert {line: [(ast.unparse(a), op, ast.unparse(b)) for a, op, b in ps]
            for line, ps in pairs.items()} == {
        1: [("0", "<=", "i"), ("i", "<", "n")],
        5: [("k", ">=", "m")],
    }  # fmt: skip


def _states(*snaps: dict, line: int = 3) -> dict:
    return {"states": [{"file": "m.py", "line": line, "locals": s} for s in snaps]}


@pytest.fixture
def stmts(tmp_path: Path) -> Statements:
    (tmp_path / "m.py").write_text(
        "def f(a, b):\n    x = a\n    if a <= b:\n        return 1\n    return 2\n"
    )
    return Statements(tmp_path)


def test_a_boundary_only_the_failing_run_met_is_evidence(stmts):
    failing = _states({"a": 2, "b": 5}, {"a": 5, "b": 5})
    assert boundary_lines(failing, _states({"a": 1, "b": 9}), stmts) == {("m.py", 3): "a <= b"}
    # a passing run that did not reach the line does not weaken it
    assert boundary_lines(failing, _states(line=2), stmts) == {("m.py", 3): "a <= b"}
    assert boundary_lines(failing, None, stmts) == {("m.py", 3): "a <= b"}


def test_no_evidence_where_the_passing_run_met_the_same_boundary_or_no_run_did(stmts):
    failing = _states({"a": 5, "b": 5})
    assert boundary_lines(failing, _states({"a": 4, "b": 4}), stmts) == {}
    assert boundary_lines(_states({"a": 4, "b": 5}), None, stmts) == {}
    # a line with no ordering comparison, and a file that is not accepted
    assert boundary_lines(_states({"a": 5, "b": 5}, line=2), None, stmts) == {}
    assert boundary_lines(failing, None, stmts, accept=lambda f: False) == {}


SIZES = {
    "sizes/__init__.py": "",
    "sizes/core.py": """
        UNITS = ["B", "K", "M"]


        def human(n):
            unit = 0
            size = n
            while unit < len(UNITS) - 1:
                if size <= 1024:
                    break
                size = size // 1024
                unit += 1
            return f"{size}{UNITS[unit]}"
        """,
    "tests/test_sizes.py": """
        from sizes.core import human


        def test_small():
            assert human(5) == "5B"


        def test_exact_power():
            assert human(1024) == "1K"


        def test_big():
            assert human(4096) == "4K"
        """,
}


@pytest.mark.slow
def test_the_off_by_one_comparison_leads_its_tie(make_project):
    """The failing test and test_small run the very same lines: the spectrum ties the whole
    body of ``human``. The return line made the rejected "1024B" and leads; next is the
    comparison the failing test alone evaluated at 1024 <= 1024, ahead of the other lines
    it ties with (the fault: it should be ``<``)."""
    doc = localized(make_project, SIZES, "tests/test_sizes.py::test_exact_power")
    core = ranked_in(doc, "sizes/core.py")
    assert (core[8]["rank"], core[8]["ties"]) == (2, 1), doc["ranking"]  # if size <= 1024
    assert core[8]["evidence"] == [
        "compared size <= 1024 with equal operands, which the passing run did not"
    ]
    # the lines it tied with stay tied, behind it
    assert core[5]["rank"] > 2 and core[5]["ties"] > 1  # unit = 0


# ---------------------------------------------------------------- truth tests


def test_truth_operands_are_names_and_fields_under_not_and_or():
    tree = ast.parse(
        "if ndigits:\n    pass\n"
        "while not (q and self.more):\n    pass\n"
        "x = a if opts else b\n"
        "if f(x) or y > 2:\n    pass\n"
    )
    found = truth_operands(tree, lambda line: line)
    assert {line: [ast.unparse(n) for n in ns] for line, ns in found.items()} == {
        1: ["ndigits"],
        3: ["q", "self.more"],
        5: ["opts"],
    }


@pytest.fixture
def truth_stmts(tmp_path: Path) -> Statements:
    (tmp_path / "t.py").write_text(
        "def f(value, ndigits=None):\n"  # 1
        "    if ndigits:\n"  # 2
        "        value = round(value, ndigits)\n"  # 3
        "    return value\n"  # 4
    )
    return Statements(tmp_path)


def _at(line: int, *snaps: dict) -> dict:
    return {"states": [{"file": "t.py", "line": line, "locals": s} for s in snaps]}


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0, "0"),
        (0.0, "0.0"),
        ("", "''"),
        ({"type": "list", "len": 0, "items": []}, "an empty list"),
    ],
)
def test_a_false_value_that_is_not_none_is_the_boundary_of_a_truth_test(truth_stmts, value, shown):
    failing = _at(2, {"ndigits": value})
    got = truth_lines(failing, _at(2, {"ndigits": None}), truth_stmts)
    assert got == {("t.py", 2): f"ndigits = {shown}"}
    assert truth_lines(failing, None, truth_stmts) == got


def test_no_truth_evidence_for_none_false_true_values_or_a_passing_run_that_met_it(truth_stmts):
    for value in (None, False, True, 2, "x", {"type": "list", "len": 3}):
        assert truth_lines(_at(2, {"ndigits": value}), None, truth_stmts) == {}, value
    failing = _at(2, {"ndigits": 0})
    assert truth_lines(failing, _at(2, {"ndigits": 0}), truth_stmts) == {}
    # not a truth test, or a file that is not accepted
    assert truth_lines(_at(4, {"value": 0}), None, truth_stmts) == {}
    assert truth_lines(failing, None, truth_stmts, accept=lambda f: False) == {}


ROUNDING = {
    "fmt/__init__.py": "",
    "fmt/num.py": """
        def with_commas(value, ndigits=None):
            if ndigits:
                value = round(value, ndigits)
            text = str(value)
            head, _, tail = text.partition(".")
            out = f"{int(head):,}"
            return out + ("." + tail if tail else "")
        """,
    "tests/test_num.py": """
        from fmt.num import with_commas

        def test_plain():
            assert with_commas(1234) == "1,234"

        def test_none_digits():
            assert with_commas(1234.5, None) == "1,234.5"

        def test_zero_digits():
            assert with_commas(1234.5, 0) == "1,234"
        """,
}


@pytest.mark.slow
def test_the_truth_test_of_a_zero_leads_its_tie(make_project):
    """``if ndigits:`` skips the rounding for ndigits=0 (the fault: ``is not None``); the
    failing test runs the same lines as test_none_digits, so the spectrum ties them."""
    doc = localized(make_project, ROUNDING, "tests/test_num.py::test_zero_digits")
    num = ranked_in(doc, "fmt/num.py")
    assert num[2]["evidence"] == [
        "tested the truth of ndigits = 0, which the passing run did not"
    ], doc["ranking"]
    tied = [r for r in num.values() if r["counts"] == num[2]["counts"] and not r["evidence"]]
    assert tied and all(num[2]["rank"] < r["rank"] for r in tied)
