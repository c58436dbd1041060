"""The regression-selection benchmark's own logic: which one-line mutations it injects,
and how it counts a selection that misses a regression."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from bench_regression import mutations, summarize

SOURCE = textwrap.dedent('''\
    LIMIT = 10


    def f(x, *args):
        """Docstring with < and True in it."""
        if x <= LIMIT and not args:
            return -x
        total = x + 1
        items.append("a < b")
        return total is None


    class C:
        flag = True
''')


def by_line() -> dict[int, list[tuple[str, str]]]:
    out: dict[int, list[tuple[str, str]]] = {}
    for line, kind, _old, new in mutations(SOURCE):
        out.setdefault(line, []).append((kind, new.strip()))
    return out


def test_only_lines_inside_function_bodies_are_mutated():
    # the module constant (1), the def line (4), the docstring (5) and the class body (14)
    # are import-time code or not code: the benchmark's fallback cases, not its regressions
    assert set(by_line()) == {6, 7, 8, 9, 10}


def test_each_kind_of_mutation_on_its_token():
    got = by_line()
    assert ("comparison", "if x < LIMIT and not args:") in got[6]
    assert ("boolean", "if x <= LIMIT or not args:") in got[6]
    assert ("boolean", "if x <= LIMIT and args:") in got[6]
    assert ("constant", "total = x + 2") in got[8]
    assert ("operator", "total = x - 1") in got[8]
    assert ("removed statement", "pass") in got[8]
    assert ("comparison", "return total is not None") in got[10]


def test_unary_operators_and_strings_are_left_alone():
    got = by_line()
    # ``-x`` is unary: no ``+x``; ``*args`` is no multiplication; "a < b" is a string
    assert [k for k, _ in got[7]] == ["removed statement"]
    assert got[9] == [("removed statement", "pass")]


def row(rid: str, selected_caught: bool, full_wall: float | None) -> dict:
    tg = {
        "selected": {"available": True, "wall": 2.0, "caught": selected_caught,
                     "selection": {"mode": "selected", "reason": None, "tests": 5, "of": 50}},
        "selected_first": {"available": True, "wall": 12.0, "caught": selected_caught},
    }  # fmt: skip
    if full_wall is not None:
        tg["full"] = {"available": True, "wall": full_wall, "caught": True}
    return {
        "id": rid, "file": "pkg/m.py", "line": 3, "kind": "comparison", "old": "a < b",
        "new": "a <= b", "bare": {"wall": 8.0, "new_failures": ["tests/test_m.py::test_a"]},
        "truegreen": tg, "testmon": {"wall": 1.0, "caught": True},
    }  # fmt: skip


def test_a_missed_regression_is_named_with_the_test_that_caught_it_in_full():
    s = summarize([row("p/reg/00", True, 10.0), row("p/reg/01", False, 10.0)])
    assert s["caught_bare_full"] == 2
    assert s["caught_selected"] == 1
    (missed,) = s["selected_missed"]
    assert missed["id"] == "p/reg/01"
    assert missed["where"] == "pkg/m.py:3"
    assert missed["caught_in_full_by"] == ["tests/test_m.py::test_a"]


def test_ratios_only_over_regressions_both_modes_timed():
    s = summarize([row("p/reg/00", True, 10.0), row("p/reg/01", True, None)])
    assert s["ratio_selected_second_over_full"]["n"] == 1
    assert s["ratio_selected_second_over_full"]["median"] == 0.2
    assert s["ratio_selected_first_over_full"]["median"] == 1.2
    assert s["selected_tests_fraction_median"] == 0.1


def test_a_passing_test_that_ran_no_function_is_a_gap_of_the_record(tmp_path, monkeypatch):
    from bench_regression import record_gaps

    where = tmp_path / "cache" / "regression"
    where.mkdir(parents=True)
    (where / "key.json").write_text(
        '{"tracer": "settrace", "tests": {"t::a": {"codes": [1]}, "t::b": {"codes": []},'
        ' "t::c": {"codes": []}}, "outcomes": {"t::a": "passed", "t::b": "passed",'
        ' "t::c": "skipped"}}'
    )
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path))
    got = record_gaps()
    assert got["no_function_by_outcome"] == {"passed": 1, "skipped": 1}
    assert got["passed_with_no_function"] == ["t::b"]
    (where / "key.json").write_text("not json")
    assert record_gaps() is None
