"""A Ctrl-C that lands while a worker thread is starting a process: the process must not
survive, or the worker would wait on it (a hung test run) long after the interrupt."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from truegreen.run import executor as ex
from truegreen.run.executor import Command, ExecutionCancelled, SubprocessExecutor


def test_a_process_started_as_the_cancel_happens_is_stopped(monkeypatch, tmp_path):
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen_then_cancel(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        # the main thread's cancelling() runs now: it sets the flag and stops what it
        # finds running, which does not include this process yet
        with pytest.raises(KeyboardInterrupt), ex.cancelling():
            raise KeyboardInterrupt
        return proc

    monkeypatch.setattr(ex.subprocess, "Popen", popen_then_cancel)
    t0 = time.monotonic()
    try:
        with pytest.raises(ExecutionCancelled):
            SubprocessExecutor().run(
                Command(argv=(shutil.which("sleep") or "sleep", "30"), cwd=tmp_path, env={})
            )
    finally:
        ex.reset_cancel()
    assert time.monotonic() - t0 < 10
    assert started and started[0].poll() is not None  # killed, not left sleeping
    assert ex._active == {}
