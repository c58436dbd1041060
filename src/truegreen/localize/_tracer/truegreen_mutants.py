"""truegreen's mutant runner: after a pytest session, rerun chosen tests, in this process,
under small changes (mutants) of the project's functions, and say how each outcome changed.

Loaded with ``-p truegreen_mutants`` (this directory on ``PYTHONPATH``) into the bare run
of ``truegreen localize``; stdlib and pytest only, like the tracer. Mutation-based fault
localization: a statement whose mutants change the failing test's outcome (or make it
pass) while the passing tests that run it stay green is more likely the fault than one
whose mutants change nothing, or break everything.

Environment:

* ``TRUEGREEN_MUTANTS_DIR`` a directory shared with truegreen. At the end of the session
  (after truegreen's probe has reported it), this process writes ``ready`` there, waits
  for ``spec.json`` (or ``stop``), runs it, writes ``results.json`` and ends the process
  at once (``os._exit`` with the session's exit status);
* ``TRUEGREEN_MUTANTS_WAIT`` (optional) how long to wait for the spec, in seconds (300);
  the wait ends early when this process's parent changes (truegreen, or the sandbox
  between, is gone: nobody will write the spec).

``spec.json``::

    {"tests": [node ids], "timeouts": [seconds, per test], "deadline": seconds,
     "mutants": [{"id": "...", "file": "/abs/path.py", "line": N, "start": S,
                  "source": "<the mutated function, from line S, under its classes>",
                  "future": ["annotations"] (the file's __future__ imports),
                  "tests": [indexes into tests]}]}

Each mutant replaces, in memory, the code objects of the live functions of ``file`` that
hold line ``line``: ``source`` is compiled with its line numbers kept, and a function
whose code has the same qualified name and first line gets the new code until its tests
have run. The live functions are those reachable from the module's globals (its
functions, its classes' methods and property accessors, what decorators wrapped); when
the mutated function is not among them, every function the garbage collector knows.
Nothing is written to disk, and no module is imported again.

A mutant with ``"reload": true`` changes code that ran when its module was imported (the
module's body, or a function the body calls to build a table): ``source`` is then the
whole file, changed, and the module's body runs again from it in a namespace of its own;
the data it makes (not its functions, classes or callables) replaces the live module's,
where the module's functions read it, until the mutant's tests have run. Such mutants come
last, each file's after a ``"control": true`` one (the body run again unchanged, which
truegreen checks left the tests' results as they were).

Each test runs twice unchanged first (the base runs); its timeout is then lowered to 10
times what those runs took here, at least ``_MIN_LIMIT``. A test run is stopped at its
timeout by an alarm that repeats until the run ends (code
that catches the first one, a retry loop's ``except BaseException``, meets the next one
elsewhere); its teardown then gets a time limit of its own. A teardown stopped that way
ends the phase, as pytest's set-up state may be half torn down.
At ``deadline`` a watchdog thread writes what was done and ends the process.

``results.json``::

    {"base": [[outcome, digest, message digest] per test, run twice: a pair per test],
     "limits": [the time limit each test's runs got, in seconds, after the base runs],
     "results": {"<id>": [[outcome, digest, message digest] per test of the mutant]
                         | {"error": "..."}},
     "stopped": "why the phase ended early" (if it did), "error": "..." (if it failed)}

An outcome is ``passed``, ``failed`` (with the phase: ``failed:call``), ``skipped``,
``timeout`` (``timeout:teardown`` when the teardown was stopped too) or ``not run`` (after a
timeout). The digests are of the failure's text (each exception of the chain, its message
and the lines it passed through) and of its message, with memory addresses and pytest's
numbered temporary directories made equal.
"""

from __future__ import annotations
import __future__

import contextlib
import dis
import gc
import hashlib
import json
import os
import re
import signal
import sys
import threading
import time
import types

import pytest

_DIR_VAR = "TRUEGREEN_MUTANTS_DIR"
_NEWLOCALS = 0x2  # inspect.CO_NEWLOCALS: a function's code, not a module's or class body's
_WAIT_VAR = "TRUEGREEN_MUTANTS_WAIT"
#: the least time limit of a mutant's test run, in seconds (see ``_mutate``)
_MIN_LIMIT = 0.25

_ADDR = re.compile(r"0x[0-9a-fA-F]{4,}")
_PYTEST_TMP = re.compile(r"pytest-\d+")
_TEST_TMP = re.compile(r"(/test_\w+?)\d+(?=/|\b)")


class _Timeout(BaseException):
    """Raised in the test by the alarm: a mutant that loops."""


def _alarm(signum, frame):
    raise _Timeout("truegreen: the mutant's test run timed out")


def _digest(text: str) -> str:
    text = _TEST_TMP.sub(r"\1N", _PYTEST_TMP.sub("pytest-N", _ADDR.sub("0x?", text)))
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def _text(value: object) -> str:
    try:
        return str(value)
    except _Timeout:
        raise
    except BaseException:  # an exception whose __str__ fails
        return "<unprintable>"


def _failure(exc: BaseException) -> tuple[str, str]:
    """The failure's text (each exception of the chain: its type, its message and where
    it passed through; a doctest's output) and its message. Made from the exception itself,
    not from pytest's report: rendering a report reads and parses the source of every
    frame, which cost 90% of the phase on a project with large test files."""
    parts: list[str] = []
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        parts.append(f"{type(e).__module__}.{type(e).__qualname__}: {_text(e)}")
        for f in getattr(e, "failures", None) or [e]:  # doctest's failures
            example = getattr(f, "example", None)
            if example is not None:
                parts.append(f"  example at {getattr(example, 'lineno', '?')}")
            got = getattr(f, "got", None)
            if isinstance(got, str):
                parts.append(f"  got: {got}")
            info = getattr(f, "exc_info", None)
            if isinstance(info, tuple) and len(info) == 3 and isinstance(info[1], BaseException):
                parts.append(f"  raised {type(info[1]).__qualname__}: {_text(info[1])}")
        tb = e.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            parts.append(f"  {code.co_filename}:{tb.tb_lineno} {code.co_name}")
            tb = tb.tb_next
        e = e.__cause__ or (None if e.__suppress_context__ else e.__context__)
    return "\n".join(parts), f"{type(exc).__name__}: {_text(exc)}"


def _phase(item, when: str, **kwargs) -> BaseException | None:
    """Run one phase of ``item`` through pytest's hooks (fixtures, capture, logging and
    warnings plugins all take part); what it raised, or None."""
    hook = getattr(item.ihook, f"pytest_runtest_{when}")
    raised: BaseException | None = None
    try:
        hook(item=item, **kwargs)
    except (KeyboardInterrupt, _Timeout, pytest.exit.Exception):
        raise
    except BaseException as exc:
        raised = exc
    # a unittest.TestCase's failure is kept by its item, not raised (pytest's unittest
    # plugin takes it from there when it makes the report)
    kept = item.__dict__.get("_excinfo")
    if isinstance(kept, list) and kept:
        value = getattr(kept.pop(0), "value", None)
        if isinstance(value, _Timeout):
            raise value  # the alarm, caught by unittest's runner
        if raised is None and isinstance(value, BaseException):
            raised = value
    return raised


def _outcome(when: str, exc: BaseException) -> list[str]:
    unittest = sys.modules.get("unittest")
    if isinstance(exc, pytest.skip.Exception) or (
        unittest is not None and isinstance(exc, unittest.SkipTest)
    ):
        return ["skipped", "", ""]
    text, message = _failure(exc)
    return [f"failed:{when}", _digest(text), _digest(message)]


def _protocol(item, timeout: float, alarm: bool) -> list[str]:
    """pytest's run protocol (set-up, call, teardown of everything: the next run sets up
    again), without the reports."""
    if hasattr(item, "_report_sections"):
        item._report_sections = []  # captured output, added to on every run
    item.__dict__.pop("_excinfo", None)  # a unittest failure pytest did not take
    hasrequest = hasattr(item, "_request")
    if hasrequest and not item._request:
        item._initrequest()  # a test run again, as pytest-rerunfailures does
    result = ["passed", "", ""]
    timed_out = False
    stuck = False
    try:
        try:
            err = _phase(item, "setup")
            if err is not None:
                result = _outcome("setup", err)
            else:
                err = _phase(item, "call")
                if err is not None:
                    result = _outcome("call", err)
        except _Timeout:
            timed_out = True
        if alarm:  # the teardown gets a time limit of its own
            signal.setitimer(signal.ITIMER_REAL, timeout, 0.05)
        try:
            err = _phase(item, "teardown", nextitem=None)
            if err is not None and result[0] == "passed":
                result = _outcome("teardown", err)
        except _Timeout:
            stuck = True
    finally:
        if hasrequest:
            item._request = False
            item.funcargs = None
    if stuck:
        return ["timeout:teardown", "", ""]
    return ["timeout", "", ""] if timed_out else result


def _run(item, timeout: float) -> list[str]:
    use_alarm = hasattr(signal, "setitimer")
    if use_alarm:
        # the alarm repeats until the run ends: code that catches the first (a retry loop's
        # ``except BaseException``) meets the next one somewhere else
        signal.setitimer(signal.ITIMER_REAL, timeout, 0.05)
    try:
        return _protocol(item, timeout, use_alarm)
    except _Timeout:  # outside the phases: the set-up state is not known to be clean
        return ["timeout:teardown", "", ""]
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _codes(code, out) -> None:
    out[_key(code)] = code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _codes(c, out)


def _span(code) -> tuple[int, int]:
    lines = [code.co_firstlineno]
    if hasattr(code, "co_lines"):
        lines += [ln for _, _, ln in code.co_lines() if ln is not None]
    else:  # Python < 3.10
        lines += [ln for _, ln in dis.findlinestarts(code)]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            lines += list(_span(c))
    return min(lines), max(lines)


def _reachable(module, found: list) -> None:
    """The functions of ``module`` reachable from its globals: functions, methods of its
    classes (static, class, property accessors), what decorators wrapped (``__wrapped__``,
    the functions in a wrapper's closure)."""
    seen: set[int] = set()
    todo = list(vars(module).values())
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, types.FunctionType):
            found.append(o)
            for cell in o.__closure__ or ():
                with contextlib.suppress(ValueError):  # an empty cell
                    todo.append(cell.cell_contents)
            wrapped = getattr(o, "__wrapped__", None)
            if wrapped is not None:
                todo.append(wrapped)
        elif isinstance(o, (staticmethod, classmethod)):
            todo.append(o.__func__)
        elif isinstance(o, property):
            todo += [o.fget, o.fset, o.fdel]
        elif isinstance(o, type) and getattr(o, "__module__", None) == module.__name__:
            with contextlib.suppress(TypeError):
                todo += list(vars(o).values())


class _Functions:
    """The live functions of the mutated files: first those reachable from their modules
    (fast), and when a mutant's function is not among them, every function the garbage
    collector knows (slow, once)."""

    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.found: dict[str, list[types.FunctionType]] = {}
        self.scanned = False
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if not isinstance(path, str) or os.path.realpath(path) not in files:
                continue
            got: list = []
            _reachable(module, got)
            for f in got:
                real = os.path.realpath(f.__code__.co_filename)
                if real in files:
                    self.found.setdefault(real, []).append(f)

    def of(self, path: str, key: tuple[str, int]) -> list[types.FunctionType]:
        live = self.found.get(path, [])
        if not self.scanned and not any(_key(f.__code__) == key for f in live):
            self.scanned = True
            everything: dict[str, list[types.FunctionType]] = {}
            for o in gc.get_objects():
                if type(o) is types.FunctionType:
                    real = os.path.realpath(o.__code__.co_filename)
                    if real in self.files:
                        everything.setdefault(real, []).append(o)
            self.found = everything
            live = self.found.get(path, [])
        return live


def _key(code) -> tuple[str, int]:
    return (code.co_qualname if hasattr(code, "co_qualname") else code.co_name, code.co_firstlineno)


def _swap(m, funcs: _Functions) -> list[tuple[types.FunctionType, types.CodeType]]:
    path = os.path.realpath(m["file"])
    text = "\n" * (int(m["start"]) - 1) + m["source"]
    flags = __future__.annotations.compiler_flag if "annotations" in m.get("future", ()) else 0
    tree = compile(text, m["file"], "exec", flags=flags, dont_inherit=True)
    new: dict[tuple[str, int], types.CodeType] = {}
    _codes(tree, new)
    line = int(m["line"])
    # the outermost function of the unit holds the line: find its live copies
    outer = min(
        (k for k, c in new.items() if c.co_flags & _NEWLOCALS and _holds(c, line)),
        key=lambda k: k[0].count("."),
        default=None,
    )
    if outer is None:
        return []
    swapped = []
    for f in funcs.of(path, outer):
        old = f.__code__
        code = new.get(_key(old))
        if code is None or not _holds(old, line) or code.co_freevars != old.co_freevars:
            continue
        f.__code__ = code
        swapped.append((f, old))
    return swapped


#: what running a module's body again does not replace: its functions, classes and what
#: is called (the old ones stay: other modules and the tests hold them, and they read the
#: module's globals, where the new data is)
_KEEP = (types.ModuleType, property, staticmethod, classmethod)


def _reload(m) -> list[tuple[dict, str, object]]:
    """Run the body of the module of ``m["file"]`` again, from ``m["source"]`` (the whole
    file, changed or not), in a namespace of its own, and put the data it made (not its
    functions, classes or callables, nor instances of the classes it made again) into
    the live module's globals, where its functions read them: a table built at import
    by calls of a changed function is rebuilt with the change. Returns what was replaced
    (globals, name, old value), to put back."""
    path = os.path.realpath(m["file"])
    modules = [
        mod
        for mod in list(sys.modules.values())
        if isinstance(getattr(mod, "__file__", None), str)
        and os.path.realpath(mod.__file__) == path
    ]
    if not modules:
        raise ValueError("the module is not imported")
    code = compile("\n" * (int(m["start"]) - 1) + m["source"], m["file"], "exec", dont_inherit=True)
    swapped: list[tuple[dict, str, object]] = []
    try:
        for mod in modules:
            live = vars(mod)
            fresh = {
                k: live[k]
                for k in (
                    "__name__",
                    "__file__",
                    "__package__",
                    "__spec__",
                    "__loader__",
                    "__path__",
                    "__builtins__",
                    "__cached__",
                )
                if k in live
            }
            exec(code, fresh)
            made = {id(v) for k, v in fresh.items() if isinstance(v, type) and live.get(k) is not v}
            for name, new in fresh.items():
                if (name.startswith("__") and name.endswith("__")) or name not in live:
                    continue
                old = live[name]
                if old is new or isinstance(new, _KEEP) or isinstance(old, _KEEP):
                    continue
                if callable(new) or callable(old) or id(type(new)) in made:
                    continue
                swapped.append((live, name, old))
                live[name] = new
    except BaseException:
        _put_back(swapped)
        raise
    return swapped


def _reload_within(m, limit: float) -> list[tuple[dict, str, object]]:
    """:func:`_reload`, stopped by the alarm at ``limit`` seconds (a changed module-level
    ``while`` may loop); the module is then as it was."""
    use_alarm = hasattr(signal, "setitimer")
    if use_alarm:
        signal.setitimer(signal.ITIMER_REAL, limit, 0.05)
    try:
        return _reload(m)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _put_back(swapped: list[tuple[dict, str, object]]) -> None:
    for live, name, old in reversed(swapped):
        live[name] = old


def _holds(code, line: int) -> bool:
    lo, hi = _span(code)
    return lo <= line <= hi


def _wait(where: str) -> dict | None:
    """The spec truegreen wrote, or None: it said ``stop``, the wait passed its deadline,
    or truegreen is gone (this process has another parent: a killed truegreen never
    writes either, and the run must not wait out its deadline for it)."""
    deadline = time.monotonic() + float(os.environ.get(_WAIT_VAR) or 300)
    spec = os.path.join(where, "spec.json")
    stop = os.path.join(where, "stop")
    parent = os.getppid()
    while time.monotonic() < deadline and os.getppid() == parent:
        if os.path.exists(spec):
            with open(spec, encoding="utf-8") as fh:
                return json.load(fh)
        if os.path.exists(stop):
            return None
        time.sleep(0.002)  # a few wake-ups of microseconds each: the spec is not kept waiting
    return None


def _write(where: str, doc: dict) -> None:
    tmp = os.path.join(where, "results.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    os.replace(tmp, os.path.join(where, "results.json"))


class _Results:
    """What the mutants did so far: written at the end, or by the watchdog when the
    phase passes its deadline (then the process ends: a test stuck in C code, or one
    that swallows every alarm, must not hold the bare run)."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.lock = threading.Lock()
        self.doc: dict = {"base": [], "results": {}}
        self.written = False

    def put(self, key: str, value) -> None:
        with self.lock:
            self.doc[key] = value

    def result(self, mid: str, value) -> None:
        with self.lock:
            self.doc["results"][mid] = value

    def write(self, **extra) -> None:
        with self.lock:
            if self.written:
                return
            self.written = True
            with contextlib.suppress(OSError):
                _write(self.where, {**self.doc, **extra})

    def cut(self) -> None:
        self.write(stopped="the mutants passed their deadline")
        os._exit(0)


def _mutate(session, spec: dict, out: _Results) -> None:
    by_id = {item.nodeid: item for item in session.items}
    tests = [by_id.get(t) for t in spec.get("tests", [])]
    limits = [float(t) for t in spec.get("timeouts", [])]
    limits += [10.0] * (len(tests) - len(limits))
    # a module's body run again is not a test: it keeps truegreen's limits
    reload_limit = max(limits, default=10.0)
    base = []
    for i, item in enumerate(tests):
        if item is None:
            base.append([["missing", "", ""], ["missing", "", ""]])
            continue
        started = time.perf_counter()
        first = _run(item, limits[i])
        second = _run(item, limits[i])
        base.append([first, second])
        # the base runs, in this process and as warm as the mutants' runs will be, say
        # how long the test takes here: a mutant that loops is stopped at 10 times that
        # (at least _MIN_LIMIT), not at truegreen's limit from the session's duration,
        # which is at least a second: a tied suspect in a loop often has a few mutants
        # that loop, and each cost that second
        if not any(r[0].startswith("timeout") for r in (first, second)):
            took = (time.perf_counter() - started) / 2
            limits[i] = min(limits[i], max(_MIN_LIMIT, 10 * took))
    out.put("base", base)
    out.put("limits", [round(x, 3) for x in limits])
    files = {os.path.realpath(m["file"]) for m in spec.get("mutants", [])}
    funcs = _Functions(files)
    for m in spec.get("mutants", []):
        reload = bool(m.get("reload"))
        try:
            swapped = _reload_within(m, reload_limit) if reload else _swap(m, funcs)
        except _Timeout:
            out.result(m["id"], {"error": "the module's body, run again, timed out"})
            continue
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a module's body may raise anything, even SystemExit
            out.result(m["id"], {"error": f"{type(exc).__name__}: {exc}"})
            continue
        if not swapped and not m.get("control"):  # a control may replace nothing
            why = (
                "it changed none of the module's data"
                if reload
                else "no live function holds the line"
            )
            out.result(m["id"], {"error": why})
            continue
        got = []
        try:
            for i in m.get("tests", []):
                item = tests[i]
                got.append(_run(item, limits[i]) if item is not None else ["missing", "", ""])
                if got[-1][0].startswith("timeout"):
                    break  # the mutant loops: its other tests would only loop too
        finally:
            if reload:
                _put_back(swapped)
            else:
                for f, old in swapped:
                    f.__code__ = old
        if got and got[-1][0].startswith("timeout") and len(got) < len(m.get("tests", [])):
            got += [["not run", "", ""]] * (len(m["tests"]) - len(got))
        out.result(m["id"], got)
        if any(g[0] == "timeout:teardown" for g in got):
            # the teardown was cut too: pytest's set-up state may be half torn down, and
            # the runs after it would not be comparable
            out.put("stopped", "a mutant's test run timed out in its teardown")
            return


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    # last: truegreen's probe has written the session's reports and its end
    where = os.environ.get(_DIR_VAR)
    if not where or not os.path.isdir(where):
        return
    with open(os.path.join(where, "ready"), "w", encoding="utf-8") as fh:
        fh.write("ready\n")
    spec = _wait(where)
    if spec is None:
        _end(exitstatus)
    out = _Results(where)
    watchdog = threading.Timer(float(spec.get("deadline") or 60), out.cut)
    watchdog.daemon = True
    watchdog.start()
    old = signal.signal(signal.SIGALRM, _alarm) if hasattr(signal, "SIGALRM") else None
    try:
        _mutate(session, spec, out)
    except Exception as exc:  # reported to truegreen, never fails the run
        out.put("error", f"{type(exc).__name__}: {exc}")
    finally:
        if old is not None:
            signal.signal(signal.SIGALRM, old)
        watchdog.cancel()
    out.write()
    _end(exitstatus)


def _end(exitstatus) -> None:
    """End the process now. truegreen read the session's outcomes before the mutants ran,
    and it waits for this process to end: what pytest would still do (its summary, the
    plugins' wrap-up, the interpreter's teardown) serves no one, and took 0.04 s at the
    median of 30 bugs, about as long as the mutants themselves."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(int(exitstatus))
