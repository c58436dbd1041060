"""A suite whose process never exits (luigi's: forked workers it waits for, a server thread
that is not a daemon): graded a few seconds after pytest is done, not at the deadline, and
nothing of it is left, whichever way the run ended."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import TARGET_PYTHON, cli, git, live_processes_with
from tests.sandbox.conftest import require_bwrap
from truegreen.model.documents import validate
from truegreen.run import pytest_run
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import LINGER_NOTE, PytestRequest, run_pytest
from truegreen.run.results import PytestRun

#: what keeps luigi's pytest process alive after its session: a worker it forked and
#: waits for at exit (multiprocessing joins the ones that are not daemons), and a thread
#: that is not a daemon
NEVER_EXITS = """
import multiprocessing, threading, time

def _worker():
    time.sleep(600)

def pytest_configure(config):
    multiprocessing.get_context("fork").Process(target=_worker).start()
    threading.Thread(target=time.sleep, args=(600,)).start()
"""

TESTS = """
def test_ok():
    pass

def test_bad():
    assert 1 == 2
"""

SANDBOXES = ["none", pytest.param("bwrap", marks=pytest.mark.bwrap)]


def run(root: Path, sandbox: str, timeout: float) -> PytestRun:
    if sandbox == "bwrap":
        require_bwrap()
    request = PytestRequest(
        repo=root, interpreter=resolve(str(TARGET_PYTHON), root), timeout=timeout, sandbox=sandbox
    )
    return run_pytest(request)


def nothing_left(tag: str) -> list[int]:
    for _ in range(50):
        if not live_processes_with(tag):
            return []
        time.sleep(0.05)
    return live_processes_with(tag)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_suite_that_never_exits_is_graded_a_grace_after_pytest_is_done(
    make_project, monkeypatch, process_tag, sandbox
):
    monkeypatch.setattr(pytest_run, "EXIT_GRACE", 0.5)
    root = make_project({"tests/conftest.py": NEVER_EXITS, "tests/test_a.py": TESTS})
    start = time.monotonic()
    result = run(root, sandbox, timeout=120)
    assert time.monotonic() - start < 60  # the grace, not the deadline
    assert {t.id: t.outcome for t in result.tests} == {
        "tests/test_a.py::test_ok": "passed",
        "tests/test_a.py::test_bad": "failed",
    }
    assert result.complete and not result.timed_out
    assert result.exit_code == 1  # pytest's own status, not the kill's
    assert result.notes == (LINGER_NOTE.format(grace=0.5),)
    assert nothing_left(process_tag) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_at_the_deadline_nothing_of_a_never_exiting_suite_is_left(
    make_project, monkeypatch, process_tag, sandbox
):
    monkeypatch.setattr(pytest_run, "EXIT_GRACE", 600.0)  # the deadline comes first
    root = make_project({"tests/conftest.py": NEVER_EXITS, "tests/test_a.py": TESTS})
    result = run(root, sandbox, timeout=4)
    assert result.timed_out and not result.complete
    assert result.notes == ()
    assert nothing_left(process_tag) == []


def test_a_run_ended_after_the_grace_without_the_sessions_finish_stays_no_report(
    make_project, monkeypatch, process_tag
):
    monkeypatch.setattr(pytest_run, "EXIT_GRACE", 0.5)
    broken = """
    import pytest

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(session):
        raise RuntimeError("a plugin broke the end of the session")
    """
    root = make_project(
        {
            "tests/conftest.py": NEVER_EXITS + "\n" + broken.replace("\n    ", "\n"),
            "tests/test_a.py": TESTS,
        }
    )
    result = run(root, "none", timeout=120)
    assert not result.complete
    assert {t.outcome for t in result.tests} == {"no_report"}
    assert LINGER_NOTE.format(grace=0.5) in result.notes
    assert nothing_left(process_tag) == []


@pytest.mark.slow
def test_the_run_localization_and_verification_documents_say_a_run_was_ended(
    make_project, monkeypatch, capsys, process_tag
):
    monkeypatch.setattr(pytest_run, "EXIT_GRACE", 0.5)
    root = make_project(
        {
            "tests/conftest.py": NEVER_EXITS,
            "calc.py": "def add(a, b):\n    return a - b\n",
            "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        }
    )
    git(root, "checkout", "-q", "-b", "fix")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git(root, "commit", "-qam", "fix")
    git(root, "checkout", "-q", "main")
    common = ("--repo", str(root), "--python", str(TARGET_PYTHON), "--sandbox", "none")
    note = LINGER_NOTE.format(grace=0.5)

    code, out, err = cli(capsys, "run", "tests/test_calc.py::test_add", *common, "--json")
    assert code == 1, err  # the reproduced test fails, as pytest would say
    doc = json.loads(out)
    validate(doc)
    assert doc["notes"] == [note]
    assert [t["outcome"] for t in doc["tests"]] == ["failed"]

    code, out, err = cli(capsys, "localize", "tests/test_calc.py::test_add", *common, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert note in doc["warnings"]  # the measured run's
    assert doc["ranking"][0]["file"] == "calc.py"

    code, out, err = cli(capsys, "seal", "tests/test_calc.py::test_add", *common, "--runs", "1")
    assert code == 0, err
    args = ("--base", "main", "--head", "fix", "--runs", "1", "--no-strength", "--json")
    code, out, err = cli(capsys, "verify", *common, *args)
    doc = json.loads(out)
    assert doc["verdict"] == "verified", err
    assert doc["notes"] == [
        f"a run of tests/test_calc.py::test_add on the base: {note}",
        f"a run of tests/test_calc.py::test_add on the head: {note}",
        f"the suite on the base: {note}",
        f"the suite on the head: {note}",
    ]
    assert nothing_left(process_tag) == []
