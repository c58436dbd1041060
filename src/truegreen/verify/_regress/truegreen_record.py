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

How functions are seen depends on the Python version (the record's ``tracer`` names it):

* 3.12+, ``monitoring``: ``sys.monitoring``'s PY_START event, each function once per test,
  then disabled until the next test (``restart_events``);
* before 3.12, ``profile``: the C-level profiler of the standard library (``_lsprof``, what
  ``cProfile`` runs on), one per thread, without builtins. It counts every call and
  generator resume in C; at each switch of bucket (a test begins or ends, a broad fixture
  is set up) the code objects it saw are read (``getstats``) into the bucket that was
  current, and it is cleared. It is a profile function (``sys.setprofile``), so it does
  not take the place of coverage.py's or a debugger's trace function. Threads started
  through ``threading`` get a profiler of their own when they start
  (``threading.setprofile``); what they ran is read at the same switches. On five real
  suites on 3.11 a recording run took 1.8-2.5x a bare run's CPU time (median of 3
  interleaved runs each), against 2.5-3.7x with the trace function below. It is still
  called for every Python call of the run, pytest's own included (a C callback, a timer
  and a lookup each): a cost that only instrumenting the project's functions at import
  would avoid;
* ``settrace``: ``sys.settrace`` with a global trace function that sees calls only (no
  line events); the same record. Used where ``_lsprof`` cannot be imported, or when
  ``TRUEGREEN_RECORD_TRACER=settrace`` (also ``profile``) asks for it.

The tracer is checked at every switch: when it was switched off or replaced (a
RecursionError inside the trace function, a test that sets a tracer or a profiler of its
own, ``cProfile`` included), the bucket is marked ``unrecorded`` and the tracer is put back.
Files opened, directories listed and processes started are seen through an audit hook. The
record is written as JSON to ``TRUEGREEN_RECORD_OUT`` when pytest unconfigures.
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
        #: id -> code object: by identity, as code objects compare equal by content
        #: whatever their file (two empty modules, two alike functions at the same line)
        self.codes = {}
        self.files = set()
        self.dirs = set()
        self.spawned = False
        #: the tracer was switched off while this bucket was current (a RecursionError
        #: inside the trace function, a test that sets a tracer of its own): what it ran
        #: is not all seen
        self.lost = False


_SESSION = _Bucket()
_CUR = [_SESSION]
#: the current bucket's ``codes`` (rebound by :func:`_switch`)
_codes = _SESSION.codes
_STACK = []
_TESTS = {}
_FIXTURES = {}
#: per test: the names of the broader-scoped fixtures it uses
_USES = {}
_ACTIVE = [False]
_MONITOR = [None]
#: the main thread's ``_lsprof.Profiler`` (the ``profile`` tracer)
_PROF = [None]
#: [thread, its profiler] of the threads started while the ``profile`` tracer runs
_THREADS = []
#: asked for by ``TRUEGREEN_RECORD_TRACER`` (settrace or profile; else the version's own)
_WANTED = os.environ.get("TRUEGREEN_RECORD_TRACER", "")


def _trace(frame, event, arg):
    # called on every Python call of the run: as little as can be (one global, one call)
    code = frame.f_code
    _codes[id(code)] = code


def _profiler():
    import _lsprof

    # no builtins, no per-caller tables: the code objects called are all that is read
    return _lsprof.Profiler(builtins=False, subcalls=False)


def _thread_start(frame, event, arg):
    # the first profile event of a thread started through threading: a profiler of its
    # own takes over (this function is then no longer called in that thread)
    try:
        prof = _profiler()
        _THREADS.append([threading.current_thread(), prof])
        prof.enable()
    except Exception:
        sys.setprofile(None)


def _read(prof, codes):
    """Move what ``prof`` saw into ``codes`` and clear it."""
    for entry in prof.getstats():
        code = entry.code
        codes[id(code)] = code
    prof.clear()


def _flush(intact):
    """The ``profile`` tracer: the code objects the profilers saw since the last switch go
    to the current bucket, and they start again empty."""
    prof = _PROF[0]
    codes = _CUR[0].codes
    if intact:
        # (disable() would switch off whatever profiler is in place, ours or not)
        prof.disable()
    _read(prof, codes)
    if _THREADS:
        import gc

        # the other threads wait on the GIL: no collection may run Python code meanwhile
        collecting = gc.isenabled()
        gc.disable()
        try:
            for row in list(_THREADS):
                _read(row[1], codes)
                if not row[0].is_alive():
                    # a profiler freed while enabled switches off the profile function of
                    # the thread that frees it (this one's, off here anyway): disabled first
                    row[1].disable()
                    _THREADS.remove(row)
            del row
        finally:
            if collecting:
                gc.enable()
    if intact:
        prof.enable()


def _start(code, offset):
    _codes[id(code)] = code
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
    try:
        if not _ACTIVE[0]:
            return
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
    if monitoring is not None and _WANTED not in ("settrace", "profile"):
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
    if _WANTED != "settrace":
        try:
            prof = _profiler()
        except ImportError:
            prof = None
        if prof is not None:
            _PROF[0] = prof
            threading.setprofile(_thread_start)
            prof.enable()
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
    elif _PROF[0] is not None:
        threading.setprofile(None)
        for row in _THREADS:
            row[1].disable()
        _THREADS.clear()
        if sys.getprofile() is _PROF[0]:
            _PROF[0].disable()
    else:
        sys.settrace(None)
        threading.settrace(None)


def _intact():
    tool = _MONITOR[0]
    if tool is not None:
        m = sys.monitoring
        return m.get_tool(tool) == "truegreen" and bool(m.get_events(tool) & m.events.PY_START)
    if _PROF[0] is not None:
        return sys.getprofile() is _PROF[0]
    return sys.gettrace() is _trace


def _reinstall():
    tool = _MONITOR[0]
    if tool is not None:
        m = sys.monitoring
        if m.get_tool(tool) is None:
            m.use_tool_id(tool, "truegreen")
        m.register_callback(tool, m.events.PY_START, _start)
        m.set_events(tool, m.events.PY_START)
    elif _PROF[0] is not None:
        _PROF[0].enable()
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
    intact = _intact()
    if _PROF[0] is not None:
        _flush(intact)
    if _BROKEN[0]:
        _CUR[0].lost = True
        return
    if intact:
        return
    _CUR[0].lost = True
    try:
        _BROKEN[0] = not _reinstall()
    except Exception:
        _BROKEN[0] = True


def _switch(bucket):
    global _codes
    _check()
    _CUR[0] = bucket
    _codes = bucket.codes
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
    # (by identity: the buckets hold the code objects until the document is written)
    key = index.get(id(code))
    if key is not None:
        return key
    name = getattr(code, "co_filename", None)
    rel = _path(name) if isinstance(name, str) and os.path.isabs(name) else None
    if rel is None:
        index[id(code)] = -1
        return -1
    last = code.co_firstlineno
    lines = getattr(code, "co_lines", None)
    if lines is not None:
        for _span in lines():
            line = _span[2]
            if line is not None and line > last:
                last = line
    name = getattr(code, "co_qualname", code.co_name)
    key = index[id(code)] = len(table)
    table.append([rel, code.co_firstlineno, last, name])
    return key


def _dump(bucket, index, table):
    codes = sorted(k for k in (_code_key(c, index, table) for c in bucket.codes.values()) if k >= 0)
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
        "tracer": "monitoring"
        if _MONITOR[0] is not None
        else ("profile" if _PROF[0] is not None else "settrace"),
        "codes": table,
        "session": session,
        "fixtures": fixtures,
        "tests": tests,
    }
    tmp = _OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(tmp, _OUT)
