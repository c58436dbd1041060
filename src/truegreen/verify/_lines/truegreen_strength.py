"""truegreen's warm-fork mutant runner, for exam strength (issue #38).

A pytest plugin (``-p truegreen_strength``), stdlib and pytest only, loaded with the line
recorder (``-p truegreen_lines``) into the project's own interpreter from a directory
truegreen puts on ``PYTHONPATH`` (with ``localize/_tracer``, whose in-memory code swap
and hold protocol it shares: ``truegreen_mutants``).

pytest collects the exam once (the project is imported once); then, in place of pytest's
run loop, this process forks:

1. a **baseline** child runs the exam as pytest would (``pytest_runtest_protocol``: the
   probe records its outcomes, the line recorder which lines it ran, and the child writes
   the recorder's file); the parent waits for it (at most ``TRUEGREEN_STRENGTH_LIMIT``
   seconds) and takes its failures as the session's;
2. at the end of the session (after the probe reported it), the parent writes ``ready``
   (``{"baseline": "passed" | "failed" | "timeout" | "crashed", "seconds": s}``) into
   ``TRUEGREEN_STRENGTH_DIR`` and waits for ``spec.json`` (or ``stop``): truegreen reads
   the outcomes and the lines, and makes the mutants of the changed lines the exam ran;
3. one child per **mutant**, at most ``workers`` at once: the child puts the mutated
   function's code in place of the live function's (``__code__``: every reference to the
   function sees it; nothing is written to disk, no module is imported again), runs the
   exam items (through pytest's hooks, with no report made) and writes its outcome to a pipe; the parent
   kills a child (its process group) when its time limit passes, and goes on. The limit
   is ``max(MIN_LIMIT, FACTOR x the baseline's seconds + PAD)``, at most the spec's.

The parent never runs a test: each child starts from the state pytest had after
collection, so a cache a test fills (``functools.lru_cache``, a module's memo dict) never
carries the baseline's or one mutant's results into another's run. Mutants this scheme
cannot apply (no live function holds the line) are reported ``fallback``; truegreen runs
those the slow way (a fresh pytest process on the mutated file).

The spec::

    {"limit": seconds, "workers": 2,
     "mutants": [{"file": "/abs/path.py", "line": N, "source": "<the whole mutated file>"}]}

``results.json`` (written whole, renamed into place), then the process ends at once::

    {"limit": s, "results": ["killed" | "survived" | "timeout" | "crashed" | "fallback: <why>"],
     "seconds": [each mutant's child, from its fork to its word]}

``killed``, ``timeout`` and ``crashed`` (the child died without a word: the mutant ended
the process) all mean the exam did not pass under the mutant.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import threading
import time
import warnings

import pytest

_DIR_VAR = "TRUEGREEN_STRENGTH_DIR"
#: the baseline's time limit, in seconds
_LIMIT_VAR = "TRUEGREEN_STRENGTH_LIMIT"
#: a mutant's time limit: max(MIN_LIMIT, FACTOR x the baseline child's time + PAD) seconds
MIN_LIMIT = 2.0
FACTOR = 10.0
PAD = 1.0


def _exam(items) -> str:
    """Run the exam items in this (child) process: "passed" or "failed". Through pytest's
    hooks (fixtures, capture and the other plugins take part) but without making reports:
    a failure's report reads and parses the source of every frame, which took 80% of a
    killed mutant's run (``truegreen_mutants._protocol``, the localize runner's, does the
    same)."""
    from truegreen_mutants import _protocol

    for item in items:
        if _protocol(item, 0.0, False)[0] != "passed":
            return "failed"
    return "passed"


def _apply(mutant, funcs):
    """Put the mutant's code in place of the live function's (in the parent, just before
    the fork: the child starts with it, the parent puts the old code back after the fork);
    (what to put back, None) or (None, why it cannot be: the slow way runs it)."""
    from truegreen_mutants import _swap

    m = {"file": mutant["file"], "line": mutant["line"], "start": 1, "source": mutant["source"]}
    try:
        swapped = _swap(m, funcs)
    except Exception as exc:
        return None, f"fallback: {type(exc).__name__}: {exc}"[:500]
    if not swapped:
        return None, "fallback: no live function holds the line"
    return swapped, None


def _child(items, wfd: int) -> None:
    """The forked child's whole life: run the exam (the mutant is in place), say what
    happened on ``wfd``, end without pytest's or the interpreter's wrap-up."""
    status = 0
    try:
        os.setpgid(0, 0)  # its own group: a time limit kills what it started too
        try:
            outcome = _exam(items)
        except BaseException:  # what the mutant raised through pytest (Exit, ^C)
            outcome = "failed"
        os.write(wfd, b"survived\n" if outcome == "passed" else b"killed\n")
    except BaseException:  # the parent hears nothing: "crashed"
        status = 1
    finally:
        os._exit(status)


class _Running:
    def __init__(self, index: int, pid: int, fd: int, limit: float) -> None:
        self.index = index
        self.pid = pid
        self.fd = fd
        self.started = time.monotonic()
        self.deadline = self.started + limit
        self.data = b""


def _kill(pid: int) -> None:
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        with contextlib.suppress(OSError):
            kill(target, signal.SIGKILL)


def _forked() -> int:
    """os.fork(), without the warning Python 3.12+ gives in a process with threads (the
    project's warning filters may make it an error; a child that deadlocks on a lock of
    another thread is stopped at its limit, and the baseline's would be too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _fork(index: int, items, limit: float) -> _Running:
    rfd, wfd = os.pipe()
    pid = _forked()
    if pid == 0:
        os.close(rfd)
        _child(items, wfd)  # never returns
    os.close(wfd)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # the child does it too: whichever runs first
    return _Running(index, pid, rfd, limit)


def _end(run: _Running, timed_out: bool) -> str:
    if timed_out:
        _kill(run.pid)
    else:  # the child wrote and exited: what it started itself goes with it
        with contextlib.suppress(OSError):
            os.killpg(run.pid, signal.SIGKILL)
    os.waitpid(run.pid, 0)
    os.close(run.fd)
    if timed_out:
        return "timeout"
    line = run.data.decode("utf-8", "replace").strip()
    return line or "crashed"


def _run_all(jobs, workers: int, items, funcs, limit: float, done) -> None:
    """Run ``jobs`` (index, mutant) in forked children, ``workers`` at once; ``done(index,
    word, seconds)`` as each ends."""
    todo = list(jobs)
    todo.reverse()
    running: dict[int, _Running] = {}
    try:
        while todo or running:
            while todo and len(running) < workers:
                index, mutant = todo.pop()
                swapped, why = _apply(mutant, funcs)
                if why is not None:
                    done(index, why, 0.0)
                    continue
                try:
                    run = _fork(index, items, limit)
                finally:
                    for f, old in swapped:
                        f.__code__ = old
                running[run.fd] = run
            if not running:
                continue  # the last ones could not be applied
            now = time.monotonic()
            wait = max(0.0, min(r.deadline for r in running.values()) - now)
            ready, _, _ = select.select(list(running), [], [], wait)
            for fd in ready:
                run = running[fd]
                chunk = os.read(fd, 4096)
                run.data += chunk
                # a whole line, or the end: a process the test left behind may hold the
                # pipe open, and the child's word is all there is to wait for
                if chunk and not run.data.endswith(b"\n"):
                    continue
                del running[fd]
                done(run.index, _end(run, False), time.monotonic() - run.started)
            now = time.monotonic()
            for fd, run in list(running.items()):
                if now >= run.deadline:
                    del running[fd]
                    done(run.index, _end(run, True), now - run.started)
    finally:  # an interrupted parent leaves no child behind
        for run in running.values():
            _kill(run.pid)
            with contextlib.suppress(OSError):
                os.waitpid(run.pid, 0)


def _write(path: str, doc) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    os.replace(tmp, path)


class _Baseline:
    """The baseline child's reports' outcomes (a plugin registered in the child only).

    Not a list: a plugin must be hashable (pytest 8.3's ``parsefactories`` keeps every
    registered plugin in a set; a ``list`` subclass made the child crash there, and
    strength fell back to its slow path on every verify)."""

    def __init__(self) -> None:
        self.passed: list[bool] = []

    def pytest_runtest_logreport(self, report) -> None:
        self.passed.append(report.passed)


def _baseline(session, items, wfd: int) -> None:
    """The baseline child: the exam as pytest runs it, logged; the recorder's file written."""
    status = 0
    try:
        os.setpgid(0, 0)
        seen = _Baseline()
        session.config.pluginmanager.register(seen, "truegreen-strength-baseline")
        hook = session.config.hook
        for i, item in enumerate(items):
            nextitem = items[i + 1] if i + 1 < len(items) else None
            hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        lines = sys.modules.get("truegreen_lines")
        if lines is not None:
            lines.pytest_unconfigure(session.config)  # stops tracing, writes the record
        failed = session.testsfailed
        word = "passed" if seen.passed and all(seen.passed) and not failed else "failed"
        os.write(wfd, f"{word} {failed}\n".encode())
    except BaseException:  # the parent hears nothing: "crashed"
        status = 1
    finally:
        os._exit(status)


_STATE: dict = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    where = os.environ.get(_DIR_VAR)
    if not where or not hasattr(os, "fork"):
        return None
    if session.config.option.collectonly:
        return None
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        return None  # pytest's own loop says the collection failed
    items = list(session.items)
    if not items or getattr(session.config.option, "numprocesses", None):
        return None  # nothing collected here (xdist's workers collect): pytest's own loop
    _STATE["items"] = items
    lines = sys.modules.get("truegreen_lines")
    rfd, wfd = os.pipe()
    started = time.monotonic()
    pid = _forked()
    if pid == 0:
        os.close(rfd)
        _baseline(session, items, wfd)  # never returns
    os.close(wfd)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    if lines is not None:  # the parent records nothing more: the child wrote the lines
        sys.settrace(None)
        threading.settrace(None)
        lines._OUT = None
    run = _Running(-1, pid, rfd, float(os.environ.get(_LIMIT_VAR) or 300))
    word = "timeout"
    while time.monotonic() < run.deadline:
        ready, _, _ = select.select([rfd], [], [], max(0.0, run.deadline - time.monotonic()))
        if not ready:
            continue
        chunk = os.read(rfd, 4096)
        run.data += chunk
        if not chunk or run.data.endswith(b"\n"):
            word = ""
            break
    got = _end(run, timed_out=bool(word))
    seconds = time.monotonic() - started
    outcome, _, failed = got.partition(" ")
    session.testsfailed = int(failed) if failed.isdigit() else len(items)
    _STATE["baseline"] = {"baseline": outcome, "seconds": round(seconds, 3)}
    return True


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    # last: the probe has written the session's end, truegreen can read its outcomes
    where = os.environ.get(_DIR_VAR)
    if not where or "baseline" not in _STATE:
        return
    from truegreen_mutants import _end as end_now
    from truegreen_mutants import _wait

    _write(os.path.join(where, "ready"), _STATE["baseline"])
    spec = _wait(where)
    if spec is None:
        end_now(exitstatus)
    try:
        doc = _mutants(_STATE["items"], spec, _STATE["baseline"])
    except Exception as exc:  # reported to truegreen, which falls back
        doc = {"error": f"{type(exc).__name__}: {exc}"}
    _write(os.path.join(where, "results.json"), doc)
    end_now(exitstatus)


def _mutants(items, spec, baseline) -> dict:
    mutants = spec.get("mutants", [])
    if baseline["baseline"] != "passed":
        why = f"fallback: the exam's baseline run: {baseline['baseline']}"
        return {"results": [why] * len(mutants)}
    workers = max(1, int(spec.get("workers") or 1))
    cap = float(spec.get("limit") or 60.0)
    limit = min(cap, max(MIN_LIMIT, FACTOR * baseline["seconds"] + PAD))
    from truegreen_mutants import _Functions

    funcs = _Functions({os.path.realpath(m["file"]) for m in mutants})
    # (no gc.freeze() here: the collector would no longer list the frozen functions, and
    # the search for a mutated function that no module's globals reach needs it to)
    got: dict = {}

    def keep(index, word, seconds):
        got[index] = (word, round(seconds, 3))

    _run_all(list(enumerate(mutants)), workers, items, funcs, limit, keep)
    return {
        "limit": round(limit, 3),
        "results": [got[i][0] for i in range(len(mutants))],
        "seconds": [got[i][1] for i in range(len(mutants))],
    }
