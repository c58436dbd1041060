"""truegreen's line recorder: which lines of some files the tests run, for exam strength.

A pytest plugin (``-p truegreen_lines``), stdlib only, loaded into the project's own
interpreter from a directory truegreen puts on ``PYTHONPATH``. It traces only the files
named in ``TRUEGREEN_LINES_FILES`` (a JSON list of absolute paths) and writes
``{path: [line, ...]}`` to ``TRUEGREEN_LINES_OUT`` when pytest unconfigures, with the
session's duration under ``"__duration__"`` (the exam's own baseline, for the mutants'
time limit). Module-level code that runs before the plugin loads is not seen; truegreen
keeps such lines whatever the record says.

``"__early__"`` holds the lines run before the tests: from pytest_configure to the end of
collection (code run when modules are imported, tests collected), and every line of a
named file whose module was already imported when recording started (by a conftest, a
plugin: what it ran then is not known). A mutant of such a line cannot be put into a live
function after the fact (the warm-fork runner, ``truegreen_strength``): truegreen runs it
in a fresh process.
"""

import json
import os
import sys
import threading
import time

_FILES = frozenset(json.loads(os.environ.get("TRUEGREEN_LINES_FILES", "[]")))
_OUT = os.environ.get("TRUEGREEN_LINES_OUT")
_SEEN = {}
_EARLY = {}
_BEFORE = []  # the named files already imported when recording started
_COLLECTING = [True]
_START = [0.0]


def _local(frame, event, arg):
    if event == "line":
        _SEEN[frame.f_code.co_filename].add(frame.f_lineno)
        if _COLLECTING[0]:
            _EARLY.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
    return _local


def _global(frame, event, arg):
    name = frame.f_code.co_filename
    if name in _FILES:
        _SEEN.setdefault(name, set()).add(frame.f_lineno)
        if _COLLECTING[0]:
            _EARLY.setdefault(name, set()).add(frame.f_lineno)
        return _local
    return None


def pytest_configure(config):
    if _OUT and _FILES:
        _START[0] = time.perf_counter()
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and os.path.realpath(path) in _FILES:
                _BEFORE.append(os.path.realpath(path))
        threading.settrace(_global)
        sys.settrace(_global)


def pytest_collection_finish(session):
    _COLLECTING[0] = False


def pytest_unconfigure(config):
    if not (_OUT and _FILES):
        return
    sys.settrace(None)
    threading.settrace(None)
    doc = {name: sorted(lines) for name, lines in _SEEN.items()}
    doc["__duration__"] = time.perf_counter() - _START[0]
    early = {name: sorted(lines) for name, lines in _EARLY.items()}
    doc["__early__"] = {**early, **{name: "all" for name in _BEFORE}}
    with open(_OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f)
