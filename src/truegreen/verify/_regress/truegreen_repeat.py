"""truegreen's rerun plugin: run the collected tests N times in one pytest process.

A pytest plugin (``-p truegreen_repeat``), stdlib and pytest only, loaded into the
project's own interpreter from a directory truegreen puts on ``PYTHONPATH``. The
regression layer reruns each new failure ``FLAKY_RERUNS`` times on each side; a pytest
process per rerun paid the interpreter's start, pytest's plugins and the collection each
time, which was most of a selected verification's wall time.

pytest collects once; then, in place of pytest's run loop, this process forks one child
per repetition, one after the other (never two at once: they share the worktree). Each
child starts from the state pytest had after collection, as a fresh process would (no
test has run in the parent: a cache a test fills never carries one repetition's result
into the next), reseeds ``random`` as a fresh interpreter does, runs the items through
pytest's hooks and writes the probe's records of its run to a file of its own:
``TRUEGREEN_REPEAT_DIR/run-K.jsonl`` (K = 1..N), which truegreen reads as the K-th run.
The parent runs no test itself; it writes ``TRUEGREEN_REPEAT_DIR/forked`` first, so that
truegreen knows the repetitions are in those files. Without ``os.fork`` (or under xdist,
or with nothing collected) the plugin does nothing: pytest's own loop runs the tests once
and truegreen runs the other repetitions as processes of their own.

A child that dies without its ``finish`` record leaves a run truegreen reads as
incomplete (every test ``no_report``), as it does a process that dies.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

import pytest

_DIR_VAR = "TRUEGREEN_REPEAT_DIR"
_COUNT_VAR = "TRUEGREEN_REPEAT"
_PROBE_OUT = "TRUEGREEN_PROBE_OUT"


def _forked() -> int:
    """os.fork(), without the warning Python 3.12+ gives in a process with threads."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _child(session, items, out: str) -> None:
    """One repetition, in a forked child: the probe writes to ``out``; never returns."""
    status = 0
    try:
        if "random" in sys.modules:
            sys.modules["random"].seed()  # a fresh interpreter seeds from the system
        probe = sys.modules.get("truegreen_probe")
        config = session.config
        if probe is not None:
            os.environ[_PROBE_OUT] = out
            probe.pytest_configure(config)  # a writer of its own: start
            probe.pytest_collection_finish(session)  # collected
        session.testsfailed = 0
        hook = config.hook
        for i, item in enumerate(items):
            nextitem = items[i + 1] if i + 1 < len(items) else None
            hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if probe is not None:
            probe.pytest_sessionfinish(session, 1 if session.testsfailed else 0)
            probe.pytest_unconfigure(config)
    except BaseException:  # no finish record: truegreen reads the run as incomplete
        status = 1
    finally:
        _flush()
        os._exit(status)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    where = os.environ.get(_DIR_VAR)
    try:
        count = int(os.environ.get(_COUNT_VAR) or 0)
    except ValueError:
        count = 0
    if not where or count < 1 or not hasattr(os, "fork"):
        return None
    if session.config.option.collectonly:
        return None
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        return None  # pytest's own loop says the collection failed
    items = list(session.items)
    if not items or getattr(session.config.option, "numprocesses", None):
        return None
    with open(os.path.join(where, "forked"), "w", encoding="utf-8") as fh:
        fh.write(f"{count}\n")
    failed = 0
    for k in range(1, count + 1):
        out = os.path.join(where, f"run-{k}.jsonl")
        open(out, "a", encoding="utf-8").close()
        _flush()
        pid = _forked()
        if pid == 0:
            _child(session, items, out)  # never returns
        _, status = os.waitpid(pid, 0)
        failed += int(status != 0)
    session.testsfailed = failed
    return True
