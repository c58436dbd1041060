"""The warm-fork mutant runner (issue #38): one pytest process collects the exam once and
runs each mutant in a forked child, under a time limit from the exam's own baseline."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TARGET_PYTHON, git, live_processes_with
from truegreen import api, tempdirs
from truegreen.errors import ExecutionCancelled
from truegreen.run.executor import Cancellation, bound, default_executor
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PytestRequest
from truegreen.verify import strength, warm

CALC = """\
import functools
import os


@functools.lru_cache(maxsize=None)
def slug(text):
    return text.replace("_", "-")


def count(n):
    i = 0
    while i < n:
        i += 1
    return i


TABLE = {k: k * 2 for k in range(3)}
OK = True


def double(k):
    return k * 2


DOUBLED = [double(k) for k in range(3)]
"""
EXAM = """\
from calc import OK, TABLE, count, slug


def test_exam():
    assert slug("a_b") == "a-b"
    assert count(3) == 3
    assert TABLE[1] == 2
    assert OK
"""
EXAM_ID = "tests/test_calc.py::test_exam"


def _mutant(root: Path, line: int, old: str, new: str) -> dict[str, Any]:
    lines = CALC.splitlines(keepends=True)
    assert old in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    return {"file": str(root / "calc.py"), "line": line, "source": "".join(lines)}


def _held(root: Path, cancel: Cancellation | None = None) -> warm.WarmRun:
    where = tempdirs.make("truegreen-warm-test-")
    executor = default_executor() if cancel is None else bound(default_executor(), cancel)
    request = PytestRequest(
        repo=root,
        interpreter=resolve(str(TARGET_PYTHON), root),
        test_ids=(EXAM_ID,),
        timeout=120,
        plugins=(strength.LINES_PLUGIN, warm.PLUGIN),
        pythonpath=(strength.LINES_DIR, warm.SWAP_DIR),
        env={
            warm.DIR_VAR: str(where),
            warm.LIMIT_VAR: "60",
            "TRUEGREEN_LINES_FILES": json.dumps([str((root / "calc.py").resolve())]),
            "TRUEGREEN_LINES_OUT": str(where / "lines.json"),
        },
        writable=(where,),
        records=where / "probe.jsonl",
    )
    held = warm.WarmRun(request, executor, where)
    held.start()
    return held


@pytest.mark.slow
def test_each_mutant_runs_in_a_forked_child(make_project, process_tag: str) -> None:
    root = make_project({"calc.py": CALC, "tests/test_calc.py": EXAM}, use_git=False)
    held = _held(root)
    try:
        baseline = held.wait_ready()
        assert baseline is not None and baseline["baseline"] == "passed", baseline
        assert held.outcomes().outcome_of(EXAM_ID).outcome == "passed"  # type: ignore[union-attr]
        # the baseline child wrote the recorder's file: the lines the exam ran, and those
        # run at import (double's body, called by the module) that a fork cannot re-run
        lines = json.loads((held.where / "lines.json").read_text())
        ran, early = set(lines[str((root / "calc.py").resolve())]), lines["__early__"]
        assert {7, 11, 13} <= ran
        assert {17, 22, 25} <= set(early[str((root / "calc.py").resolve())])
        assert not {7, 11, 13} & set(early[str((root / "calc.py").resolve())])
        spec = {
            "limit": 60,
            "workers": 2,
            "mutants": [
                # the baseline filled slug's cache in its own child: a mutant's run calls
                # the mutated code, not the cache (it would survive in a process that ran
                # the exam before forking)
                _mutant(root, 7, '"-"', '"+"'),
                _mutant(root, 13, "i += 1", "i -= 1"),  # loops: stopped at its limit
                _mutant(root, 11, "i = 0", "i = -0"),  # the same function: survives
                _mutant(root, 13, "i += 1", "os._exit(3)"),  # the child dies without a word
                _mutant(root, 17, "k * 2", "k * 3"),  # module level: not in a live function
            ],
        }
        started = time.monotonic()
        doc = held.send(spec)
        took = time.monotonic() - started
    finally:
        held.close()
    assert doc is not None
    assert doc["results"] == [
        "killed",
        "timeout",
        "survived",
        "crashed",
        "fallback: no live function holds the line",
    ]
    # the limit comes from the exam's own run here (a few milliseconds), not from the 60 s
    # truegreen allowed: the loop cost seconds, not a minute
    assert doc["limit"] < 10
    assert took < 30
    assert live_processes_with(process_tag) == []


def test_a_cancel_leaves_no_child_behind(make_project, tmp_path: Path, process_tag: str) -> None:
    root = make_project({"calc.py": CALC, "tests/test_calc.py": EXAM}, use_git=False)
    pid_file = tmp_path / "child.pid"
    loop = f"i -= 1; os.path.exists({str(pid_file)!r}) or open({str(pid_file)!r}, 'w').write(str(os.getpid()))"
    cancel = Cancellation()
    held = _held(root, cancel)
    raised: list[BaseException] = []

    def send() -> None:
        try:
            held.send({"limit": 60, "workers": 2, "mutants": [_mutant(root, 13, "i += 1", loop)]})
        except BaseException as exc:
            raised.append(exc)

    try:
        assert held.wait_ready() is not None
        sender = threading.Thread(target=send)
        sender.start()
        deadline = time.monotonic() + 60
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pid_file.exists(), "the mutant's child never ran"
        cancel.cancel()
        sender.join(30)
    finally:
        held.close()
    assert [type(e) for e in raised] == [ExecutionCancelled]
    assert live_processes_with(process_tag) == []


def test_which_mutants_can_be_put_in_place() -> None:
    """Inside a function's body and not run at import: in place; module-level code, a
    function the module's body calls, or a file imported before the recorder: fresh."""
    from truegreen.verify.mutate import Mutant

    mutants = [Mutant("calc.py", n, "", "") for n in (7, 13, 17, 22)]
    got = strength._in_place(mutants, {"calc.py": CALC}, {"calc.py": {17, 18, 22, 25}})
    assert got == [True, True, False, False]
    assert strength._in_place(mutants, {"calc.py": CALC}, {"calc.py": None}) == [False] * 4
    assert strength._in_place(mutants, {"calc.py": CALC}, None) == [False] * 4


FIXED = CALC
BROKEN = (
    CALC.replace('"_", "-"', '"_", "_"').replace("i += 1", "i += 2").replace("= True", "= False")
)


@pytest.mark.slow
def test_strength_through_the_warm_runner_and_the_fresh_process(make_project, monkeypatch) -> None:
    """End to end: the mutants of lines inside functions run forked; the module-level
    line's run in fresh processes; every one is killed, as the fresh-process path kills
    them all."""
    root = make_project({"calc.py": BROKEN, "tests/test_calc.py": EXAM})
    git(root, "checkout", "-q", "-b", "fix")
    (root / "calc.py").write_text(FIXED)
    git(root, "commit", "-q", "-am", "fix")
    git(root, "checkout", "-q", "main")
    slow: list[tuple[str, int]] = []
    run_mutants = strength._run_mutants

    def spy(runner: Any, tree: Path, tests: Any, mutants: Any, *rest: Any) -> list[bool]:
        slow.extend((m.path, m.line) for m in mutants)
        return run_mutants(runner, tree, tests, mutants, *rest)

    monkeypatch.setattr(strength, "_run_mutants", spy)
    common: dict[str, Any] = {"repo": root, "python": str(TARGET_PYTHON), "sandbox": "none"}
    exam = api.seal(api.SealRequest(test_id=EXAM_ID, runs=1, **common)).exam.id
    report = api.strength(api.StrengthRequest(exams=(exam,), base="main", head="fix", **common))
    doc = report.to_json()["strength"]
    assert doc["mutants"] > len(slow) > 0
    assert {line for _, line in slow} == {18}  # only OK's, at module level
    assert (doc["killed"], doc["survivors"]) == (doc["mutants"], [])
