"""localize.mutation: tied suspects near the top are told apart by rerunning the failing
test (and passing tests that run the line) under small changes of each."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import pytest

from tests.localize.helpers import ranked_by_text
from truegreen.localize import LocalizeOptions, localize, mutation
from truegreen.localize.ranking import Counts, Ranked, rank
from truegreen.project import open_project

F = frozenset

SOURCE = textwrap.dedent(
    """\
    LIMIT = 3 + 1


    class Box:
        size = 2 * 2

        def grow(self, n):
            if n < LIMIT:
                return n + 1
            return n


    def count(n):
        i = 0
        while i < n:
            i += 1
        return i
    """
)


def _mutants(line: int) -> list[tuple[str, int, str, int]]:
    return mutation.statement_mutants(SOURCE, ast.parse(SOURCE), line)


def test_a_statement_in_a_function_gets_small_changes_of_its_own_expressions():
    got = _mutants(8)  # if n < LIMIT:
    assert [d for d, *_ in got] == ["negate the condition", "< -> <="]
    for _description, line, source, start in got:
        # the method alone, under its class's header, every line at its own number
        assert line == 8 and start == 6 and source.startswith("class Box:\n    def grow(")
        code = compile("\n" * (start - 1) + source, "m.py", "exec")
        klass = next(c for c in code.co_consts if hasattr(c, "co_consts"))
        method = next(c for c in klass.co_consts if hasattr(c, "co_qualname"))
        assert (method.co_qualname, method.co_firstlineno) == ("Box.grow", 7)
    assert "if not (n < LIMIT):" in got[0][2]
    assert "if (n <= LIMIT):" in got[1][2]
    assert [d for d, *_ in _mutants(9)] == ["Add -> Sub", "1 -> 2", "1 -> 0"]


def test_a_return_can_return_none_and_at_most_three_mutants_are_made():
    got = _mutants(17)  # return i
    assert [d for d, *_ in got] == ["return None"]
    assert "        return None\n" not in SOURCE and "    return None\n" in got[0][2]
    assert len(_mutants(15)) <= mutation.PER_STATEMENT


def test_code_that_runs_once_at_import_is_not_swapped_into_a_live_function():
    assert _mutants(1) == []  # module level
    assert _mutants(5) == []  # class body
    assert _mutants(7) == []  # a def statement itself


TABLES = textwrap.dedent(
    """\
    TABLE = {}
    LIMIT = 3 + 1


    class Box:
        size = 2 * 2


    def _rule(word, plural):
        TABLE[word] = plural[:7]


    def later(word):
        return TABLE[word] * 2


    _rule("child", "children")
    """
)


def test_code_that_runs_at_import_is_mutated_by_running_the_module_body_again():
    tree = ast.parse(TABLES)
    got = mutation.import_mutants(TABLES, tree, 2)  # LIMIT = 3 + 1: the module's body
    assert [d for d, *_ in got] == ["Add -> Sub", "3 -> 4", "3 -> 2"]
    for _description, line, source, start in got:
        # the whole file, changed on one line: every line keeps its number
        assert (line, start) == (2, 1) and len(source.splitlines()) == len(TABLES.splitlines())
        assert [
            a for a, b in zip(source.splitlines(), TABLES.splitlines(), strict=True) if a != b
        ] == [source.splitlines()[1]]
    assert "LIMIT = (3 - 1)" in got[0][2]
    # a function the module's body calls: its changes run again with the body
    assert [d for d, *_ in mutation.import_mutants(TABLES, tree, 10)] == [
        "7 -> 8",
        "7 -> 6",
        "assign None",
    ]
    assert mutation.called_at_import(tree) == {"_rule"}
    assert mutation.import_mutants(TABLES, tree, 14) == []  # not called by the body
    assert mutation.import_mutants(TABLES, tree, 6) == []  # a class body: made anew, not used
    assert mutation.import_mutants(TABLES, tree, 9) == []  # a def statement


def _ranked(line: int, rank_: int, ties: int) -> Ranked:
    return Ranked("m.py", line, Counts(ef=1, nf=0, ep=1, np=1), 0, (), rank_, ties)


def test_only_tie_groups_that_start_near_the_top_are_planned(tmp_path: Path):
    (tmp_path / "m.py").write_text(SOURCE)
    from truegreen.localize.spectrum import Statements

    stmts = Statements(tmp_path)
    alone = [_ranked(8, 1, 1), _ranked(9, 2, 1)]
    assert mutation.plan(alone, ["t::f"], [], {}, stmts, {}) is None
    ranking = [_ranked(8, 1, 1), _ranked(9, 3, 2), _ranked(15, 3, 2)]
    spectra = {
        "t::f": F({("m.py", 8), ("m.py", 9), ("m.py", 15)}),
        "t::p1": F({("m.py", 9)}),
        "t::p2": F({("m.py", 1)}),
    }
    got = mutation.plan(ranking, ["t::f"], ["t::p1", "t::p2"], spectra, stmts, {"t::f": 0.5})
    assert got is not None
    assert {m.line for m in got.mutants} == {("m.py", 9), ("m.py", 15)}
    # the passing test that runs line 9 is rerun with its mutants; the other is not
    assert got.tests == ("t::f", "t::p1")
    assert all(m.tests == (0, 1) for m in got.mutants if m.line == ("m.py", 9))
    assert all(m.tests == (0,) for m in got.mutants if m.line == ("m.py", 15))
    assert got.spec["timeouts"][0] == 5.0  # ten times the bare duration, at least 1 s
    # a method that ran only at import is not mutated: a mutant swapped in after the
    # session is never called, and the class is made anew when the body runs again
    got = mutation.plan(
        ranking, ["t::f"], ["t::p1"], spectra, stmts, {}, import_only=F({("m.py", 9)})
    )
    assert got is not None and {m.line for m in got.mutants} == {("m.py", 15)}
    far = [_ranked(n, 10 + i, 1) for i, n in enumerate((1, 4, 5, 7, 8, 9, 13, 14, 15))]
    assert mutation.plan([*far, _ranked(16, 21, 2)], ["t::f"], [], {}, stmts, {}) is None


def test_code_that_ran_at_import_is_mutated_last_after_a_control(tmp_path: Path):
    (tmp_path / "m.py").write_text(TABLES)
    (tmp_path / "n.py").write_text(SOURCE)
    from truegreen.localize.spectrum import Statements

    stmts = Statements(tmp_path)
    table, rule, count = ("m.py", 1), ("m.py", 10), ("n.py", 15)
    ranking = [
        Ranked(f, ln, Counts(ef=1, nf=0, ep=1, np=1), 0, (), 3, 3) for f, ln in (table, rule, count)
    ]
    spectra = {"t::f": F({table, rule, count}), "t::p": F({table, rule})}
    got = mutation.plan(ranking, ["t::f"], ["t::p"], spectra, stmts, {}, import_only=F({rule}))
    assert got is not None
    # the function's lines go first, then the control (the body run again unchanged) and
    # the changes of what ran at import: the module's body, a function it calls
    assert [(m.line, m.description, m.reload, m.control) for m in got.mutants] == [
        (count, "negate the condition", False, False),
        (count, "< -> <=", False, False),
        (("m.py", 0), "control", True, True),
        (table, "assign None", True, False),
        (rule, "7 -> 8", True, False),
        (rule, "7 -> 6", True, False),
        (rule, "assign None", True, False),
    ]
    specs = got.spec["mutants"]
    assert [(s.get("reload", False), s.get("control", False)) for s in specs[1:]] == [
        (False, False),
        (True, True),
        (True, False),
        (True, False),
        (True, False),
        (True, False),
    ]
    assert specs[2]["source"] == TABLES and specs[3]["start"] == 1
    assert specs[2]["tests"] == [0, 1] == list(got.mutants[2].tests)
    # under the cap on statements, the functions' go first, whatever their place
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mutation, "STATEMENTS", 1)
        got = mutation.plan(ranking, ["t::f"], ["t::p"], spectra, stmts, {}, import_only=F({rule}))
    assert got is not None and {m.line for m in got.mutants} == {count}


def _plan(tests: tuple[str, ...], failing: int, ids: tuple[int, ...]) -> mutation.Plan:
    mutants = (
        mutation.Mutant("m0", ("m.py", 9), "1 -> 2", ids),
        mutation.Mutant("m1", ("m.py", 9), "Add -> Sub", ids),
        mutation.Mutant("m2", ("m.py", 15), "1 -> 0", ids),
    )
    return mutation.Plan(tests, failing, mutants, {})


FAIL = ["failed:call", "d1", "m1"]
PASS = ["passed", "", ""]


def test_scores_reward_changing_the_failure_and_punish_breaking_a_passing_test():
    plan = _plan(("t::f", "t::p"), 1, (0, 1))
    results = {
        "base": [[FAIL, FAIL], [PASS, PASS]],
        "results": {
            "m0": [PASS, PASS],  # the failing test passes, the passing one still does
            "m1": [["failed:call", "d2", "m2"], PASS],  # the failure changed
            "m2": [FAIL, ["failed:call", "x", "y"]],  # nothing changed but a break
        },
    }
    got = mutation.scores(plan, results)
    assert got[("m.py", 9)][0] == (Fraction(3, 2) + Fraction(1, 2)) / 2
    assert got[("m.py", 15)][0] == -1
    assert (
        "2 of 2 mutant(s) changed the failing test's result, 1 made it pass"
        in (got[("m.py", 9)][1])
    )
    assert "1 broke a passing test" in got[("m.py", 15)][1]


def test_mutants_of_a_module_body_count_only_when_its_control_changed_nothing():
    ids = (0, 1)
    plan = mutation.Plan(
        ("t::f", "t::p"),
        1,
        (
            mutation.Mutant("m0", ("n.py", 3), "1 -> 2", ids),
            mutation.Mutant("c1", ("m.py", 0), "control", ids, reload=True, control=True),
            mutation.Mutant("m2", ("m.py", 9), "7 -> 8", ids, reload=True),
        ),
        {},
    )
    base = [[FAIL, FAIL], [PASS, PASS]]
    calm = {"m0": [FAIL, PASS], "c1": [FAIL, PASS], "m2": [PASS, PASS]}
    got = mutation.scores(plan, {"base": base, "results": calm})
    assert set(got) == {("n.py", 3), ("m.py", 9)}  # the control is no statement's mutant
    assert got[("m.py", 9)][0] == Fraction(3, 2)
    assert mutation.reload_problem(plan, {"base": base, "results": calm}) is None
    # a function's mutants that changed nothing score 0; a body run again that changed
    # no test's result may not have reached the tests (a copy another module took at
    # import): no score, where 0 would put it above the lines without mutants
    still = {"m0": [FAIL, PASS], "c1": [FAIL, PASS], "m2": [FAIL, PASS]}
    got = mutation.scores(plan, {"base": base, "results": still})
    assert got[("n.py", 3)][0] == 0 and ("m.py", 9) not in got
    # the body run again unchanged broke a passing test: its file's mutants measured that
    for control in ([FAIL, ["failed:call", "x", "y"]], {"error": "ValueError: boom"}, None):
        results = {"m0": [FAIL, PASS], "m2": [PASS, PASS]}
        if control is not None:
            results["c1"] = control
        got = mutation.scores(plan, {"base": base, "results": results})
        assert set(got) == {("n.py", 3)}
        note = mutation.reload_problem(plan, {"base": base, "results": results})
        if control is None:  # not run: the phase was cut, which `problem` tells
            assert note is None
        else:
            assert note is not None and "m.py" in note and "not used" in note


def test_a_test_whose_baseline_differs_between_two_runs_is_not_used():
    plan = _plan(("t::f",), 1, (0,))
    # the full text differs (a timestamp), the one-line message does not: compare that
    wobbly = [[FAIL, ["failed:call", "other", "m1"]]]
    results = {"base": wobbly, "results": {"m0": [["failed:call", "d3", "m1"]]}}
    got = mutation.scores(plan, results)
    assert got[("m.py", 9)][0] == 0  # same message: no change seen
    unstable = [[FAIL, ["failed:call", "other", "m9"]]]
    assert mutation.scores(plan, {"base": unstable, "results": {"m0": [PASS]}}) == {}
    # a failing target that passed when rerun tells nothing either
    assert mutation.scores(plan, {"base": [[PASS, PASS]], "results": {"m0": [FAIL]}}) == {}
    assert mutation.scores(plan, {"error": "boom"}) == {}


def test_the_mutation_score_breaks_ties_only():
    a, b, c = ("m.py", 1), ("m.py", 2), ("m.py", 3)
    failing = [F({a, b, c})]
    passing = [F({a})]
    plain = rank(failing, passing)
    assert [(r.line, r.rank, r.ties) for r in plain] == [(2, 2, 2), (3, 2, 2), (1, 3, 1)]
    got = rank(failing, passing, mutation={c: Fraction(1, 2), b: Fraction(0), a: Fraction(1)})
    assert [(r.line, r.rank, r.ties) for r in got] == [(3, 1, 1), (2, 2, 1), (1, 3, 1)]
    # unmutated lines go after a score of 0, before a negative one
    got = rank(failing, passing, mutation={c: Fraction(-1, 3)})
    assert [r.line for r in got] == [2, 3, 1]


AREA = {
    "shapes/__init__.py": "",
    "shapes/area.py": """
        def area(w, h):
            label = "area"
            return w * h + 1
        """,
    "tests/test_area.py": """
        from shapes.area import area

        def test_area_is_a_number():
            assert isinstance(area(2, 2), int)

        def test_area():
            assert area(2, 3) == 6
        """,
}


def _localize(root: Path, test_id: str, mutants: bool):
    opts = LocalizeOptions(timeout=60, values=False, mutants=mutants)
    return localize(open_project(root, sys.executable, "none"), [test_id], opts)


def test_past_the_cap_the_most_recently_changed_statements_of_a_group_get_mutants(
    tmp_path: Path,
):
    # a module of many mutable statements in one function, all tied
    body = "".join(f"    x{i} = x{i - 1} + {i}\n" if i else "    x0 = n + 1\n" for i in range(20))
    (tmp_path / "m.py").write_text(f"def f(n):\n{body}    return x19\n")
    from truegreen.localize.spectrum import Statements

    stmts = Statements(tmp_path)
    lines = list(range(2, 23))
    ranking = [_ranked(n, len(lines), len(lines)) for n in lines]
    spectra = {"t::f": F(("m.py", n) for n in lines)}

    def planned(recent: dict[tuple[str, int], int] | None) -> set[int]:
        got = mutation.plan(ranking, ["t::f"], [], spectra, stmts, {}, recent=recent)
        assert got is not None
        return {m.line[1] for m in got.mutants}

    # under a time budget the phase ends by what the budget left, each test's limit too
    capped = mutation.plan(ranking, ["t::f"], [], spectra, stmts, {"t::f": 3.0}, within=2.0)
    assert capped is not None and capped.spec["deadline"] == 2.0
    assert capped.spec["timeouts"] == [2.0]
    # without history: the first statements by line, as many as the cap allows
    assert planned(None) == set(lines[: mutation.STATEMENTS])
    # the last line, changed most recently (not committed), gets mutants within the cap;
    # a line older than the rest goes to the back
    recent = {("m.py", n): 100 for n in lines} | {("m.py", 22): 2**62, ("m.py", 2): 1}
    got = planned(recent)
    assert 22 in got and 2 not in got and len(got) == mutation.STATEMENTS


@pytest.mark.slow
def test_mutants_of_a_tied_line_that_change_the_failure_put_it_first(make_project):
    test = "tests/test_area.py::test_area"
    root = make_project(AREA, use_git=False)
    source = (root / "shapes/area.py").read_text()
    before = ranked_by_text(_localize(root, test, False), "shapes/area.py")
    assert before['label = "area"']["rank"] == before["return w * h + 1"]["rank"] == 2
    doc = _localize(root, test, True)
    ranked = ranked_by_text(doc, "shapes/area.py")
    fault, label = ranked["return w * h + 1"], ranked['label = "area"']
    assert fault["counts"] == label["counts"]
    assert (fault["rank"], fault["ties"]) == (1, 1)
    assert (label["rank"], label["ties"]) == (2, 1)
    assert any("3 of 3 mutant(s) changed the failing test's result" in n for n in fault["evidence"])
    assert any("0 of 2 mutant(s) changed" in n for n in label["evidence"])
    # the run is still checked against a bare run that ran the whole selection
    assert doc["measurement"]["checked"] is True
    # mutants live in the test process's memory only: the file is as it was
    assert (root / "shapes/area.py").read_text() == source


AREA_UNITTEST = {
    **{k: v for k, v in AREA.items() if k != "tests/test_area.py"},
    "tests/test_area.py": """
        import unittest

        from shapes.area import area

        class AreaTest(unittest.TestCase):
            def test_area_is_a_number(self):
                self.assertIsInstance(area(2, 2), int)

            def test_area(self):
                self.assertEqual(area(2, 3), 6)
        """,
}


@pytest.mark.slow
def test_a_unittest_failure_kept_by_its_test_case_is_seen_by_the_mutants(make_project):
    # unittest's runner keeps the failure (pytest takes it when it makes the report):
    # the mutants must see it, or every mutant would look like a fix
    root = make_project(AREA_UNITTEST, use_git=False)
    doc = _localize(root, "tests/test_area.py::AreaTest::test_area", True)
    ranked = ranked_by_text(doc, "shapes/area.py")
    fault, label = ranked["return w * h + 1"], ranked['label = "area"']
    assert (fault["rank"], label["rank"]) == (1, 2)
    assert any("3 of 3 mutant(s) changed the failing test's result" in n for n in fault["evidence"])
    assert any("0 of 2 mutant(s) changed" in n for n in label["evidence"])


LOOP = {
    "counting/__init__.py": "",
    "counting/steps.py": """
        def steps(n):
            i = 0
            while i < n:
                i += 1
            return i + 1
        """,
    "tests/test_steps.py": """
        from counting.steps import steps

        def test_steps_is_positive():
            assert steps(3) > 0

        def test_steps():
            assert steps(3) == 3
        """,
}


@pytest.mark.slow
def test_a_mutant_that_loops_forever_is_stopped(make_project):
    root = make_project(LOOP, use_git=False)
    doc = _localize(root, "tests/test_steps.py::test_steps", True)
    ranked = ranked_by_text(doc, "counting/steps.py")
    # `i += 1` -> `i += 0` loops: stopped by the timeout, it counts as a change
    notes = ranked["i += 1"]["evidence"]
    assert any("mutant(s) changed the failing test's result" in n for n in notes)
    assert doc["failing"] == ["tests/test_steps.py::test_steps"]


RETRY = {
    "flaky/__init__.py": "",
    "flaky/retry.py": """
        def retry(fn, attempts):
            while True:
                try:
                    return fn()
                except BaseException:
                    attempts -= 1
                    if attempts < 0:
                        raise

        def always_fails():
            raise OSError("down")
        """,
    "tests/test_retry.py": """
        import pytest
        from flaky.retry import always_fails, retry

        def test_retry_returns():
            assert retry(lambda: 1, 2) == 1

        def test_retry_gives_up():
            with pytest.raises(OSError):
                retry(always_fails, 3)
            assert retry(lambda: 2, 0) == 3
        """,
}


@pytest.mark.slow
def test_a_mutant_in_a_loop_that_swallows_every_exception_is_stopped(make_project):
    # `attempts -= 1` -> `attempts -= 0` retries forever, and `except BaseException`
    # catches the first alarm: the alarm repeats until one lands outside the `try`
    root = make_project(RETRY, use_git=False)
    doc = _localize(root, "tests/test_retry.py::test_retry_gives_up", True)
    notes = ranked_by_text(doc, "flaky/retry.py")["attempts -= 1"]["evidence"]
    assert "2 of 3 mutant(s) changed the failing test's result" in " ".join(notes)
    assert doc["measurement"]["checked"] is True


def test_past_its_deadline_the_runner_writes_what_it_has_and_ends(tmp_path, monkeypatch):
    plugin = mutation_plugin()
    out = plugin._Results(str(tmp_path))
    out.put("base", [[FAIL, FAIL]])
    out.result("m0", [PASS])

    def end(code):
        raise SystemExit(code)

    monkeypatch.setattr(plugin.os, "_exit", end)
    try:
        out.cut()
    except SystemExit as exc:
        assert exc.code == 0
    else:
        raise AssertionError("cut() must end the process")
    written = json.loads((tmp_path / "results.json").read_text())
    assert written == {
        "base": [[FAIL, FAIL]],
        "results": {"m0": [PASS]},
        "stopped": "the mutants passed their deadline",
    }
    out.write(error="late")  # once written, never again
    assert json.loads((tmp_path / "results.json").read_text()) == written


def _doctest_failure(source: str):
    import doctest

    test = doctest.DocTestParser().get_doctest(source, {}, "t", "t.py", 0)
    runner = doctest.DebugRunner(verbose=False)
    try:
        runner.run(test, clear_globs=False)
    except doctest.DocTestFailure as exc:
        return exc
    raise AssertionError("the doctest passed")


def test_a_failure_is_told_by_its_message_its_chain_and_a_doctest_s_output():
    plugin = mutation_plugin()

    def raised(fn):
        try:
            fn()
        except Exception as exc:
            return exc
        raise AssertionError("nothing raised")

    def chained():
        try:
            raise KeyError("k")
        except KeyError as exc:
            raise ValueError("bad") from exc

    text, message = plugin._failure(raised(chained))
    assert message == "ValueError: bad"
    assert "ValueError: bad" in text and "KeyError: 'k'" in text
    assert text != plugin._failure(raised(lambda: int("x")))[0]
    # a doctest's failure is the same exception whatever it printed: its output tells
    three, four = _doctest_failure(">>> 1 + 2\n5\n"), _doctest_failure(">>> 2 + 2\n5\n")
    assert plugin._failure(three)[0] != plugin._failure(four)[0]


TEARDOWN = {
    **LOOP,
    # the loop's tests, with a fixture whose teardown runs the loop too
    "tests/test_steps.py": LOOP["tests/test_steps.py"]
    + """
        import pytest

        @pytest.fixture(autouse=True)
        def counter():
            yield
            steps(3)
        """,
}


@pytest.mark.slow
def test_a_mutant_whose_teardown_loops_too_ends_the_phase_and_says_so(make_project):
    # `i += 1` -> `i += 0` loops in the test and again in the fixture's teardown: the
    # set-up state may be half torn down, so no mutant runs after it
    root = make_project(TEARDOWN, use_git=False)
    doc = _localize(root, "tests/test_steps.py::test_steps", True)
    assert any("timed out in its teardown" in w for w in doc["warnings"])
    assert doc["failing"] == ["tests/test_steps.py::test_steps"]


def mutation_plugin():
    import importlib.util

    from truegreen.localize.engine import TRACER_DIR

    spec = importlib.util.spec_from_file_location("tg_mutants", TRACER_DIR / "truegreen_mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LIVE = """\
import re

RULES = []
LIMIT = 3
PATTERN = re.compile("a+")


class Rule:
    pass


DEFAULT = Rule()


def add(word):
    RULES.append(word)


def count():
    return len(RULES) + LIMIT


add("ox")
"""


def test_the_module_body_runs_again_in_its_own_namespace_and_its_data_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import importlib

    plugin = mutation_plugin()
    (tmp_path / "live_rules.py").write_text(LIVE)
    monkeypatch.syspath_prepend(str(tmp_path))
    live = importlib.import_module("live_rules")
    monkeypatch.setitem(sys.modules, "live_rules", live)
    before = dict(vars(live))
    changed = LIVE.replace('add("ox")', 'add("ax")').replace("LIMIT = 3", "LIMIT = 4")
    spec = {"file": str(tmp_path / "live_rules.py"), "source": changed, "start": 1}
    swapped = plugin._reload(spec)
    try:
        # the data is new, and the old functions (which the tests hold) read it
        assert live.RULES == ["ax"] and live.RULES is not before["RULES"]
        assert live.count() == 5 and live.count is before["count"]
        # functions, classes, modules stay; an instance of the class made again stays too
        for name in ("add", "count", "Rule", "re", "DEFAULT"):
            assert vars(live)[name] is before[name]
        # (re's cache gave the same pattern object: nothing to replace)
        assert {name for _globals, name, _old in swapped} == {"RULES", "LIMIT"}
    finally:
        plugin._put_back(swapped)
    assert vars(live) == before and live.RULES == ["ox"] and live.count() == 4
    # a body that raises leaves the module as it was
    spec["source"] = LIVE + "raise RuntimeError('no')\n"
    with pytest.raises(RuntimeError):
        plugin._reload(spec)
    assert vars(live) == before
    # a changed module-level loop is stopped by the alarm, and the module kept as it was
    spec["source"] = LIVE.replace('add("ox")', 'add("ox")\nwhile True:\n    pass')
    import signal

    old = signal.signal(signal.SIGALRM, plugin._alarm)
    try:
        with pytest.raises(plugin._Timeout):
            plugin._reload_within(spec, 0.2)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert vars(live) == before
    spec["file"] = str(tmp_path / "not_imported.py")
    with pytest.raises(ValueError, match="not imported"):
        plugin._reload(spec)


@pytest.mark.slow
def test_mutants_run_by_default_and_are_turned_off_on_the_command_line(make_project, capsys):
    from tests.localize.test_engines import PROJECT
    from truegreen.cli import main

    root = make_project(PROJECT, use_git=False)
    args = ["localize", "tests/test_mod.py::test_missing", "--repo", str(root), "--python"]
    args += [sys.executable, "--sandbox", "none", "--json"]

    def notes(*more: str) -> list[str]:
        with pytest.raises(SystemExit) as exc:
            main([*args, *more])
        assert exc.value.code in (0, None)
        doc = json.loads(capsys.readouterr().out)
        return [n for r in doc["ranking"] for n in r["evidence"] if "mutant(s)" in n]

    assert notes() and notes("--mutants") and not notes("--no-mutants")


@pytest.mark.slow
def test_the_mutants_leave_no_temporary_files(make_project, tmp_path, monkeypatch):
    root = make_project(AREA, use_git=False)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    doc = _localize(root, "tests/test_area.py::test_area", True)
    assert ranked_by_text(doc, "shapes/area.py")["return w * h + 1"]["rank"] == 1
    assert list(temp.iterdir()) == []


REGISTRY = {
    "handlers/__init__.py": "",
    "handlers/table.py": """
        HANDLERS = {}

        def register(fn):
            HANDLERS[fn.__name__] = fn  # only the registry keeps the function

        @register
        def double(x):
            y = x
            return y * 2 + 1
        """,
    "tests/test_table.py": """
        from handlers.table import HANDLERS

        def test_double_is_a_number():
            assert isinstance(HANDLERS["double"](1), int)

        def test_double():
            assert HANDLERS["double"](2) == 4
        """,
}


@pytest.mark.slow
def test_a_function_no_global_names_is_found_and_mutated(make_project):
    root = make_project(REGISTRY, use_git=False)
    doc = _localize(root, "tests/test_table.py::test_double", True)
    ranked = ranked_by_text(doc, "handlers/table.py")
    notes = " ".join(ranked["return y * 2 + 1"]["evidence"])
    assert "3 of 3 mutant(s) changed the failing test's result" in notes
    assert ranked["return y * 2 + 1"]["rank"] == 1


PLURALS = {
    "words/__init__.py": "",
    "words/plural.py": """
        TABLE = {}


        def _irregular(singular, plural):
            TABLE[singular] = plural[:7]
            TABLE[plural] = plural


        _irregular("child", "children")
        _irregular("ox", "oxen")


        def pluralize(word):
            if word in TABLE:
                return TABLE[word]
            return word + "s"
        """,
    "tests/test_plural.py": """
        from words.plural import pluralize

        def test_child():
            assert pluralize("child") == "children"

        def test_children():
            assert pluralize("children") == "children"

        def test_ox():
            assert pluralize("ox") == "oxen"
        """,
}


@pytest.mark.slow
def test_a_wrong_rule_made_at_import_is_found_by_running_the_module_body_again(make_project):
    # the rules are made by calls at import: a mutant swapped into `_irregular` after the
    # session would never run. The module's body runs again with each change instead,
    # and its new table is what `pluralize` reads
    root = make_project(PLURALS, use_git=False)
    source = (root / "words/plural.py").read_text()
    test = "tests/test_plural.py::test_child"
    before = ranked_by_text(_localize(root, test, False), "words/plural.py")
    fault = "TABLE[singular] = plural[:7]"
    tied = ("TABLE = {}", "TABLE[plural] = plural", '_irregular("ox", "oxen")')
    assert all(before[t]["rank"] == before[fault]["rank"] for t in tied)
    doc = _localize(root, test, True)
    ranked = ranked_by_text(doc, "words/plural.py")
    assert ranked[fault]["counts"] == before[fault]["counts"]
    assert (ranked[fault]["rank"], ranked[fault]["ties"]) == (1, 1)
    assert all(ranked[t]["rank"] > 1 for t in tied)
    assert any("1 made it pass" in n for n in ranked[fault]["evidence"])
    assert any(
        "0 of 1 mutant(s) changed" in n for n in ranked["TABLE[plural] = plural"]["evidence"]
    )
    assert not any("again" in n for n in doc["warnings"])
    # nothing written, and the live module was given back its own table after each mutant
    assert (root / "words/plural.py").read_text() == source


@pytest.mark.slow
def test_a_module_body_that_cannot_run_again_unchanged_gives_no_evidence(make_project):
    # another module adds a rule to the table at its import: the body run again makes a
    # table without it, and the control (the body run again unchanged) breaks test_mouse
    files = {
        **PLURALS,
        "words/extra.py": """
            from words import plural

            plural.TABLE["mouse"] = "mice"
            """,
        "tests/test_plural.py": """
            import words.extra
            from words.plural import pluralize

            def test_child():
                assert pluralize("child") == "children"

            def test_mouse():
                assert pluralize("mouse") == "mice"
            """,
    }
    root = make_project(files, use_git=False)
    doc = _localize(root, "tests/test_plural.py::test_child", True)
    ranked = ranked_by_text(doc, "words/plural.py")
    at_import = ("TABLE = {}", "TABLE[singular] = plural[:7]", '_irregular("ox", "oxen")')
    assert not any("mutant" in n for t in at_import for n in ranked[t]["evidence"])
    # the function's own mutants still count: they need no module body run again
    assert any("mutant" in n for n in ranked["if word in TABLE:"]["evidence"])
    assert any(
        "running the body of words/plural.py again, unchanged, changed the tests' results" in n
        for n in doc["warnings"]
    )


@pytest.mark.slow
@pytest.mark.bwrap
def test_under_the_sandbox_the_held_bare_run_reports_and_runs_its_mutants(make_project):
    # in parallel with the measured run, which is handed localize's own temp dir: the
    # bare run must still write its records, `ready` and the results in its own
    from tests.localize.test_engines import PROJECT

    root = make_project(PROJECT, use_git=False)
    project = open_project(root, sys.executable, "bwrap")
    opts = LocalizeOptions(timeout=60, mutants=True)
    doc = localize(project, ["tests/test_mod.py::test_missing"], opts)
    assert doc["measurement"]["consistent"] is True
    assert doc["measurement"]["compared"] == 3
    assert any("mutant(s) changed" in n for r in doc["ranking"] for n in r["evidence"])
    assert not [w for w in doc["warnings"] if "mutant" in w]


QUICK_AND_SLOW = {
    "tests/test_speed.py": """
        import time

        def test_quick():
            assert 1 + 1 == 2

        def test_slow():
            time.sleep(0.1)
        """,
}


def test_a_mutant_test_run_is_limited_by_what_its_base_runs_took_here(make_project, tmp_path):
    # truegreen's limits (5 s here) come from the session: at least a second each. The
    # base runs, warm in this process, lower a quick test's to the least (a mutant that
    # loops stops sooner) and a slow one's to 10 times what it took, never above truegreen's
    import os
    import subprocess

    from truegreen.localize.engine import TRACER_DIR

    root = make_project(QUICK_AND_SLOW, use_git=False)
    hold = tmp_path / "hold"
    hold.mkdir()
    tests = ["tests/test_speed.py::test_quick", "tests/test_speed.py::test_slow"]
    spec = {"tests": tests, "timeouts": [5.0, 5.0], "deadline": 60, "mutants": []}
    (hold / "spec.json").write_text(json.dumps(spec))
    env = {
        **os.environ,
        "PYTHONPATH": str(TRACER_DIR),
        mutation.DIR_VAR: str(hold),
        mutation.WAIT_VAR: "60",
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", mutation.PLUGIN, "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((hold / "results.json").read_text())
    plugin = mutation_plugin()
    quick, slow = results["limits"]
    assert quick == plugin._MIN_LIMIT
    assert 1.0 <= slow < 5.0  # 10 times about 0.1 s
    assert [pair[0][0] for pair in results["base"]] == ["passed", "passed"]


#: "truegreen" for the held run below: starts pytest with the mutant runner (no executor,
#: so no reaper: the held run is on its own), says its pid, then waits to be killed
HOLDER = """
import os, subprocess, sys
root, hold, tracer = sys.argv[1:4]
env = {**os.environ, "PYTHONPATH": tracer, "TRUEGREEN_MUTANTS_DIR": hold,
       "TRUEGREEN_MUTANTS_WAIT": "600"}
child = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "truegreen_mutants",
                          "-p", "no:cacheprovider", "tests"], cwd=root, env=env,
                         stdout=subprocess.DEVNULL)
print(child.pid, flush=True)
child.wait()
"""


def test_a_held_run_gives_up_when_truegreen_is_gone(make_project, tmp_path):
    from truegreen.localize.engine import TRACER_DIR

    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"}, use_git=False)
    hold = tmp_path / "hold"
    hold.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root), str(hold), str(TRACER_DIR)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    held = int(holder.stdout.readline())
    try:
        deadline = time.monotonic() + 60
        while not (hold / "ready").exists():  # the session is over: it waits for the spec
            assert time.monotonic() < deadline and holder.poll() is None
            time.sleep(0.02)
        time.sleep(0.2)
        assert _alive(held)  # still waiting: truegreen may yet send the mutants
        holder.kill()  # as SIGKILL does: it never writes the spec, nor "stop"
        holder.wait()
        deadline = time.monotonic() + 10  # not the 600 s it was told to wait
        while _alive(held):
            assert time.monotonic() < deadline, "the held run waits for a truegreen that is gone"
            time.sleep(0.02)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
        with contextlib.suppress(OSError):  # when it failed: leave nothing behind
            if _alive(held) and b"truegreen_mutants" in Path(f"/proc/{held}/cmdline").read_bytes():
                os.kill(held, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")
