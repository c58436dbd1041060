"""Cancellation is per call: a token's cancel() stops the processes started under it, and
only those; a process that starts as the cancel happens is stopped too."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from truegreen.run import executor as ex
from truegreen.run.executor import (
    Cancellation,
    Command,
    Completed,
    ExecutionCancelled,
    FakeExecutor,
    SubprocessExecutor,
    bound,
)

SLEEP = shutil.which("sleep") or "sleep"


def _sleep(tmp_path: Path, seconds: int = 30) -> Command:
    return Command(argv=(SLEEP, str(seconds)), cwd=tmp_path, env={})


def test_a_process_started_as_the_cancel_happens_is_stopped(monkeypatch, tmp_path):
    token = Cancellation()
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen_then_cancel(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        # the cancel runs now: it stops what the token holds, which is not this one yet
        token.cancel()
        return proc

    monkeypatch.setattr(ex.subprocess, "Popen", popen_then_cancel)
    t0 = time.monotonic()
    with pytest.raises(ExecutionCancelled):
        SubprocessExecutor(cancel=token).run(_sleep(tmp_path))
    assert time.monotonic() - t0 < 10
    assert started and started[0].poll() is not None  # killed, not left sleeping
    assert token.running == frozenset()
    assert all(pid != started[0].pid for pid in ex._active)


def test_cancel_kills_only_the_token_s_runs_and_refuses_its_next_ones(tmp_path):
    mine, theirs = Cancellation(), Cancellation()
    results: dict[str, object] = {}

    def run(name: str, token: Cancellation, seconds: int) -> None:
        try:
            results[name] = SubprocessExecutor(cancel=token).run(_sleep(tmp_path, seconds))
        except ExecutionCancelled as exc:
            results[name] = exc

    a = threading.Thread(target=run, args=("mine", mine, 30))
    b = threading.Thread(target=run, args=("theirs", theirs, 2))
    a.start()
    b.start()
    deadline = time.monotonic() + 10
    while not mine.running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert mine.running, "the run under the token never registered"
    t0 = time.monotonic()
    mine.cancel()
    a.join(timeout=10)
    b.join(timeout=10)
    assert time.monotonic() - t0 < 5  # killed, not waited for (it sleeps 30 s)
    assert isinstance(results["mine"], ExecutionCancelled)
    done = results["theirs"]
    assert isinstance(done, Completed) and done.returncode == 0  # went on to its end
    assert mine.cancelled and not theirs.cancelled
    with pytest.raises(ExecutionCancelled):
        SubprocessExecutor(cancel=mine).run(_sleep(tmp_path, 0))


def test_clean_up_runs_after_a_cancel(tmp_path):
    token = Cancellation()
    token.cancel()
    true = shutil.which("true") or "true"
    done = SubprocessExecutor(cancel=token).run(
        Command(argv=(true,), cwd=tmp_path, env={}, cancellable=False)
    )
    assert done.returncode == 0


def test_a_fake_executor_bound_to_a_token_refuses_runs_once_cancelled(tmp_path):
    fake = FakeExecutor(lambda c: Completed(tuple(c.argv), 0, "", "", 0.0))
    token = Cancellation()
    call = bound(fake, token)
    call.run(_sleep(tmp_path, 0))
    token.cancel()
    with pytest.raises(ExecutionCancelled):
        call.run(_sleep(tmp_path, 0))
    call.run(Command(argv=("cleanup",), cwd=tmp_path, env={}, cancellable=False))
    assert [c.argv[0] for c in fake.commands] == [SLEEP, "cleanup"]  # one list: the fake's


def test_an_executor_without_with_cancel_is_used_as_it_is():
    class Plain:
        def run(self, command: Command) -> Completed:
            raise AssertionError("not run")

    plain = Plain()
    assert bound(plain, Cancellation()) is plain


def test_a_child_token_ends_its_runs_alone_and_ends_with_its_parent(tmp_path):
    parent = Cancellation()
    first, second = parent.child(), parent.child()
    results: dict[str, object] = {}

    def run(name: str, token: Cancellation) -> None:
        try:
            results[name] = SubprocessExecutor(cancel=token).run(_sleep(tmp_path, 30))
        except ExecutionCancelled as exc:
            results[name] = exc

    threads = {
        n: threading.Thread(target=run, args=(n, t)) for n, t in (("a", first), ("b", second))
    }
    for t in threads.values():
        t.start()
    deadline = time.monotonic() + 10
    while not (first.running and second.running) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first.running and second.running
    t0 = time.monotonic()
    first.cancel()  # the child alone: its sibling and its parent go on
    threads["a"].join(timeout=10)
    assert isinstance(results["a"], ExecutionCancelled)
    assert not parent.cancelled and not second.cancelled and second.running
    parent.cancel()  # the parent: its other child too
    threads["b"].join(timeout=10)
    assert time.monotonic() - t0 < 5  # killed, not waited for (they sleep 30 s)
    assert isinstance(results["b"], ExecutionCancelled) and second.cancelled
    # a child made once the parent is cancelled is cancelled at once
    assert parent.child().cancelled
