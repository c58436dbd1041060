"""The console script's process (``truegreen._console``): one command, then an exit without the
interpreter's teardown, that still writes all output, runs the exit handlers, keeps the
command's status and waits for a thread that is still running."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from truegreen._console import THRESHOLDS, end


def _console(code: str, *args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` then the console script's ``run()`` with ``args``, in a new process."""
    script = (
        "import sys\n"
        f"{code}\n"
        f"sys.argv = ['truegreen', *{list(args)!r}]\n"
        "from truegreen._console import run\n"
        "run()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=120,
    )


def test_the_status_of_the_command_is_the_status_of_the_process(tmp_path: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "truegreen", "--version"], capture_output=True, text=True
    )
    assert ok.returncode == 0 and ok.stdout.startswith("truegreen ")
    bad = subprocess.run(
        [sys.executable, "-m", "truegreen", "localize", "--budget-tokens", "1", "t.py::t"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert bad.returncode == 2
    assert "error" in bad.stderr.lower()


def test_output_longer_than_a_pipe_holds_is_written_whole(tmp_path: Path) -> None:
    # written, buffered, before the command: flushed before the process ends
    done = _console("sys.stdout.write('x' * 200_000)", "--version", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "x" * 200_000 + "truegreen 0.1.0\n"


def test_exit_handlers_run_and_the_collector_is_tuned(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = (
        "import atexit, gc\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write(repr(gc.get_threshold())))"
    )
    done = _console(code, "--version", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == repr(THRESHOLDS)


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    marker = tmp_path / "thread"
    code = (
        "import threading, time\n"
        "def late():\n"
        "    time.sleep(0.5)\n"
        f"    open({str(marker)!r}, 'w').write('done')\n"
        "threading.Thread(target=late).start()"
    )
    done = _console(code, "--version", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "done"  # an exit that skipped the teardown would kill it


def test_a_status_that_is_not_a_number_ends_as_the_interpreter_would() -> None:
    with pytest.raises(SystemExit) as got:
        end(SystemExit("a message"))
    assert got.value.code == "a message"


def test_with_another_thread_alive_the_exit_is_the_interpreters() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        with pytest.raises(SystemExit) as got:
            end(SystemExit(3))
        assert got.value.code == 3
    finally:
        stop.set()
        other.join()
