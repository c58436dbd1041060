"""A truegreen killed with SIGKILL in the middle of seal, verify, localize and strength (a
CI runner's cancel, the OOM killer, a worker's hard time limit) leaves nothing running, and
the next truegreen command removes its temporary directories and worktrees (#33)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.conftest import TARGET_PYTHON, git, live_processes_with
from tests.sandbox.conftest import require_bwrap

pytestmark = pytest.mark.slow

#: TG_HOLD=1: every test waits for ever with a worker it forked, as a real suite may, and
#: names itself so that the test sees it got there; TG_HOLD=measured: only in localize's
#: measured run (the tracer's), so that the bare run goes on and is held for its mutants
HOLD = """
import os, time
import pytest

@pytest.fixture(autouse=True)
def _hold():
    hold = os.environ.get("TG_HOLD")
    if hold == "1" or (hold == "measured" and "TRUEGREEN_TRACE_OUT" in os.environ):
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        with open("/proc/self/comm", "w") as fh:
            fh.write("tg-held")
        time.sleep(600)
    yield
"""

FILES = {
    "tests/conftest.py": HOLD,
    "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
    "tests/test_calc.py": (
        "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n"
    ),
}


@pytest.fixture
def project(make_project) -> Path:
    """The fixture project at main (add is wrong), with the fix on the branch ``fix``."""
    root = make_project(FILES)
    git(root, "checkout", "-q", "-b", "fix")
    (root / "calc.py").write_text(FILES["calc.py"].replace("a - b", "a + b"))
    git(root, "commit", "-qam", "fix add")
    git(root, "checkout", "-q", "main")
    return root


@pytest.fixture
def tag(process_tag: str) -> Iterator[str]:
    """``process_tag``; what a failed test leaves running is killed after it."""
    yield process_tag
    for pid in live_processes_with(process_tag):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    """The temp dir of the truegreen processes of a test (TMPDIR), watched for leftovers."""
    where = tmp_path / "tmp"
    where.mkdir()
    return where


def truegreen(
    args: Sequence[str], root: Path, tmp: Path, hold: str | None
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "TMPDIR": str(tmp),
        "TRUEGREEN_PASS_ENV": "TG_TEST_TAG,TG_HOLD,PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    }
    env.pop("TG_HOLD", None)
    if hold is not None:
        env["TG_HOLD"] = hold
    return subprocess.Popen(
        [sys.executable, "-m", "truegreen", *args, "--repo", str(root)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out.decode(), err.decode()


def held(tag: str) -> bool:
    """Whether a test of the run waits in _hold."""
    for pid in live_processes_with(tag):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "tg-held":
                return True
        except OSError:
            continue
    return False


def kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 120
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            code, out, err = finish(proc)
            raise AssertionError(f"truegreen never got there (exit {code}):\n{err}")
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def nothing_running(tag: str) -> list[int]:
    deadline = time.monotonic() + 10
    while live_processes_with(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return live_processes_with(tag)


def worktrees(root: Path) -> list[str]:
    listing = git(root, "worktree", "list", "--porcelain").splitlines()
    return [line.removeprefix("worktree ") for line in listing if line.startswith("worktree ")]


def of(pid: int, tmp: Path) -> list[str]:
    """The truegreen directories process ``pid`` made in ``tmp``."""
    return sorted(p.name for p in tmp.iterdir() if f"-p{pid}." in p.name)


def seal(root: Path, tmp: Path) -> str:
    code, out, err = finish(
        truegreen(
            ["seal", "tests/test_calc.py::test_add", *COMMON, "--runs", "1", "--json"],
            root,
            tmp,
            None,
        )
    )
    assert code == 0, err
    return str(json.loads(out)["id"])


COMMON = ("--python", str(TARGET_PYTHON), "--sandbox", "none")


def killed_then_cleaned(
    args: Sequence[str], project: Path, tmp: Path, tag: str, *, worktree: bool
) -> None:
    """Start ``truegreen ARGS``, SIGKILL it while a test runs, check that nothing of it
    runs any more, then that the next command removes what it left on disk."""
    proc = truegreen(args, project, tmp, "1")
    kill_when(proc, lambda: held(tag))
    assert nothing_running(tag) == []
    left = of(proc.pid, tmp)
    assert left, "the killed run left no temporary directory: nothing was tested"
    assert (len(worktrees(project)) > 1) == worktree
    seal(project, tmp)  # the next command
    assert of(proc.pid, tmp) == []
    assert worktrees(project) == [str(project.resolve())]
    assert nothing_running(tag) == []


def test_a_killed_seal(project, tmp, tag):
    args = ["seal", "tests/test_calc.py::test_add", *COMMON]
    killed_then_cleaned(args, project, tmp, tag, worktree=True)


def test_a_killed_verify(project, tmp, tag):
    exam = seal(project, tmp)
    args = ["verify", "--base", "main", "--head", "fix", "--exam", exam, *COMMON]
    killed_then_cleaned(args, project, tmp, tag, worktree=True)


def test_a_killed_strength(project, tmp, tag):
    exam = seal(project, tmp)
    args = ["strength", "--exam", exam, "--base", "main", "--head", "fix", *COMMON]
    killed_then_cleaned(args, project, tmp, tag, worktree=True)


def test_a_killed_localize(project, tmp, tag):
    args = ["localize", "tests/test_calc.py::test_add", *COMMON]
    killed_then_cleaned(args, project, tmp, tag, worktree=False)


@pytest.mark.bwrap
def test_a_localize_killed_while_its_bare_run_is_held_for_mutants(project, tmp, tag):
    """Sandboxed, the bare run goes on beside the measured one and waits for its mutants
    once its session is over: killed then, nothing of either run is left."""
    require_bwrap()
    args = ["localize", "tests/test_calc.py::test_add", "--python", str(TARGET_PYTHON)]
    proc = truegreen([*args, "--sandbox", "bwrap"], project, tmp, "measured")

    def bare_run_held() -> bool:
        return held(tag) and any(
            (p / "ready").exists() for p in tmp.iterdir() if p.name.startswith("truegreen-mut")
        )

    kill_when(proc, bare_run_held)
    assert nothing_running(tag) == []
