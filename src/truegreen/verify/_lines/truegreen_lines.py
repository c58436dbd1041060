"""truegreen's line recorder: which lines of some files the tests run, for exam strength.

A pytest plugin (``-p truegreen_lines``), stdlib only, loaded into the project's own
interpreter from a directory truegreen puts on ``PYTHONPATH``. It traces only the files
named in ``TRUEGREEN_LINES_FILES`` (a JSON list of absolute paths) and writes
``{path: [line, ...]}`` to ``TRUEGREEN_LINES_OUT`` when pytest unconfigures, with the
session's duration under ``"__duration__"`` (the exam's own baseline, for the mutants'
time limit). Module-level code that runs before the plugin loads is not seen; truegreen
keeps such lines whatever the record says.
"""

import json
import os
import sys
import threading
import time

_FILES = frozenset(json.loads(os.environ.get("TRUEGREEN_LINES_FILES", "[]")))
_OUT = os.environ.get("TRUEGREEN_LINES_OUT")
_SEEN = {}
_START = [0.0]


def _local(frame, event, arg):
    if event == "line":
        _SEEN[frame.f_code.co_filename].add(frame.f_lineno)
    return _local


def _global(frame, event, arg):
    name = frame.f_code.co_filename
    if name in _FILES:
        _SEEN.setdefault(name, set()).add(frame.f_lineno)
        return _local
    return None


def pytest_configure(config):
    if _OUT and _FILES:
        _START[0] = time.perf_counter()
        threading.settrace(_global)
        sys.settrace(_global)


def pytest_unconfigure(config):
    if not (_OUT and _FILES):
        return
    sys.settrace(None)
    threading.settrace(None)
    doc = {name: sorted(lines) for name, lines in _SEEN.items()}
    doc["__duration__"] = time.perf_counter() - _START[0]
    with open(_OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f)
