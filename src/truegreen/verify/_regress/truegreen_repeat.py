"""truegreen's rerun plugin: reruns of new failures without a pytest process per rerun.

A pytest plugin (``-p truegreen_repeat``), stdlib and pytest only, loaded into the
project's own interpreter from a directory truegreen puts on ``PYTHONPATH``. The
regression layer reruns each new failure ``TRUEGREEN_REPEAT`` (N) times on each side; a
pytest process per rerun paid the interpreter's start, pytest's plugins and the collection
each time, which was most of a selected verification's wall time.

pytest collects once; then, in place of pytest's run loop, this process forks its runs,
one after the other (never two at once: they share the worktree). Each child starts from
the state pytest had after collection, as a fresh process would (no test has run in the
parent: a cache a test fills never carries one run's result into the next), reseeds
``random`` as a fresh interpreter does, and runs its items through pytest's hooks. The
repetitions write the probe's records to files of their own,
``TRUEGREEN_REPEAT_DIR/run-K.jsonl`` (K = 1..N), which truegreen reads as the K-th rerun;
``TRUEGREEN_REPEAT_DIR/reran.json`` lists the node ids they ran. Three modes:

* plain: the collected items are the ones to rerun; N repetitions of them.
* ``TRUEGREEN_REPEAT_FIRST`` (a JSON file: the node ids that passed on the base): a first
  child runs every item, its records going to the process's own probe file (it is the
  run truegreen asked for); then the items among those ids that did not pass in it get N
  repetitions, listed first in ``TRUEGREEN_REPEAT_DIR/first.json`` (truegreen can start
  the base's reruns of them meanwhile). A first child that dies without finishing ends
  this process at once, with no end of session recorded, as the process itself dying
  would.
* ``TRUEGREEN_REPEAT_HOLD``: after collection the process waits in
  ``TRUEGREEN_REPEAT_DIR`` for ``spec.json`` (``{"ids": [...]}``: which of its items to
  rerun) or ``stop`` (then it runs nothing), at most ``TRUEGREEN_REPEAT_HOLD`` seconds, and
  not once truegreen is gone. Started while the other side still runs, it has its start
  and its collection behind it when the new failures are known.

The parent writes ``TRUEGREEN_REPEAT_DIR/forked`` when it forks; in the plain and hold
modes it ends at once after the repetitions (its own records are not read). Without ``os.fork`` (or
under xdist, or with nothing collected) the plugin does nothing and pytest's own loop runs
the items once (in the hold mode: none); truegreen then runs the reruns as processes of
their own. A repetition that dies without its ``finish`` record leaves a run truegreen
reads as incomplete (every test ``no_report``), as it does a process that dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import warnings

import pytest

_DIR_VAR = "TRUEGREEN_REPEAT_DIR"
_COUNT_VAR = "TRUEGREEN_REPEAT"
_FIRST_VAR = "TRUEGREEN_REPEAT_FIRST"
_HOLD_VAR = "TRUEGREEN_REPEAT_HOLD"
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


def _write_json(path: str, doc) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    os.replace(tmp, path)


def _run_items(session, items) -> None:
    session.testsfailed = 0
    hook = session.config.hook
    for i, item in enumerate(items):
        nextitem = items[i + 1] if i + 1 < len(items) else None
        hook.pytest_runtest_protocol(item=item, nextitem=nextitem)


def _fork_run(session, items, out: str | None) -> tuple[bool, int]:
    """Run ``items`` in a forked child and wait for it: (it finished, its failures). With
    ``out`` the probe writes the child's records there, start to end; without, to the
    process's own file (the session's end is the parent's to record)."""
    rfd, wfd = os.pipe()
    _flush()
    pid = _forked()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(rfd)
            if "random" in sys.modules:
                sys.modules["random"].seed()  # a fresh interpreter seeds from the system
            probe = sys.modules.get("truegreen_probe")
            if out is not None:
                # a repetition is read for its outcomes only: no traceback is formatted
                # (pytest reads and parses the source of every frame of a failure's, which
                # made most of the time of a rerun of many failures)
                session.config.option.tbstyle = "no"
            if probe is not None and out is not None:
                os.environ[_PROBE_OUT] = out
                session.items = list(items)  # what this run collected: its items
                probe.pytest_configure(session.config)  # a writer of its own: start
                probe.pytest_collection_finish(session)  # collected
            _run_items(session, items)
            if probe is not None and out is not None:
                probe.pytest_sessionfinish(session, 1 if session.testsfailed else 0)
                probe.pytest_unconfigure(session.config)
            os.write(wfd, f"{session.testsfailed}\n".encode())
        except BaseException:  # no word, no finish record: read as incomplete
            status = 1
        finally:
            _flush()
            os._exit(status)
    os.close(wfd)
    data = b""
    while True:
        chunk = os.read(rfd, 4096)
        if not chunk:
            break
        data += chunk
    os.close(rfd)
    os.waitpid(pid, 0)
    word = data.decode("utf-8", "replace").strip()
    return word.isdigit(), int(word) if word.isdigit() else 0


def _not_passed(path: str) -> set:
    """The node ids the probe's records at ``path`` show not passing: a phase that failed,
    an xfail or xpass, or no call and no skip (the truegreen side decides; this only
    must not leave out one it would call a new failure)."""
    phases: dict = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("event") == "report":
                    phases.setdefault(rec.get("nodeid"), []).append(rec)
    except OSError:
        return set()
    bad = set()
    for nodeid, recs in phases.items():
        outcomes = {r.get("outcome") for r in recs}
        whens = {r.get("when") for r in recs}
        if (
            "failed" in outcomes
            or any("wasxfail" in r for r in recs)
            or "teardown" not in whens
            or ("call" not in whens and "skipped" not in outcomes)
        ):
            bad.add(nodeid)
    return bad


def _wait(where: str, seconds: float):
    """The spec truegreen wrote, or None (``stop``, the deadline, or truegreen gone)."""
    deadline = time.monotonic() + seconds
    spec = os.path.join(where, "spec.json")
    stop = os.path.join(where, "stop")
    parent = os.getppid()
    while time.monotonic() < deadline and os.getppid() == parent:
        if os.path.exists(spec):
            with open(spec, encoding="utf-8") as fh:
                return json.load(fh)
        if os.path.exists(stop):
            return None
        time.sleep(0.003)
    return None


def _end() -> None:
    """End the process now: the repetitions' files are all truegreen reads of it, and what
    pytest would still do (its summary, the plugins' wrap-up, the interpreter's teardown)
    serves no one."""
    _flush()
    os._exit(0)


def _repetitions(session, items, where: str, count: int) -> int:
    """``count`` forked runs of ``items``; the ones that did not finish."""
    _write_json(os.path.join(where, "reran.json"), [item.nodeid for item in items])
    lost = 0
    for k in range(1, count + 1):
        out = os.path.join(where, f"run-{k}.jsonl")
        open(out, "a", encoding="utf-8").close()
        finished, _ = _fork_run(session, items, out)
        lost += int(not finished)
    return lost


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
    first = os.environ.get(_FIRST_VAR)
    hold = os.environ.get(_HOLD_VAR)
    with open(os.path.join(where, "forked"), "w", encoding="utf-8") as fh:
        fh.write(f"{count}\n")
    if hold:
        try:
            seconds = float(hold)
        except ValueError:
            seconds = 900.0
        spec = _wait(where, seconds)
        wanted = set(spec.get("ids", ())) if isinstance(spec, dict) else set()
        chosen = [item for item in items if item.nodeid in wanted]
        if chosen:
            _repetitions(session, chosen, where, count)
        _end()
    if first:
        with open(first, encoding="utf-8") as fh:
            eligible = set(json.load(fh))
        finished, failed = _fork_run(session, items, None)
        if not finished:  # as if this process had died there: no end of session
            _flush()
            os._exit(1)
        bad = _not_passed(os.environ.get(_PROBE_OUT, "")) & eligible
        # truegreen may start the other side's reruns of these while this side reruns them
        _write_json(os.path.join(where, "first.json"), sorted(bad))
        chosen = [item for item in items if item.nodeid in bad]
        if chosen:
            _repetitions(session, chosen, where, count)
        session.testsfailed = failed
        return True
    _repetitions(session, items, where, count)
    _end()
