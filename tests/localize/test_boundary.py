"""Ordering comparisons the failing run alone evaluated with equal operands (the boundary,
where an off-by-one ``<=`` for ``<`` shows) are evidence among tied lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.localize.helpers import localized, ranked_in
from truegreen.localize.boundary import boundary_lines, operand, ordering_pairs
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
