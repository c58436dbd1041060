"""localize under a time budget: which passing tests fit, the deadline in the runs, what
an earlier run of the same revision measured, and what the answer says it left out."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from truegreen.localize import LocalizeOptions, localize
from truegreen.localize import budget as b
from truegreen.project import open_project
from truegreen.run.results import PytestRun
from truegreen.run.results import TestResult as Result

# -- the plan: pure -------------------------------------------------------------------

SELECTION = ["tests/test_fail.py", "tests/test_quick.py", "tests/test_slow.py", "tests/test_new.py"]
TARGETS = ["tests/test_fail.py::test_x"]


@pytest.mark.parametrize(
    ("seconds", "known", "kept", "left_out"),
    [
        # no budget: everything runs, nothing is read
        (None, {"tests/test_slow.py::t": 999.0}, SELECTION, []),
        # nothing measured yet: everything runs (the deadline bounds the unknown)
        (10.0, {}, SELECTION, []),
        # a file measured too slow for the runs' share (half of 10 s) is left out
        (10.0, {"tests/test_slow.py::t": 9.0, "tests/test_quick.py::t": 0.1}, [
            "tests/test_fail.py", "tests/test_quick.py", "tests/test_new.py"
        ], ["tests/test_slow.py"]),
        # the failing test's own file always runs, however slow, and its time counts first
        (10.0, {"tests/test_fail.py::t": 4.9, "tests/test_quick.py::t": 0.2}, [
            "tests/test_fail.py", "tests/test_slow.py", "tests/test_new.py"
        ], ["tests/test_quick.py"]),
        # files that fit together all stay (0.2 + 2 x 2.4 = 5.0, the share exactly)
        (10.0, {"tests/test_quick.py::a": 2.4, "tests/test_slow.py::b": 2.4,
                "tests/test_fail.py::c": 0.2}, SELECTION, []),
    ],
)  # fmt: skip
def test_plan_keeps_what_fits_the_runs_share(
    seconds: float | None, known: dict[str, float], kept: list[str], left_out: list[str]
) -> None:
    chosen = b.plan(SELECTION, TARGETS, seconds, known)
    assert chosen.selection == kept
    assert chosen.left_out == left_out
    assert chosen.reused == (seconds is not None and bool(known))


def test_a_target_id_given_outside_the_files_is_always_kept() -> None:
    chosen = b.plan(["tests/a.py::t", "tests/b.py"], ["tests/a.py::t"], 1.0, {"tests/a.py::t": 50})
    assert chosen.selection == ["tests/a.py::t", "tests/b.py"]


def test_the_note_names_what_was_left_out_and_what_to_do() -> None:
    chosen = b.Plan(selection=[], left_out=["tests/test_slow.py"], reused=True)
    doc = b.document(30.0, chosen, ["tests/test_net.py::a", "tests/test_net.py::b"])
    assert doc is not None
    assert doc["cut_files"] == ["tests/test_net.py"]
    assert doc["cut_tests"] == 2
    said = b.note(doc)
    assert said is not None
    assert "30 s budget" in said and "tests/test_slow.py" in said and "tests/test_net.py" in said
    assert "larger budget" in said
    assert b.note(b.document(30.0, b.Plan(selection=[]), []) or {}) is None
    assert b.document(None, chosen, []) is None


def _run(*tests: Result) -> PytestRun:
    return PytestRun(
        command=(), cwd=".", exit_code=1, timed_out=False, complete=True, tests=tests,
        collected=tuple(t.id for t in tests), collection_errors=(), duration=1.0,
    )  # fmt: skip


def test_durations_are_kept_per_revision_and_stopped_tests_are_not(
    make_project: Callable[..., Path],
) -> None:
    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"})
    project = open_project(root, sys.executable, "none")
    rev = b.revision(project)
    assert rev is not None and len(rev) == 40
    b.save(
        project,
        rev,
        [
            _run(
                Result("tests/test_a.py::test_a", "passed", duration=0.5),
                Result("tests/test_b.py::test_b", "skipped", reason=b.SKIP_REASON),
                Result("tests/test_c.py::test_c", "no_report"),
            ),
            _run(Result("tests/test_a.py::test_a", "passed", duration=9.0)),
        ],
    )
    # the first run's time wins; a test stopped at the deadline or never run has none
    assert b.load(project, rev) == {"tests/test_a.py::test_a": 0.5}
    assert b.load(project, "0" * 40) == {}
    assert b.load(project, None) == {}
    no_git = open_project(make_project({"x.py": ""}, use_git=False, name="plain"), None, "none")
    assert b.revision(no_git) is None


def test_a_corrupt_cache_file_reads_as_nothing_measured(
    make_project: Callable[..., Path],
) -> None:
    project = open_project(make_project({"tests/test_a.py": ""}), sys.executable, "none")
    rev = b.revision(project)
    b.save(project, rev, [_run(Result("tests/test_a.py::t", "passed", duration=1.0))])
    (path,) = (b.cache_dir() or Path("/nonexistent")).glob("*.json")
    path.write_text("{not json", encoding="utf-8")
    assert b.load(project, rev) == {}


# -- real runs ------------------------------------------------------------------------

SLOW_PROJECT = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def double(x):\n    return x + x\n\n\ndef triple(x):\n    return x * 2\n",
    "tests/__init__.py": "",
    "tests/test_fail.py": (
        "from pkg.core import double, triple\n\n\n"
        "def test_triple():\n    assert triple(2) == 6\n\n\n"
        "def test_double():\n    assert double(2) == 4\n"
    ),
    # shares pkg.core with the failing file: chosen next to it, and slow
    "tests/test_slow.py": (
        "import time\nfrom pkg.core import double\n\n\n"
        "def test_slow_one():\n    time.sleep(SLEEP)\n    assert double(1) == 2\n\n\n"
        "def test_slow_two():\n    time.sleep(SLEEP)\n    assert double(3) == 6\n"
    ),
}


def _project(make_project: Callable[..., Path], sleep: float, use_git: bool) -> Path:
    files = dict(SLOW_PROJECT)
    files["tests/test_slow.py"] = files["tests/test_slow.py"].replace("SLEEP", repr(sleep))
    return make_project(files, use_git=use_git)


def _localize_fast(root: Path, opts: LocalizeOptions) -> dict[str, Any]:
    """The localize of test_triple, which must end well before the slow tests' 20 s sleeps
    and still rank the faulty module first."""
    started = time.monotonic()
    doc = localize(
        open_project(root, sys.executable, "none"), ["tests/test_fail.py::test_triple"], opts
    )
    took = time.monotonic() - started
    assert took < 15, took
    assert doc["ranking"][0]["file"] == "pkg/core.py"
    return doc


@pytest.mark.slow
def test_the_deadline_stops_a_slow_passing_file_and_the_answer_says_so(
    make_project: Callable[..., Path],
) -> None:
    root = _project(make_project, 20.0, use_git=False)
    # two 20 s sleeps were in the selection: the deadline (1 s into each run) cut them
    doc = _localize_fast(root, LocalizeOptions(timeout=120, mutants=False, budget_seconds=4.0))
    assert doc["budget"]["cut_files"] == ["tests/test_slow.py"]
    assert doc["budget"]["cut_tests"] == 2
    assert doc["budget"]["durations_reused"] is False
    assert "budget left out" in doc["context"]["text"]
    # the cut tests are not a measurement mismatch
    assert doc["measurement"]["consistent"] is True


@pytest.mark.slow
def test_a_second_localize_of_the_revision_leaves_out_what_the_first_measured_slow(
    make_project: Callable[..., Path],
) -> None:
    root = _project(make_project, 0.4, use_git=True)
    project = open_project(root, sys.executable, "none")
    target = ["tests/test_fail.py::test_triple"]
    first = localize(project, target, LocalizeOptions(mutants=False, budget_seconds=60.0))
    assert first["budget"]["cut_tests"] == 0 and first["budget"]["left_out_files"] == []
    # 0.8 s measured in test_slow.py; a 2 s budget gives the two runs 0.5 s each
    second = localize(project, target, LocalizeOptions(mutants=False, budget_seconds=2.0))
    assert second["budget"]["durations_reused"] is True
    assert second["budget"]["left_out_files"] == ["tests/test_slow.py"]
    assert second["ranking"][0]["file"] == "pkg/core.py"
    assert "an earlier run measured too slow (tests/test_slow.py)" in second["context"]["text"]


def test_a_strict_deadline_keeps_only_the_targets_not_their_files() -> None:
    import json

    loose = json.loads(b.deadline_env(10.0, 0.5, TARGETS)[b.BUDGET_VAR])
    strict = json.loads(b.deadline_env(10.0, 0.5, TARGETS, strict=True)[b.BUDGET_VAR])
    assert "files" not in loose and strict["files"] is False
    assert strict["keep"] == TARGETS
    run = _run(Result("tests/test_fail.py::test_y", "skipped", reason=b.SKIP_REASON))
    # a passing test of the target's own file stopped at the deadline: cut only when strict
    assert b.not_run([run], TARGETS) == []
    assert b.not_run([run], TARGETS, strict=True) == ["tests/test_fail.py::test_y"]


@pytest.mark.slow
def test_one_strict_run_stops_the_failing_files_own_slow_tests(
    make_project: Callable[..., Path],
) -> None:
    files = dict(SLOW_PROJECT)
    files["tests/test_fail.py"] += (
        "\n\ndef test_slow_one():\n    import time\n    time.sleep(20)\n    assert double(1) == 2\n"
        "\n\ndef test_slow_two():\n    import time\n    time.sleep(20)\n    assert double(3) == 6\n"
    )
    del files["tests/test_slow.py"]
    root = make_project(files, use_git=False)
    opts = LocalizeOptions(
        timeout=120, mutants=False, check_measurement=False, strict_budget=True, budget_seconds=4.0
    )
    # one run, not two, and the deadline (3 s into it) stopped the 20 s sleeps of the
    # failing test's own file
    doc = _localize_fast(root, opts)
    assert doc["budget"]["cut_files"] == ["tests/test_fail.py"]
    assert doc["budget"]["cut_tests"] == 2
    assert doc["measurement"]["checked"] is False
    assert doc["order_dependence"]["alone"] is None


TIED_PROJECT = {
    "pkg/__init__.py": "",
    # every test of area() runs both of its first statements: only mutants tell them apart
    "pkg/area.py": 'def area(w, h):\n    label = "area"\n    scale = 2\n    return w * h * scale\n',
    "tests/__init__.py": "",
    "tests/test_area.py": (
        "import time\nfrom pkg.area import area\n\n\n"
        "def test_area():\n    assert area(2, 3) == 6\n\n\n"
        "def test_slow():\n    time.sleep(SLEEP)\n    assert isinstance(area(1, 1), int)\n"
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("sleep", [0.0, 2.5])
def test_spare_mutants_run_only_when_the_traced_run_left_half_the_budget(
    make_project: Callable[..., Path], sleep: float
) -> None:
    files = dict(TIED_PROJECT)
    files["tests/test_area.py"] = files["tests/test_area.py"].replace("SLEEP", repr(sleep))
    root = make_project(files, use_git=False)
    opts = LocalizeOptions(
        timeout=60,
        check_measurement=False,
        strict_budget=True,
        spare_mutants=True,
        budget_seconds=5.0,
    )
    doc = localize(
        open_project(root, sys.executable, "none"), ["tests/test_area.py::test_area"], opts
    )
    scale = next(r for r in doc["ranking"] if r["line"] == 3)
    said = " ".join(doc["warnings"])
    if sleep == 0:
        # the traced run took a second or so: the mutants ran after it, and the scale's
        # mutants made the test pass
        assert any("made it pass" in n for n in scale["evidence"]), scale
        assert "mutants were not run" not in said
        # the mutants' run ran the failing test alone: nothing the traced run ran is cut
        assert doc["budget"]["cut_tests"] == 0
    else:
        # the slow passing test took the traced run past half the budget: no mutants
        assert not any("mutant" in n for r in doc["ranking"] for n in r["evidence"])
        assert "mutants were not run" in said and "spent by the traced run" in said
