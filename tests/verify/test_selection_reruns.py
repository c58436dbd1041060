"""The reruns of a selected verification (issue #38): the head's process reruns its own new
failures, each from the state after collection, and a process on the base that collected
the selected files while the head ran holds for the base's reruns; no pytest process is
started for the reruns, and a flaky test is still flaky."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.verify.conftest import PY
from truegreen import api, config
from truegreen.project import open_project
from truegreen.run import pytest_run
from truegreen.verify import pipeline
from truegreen.verify.pipeline import FLAKY_RERUNS, _HeldBase, _Runner

FILES = {
    ".gitignore": "count.txt\n",
    "calc.py": """
        def threshold():
            return 0


        def square(x):
            return x * x


        def cube(x):
            return x * x * x
        """,
    # passes whatever the count with the base's threshold; with the head's it fails on the
    # first run of a worktree, passes on the second, fails on the third
    "tests/test_flip.py": """
        from pathlib import Path

        import calc

        COUNTER = Path(__file__).parent / "count.txt"


        def test_flips():
            n = int(COUNTER.read_text()) if COUNTER.exists() else 0
            COUNTER.write_text(str(n + 1))
            assert calc.threshold() == 0 or n % 2 == 1
        """,
    "tests/test_square.py": """
        import pytest

        from calc import square


        @pytest.mark.parametrize("x", [1, 2, 3])
        def test_square(x):
            assert square(x) == x * x
        """,
    "tests/test_cube.py": """
        from calc import cube


        def test_cube():
            assert cube(2) == 8
        """,
}


def _branch(root: Path, name: str, old: str, new: str) -> None:
    git(root, "checkout", "-q", "-b", name, "main")
    text = (root / "calc.py").read_text()
    (root / "calc.py").write_text(text.replace(old, new))
    git(root, "commit", "-q", "-am", name)
    git(root, "checkout", "-q", "main")


def _verify(root: Path, head: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list]:
    """The verification's document, and the pytest processes it started (their requests)."""
    started: list = []
    real = pytest_run.run_pytest

    def counted(request: Any, executor: Any = None) -> Any:
        started.append(request)
        return real(request, executor)

    monkeypatch.setattr(pipeline, "run_pytest", counted)
    request = api.VerifyRequest(
        repo=root, python=PY, base="main", head=head, without_exams=True, exams=(),
        strength=False, runs=1, sandbox="none", regression="selected",
    )  # fmt: skip
    return api.verify(request, record=False).to_json(), started


@pytest.mark.slow
def test_the_reruns_of_a_selected_verification_start_no_process(make_project, monkeypatch):
    root = make_project(FILES)
    _branch(root, "breaks-square", "return x * x\n", "return x * x + (x == 3)\n")
    _branch(root, "flips", "return 0", "return 1")
    first, started = _verify(root, "breaks-square", monkeypatch)
    assert first["regression"]["selection"]["base_record"] == "recorded"
    assert first["regression"]["new_failures"] == ["tests/test_square.py::test_square[3]"]
    # the suite's runs are read for their outcomes: no traceback formatted (the reruns ask
    # for none on the command line)
    suites = [r for r in started if not r.test_ids]
    assert len(suites) == 2 and all(r.env.get(pytest_run.PROBE_TB_VAR) == "no" for r in suites)
    assert all("--tb=no" in r.args for r in started if r.test_ids)

    broken, started = _verify(root, "breaks-square", monkeypatch)
    sel = broken["regression"]["selection"]
    assert (sel["mode"], sel["base_record"], sel["tests"]) == ("selected", "reused", 3)
    assert broken["regression"]["new_failures"] == ["tests/test_square.py::test_square[3]"]
    assert broken["regression"]["flaky"] == []
    # the head's selected run and the base's held process: nothing else
    assert len(started) == 2, [r.args for r in started]
    (head_run,) = [r for r in started if "TRUEGREEN_SELECT" in r.env]
    assert head_run.env[pytest_run.PROBE_TB_VAR] == "no"
    assert {r.repo.name for r in started} == {"wt"}

    # a test that fails on the head's run and passes on its rerun is flaky, not a regression
    flips, started = _verify(root, "flips", monkeypatch)
    assert flips["regression"]["selection"]["mode"] == "selected"
    assert flips["regression"]["new_failures"] == []
    assert flips["regression"]["flaky"] == ["tests/test_flip.py::test_flips"]
    (reason,) = [r for r in flips["reasons"] if r["code"] == "regression.flaky"]
    assert "on the head: failed, passed, failed" in reason["detail"]
    assert len(started) == 2


@pytest.mark.slow
def test_a_test_that_fails_in_any_forked_child_is_judged_by_fresh_processes(
    make_project, monkeypatch
):
    # a suite that does not bear a fork: this test passes only in the process that
    # collected it; with the head's real regression it must still be a new failure, not
    # "flaky" because its forked reruns on the base failed
    files = {
        **FILES,
        "pidcheck.py": "import os\n\nPID = os.getpid()\n",
        "tests/test_fork_shy.py": """
            import os

            import pidcheck
            from calc import cube


            def test_fork_shy():
                assert os.getpid() == pidcheck.PID, "not the process that collected it"
                assert cube(3) == 27
            """,
    }
    root = make_project(files)
    _branch(root, "breaks-cube", "return x * x * x", "return x * x * x + 1")
    caught = ["tests/test_cube.py::test_cube", "tests/test_fork_shy.py::test_fork_shy"]
    first, _ = _verify(root, "breaks-cube", monkeypatch)  # records; reruns forked too
    assert first["regression"]["new_failures"] == caught
    doc, started = _verify(root, "breaks-cube", monkeypatch)
    assert doc["regression"]["selection"]["mode"] == "selected"
    assert doc["regression"]["new_failures"] == caught
    assert doc["regression"]["flaky"] == []
    # the head's run, the held base, then the fresh reruns of the one suspect: 2 per side
    assert len(started) == 2 + 2 * FLAKY_RERUNS
    assert [r.test_ids for r in started[2:]] == [("tests/test_fork_shy.py::test_fork_shy",)] * 4


@pytest.mark.slow
def test_a_clean_change_stops_the_held_base_process(make_project, monkeypatch):
    root = make_project(FILES)
    _branch(root, "clean", "return x * x * x", "y = x\n    return y * y * y")
    _verify(root, "clean", monkeypatch)  # records the base
    started_at = time.monotonic()
    doc, started = _verify(root, "clean", monkeypatch)
    assert doc["regression"]["selection"]["mode"] == "selected"
    assert doc["regression"]["new_failures"] == [] and doc["regression"]["flaky"] == []
    assert len(started) == 2
    # the held process was told to stop: the verification did not wait out its hold
    assert time.monotonic() - started_at < 60


CHOSEN = """
import os


def test_a():
    pass


def test_b():
    assert False


def test_c():
    assert False
"""


def _runner(root: Path) -> _Runner:
    return _Runner(open_project(root, PY, "none"), config.Settings())


def test_the_held_process_reruns_the_ids_it_is_given(make_project):
    root = make_project({"tests/test_x.py": CHOSEN})
    held = _HeldBase(_runner(root), root, ["tests/test_x.py"], FLAKY_RERUNS)
    try:
        runs = held.reruns(["tests/test_x.py::test_a", "tests/test_x.py::test_b"])
    finally:
        held.close()
    assert runs is not None and len(runs) == 2
    for run in runs:
        assert run.complete
        assert [(t.id, t.outcome) for t in run.tests] == [
            ("tests/test_x.py::test_a", "passed"),
            ("tests/test_x.py::test_b", "failed"),
        ]
    assert not held.where.exists()
    # asked once only: a second ask runs them the slow way
    assert held.reruns(["tests/test_x.py::test_a"]) is None


def test_the_held_process_runs_nice(make_project, tmp_path):
    """It collects while the head's tests run, which are waited for: it takes the CPU they
    leave (its reruns, forked from it, too)."""
    import os

    from truegreen.verify.pipeline import HELD_NICE

    seen = tmp_path / "nice.txt"
    test = f"import os\n\n\ndef test_nice():\n    open({str(seen)!r}, 'w').write(str(os.nice(0)))\n"
    root = make_project({"tests/test_x.py": test})
    held = _HeldBase(_runner(root), root, ["tests/test_x.py"], 1)
    try:
        runs = held.reruns(["tests/test_x.py::test_nice"])
    finally:
        held.close()
    assert runs is not None and runs[0].complete
    assert seen.read_text() == str(min(os.nice(0) + HELD_NICE, 19))


def test_an_id_the_held_process_did_not_collect_runs_the_slow_way(make_project):
    root = make_project({"tests/test_x.py": CHOSEN})
    held = _HeldBase(_runner(root), root, ["tests/test_x.py"], FLAKY_RERUNS)
    try:
        assert held.reruns(["tests/test_x.py::test_a", "tests/test_y.py::test_gone"]) is None
    finally:
        held.close()


def test_a_held_process_told_nothing_ends_when_closed(make_project):
    root = make_project({"tests/test_x.py": CHOSEN})
    held = _HeldBase(_runner(root), root, ["tests/test_x.py"], FLAKY_RERUNS)
    held.close()
    assert not held._thread.is_alive()


def _first_mode(root: Path, where: Path, eligible: list[str]) -> Any:
    from truegreen.verify import selection

    (where / "eligible.json").write_text(json.dumps(eligible))
    return _runner(root).run(
        root,
        args=("tests",),
        plugins=(selection.REPEAT_PLUGIN,),
        pythonpath=(selection.RECORD_DIR,),
        env={
            pipeline.REPEAT_DIR_VAR: str(where),
            pipeline.REPEAT_COUNT_VAR: "2",
            pipeline.REPEAT_FIRST_VAR: str(where / "eligible.json"),
        },
        writable=(where,),
    )


def test_the_first_run_reruns_only_the_failures_that_passed_on_the_base(make_project, tmp_path):
    root = make_project({"tests/test_x.py": CHOSEN})
    where = tmp_path / "repeat"
    where.mkdir()
    run = _first_mode(root, where, ["tests/test_x.py::test_a", "tests/test_x.py::test_b"])
    # the run asked for: every test once, the session's end recorded
    assert run.complete
    assert {t.id: t.outcome for t in run.tests} == {
        "tests/test_x.py::test_a": "passed",
        "tests/test_x.py::test_b": "failed",
        "tests/test_x.py::test_c": "failed",
    }
    # test_c failed on the base too (not eligible), test_a passed: only test_b is rerun
    assert json.loads((where / "reran.json").read_text()) == ["tests/test_x.py::test_b"]
    reruns = pipeline._forked_runs(where, run, ["tests/test_x.py::test_b"], 2)
    assert reruns is not None
    assert [[(t.id, t.outcome) for t in r.tests] for r in reruns] == [
        [("tests/test_x.py::test_b", "failed")]
    ] * 2
    assert pipeline._forked_runs(where, run, ["tests/test_x.py::test_c"], 2) is None


def test_a_first_run_that_dies_is_incomplete_as_a_dead_process_is(make_project, tmp_path):
    root = make_project({"tests/test_x.py": CHOSEN.replace("pass", "os._exit(0)")})
    where = tmp_path / "repeat"
    where.mkdir()
    run = _first_mode(root, where, ["tests/test_x.py::test_a"])
    assert not run.complete
    assert not (where / "reran.json").exists()


GATED = {
    # a conftest's own ignore hook that answers for every path, as boltons' does: the gate's
    # must come first
    "tests/conftest.py": (
        "import os\n\nLOADED = os.getpid()\n\n\n"
        "def pytest_ignore_collect(collection_path, config):\n"
        "    return collection_path.name.endswith('_py2.py')\n"
    ),
    "tests/a/test_x.py": "def test_x1():\n    pass\n\n\ndef test_x2():\n    assert False\n",
    "tests/b/test_y.py": "def test_y():\n    pass\n",
    "tests/c/test_broken.py": "import no_such_module_xyz\n",
}


def _gated(root: Path, tmp_path: Path) -> tuple[_Runner, pipeline._GatedRun]:
    from truegreen.verify import selection

    runner = _runner(root)
    gate_dir = tmp_path / "gate"
    gate_dir.mkdir()
    gated = pipeline._GatedRun(
        runner,
        root,
        gate_dir / "collect.json",
        plugins=(selection.SELECT_PLUGIN,),
        pythonpath=(selection.RECORD_DIR,),
        env={},
        writable=(),
    )
    return runner, gated


def test_a_gated_run_collects_only_the_files_it_is_given(make_project, tmp_path):
    """Started on the suite's arguments, it waits; told its files, it walks the suite and
    collects them alone (a module it was not given is never imported)."""
    root = make_project(GATED)
    runner, gated = _gated(root, tmp_path)
    run = gated.open(["tests/a/test_x.py"])
    gated.join()
    assert run.complete
    assert sorted(run.collected) == ["tests/a/test_x.py::test_x1", "tests/a/test_x.py::test_x2"]
    assert {t.id: t.outcome for t in run.tests} == {
        "tests/a/test_x.py::test_x1": "passed",
        "tests/a/test_x.py::test_x2": "failed",
    }
    assert run.collection_errors == ()


def test_a_gated_run_told_to_stop_runs_nothing_and_leaves_no_note(make_project, tmp_path):
    root = make_project(GATED)
    runner, gated = _gated(root, tmp_path)
    started = time.monotonic()
    gated.join()  # stopped: ended (not waited for at its gate)
    assert time.monotonic() - started < 30  # not the suite timeout's hold
    assert not gated._thread.is_alive() and gated._token.running == frozenset()
    assert runner.notes == set()
    assert gated._run is None or gated._run.tests == ()


@pytest.mark.slow
def test_a_plan_that_runs_the_whole_suite_stops_the_gated_process(make_project, monkeypatch):
    root = make_project(FILES)
    git(root, "checkout", "-q", "-b", "conftest", "main")
    (root / "tests" / "conftest.py").write_text("X = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "conftest")
    git(root, "checkout", "-q", "main")
    _verify(root, "conftest", monkeypatch)  # records the base
    doc, started = _verify(root, "conftest", monkeypatch)
    sel = doc["regression"]["selection"]
    assert (sel["mode"], sel["base_record"]) == ("full", "reused")
    assert "conftest.py" in sel["reason"]
    assert doc["regression"]["new_failures"] == [] and doc["regression"]["flaky"] == []
    # the head's and the base's gated processes (stopped at their gates) and the head's
    # whole suite
    assert len(started) == 3
    assert sum(pipeline.GATE_VAR in r.env for r in started) == 2
    assert not any("gate" in n or "no finish" in n for n in doc["notes"]), doc["notes"]


def test_a_held_process_started_at_the_gate_collects_its_files_then_reruns(make_project):
    root = make_project({**GATED, "tests/test_x.py": CHOSEN})
    held = _HeldBase(_runner(root), root, None, FLAKY_RERUNS)
    try:
        held.collect(["tests/test_x.py"])
        runs = held.reruns(["tests/test_x.py::test_b"])
    finally:
        held.close()
    assert runs is not None and len(runs) == 2
    for run in runs:
        assert [(t.id, t.outcome) for t in run.tests] == [("tests/test_x.py::test_b", "failed")]
    # the modules it was not given were never imported
    assert held._run is not None and held._run.collection_errors == ()


def test_a_held_process_at_its_gate_reruns_nothing_and_ends_when_closed(make_project):
    root = make_project({"tests/test_x.py": CHOSEN})
    held = _HeldBase(_runner(root), root, None, FLAKY_RERUNS)
    started = time.monotonic()
    assert held.reruns(["tests/test_x.py::test_b"]) is None  # it collected nothing
    held.close()
    assert not held._thread.is_alive() and not held.where.exists()
    assert time.monotonic() - started < 30


@contextlib.contextmanager
def _asked_early(root: Path, tmp_path: Path) -> Iterator[pipeline._Prepared]:
    """A head's reruns directory watched for its first run's list, with a base process that
    collected tests/test_x.py and holds (one worktree stands for both sides); the list
    (test_b) written while the head's run still runs, and the base asked for it before
    that run ends; closed on the way out."""
    runner = _runner(root)
    head_dir = tmp_path / "head"
    head_dir.mkdir()
    prepared = pipeline._Prepared(runner, root, root, head_dir)
    prepared.base = held = _HeldBase(runner, root, ["tests/test_x.py"], FLAKY_RERUNS)
    try:
        prepared.watch()
        (head_dir / "first.json").write_text(json.dumps(["tests/test_x.py::test_b"]))
        deadline = time.monotonic() + 30
        while not held._asked and time.monotonic() < deadline:
            time.sleep(0.01)
        assert held._asked == {"tests/test_x.py::test_b"}
        prepared.head_ended(None)
        yield prepared
    finally:
        prepared.close()


def test_the_base_reruns_start_once_the_heads_first_run_lists_its_failures(make_project, tmp_path):
    root = make_project({"tests/test_x.py": CHOSEN})
    with _asked_early(root, tmp_path) as prepared:
        assert prepared.base is not None
        runs = prepared.base.reruns(["tests/test_x.py::test_b"])
    assert runs is not None and len(runs) == FLAKY_RERUNS
    for run in runs:
        assert [(t.id, t.outcome) for t in run.tests] == [("tests/test_x.py::test_b", "failed")]


def test_a_new_failure_the_early_reruns_missed_reruns_the_slow_way_after_them(
    make_project, tmp_path
):
    root = make_project({"tests/test_x.py": CHOSEN})
    ids = ["tests/test_x.py::test_b", "tests/test_x.py::test_c"]
    with _asked_early(root, tmp_path) as prepared:
        head_runs, (base_runs, forked) = prepared.reruns(ids, ids)
        # the held process was waited for before a process of the slow way started
        assert prepared.base is not None and not prepared.base._thread.is_alive()
    assert len(base_runs) == FLAKY_RERUNS and forked
    for run in (*head_runs, *base_runs):
        assert {t.id: t.outcome for t in run.tests} == {i: "failed" for i in ids}
