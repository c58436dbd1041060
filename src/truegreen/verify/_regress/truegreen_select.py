"""truegreen's selection filter: run only the tests regression selection picked.

A pytest plugin (``-p truegreen_select``), stdlib and pytest only, loaded into the
project's own interpreter from a directory truegreen puts on ``PYTHONPATH``; pytest
collects the files that hold the selected tests (given as its arguments, or through the
gate below), and this plugin deselects the rest of their items.
``TRUEGREEN_SELECT`` names a JSON file:

* ``ids``: the node ids to keep (as the base collected them);
* ``whole``: files whose every item is kept (test modules the change touches);
* ``known``: every node id the base collected. An item whose id the base never collected
  (a parameter whose id is not stable from one process to the next, such as an object's
  address) is kept when its function is selected: its id cannot be matched, so its
  function stands for it.

The gate (``TRUEGREEN_GATE``, a JSON file's path; ``TRUEGREEN_GATE_WAIT``, seconds): the
process was started on the suite's own arguments before the selection was known, so that
the interpreter's start, pytest's plugins and the suite's conftest files are behind it when
it is; before collecting, it waits for the file: ``{"files": [...]}`` (paths relative to
the directory it runs in) collects those test files alone, as the suite's walk finds them
(the rest of the walk is ignored); ``{"stop": true}``, the deadline, or truegreen gone ends
the process at once, having run nothing.
"""

import json
import os
import sys
import time

import pytest

_SPEC = os.environ.get("TRUEGREEN_SELECT")
_GATE = os.environ.get("TRUEGREEN_GATE")
#: (test files, their directories), relative to the working directory, once the gate opened
_allowed = None


def _wait_at_gate(path, seconds):
    """The gate's JSON, or None (the deadline, or truegreen gone)."""
    deadline = time.monotonic() + seconds
    parent = os.getppid()
    while time.monotonic() < deadline and os.getppid() == parent:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        time.sleep(0.003)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    global _allowed
    if not _GATE:
        return None
    try:
        seconds = float(os.environ.get("TRUEGREEN_GATE_WAIT") or 900)
    except ValueError:
        seconds = 900.0
    spec = _wait_at_gate(_GATE, seconds)
    if not isinstance(spec, dict) or spec.get("stop") or not isinstance(spec.get("files"), list):
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(0)  # told to stop: nothing ran, nothing to report
    files = {os.path.normpath(f) for f in spec["files"]}
    dirs = {"."}
    for f in files:
        parent = os.path.dirname(f)
        while parent:
            dirs.add(parent)
            parent = os.path.dirname(parent)
    _allowed = (files, dirs)
    return None  # pytest's own collection goes on


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path, config):
    # (first: a conftest's own hook that says False for every file it does not ignore
    # would otherwise end the call before this one, and the whole suite be collected)
    if _allowed is None:
        return None
    rel = os.path.normpath(os.path.relpath(str(collection_path)))
    files, dirs = _allowed
    if rel in files or rel in dirs:
        return None
    if os.path.basename(rel) in ("__init__.py", "conftest.py"):
        return None  # a package's or a directory's own: never a test file of the walk
    return True


def _function(nodeid):
    return nodeid.split("[", 1)[0]


def pytest_collection_modifyitems(session, config, items):
    if not _SPEC:
        return
    with open(_SPEC, encoding="utf-8") as f:
        spec = json.load(f)
    ids = set(spec.get("ids", ()))
    whole = set(spec.get("whole", ()))
    known = set(spec.get("known", ()))
    functions = {_function(i) for i in ids}
    kept, dropped = [], []
    for item in items:
        nodeid = item.nodeid
        if (
            nodeid in ids
            or nodeid.split("::", 1)[0] in whole
            or (nodeid not in known and _function(nodeid) in functions)
        ):
            kept.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
