"""truegreen's probe: a stdlib-only pytest plugin loaded into the target's interpreter.

It is put on ``PYTHONPATH`` and loaded with ``-p truegreen_probe``; truegreen itself is
not installed in the target's environment, so this module imports nothing but the
standard library and pytest. It works with pytest 7, 8 and 9, and under xdist (only
the controller writes; workers' reports reach it through xdist).

It appends JSON lines to the file named by ``TRUEGREEN_PROBE_OUT``:

    {"event": "start", "pytest": "9.2.0", "python": "3.11.7", "rootdir": "...", "xdist_worker": false}
    {"event": "collected", "ids": [...]}
    {"event": "collect_error", "nodeid": "...", "longrepr": "...", "exc_type": ..., "message": ...}
    {"event": "report", "nodeid": "...", "when": "setup|call|teardown", "outcome": ...,
     "duration": 0.01, "wasxfail": ..., "skip": {...}, "exc": {type, message, frames, notes}, "crash": {...},
     "longrepr": "..."}
    {"event": "finish", "exitstatus": 1}
    {"event": "done"}

``exc.frames`` are ``{path, line, function}``, with ``"hidden": true`` for a frame pytest
leaves out of tracebacks (``__tracebackhide__``); ``exc.notes`` (only when there are
some) are the exception's ``__notes__``, which tracebacks print under the message.

With ``TRUEGREEN_PROBE_TB`` set (``no``), the tests' failures are formatted in that
traceback style (their ``longrepr``); collection errors keep the command line's.

A run without its ``finish`` line ended abnormally (os._exit, a signal, a segfault):
truegreen treats every test of it as ``no_report``, never as a pass. ``done`` is written
last of all, when pytest unconfigures (after the plugins' own session-finish work, such
as the tracer's trace): the process has nothing left to do but exit, and truegreen ends
it if it does not within a few seconds (a non-daemon thread, forked workers it waits for).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

import pytest

_OUT_VAR = "TRUEGREEN_PROBE_OUT"
#: pytest's traceback style for the tests' failures, set once collection is over (a
#: collection error keeps the style of the command line): ``no`` for a run read for its
#: outcomes only, since pytest reads and parses the source of every frame of a failure's
#: traceback (tens of milliseconds a failure)
_TB_VAR = "TRUEGREEN_PROBE_TB"
_MAX_TEXT = 8000
_MAX_FRAMES = 60


class _Writer:
    def __init__(self, path: str) -> None:
        # Line-buffered append: every record reaches the file before the next test runs,
        # so a crash loses at most the record being written.
        self._fh = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115

    def write(self, record: dict) -> None:
        try:
            self._fh.write(json.dumps(record, default=str) + "\n")
            self._fh.flush()
        except (OSError, ValueError):
            pass


_writer = None


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


def _rel(path, rootdir: str) -> str:
    p = str(path)
    if rootdir and (p == rootdir or p.startswith(rootdir.rstrip(os.sep) + os.sep)):
        p = os.path.relpath(p, rootdir)
    return p.replace(os.sep, "/")


def _text(value) -> str:
    try:
        s = str(value)
    except Exception as exc:  # a broken __str__ must not break the probe
        s = f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    if len(s) > _MAX_TEXT:
        s = s[: _MAX_TEXT // 2] + "\n[...]\n" + s[-_MAX_TEXT // 2 :]
    return s


def _ours(entry) -> bool:
    try:
        return entry.frame.f_globals.get("__name__") == "truegreen_trace"
    except Exception:
        return False


def _hidden(entry, excinfo) -> bool:
    """Whether pytest leaves ``entry`` out of the tracebacks it prints
    (``__tracebackhide__``); pytest 8 passes the exception, pytest 7 does not."""
    try:
        try:
            return bool(entry.ishidden(excinfo))
        except TypeError:
            return bool(entry.ishidden())
    except Exception:
        return False


def _exc_record(excinfo, rootdir: str) -> dict:
    etype = excinfo.type
    module = getattr(etype, "__module__", "") or ""
    name = getattr(etype, "__qualname__", getattr(etype, "__name__", "Exception"))
    qual = name if module in ("builtins", "") else f"{module}.{name}"
    frames = []
    try:
        # truegreen's own frames (the tracer's assertEqual wrapper, under localize) are not
        # the test's: a signature naming one would hold the path truegreen is installed at
        entries = [e for e in excinfo.traceback if not _ours(e)]
        for entry in entries[-_MAX_FRAMES:]:
            frame = {
                "path": _rel(entry.path, rootdir),
                "line": entry.lineno + 1,
                "function": entry.name,
            }
            if _hidden(entry, excinfo):
                frame["hidden"] = True
            frames.append(frame)
    except Exception:
        pass
    record = {"type": qual, "message": _text(excinfo.value), "frames": frames}
    notes = getattr(excinfo.value, "__notes__", None)
    if isinstance(notes, (list, tuple)) and notes:
        # printed under the message by every traceback (Python 3.11+), so logs show them
        record["notes"] = [_text(n) for n in notes[:20]]
    return record


def pytest_configure(config) -> None:
    global _writer
    path = os.environ.get(_OUT_VAR)
    if not path or _is_worker(config):
        return
    _writer = _Writer(path)
    _writer.write(
        {
            "event": "start",
            "pytest": pytest.__version__,
            "python": ".".join(str(v) for v in sys.version_info[:3]),
            "rootdir": str(config.rootpath) if hasattr(config, "rootpath") else str(config.rootdir),
            "executable": sys.executable,
            "probe": os.path.abspath(__file__),
        }
    )


def _rootdir(config) -> str:
    return str(config.rootpath) if hasattr(config, "rootpath") else str(config.rootdir)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None:
        # A plain dict of str/int survives xdist's report serialization.
        with contextlib.suppress(Exception):
            report.truegreen_exc = _exc_record(call.excinfo, _rootdir(item.config))


def pytest_collectreport(report) -> None:
    if _writer is None or not report.failed:
        return
    _writer.write(
        {"event": "collect_error", "nodeid": report.nodeid, "longrepr": _text(report.longrepr)}
    )


def pytest_collection_finish(session) -> None:
    tb = os.environ.get(_TB_VAR)
    if tb:
        # (in every process, xdist's workers too: they format their own failures)
        session.config.option.tbstyle = tb
    if _writer is None or _is_worker(session.config):
        return
    if session.config.pluginmanager.hasplugin("dsession"):
        return  # under xdist the controller collects nothing; workers' ids arrive below
    _writer.write({"event": "collected", "ids": [item.nodeid for item in session.items]})


_xdist_ids_written = False


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:
    global _xdist_ids_written
    if _writer is None or _xdist_ids_written:
        return
    _xdist_ids_written = True
    _writer.write({"event": "collected", "ids": list(ids)})


def pytest_runtest_logreport(report) -> None:
    if _writer is None:
        return
    record = {
        "event": "report",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": round(float(getattr(report, "duration", 0.0)), 6),
    }
    wasxfail = getattr(report, "wasxfail", None)
    if wasxfail is not None:
        record["wasxfail"] = _text(wasxfail)
    exc = getattr(report, "truegreen_exc", None)
    if isinstance(exc, dict):
        record["exc"] = exc
    longrepr = getattr(report, "longrepr", None)
    if report.skipped and isinstance(longrepr, tuple) and len(longrepr) == 3:
        record["skip"] = {
            "path": str(longrepr[0]),
            "line": longrepr[1],
            "reason": _text(longrepr[2]),
        }
    elif longrepr is not None and not report.passed:
        crash = getattr(longrepr, "reprcrash", None)
        if crash is not None:
            record["crash"] = {
                "path": _rel(crash.path, _rootdir_from_report()),
                "line": crash.lineno,
                "message": _text(crash.message),
            }
        record["longrepr"] = _text(longrepr)
    _writer.write(record)


_root_cache = {"root": ""}


def _rootdir_from_report() -> str:
    return _root_cache["root"]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session) -> None:
    _root_cache["root"] = _rootdir(session.config)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    if _writer is None:
        return
    _writer.write({"event": "finish", "exitstatus": int(exitstatus)})


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config) -> None:
    if _writer is None or _is_worker(config):
        return
    _writer.write({"event": "done"})
