"""truegreen's per-test recorder, for regression selection.

A pytest plugin (``-p truegreen_record``), stdlib only, loaded into the project's own
interpreter from a directory truegreen puts on ``PYTHONPATH`` while the suite runs on the
base. For each test it records:

* the functions (code objects) of files under ``TRUEGREEN_RECORD_ROOT`` that ran during
  its setup, call and teardown;
* the files under the root it opened, and the directories it listed (an added or removed
  file there may change what it does);
* whether it started a process (what runs there is not seen: such a test is always run);
* the fixtures of a broader scope than the function it uses: the code a session-, package-,
  module- or class-scoped fixture runs while it is set up is recorded under the fixture's
  name, not under the test that happened to set it up first.

Whatever runs outside a test (imports, collection, plugins' session hooks) is recorded as
the session's: a change there can change what is collected, and selection gives way to the
whole suite.

Functions are seen through ``sys.monitoring`` (Python 3.12+: each function once per test,
then disabled until the next test) or, before 3.12, ``sys.settrace`` with a global trace
function that sees calls only (no line events). Files opened, directories listed and
processes started are seen through an audit hook. The record is written as JSON to
``TRUEGREEN_RECORD_OUT`` when pytest unconfigures.
"""

import json
import os
import sys
import threading

_OUT = os.environ.get("TRUEGREEN_RECORD_OUT")
_ROOT = os.path.realpath(os.environ.get("TRUEGREEN_RECORD_ROOT") or os.getcwd())
_PREFIX = _ROOT.rstrip(os.sep) + os.sep
_SPAWN_EVENTS = frozenset(
    ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork", "os.spawn", "os.system")
)
_LIST_EVENTS = frozenset(("os.listdir", "os.scandir", "glob.glob", "os.walk"))


class _Bucket:
    __slots__ = ("codes", "dirs", "files", "lost", "spawned")

    def __init__(self):
        self.codes = set()
        self.files = set()
        self.dirs = set()
        self.spawned = False
        #: the tracer was switched off while this bucket was current (a RecursionError
        #: inside the trace function, a test that sets a tracer of its own): what it ran
        #: is not all seen
        self.lost = False


_SESSION = _Bucket()
_CUR = [_SESSION]
#: the current bucket's ``codes.add`` (rebound by :func:`_switch`)
_add = _SESSION.codes.add
_STACK = []
_TESTS = {}
_FIXTURES = {}
#: per test: the names of the broader-scoped fixtures it uses
_USES = {}
_ACTIVE = [False]
_MONITOR = [None]


def _trace(frame, event, arg):
    # called on every Python call of the run: as little as can be (one global, one call)
    _add(frame.f_code)


def _start(code, offset):
    _add(code)
    return _DISABLE[0]


_DISABLE = [None]


def _path(value):
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if not isinstance(value, str) or not value:
        return None
    if not os.path.isabs(value):
        value = os.path.join(os.getcwd(), value)
    value = os.path.normpath(value)
    if value.startswith(_PREFIX):
        return value[len(_PREFIX) :]
    return None


_STDLIB = os.path.dirname(os.__file__)


def _by_pytest_or_import():
    """Whether a directory is being listed by pytest's collection or by the import system
    (which list directories whatever the project does): the first frame above the standard
    library's is pytest's or pluggy's, or the lister is importlib's path finder."""
    try:
        frame = sys._getframe(2)  # above this function and the audit hook
    except ValueError:
        return False
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib"):
            return True
        if name.startswith(("<", _STDLIB)):
            frame = frame.f_back
            continue
        return "/_pytest/" in name or "/pluggy/" in name
    return False


def _audit(event, args):
    if not _ACTIVE[0]:
        return
    try:
        if event == "open":
            rel = _path(args[0]) if args else None
            if rel is not None and "__pycache__" not in rel:
                _CUR[0].files.add(rel)
        elif event in _LIST_EVENTS:
            rel = _path(args[0] if args and args[0] is not None else ".")
            if rel is not None and not _by_pytest_or_import():
                _CUR[0].dirs.add(rel)
        elif event in _SPAWN_EVENTS:
            _CUR[0].spawned = True
    except Exception:
        pass


def _begin():
    sys.addaudithook(_audit)
    _ACTIVE[0] = True
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        for tool in (3, 4):
            try:
                monitoring.use_tool_id(tool, "truegreen")
            except ValueError:
                continue
            _MONITOR[0] = tool
            _DISABLE[0] = monitoring.DISABLE
            monitoring.register_callback(tool, monitoring.events.PY_START, _start)
            monitoring.set_events(tool, monitoring.events.PY_START)
            return
    threading.settrace(_trace)
    sys.settrace(_trace)


def _end():
    _ACTIVE[0] = False
    tool = _MONITOR[0]
    if tool is not None:
        sys.monitoring.set_events(tool, 0)
        sys.monitoring.register_callback(tool, sys.monitoring.events.PY_START, None)
        sys.monitoring.free_tool_id(tool)
    else:
        sys.settrace(None)
        threading.settrace(None)


def _intact():
    tool = _MONITOR[0]
    if tool is not None:
        m = sys.monitoring
        return m.get_tool(tool) == "truegreen" and bool(m.get_events(tool) & m.events.PY_START)
    return sys.gettrace() is _trace


def _reinstall():
    tool = _MONITOR[0]
    if tool is not None:
        m = sys.monitoring
        if m.get_tool(tool) is None:
            m.use_tool_id(tool, "truegreen")
        m.register_callback(tool, m.events.PY_START, _start)
        m.set_events(tool, m.events.PY_START)
    else:
        threading.settrace(_trace)
        sys.settrace(_trace)
    return _intact()


#: the tracer could not be put back: every bucket from then on is lost
_BROKEN = [False]


def _check():
    """Mark the current bucket lost when the tracer is gone, and put it back."""
    if not _ACTIVE[0]:
        return
    if _BROKEN[0]:
        _CUR[0].lost = True
        return
    if _intact():
        return
    _CUR[0].lost = True
    try:
        _BROKEN[0] = not _reinstall()
    except Exception:
        _BROKEN[0] = True


def _switch(bucket):
    global _add
    _check()
    _CUR[0] = bucket
    _add = bucket.codes.add
    if _MONITOR[0] is not None:
        # every function is seen again, once, for the next bucket
        sys.monitoring.restart_events()


if _OUT:
    # loaded with -p: tracing starts at import, before the project's conftest files
    _begin()


def _hookwrapper(function):
    import pytest

    return pytest.hookimpl(hookwrapper=True, tryfirst=True)(function)


def _runtest_protocol(item, nextitem):
    if not _OUT:
        yield
        return
    bucket = _TESTS.setdefault(item.nodeid, _Bucket())
    _switch(bucket)
    try:
        yield
    finally:
        broad = set()
        info = getattr(item, "_fixtureinfo", None)
        defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
        for name in getattr(item, "fixturenames", ()):
            for fixturedef in defs.get(name, ()):
                if getattr(fixturedef, "scope", "function") != "function":
                    broad.add(name)
        _USES[item.nodeid] = broad
        _switch(_SESSION)


def _fixture_setup(fixturedef, request):
    if not _OUT or getattr(fixturedef, "scope", "function") == "function":
        yield
        return
    bucket = _FIXTURES.setdefault(fixturedef.argname, _Bucket())
    _STACK.append(_CUR[0])
    _switch(bucket)
    try:
        yield
    finally:
        _switch(_STACK.pop())


try:
    pytest_runtest_protocol = _hookwrapper(_runtest_protocol)
    pytest_fixture_setup = _hookwrapper(_fixture_setup)
except ImportError:  # pragma: no cover - loaded by pytest, which is importable
    pass


def _code_key(code, index, table):
    """The index of ``code`` in ``table``: [file, first line, last line, name]."""
    key = index.get(code)
    if key is not None:
        return key
    name = code.co_filename
    rel = _path(name) if os.path.isabs(name) else None
    if rel is None:
        index[code] = -1
        return -1
    last = code.co_firstlineno
    lines = getattr(code, "co_lines", None)
    if lines is not None:
        for _span in lines():
            line = _span[2]
            if line is not None and line > last:
                last = line
    name = getattr(code, "co_qualname", code.co_name)
    index[code] = len(table)
    table.append([rel, code.co_firstlineno, last, name])
    return index[code]


def _dump(bucket, index, table):
    codes = sorted(k for k in (_code_key(c, index, table) for c in bucket.codes) if k >= 0)
    doc = {"codes": codes, "files": sorted(bucket.files), "dirs": sorted(bucket.dirs)}
    if bucket.spawned:
        doc["spawned"] = True
    if bucket.lost:
        doc["unrecorded"] = True
    return doc


def pytest_unconfigure(config):
    if not _OUT:
        return
    _check()
    _end()
    index = {}
    table = []
    tests = {}
    for nodeid, bucket in _TESTS.items():
        doc = _dump(bucket, index, table)
        uses = sorted(_USES.get(nodeid, ()))
        if uses:
            doc["fixtures"] = uses
        tests[nodeid] = doc
    fixtures = {name: _dump(b, index, table) for name, b in sorted(_FIXTURES.items())}
    session = _dump(_SESSION, index, table)
    doc = {
        "version": 1,
        "python": list(sys.version_info[:2]),
        "tracer": "monitoring" if _MONITOR[0] is not None else "settrace",
        "codes": table,
        "session": session,
        "fixtures": fixtures,
        "tests": tests,
    }
    tmp = _OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(tmp, _OUT)
