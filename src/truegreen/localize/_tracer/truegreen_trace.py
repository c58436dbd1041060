"""truegreen's tracer: a stdlib-only pytest plugin that records, per test and per phase,
which lines of the project's own source ran, and (on request) bounded, safely serialized
local values on them.

Loaded into the target's interpreter with ``-p truegreen_trace`` (this directory on
``PYTHONPATH``); truegreen is not installed there, so this module imports nothing but the
standard library and pytest, and works with pytest 7, 8 and 9. It is imported before pytest
starts (``truegreen_trace_launch``), so pytest must not warn that it cannot rewrite its
asserts (it has none): PYTEST_DONT_REWRITE.

Environment:

* ``TRUEGREEN_TRACE_OUT``   the JSON file to write at the end of the session;
* ``TRUEGREEN_TRACE_ROOT``  the repository root: only files below it are traced, and not
  virtualenvs, site-packages or test files (tests are the measuring instrument, not the
  thing measured);
* ``TRUEGREEN_TRACE_VALUES`` (optional) a JSON file ``{"tests": [node ids], "siblings": N}``:
  for those tests and the N collected tests nearest to each, record local values at every
  traced line (bounded), assignments and returns;
* ``TRUEGREEN_TRACE_ENGINE`` (optional) ``monitoring``, ``probe`` or ``settrace``;
* ``TRUEGREEN_TRACE_FIRST`` (optional, also without ``TRUEGREEN_TRACE_OUT``) a JSON list of
  node ids to run before all other tests;
* ``TRUEGREEN_TRACE_KEEP`` (optional, also without ``TRUEGREEN_TRACE_OUT``) a JSON list of
  node ids that the project's own ``-m``, ``-k`` and ``--deselect`` must not leave out.

Engines: ``sys.monitoring`` on Python >= 3.12 (local LINE events for project code objects,
turned on at their first PY_START); probes before that (project modules compiled, at
import, with a call of a shared set's ``add`` before every statement: no trace function,
which on 3.11 would slow every frame); ``sys.settrace`` on request (a per-code-object line
set; a call whose code object already ran all its lines in this phase is not traced).
Value capture uses ``sys.settrace``, only while a watched test runs.

Import-time code (module bodies, class bodies, decorator arguments, default values) runs
once per process, outside any test, or inside whichever test (or fixture) imported the
module first: its lines are recorded per module file (``import_lines``), and every line
that runs while a project module's body runs, the functions it calls included, is recorded
for that module (``import_runs``), not for the test that happened to import it
(``phase_imports`` says which modules a test phase imported). The module graph
(``imports``: which module's globals name which project module, and which module's body
imported which) lets truegreen attribute them to the tests that depend on them.

Values are serialized without calling any user code: no ``__repr__``, ``__str__``,
properties or ``__getattr__``; only exact builtin types are rendered, other objects as
their class name plus their instance ``__dict__`` read with ``object.__getattribute__``.
Names and strings that look like secrets are redacted; only a salted-free sha256 of a
redacted string leaves the process, so that truegreen can scrub it from other output.

Output (one JSON document):

    {"engine": "monitoring|probe|settrace", "python": "3.11.7",
     "phases": {"<nodeid>": {"setup": {"<file>": [lines]}, "call": {...}, "teardown": {...}}},
     "import_lines": {"<file>": [lines]}, "session_lines": {"<file>": [lines]},
     "import_runs": {"<module file>": {"<file>": [lines]}},
     "phase_imports": {"<nodeid>": {"<phase>": [module files]}},
     "imports": {"<file>": [files its globals reference or its body imported]},
     "values": {"<nodeid>": {"states": [...], "assigns": [...], "returns": [...],
                             "compared": [...], "mock_calls": [{"file", "line"}]}},
     "secrets": [{"len": 12, "sha256": "..."}], "settings": {...},
     "receivers": {"<nodeid>": [["<file>", "<class qualname>"]]}}

``receivers`` (when the import hook ran before the project's modules were imported; not for
modules imported before it): the project classes (with their project base classes)
whose instances were the receivers of project methods a test called.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import itertools
import json
import marshal
import os
import re
import signal
import sys
import threading
import time
import types

import pytest

_OUT_VAR = "TRUEGREEN_TRACE_OUT"
_ROOT_VAR = "TRUEGREEN_TRACE_ROOT"
_VALUES_VAR = "TRUEGREEN_TRACE_VALUES"
_ENGINE_VAR = "TRUEGREEN_TRACE_ENGINE"  # optional: monitoring, probe or settrace

_SKIP_PARTS = frozenset(
    {
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "site-packages",
        "dist-packages",
        "node_modules",
        ".git",
        "__pypackages__",
        ".eggs",
    }
)
_CO_NEWLOCALS = 0x2

# kinds of code objects
_SKIP, _FUNC, _IMPORT = 0, 1, 2

_root = ""
_rel_cache: dict = {}
_kind: dict = {}
_nlines: dict = {}
_file_of: dict = {}

# the current context: ("T", nodeid, phase), ("I", module file) while a project module's
# body runs (an import), or None (the session)
_ctx = None
_ctx_stack: list = []  # the contexts an import interrupted, with their _watching
_import_runs: dict = {}  # module file -> file -> set: lines that ran while it was imported
_phase_imports: dict = {}  # nodeid -> phase -> set of module files imported in it
_import_edges: dict = {}  # module file -> module files imported while its body ran
_cur: dict = {}  # code -> set of lines, for the current context (settrace engine)
_phases: dict = {}  # nodeid -> phase -> file -> set
_import_lines: dict = {}  # file -> set
_session_lines: dict = {}  # file -> set
_engine = "off"
_lock = threading.Lock()


_TEST_DIRS = frozenset({"tests", "test", "testing"})


def _is_test_rel(rel: str) -> bool:
    """Test code: truegreen.testpaths.is_test_code, copied (this module is stdlib-only);
    tests/test_testpaths.py runs both on the same paths."""
    parts = rel.replace("\\", "/").split("/")
    name = parts[-1]
    return name.endswith(".py") and (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(p in _TEST_DIRS for p in parts[:-1])
    )


def _rel(filename: str):
    """The file's path relative to the root if it is project source, else None."""
    try:
        return _rel_cache[filename]
    except KeyError:
        pass
    rel = None
    if filename and not filename.startswith("<") and filename.endswith(".py"):
        path = os.path.abspath(filename)
        if path.startswith(_root + os.sep):
            r = path[len(_root) + 1 :].replace(os.sep, "/")
            parts = r.split("/")
            if not any(p in _SKIP_PARTS for p in parts):
                rel = r
    _rel_cache[filename] = rel
    return rel


_test_code: dict = {}  # code -> whether it is a test file's


def _in_test_file(code) -> bool:
    got = _test_code.get(code)
    if got is None:
        rel = _rel(code.co_filename)
        got = _test_code[code] = rel is not None and _is_test_rel(rel)
    return got


def _classify(code) -> int:
    rel = _rel(code.co_filename)
    if rel is None or _is_test_rel(rel):
        kind = _SKIP
    elif code.co_flags & _CO_NEWLOCALS:
        kind = _FUNC
        lines = {ln for _s, _e, ln in code.co_lines() if ln is not None}
        lines.discard(code.co_firstlineno)
        _nlines[code] = len(lines) or 1
    else:
        kind = _IMPORT
    _file_of[code] = rel
    _kind[code] = kind
    return kind


# ---------------------------------------------------------------- context switching


_explained: dict = {}  # lines run by pytest's assertion explanations (dropped)


def _target() -> dict:
    """The file -> lines dict of the current context."""
    if _ctx is None:
        return _session_lines
    if _ctx[0] == "I":
        return _import_runs.setdefault(_ctx[1], {})
    if _ctx[0] == "X":
        _explained.clear()
        return _explained
    return _phases.setdefault(_ctx[1], {}).setdefault(_ctx[2], {})


def _flush_cur(in_place: bool = False) -> None:
    """Move the current context's per-code line sets into per-file sets. ``in_place``
    (an import starts or ends while functions run): empty the sets instead of dropping
    them, since the trace functions of the running frames still add to them."""
    global _cur
    cur = _cur
    if not in_place:
        _cur = {}
    if not cur:
        return
    target = _target()
    for code, lines in cur.items():
        if lines:
            target.setdefault(_file_of[code], set()).update(lines)
            if in_place:
                lines.clear()


def _flush(in_place: bool = False) -> None:
    _flush_cur(in_place)
    _recv_flush()
    if _engine == "monitoring":
        _mon_flush()
    elif _engine == "probe":
        _probe_flush()


def _switch(ctx) -> None:
    global _ctx, _watching
    with _lock:
        _flush()
        _ctx = ctx
        _watching = ctx is not None and ctx[0] == "T" and ctx[1] in _watch


def _import_enter(rel) -> bool:
    """A project module's body starts to run: what runs until it ends (its module-level
    lines, and the functions they call, decorators and base classes included) belongs to
    the module, for every test that depends on it, not to the test or fixture that
    happened to import it first."""
    if _engine == "off":
        return False
    with _lock:
        if _ctx is not None and _ctx[0] == "T":
            _phase_imports.setdefault(_ctx[1], {}).setdefault(_ctx[2], set()).add(rel)
        elif _ctx is not None and _ctx[0] == "I":
            _import_edges.setdefault(_ctx[1], set()).add(rel)
        _push(("I", rel))
    return True


def _push(ctx) -> None:
    """Enter ``ctx`` (an import, an assertion explanation) until ``_leave_context``; no
    values are recorded inside it. The caller holds the lock."""
    global _ctx, _watching
    _flush(in_place=True)
    _ctx_stack.append((_ctx, _watching))
    _ctx = ctx
    _watching = False


def _leave_context() -> None:
    global _ctx, _watching
    with _lock:
        _flush(in_place=True)
        if _ctx_stack:
            _ctx, _watching = _ctx_stack.pop()


def _explain_enter() -> bool:
    """pytest explains a failed ``assert``: it calls ``repr`` on the operands (a project
    class's ``__repr__``) and compares them again, for failing tests only. Those lines say
    nothing about the fault and would look like the failing tests' alone: not recorded."""
    if _engine == "off" or (_ctx is not None and _ctx[0] == "X"):
        return False
    with _lock:
        _push(("X", None))
    return True


def _record_compared(args) -> None:
    """A watched test's failed ``assert a == b``: keep the operands of the comparison that
    failed (``_call_reprcompare(ops, results, expls, each_obj)``), serialized safely, so
    that the line which produced the rejected value can be found among the values."""
    try:
        ops, results, _expls, each_obj = args[:4]
        for i, ok in enumerate(results):
            if not ok:
                _value_rec(_ctx[1]).setdefault("compared", []).append(
                    _compared(str(ops[i]), i, each_obj[i], each_obj[i + 1])
                )
                return
    except Exception:  # another pytest's signature, an operand that cannot be read
        return


def _compared(op, index, left, right) -> dict:
    """A failed comparison's record: its operands, serialized safely, and for two texts of
    several lines the first line where they differ (a long text is kept only by its head,
    and the line that differs is what a formatter made wrong)."""
    rec = {"op": op, "index": index, "values": [_safe(left), _safe(right)]}
    if op == "==":
        keys: list = []
        _differing_keys(left, right, keys, 0)
        if keys:
            rec["keys"] = keys
    if type(left) is str and type(right) is str and ("\n" in left or "\n" in right):
        a, b = left.splitlines(), right.splitlines()
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else None
            y = b[i] if i < len(b) else None
            if x != y:
                rec["differs"] = {"line": i, "values": [_safe(x), _safe(y)]}
                break
    return rec


_SCALARS = (str, int, float, bool, type(None), bytes)
_MAX_KEYS = 8


def _fields(value):
    """A container's entries as a plain dict, read without running user code (types are
    read with ``type()``, never ``isinstance``, which a ``__class__`` property answers): a
    dict's items (string keys only), a named tuple's fields, an object's ``__dict__``;
    else None."""
    t = type(value)
    if issubclass(t, dict):
        try:
            items = list(dict.items(value))
        except Exception:
            return None
        return {k: v for k, v in items if type(k) is str}
    if issubclass(t, tuple) and t is not tuple:
        names = getattr(t, "_fields", None)
        if type(names) is tuple and len(names) == tuple.__len__(value):
            return {str(n): tuple.__getitem__(value, i) for i, n in enumerate(names)}
        return None
    if t in _SCALARS or issubclass(t, (list, tuple, set, frozenset, type)):
        return None
    try:
        d = object.__getattribute__(value, "__dict__")
    except Exception:
        return None
    return {k: v for k, v in d.items() if type(k) is str} if type(d) is dict else None


def _same(a, b, depth=0) -> bool:
    """Whether two values are equal, judged without user code: scalars by ``==``, lists,
    tuples and entries recursively, anything else only by identity."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta in _SCALARS and tb in _SCALARS:
        return ta is tb and a == b
    if depth > 6:
        return False
    if ta in (list, tuple) and tb is ta:
        return len(a) == len(b) and all(_same(a[i], b[i], depth + 1) for i in range(len(a)))
    fa, fb = _fields(a), _fields(b)
    if (
        fa is None
        or fb is None
        or (ta is not tb and not (issubclass(ta, dict) and issubclass(tb, dict)))
    ):
        return False
    return fa.keys() == fb.keys() and all(_same(fa[k], fb[k], depth + 1) for k in fa)


def _differing_keys(left, right, out, depth) -> None:
    """The named entries where the two sides of a failed ``==`` differ, innermost first
    along each path: ``["changed", key]`` (both have it), ``["extra", key]`` (only the
    left, the value the code made, most often), ``["missing", key]``. Dict keys that are
    strings and objects' attribute names; lists and tuples of one length are followed
    item by item. Read without running user code (no ``__eq__``, no ``__repr__``)."""
    if depth > 6 or len(out) >= _MAX_KEYS:
        return
    ta, tb = type(left), type(right)
    if ta in (list, tuple) and tb is ta:
        if len(left) == len(right):
            for i in range(len(left)):  # (no zip(strict=): the target may be older)
                if not _same(left[i], right[i]):
                    _differing_keys(left[i], right[i], out, depth + 1)
        return
    fa, fb = _fields(left), _fields(right)
    if fa is None or fb is None:
        return
    for k in fa:
        if len(out) >= _MAX_KEYS:
            return
        if k not in fb:
            out.append(["extra", k])
        elif not _same(fa[k], fb[k]):
            before = len(out)
            _differing_keys(fa[k], fb[k], out, depth + 1)
            if len(out) == before and len(out) < _MAX_KEYS:
                out.append(["changed", k])
    for k in fb:
        if k not in fa and len(out) < _MAX_KEYS:
            out.append(["missing", k])


def _quiet(func, compares=False):
    def explaining(*args, **kwargs):
        if compares and _watching and _ctx is not None and _ctx[0] == "T":
            _record_compared(args)
        entered = _explain_enter()
        try:
            return func(*args, **kwargs)
        finally:
            if entered:
                _leave_context()

    return explaining


def _watch_unittest_equal() -> None:
    """unittest-style tests (``self.assertEqual(a, b)``) never reach pytest's assertion
    rewriting: keep the operands of a failed ``assertEqual`` the same way (the wrapper is
    hidden from tracebacks, pytest's and unittest's)."""
    try:
        from unittest import case
    except Exception:
        return
    original = case.TestCase.assertEqual
    if getattr(original, "_truegreen", False):
        return

    def assertEqual(self, first, second, msg=None):
        __tracebackhide__ = True
        try:
            return original(self, first, second, msg)
        except self.failureException:
            if _watching and _ctx is not None and _ctx[0] == "T":
                _record_compared((("==",), (False,), ("",), (first, second)))
            raise

    assertEqual._truegreen = True
    case.TestCase.assertEqual = assertEqual


#: unittest leaves frames of modules that set this out of its tracebacks (the wrapper above)
__unittest = True


def _quiet_explanations() -> None:
    """Wrap the helpers that assertion-rewritten tests call only to explain a failure."""
    try:
        from _pytest.assertion import rewrite
    except Exception:
        return
    for name in ("_saferepr", "_format_assertmsg", "_call_reprcompare"):
        func = getattr(rewrite, name, None)
        if callable(func):
            setattr(rewrite, name, _quiet(func, compares=name == "_call_reprcompare"))


def _quiet_unittest_explanations() -> None:
    """The same for unittest's assertion methods, which explain a failure with ``repr``
    (``safe_repr``, ``_common_shorten_repr``) and ``pprint.pformat``: a project class's
    ``__repr__`` would look like code only the failing tests run."""
    try:
        from unittest import case, util
    except Exception:
        return
    for mod in (case, util):
        for name in ("safe_repr", "_common_shorten_repr"):
            func = getattr(mod, name, None)
            if callable(func) and not getattr(func, "_truegreen", False):
                quiet = _quiet(func)
                quiet._truegreen = True
                setattr(mod, name, quiet)
    printer = getattr(case, "pprint", None)
    if isinstance(printer, types.ModuleType):
        # unittest.case's own name for the module: the module itself stays as it is
        proxy = types.ModuleType(printer.__name__)
        proxy.__dict__.update(printer.__dict__)
        proxy.pformat = _quiet(printer.pformat)
        case.pprint = proxy


# ---------------------------------------------------------------- settrace engine


def _global(frame, event, arg):
    code = frame.f_code
    kind = _kind.get(code)
    if kind is None:
        kind = _classify(code)
    if kind == _SKIP:
        if _watching:
            _mock_called(frame, code)
        return None
    seen = _cur.get(code)
    if seen is None:
        seen = _cur[code] = set()
    if _watching and kind == _FUNC:
        return _value_call(frame, code, seen.add)
    if kind == _FUNC and len(seen) >= _nlines[code]:
        return None  # every line of it already ran in this phase
    if kind == _IMPORT:
        imp = _import_lines.setdefault(_file_of[code], set())
        add_imp = imp.add
        add = seen.add

        def _local_import(frame, event, arg):
            if event == "line":
                ln = frame.f_lineno
                add(ln)
                add_imp(ln)
            return _local_import

        return _local_import
    add = seen.add

    def _local(frame, event, arg):
        if event == "line":
            add(frame.f_lineno)
        return _local

    return _local


# ---------------------------------------------------------------- probe engine (< 3.12)
#
# Any trace function puts CPython 3.11 on its slow path for every frame, library and
# pytest code included (about 2x the session time even when the trace function returns
# at once). So before 3.12 the project's own modules are instrumented instead, as they
# are imported: each statement is preceded by a call of a C method (``set.add`` of one
# shared set) with a constant key for (file, statement line); nothing else is slowed.

_PROBE = "__truegreen_probe__"
_hits: set = set()  # keys hit in the current context (cleared, never replaced)
_probe_files: list = []  # key // _KEY_SPAN -> file
_probe_import: set = set()  # keys of module- and class-level statements
_KEY_SPAN = 1 << 22
# Receivers: each method of a project class starts with ``__truegreen_recv__(type(self))``
# (``cls`` itself for class methods and ``__new__``): which classes' instances a test
# used, so that a class attribute (``timeframes = {...}`` in one locale class of sixty,
# read as ``self.timeframes`` by a base-class method) goes to the tests that used an
# instance of that class, not to every test that read an attribute of that name.
_RECV = "__truegreen_recv__"
_TYPE = "__truegreen_type__"
_recv: set = set()  # receiver classes in the current context (cleared, never replaced)
_phase_recv: dict = {}  # nodeid -> set of receiver classes (all phases)


def _recv_flush() -> None:
    if _recv:
        got = list(_recv)
        _recv.clear()
        if _ctx is not None and _ctx[0] == "T":
            _phase_recv.setdefault(_ctx[1], set()).update(got)


def _probe_flush() -> None:
    if not _hits:
        return
    keys = list(_hits)
    _hits.clear()
    target = _target()
    for key in keys:
        rel = _probe_files[key // _KEY_SPAN]
        line = key % _KEY_SPAN
        s = target.get(rel)
        if s is None:
            s = target[rel] = set()
        s.add(line)
        if key in _probe_import:
            _import_lines.setdefault(rel, set()).add(line)


def _instrument(tree, rel):
    """``tree`` with a probe before each statement (docstrings and ``from __future__``
    imports stay first)."""
    base = len(_probe_files) * _KEY_SPAN
    _probe_files.append(rel)

    def probe(line, at_import):
        key = base + line
        if at_import:
            _probe_import.add(key)
        call = ast.Call(ast.Name(_PROBE, ast.Load()), [ast.Constant(key)], [])
        return _located(ast.Expr(call), line)

    def body(stmts, at_import, first=False, func=False, in_class=False):
        out = []
        pending = []  # a module's or class's docstring and __future__ imports
        for i, st in enumerate(stmts):
            keep_first = (
                first
                and i == len(out)  # nothing but docstring / __future__ so far
                and (
                    (
                        isinstance(st, ast.Expr)
                        and isinstance(st.value, ast.Constant)
                        and isinstance(st.value.value, str)
                    )
                    or (isinstance(st, ast.ImportFrom) and st.module == "__future__")
                )
            )
            if keep_first:
                if not func:
                    pending.append(st.lineno)
            else:
                out += [probe(ln, at_import) for ln in pending]
                pending = []
                if not isinstance(st, (ast.Global, ast.Nonlocal)):  # no code, no line event
                    out.append(probe(st.lineno, at_import))
            visit(st, at_import, in_class)
            out.append(st)
        return out + [probe(ln, at_import) for ln in pending]

    def visit(st, at_import, in_class=False):
        func = isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
        inner = False if func else at_import
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(st, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                first = field == "body" and (func or isinstance(st, ast.ClassDef))
                # a class body's statements (and those of if/try blocks in it) are its own
                here = isinstance(st, ast.ClassDef) or (in_class and not func)
                setattr(st, field, body(stmts, inner, first=first, func=func, in_class=here))
        if func and in_class:
            _receiver(st)
        for h in getattr(st, "handlers", ()) or ():
            h.body = [probe(h.lineno, inner), *body(h.body, inner)]
        for case in getattr(st, "cases", ()) or ():
            case.body = [probe(case.pattern.lineno, inner), *body(case.body, inner)]

    tree.body = body(tree.body, True, first=True)
    return tree


def _receiver(fn) -> None:
    """Start a method's body (after its docstring) with a record of its receiver's class."""
    args = [*fn.args.posonlyargs, *fn.args.args]
    names = {d.id for d in fn.decorator_list if isinstance(d, ast.Name)}
    if not args or "staticmethod" in names:
        return
    first = ast.Name(args[0].arg, ast.Load())
    if "classmethod" in names or fn.name in ("__new__", "__init_subclass__", "__class_getitem__"):
        arg = first  # the class itself
    else:
        arg = ast.Call(ast.Name(_TYPE, ast.Load()), [first], [])
    stmt = ast.Expr(ast.Call(ast.Name(_RECV, ast.Load()), [arg], []))
    body = fn.body
    at = int(  # after the docstring
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )
    line = body[at].lineno if at < len(body) else fn.lineno
    for n in ast.walk(stmt):
        n.lineno = n.end_lineno = line
        n.col_offset = n.end_col_offset = 0
    fn.body.insert(at, stmt)


def _instrument_receivers(tree):
    """``tree`` with only the receiver records (see ``_receiver``): the engines that
    need no probes still tell which classes' instances a test used."""

    def visit(stmts, in_class):
        for st in stmts:
            if in_class and isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                _receiver(st)
            inner = isinstance(st, ast.ClassDef) or (
                in_class and not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
            for field in ("body", "orelse", "finalbody"):
                block = getattr(st, field, None)
                if isinstance(block, list):
                    visit([b for b in block if isinstance(b, ast.stmt)], inner)
            for h in getattr(st, "handlers", ()) or ():
                visit(h.body, inner)
            for case in getattr(st, "cases", ()) or ():
                visit(case.body, inner)

    visit(tree.body, False)
    return tree


def _located(node, line):
    for n in (node, node.value, node.value.func, *node.value.args):
        n.lineno = n.end_lineno = line
        n.col_offset = n.end_col_offset = 0
    return node


_CODE_CACHE_VAR = "TRUEGREEN_TRACE_CODE_CACHE"  # cached instrumented code, read only
_CODE_OUT_VAR = "TRUEGREEN_TRACE_CODE_OUT"  # where this run writes code it compiled
_cache_tag_memo: list = []


def _cache_tag() -> str:
    """This tracer's version: a change to the instrumentation (or another Python's
    bytecode) never reads code compiled by another."""
    if not _cache_tag_memo:
        with open(__file__, "rb") as fh:
            mine = fh.read()
        digest = hashlib.blake2b(mine + importlib.util.MAGIC_NUMBER, digest_size=6)
        _cache_tag_memo.append(digest.hexdigest())
    return _cache_tag_memo[0]


def code_cache_name(root: str, rel: str, probes: bool, tag: str) -> str:
    """The cache file of a project module's instrumented code: ``TAG-KEY.pyc``, where
    truegreen computes the same KEY (``localize.engine._code_key``) to accept only what
    a run wrote for its own project's modules."""
    key = "\0".join((root, rel, "probe" if probes else "receivers")).encode("utf-8", "replace")
    return f"{tag}-{hashlib.blake2b(key, digest_size=12).hexdigest()}.pyc"


def _instrumented_code(path, rel, source, probes):
    """A project module's instrumented code. Parsing, instrumenting and compiling a large
    module costs a tenth of a second a bare run (reading its ``.pyc``) does not pay, so
    truegreen keeps the code in its own cache (never in the checkout): this run reads it
    from ``TRUEGREEN_TRACE_CODE_CACHE`` and writes what it had to compile to
    ``TRUEGREEN_TRACE_CODE_OUT``. It is used only for the same source, path, tracer and
    (probe engine) probe index: the index is the module's place in this run's import
    order, the same from run to run for the same tests."""
    index = len(_probe_files) if probes else -1
    digest = hashlib.blake2b(
        b"\0".join((path.encode("utf-8", "surrogateescape"), b"%d" % index, source)),
        digest_size=16,
    ).digest()
    name = None
    if rel is not None and _root:
        name = code_cache_name(_root, rel, probes, _cache_tag())
    cached = os.environ.get(_CODE_CACHE_VAR)
    if name is not None and cached:
        try:
            with open(os.path.join(cached, name), "rb") as fh:
                data = fh.read()
            if data[:16] == digest:
                lines, code = marshal.loads(data[16:])
                if probes:
                    base = index * _KEY_SPAN
                    _probe_files.append(rel)
                    _probe_import.update(base + ln for ln in lines)
                return code
        except (OSError, ValueError, EOFError, TypeError):
            pass
    tree = ast.parse(source, path)
    tree = _instrument(tree, rel) if probes else _instrument_receivers(tree)
    code = compile(tree, path, "exec", dont_inherit=True)
    out = os.environ.get(_CODE_OUT_VAR)
    if name is not None and out:
        lines = ()
        if probes:
            base = index * _KEY_SPAN
            lines = tuple(sorted(k - base for k in _probe_import if base <= k < base + _KEY_SPAN))
        with contextlib.suppress(OSError), open(os.path.join(out, name), "wb") as fh:
            fh.write(digest + marshal.dumps((lines, code)))
    return code


def _install_import_hook(probes: bool) -> None:
    """Wrap the loader of every project module imported from now on: its body runs in an
    import context (see ``_import_enter``); with ``probes``, it is also instrumented (the
    probe engine)."""
    import builtins
    import importlib.machinery as machinery

    class _Loader(machinery.SourceFileLoader):
        def get_code(self, fullname):
            source = self.get_data(self.path)
            try:
                return _instrumented_code(self.path, _rel(self.path), source, probes)
            except Exception:  # never break an import: fall back to the plain module
                return super().get_code(fullname)

        def exec_module(self, module):
            entered = _import_enter(_rel(self.path))
            try:
                super().exec_module(module)
            finally:
                if entered:
                    _leave_context()

    class _Finder:
        @classmethod
        def find_spec(cls, fullname, path=None, target=None):
            for finder in sys.meta_path:
                if finder is cls:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
            loader = spec.loader
            if type(loader) is machinery.SourceFileLoader and spec.origin:
                rel = _rel(spec.origin)
                if rel is not None and not _is_test_rel(rel):
                    spec.loader = _Loader(loader.name, loader.path)
            return spec

    if probes:
        setattr(builtins, _PROBE, _hits.add)
    setattr(builtins, _RECV, _recv.add)
    setattr(builtins, _TYPE, type)
    sys.meta_path.insert(0, _Finder)


# ---------------------------------------------------------------- sys.monitoring engine

_TOOL = 4  # sys.monitoring tool id (0-5); 4 is unassigned by convention
_mon_lines: dict = {}  # file -> set, for the current context


def _mon_flush() -> None:
    global _mon_lines
    cur, _mon_lines = _mon_lines, {}
    if not cur:
        return
    target = _target()
    for rel, lines in cur.items():
        target.setdefault(rel, set()).update(lines)


_mon_on: set = set()  # code objects seen by PY_START


def _mon_start(code, offset):
    if code not in _mon_on:
        # (not keyed on _kind: value capture may have classified the code object first)
        _mon_on.add(code)
        kind = _kind.get(code)
        if kind is None:
            kind = _classify(code)
        if kind != _SKIP:
            # LINE events only for project code: local events, so library and test
            # code never pays for a callback
            sys.monitoring.set_local_events(_TOOL, code, sys.monitoring.events.LINE)
    return sys.monitoring.DISABLE


def _mon_line(code, line):
    rel = _file_of[code]
    s = _mon_lines.get(rel)
    if s is None:
        s = _mon_lines[rel] = set()
    s.add(line)
    if _kind[code] == _IMPORT:
        _import_lines.setdefault(rel, set()).add(line)


def _start_monitoring() -> bool:
    mon = getattr(sys, "monitoring", None)
    if mon is None:
        return False
    try:
        mon.use_tool_id(_TOOL, "truegreen")
    except ValueError:
        return False  # another tool holds the id (a debugger, coverage.py's sysmon core)
    mon.register_callback(_TOOL, mon.events.PY_START, _mon_start)
    mon.register_callback(_TOOL, mon.events.LINE, _mon_line)
    # PY_START is disabled per code object after its first call (never restarted), so
    # the steady-state cost is one callback per executed line of project code.
    mon.set_events(_TOOL, mon.events.PY_START)
    return True


def _stop_monitoring() -> None:
    mon = sys.monitoring
    mon.set_events(_TOOL, 0)
    mon.register_callback(_TOOL, mon.events.PY_START, None)
    mon.register_callback(_TOOL, mon.events.LINE, None)
    mon.free_tool_id(_TOOL)


# ---------------------------------------------------------------- value capture

_values_cfg: dict = {}
_watching = False  # the current test phase records values
_values: dict = {}  # nodeid -> {"states": [], "assigns": [], "returns": []}
#: A state, assignment or return is kept as its JSON text, encoded when it is recorded:
#: thousands of nested dicts kept alive would be traversed by every full garbage collection
#: for the rest of the session (pytest's own cleanup runs several), which cost a watched
#: test's session up to half again its time; texts are not traversed.
_encode = json.JSONEncoder(default=str).encode
_RECORD_LISTS = ("states", "assigns", "returns")
_secrets: dict = {}  # sha256 -> len
_seq = [0]
_last_return = [None]  # (seq, file, line, value)

_MAX_STR = 120
_MAX_ITEMS = 6
_MAX_DEPTH = 3
_PER_LINE = 6
_MAX_STATES = 4000
_MAX_ASSIGNS = 4000
_MAX_RETURNS = 2000
#: line and return events whose locals are read, per test: value capture runs every line
#: of project code under a trace function, so a test that loops long is cut short here
_MAX_EVENTS = 20000
#: a watched neighbour's budget: its values are compared with the failing test's on the
#: lines both ran, and every event costs a snapshot of the frame's locals
_MAX_SIBLING_EVENTS = 4000
_value_targets: frozenset = frozenset()  # the watched tests that are targets (full budget)


def _value_rec(nid) -> dict:
    rec = _values.get(nid)
    if rec is None:
        budget = _MAX_EVENTS if nid in _value_targets else _MAX_SIBLING_EVENTS
        rec = _values[nid] = {
            "states": [],
            "assigns": [],
            "returns": [],
            "per": {},
            "events": [0],
            "budget": budget,
        }
    return rec


#: names whose every value is a secret ("author" is not "auth", "authority" is)
_SECRET_NAME = re.compile(
    r"(pass(wd|word|phrase)?|secret|api[_-]?key|apikey|private[_-]?key|credential|"
    r"auth(?!ors?(?![a-z]))|cookie|session[_-]?id|bearer|access[_-]?key|client[_-]?secret)",
    re.I,
)
#: names that are as often a parser's, a lexer's or inspect's as a credential's: under
#: them only a string that could be a credential (opaque: see ``_opaque``) is a secret, so
#: a markdown or SQL lexer's ``token = {"type": "text", "raw": "[link]("}`` stays readable
_AMBIGUOUS_NAME = re.compile(r"(token|signature)", re.I)
#: what an opaque credential never holds: whitespace, brackets, quotes, markup
_TEXTUAL = re.compile(r"[\s()\[\]{}<>*#\"'`,;]")
_SECRET_SHAPE = re.compile(
    r"(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|"
    r"xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|"
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|AIza[0-9A-Za-z_-]{30,})"
)
_TOKENISH = re.compile(r"^[A-Za-z0-9_\-+/=.]{24,}$")


# A snapshot asks both questions of every local, at every traced line: the same few names
# and strings again and again, so the answers are remembered (bounded).
_name_verdicts: dict = {}
_shape_verdicts: dict = {}
_VERDICTS_MAX = 50000


def _secret_name(name: str) -> int:
    """2: the name's values are secrets; 1: its opaque strings are (see
    ``_AMBIGUOUS_NAME``); 0: neither."""
    got = _name_verdicts.get(name)
    if got is None:
        if len(_name_verdicts) >= _VERDICTS_MAX:
            _name_verdicts.clear()
        if _SECRET_NAME.search(name) is not None:
            got = 2
        else:
            got = 1 if _AMBIGUOUS_NAME.search(name) is not None else 0
        _name_verdicts[name] = got
    return got


def _opaque(s: str) -> bool:
    """Could be a credential: 8 characters or more, none of them whitespace, brackets,
    quotes or markup."""
    return len(s) >= 8 and _TEXTUAL.search(s) is None


def _looks_secret(s: str) -> bool:
    got = _shape_verdicts.get(s)
    if got is None:
        if len(_shape_verdicts) >= _VERDICTS_MAX:
            _shape_verdicts.clear()
        got = _shape_verdicts[s] = _secret_shape(s)
    return got


def _secret_shape(s: str) -> bool:
    if _SECRET_SHAPE.search(s):
        return True
    if _TOKENISH.match(s):
        classes = (
            any(c.islower() for c in s) + any(c.isupper() for c in s) + any(c.isdigit() for c in s)
        )
        return classes >= 3 and len(set(s)) >= 12
    return False


def _note_secret(value) -> None:
    # short plain words ("values", "author") would scrub ordinary text out of the report
    if isinstance(value, str) and (len(value) >= 8 or (len(value) >= 5 and not value.isalpha())):
        _secrets[hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()] = len(value)
    elif isinstance(value, bytes) and len(value) >= 4:
        with contextlib.suppress(UnicodeDecodeError):
            _note_secret(value.decode("utf-8"))


def _redact_all(value, depth=0) -> None:
    """Remember every string inside a secret-named value, so it can be scrubbed."""
    t = type(value)
    if t is str or t is bytes:
        _note_secret(value)
    elif depth < _MAX_DEPTH and t in (list, tuple, set, frozenset):
        for v in list(value)[:50]:
            _redact_all(v, depth + 1)
    elif depth < _MAX_DEPTH and t is dict:
        for v in list(value.values())[:50]:
            _redact_all(v, depth + 1)


_REDACTED = "<redacted>"


def _type_name(value) -> str:
    try:
        t = type(value)
        name = type.__getattribute__(t, "__qualname__")
        return name if isinstance(name, str) else "object"
    except Exception:
        return "object"


#: type -> how ``_safe`` renders its instances when it is none of the builtins it knows:
#: ("str", name) for the decimal and date types, a fixed rendering for functions, classes
#: and modules, else ("object", qualified name); asked once per type, not per value
_type_kinds: dict = {}
_STR_TYPES = frozenset({"Decimal", "Fraction", "date", "datetime", "time", "timedelta"})


def _type_kind(t, value):
    got = _type_kinds.get(t)
    if got is None:
        mod = getattr(t, "__module__", "")
        if mod in ("decimal", "fractions", "datetime") and t.__name__ in _STR_TYPES:
            got = ("str", t.__name__)
        elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
            got = ("fixed", "function")
        elif isinstance(value, type):
            got = ("fixed", "class")
        elif isinstance(value, types.ModuleType):
            got = ("fixed", "module")
        else:
            got = ("object", _type_name(value))
        # isinstance also asks an object's __class__, which a proxy (a mock with a spec)
        # overrides per instance: such types are asked every time
        if len(_type_kinds) < 10000 and not _overrides_class(t):
            _type_kinds[t] = got
    return got


def _overrides_class(t) -> bool:
    try:
        return any("__class__" in type.__getattribute__(c, "__dict__") for c in t.__mro__[:-1])
    except Exception:
        return True


def _safe(value, depth=0, opaque=False):
    """A JSON-able rendering of ``value`` that runs no user code; ``opaque``: under a name
    that holds credentials as often as not, whose opaque strings are redacted. Called for
    every local at every traced line: the common types are asked first, and a container
    is read only as far as it is shown (``_MAX_ITEMS``), never copied whole."""
    t = type(value)
    if t is str:
        if _looks_secret(value) or (opaque and _opaque(value)):
            _note_secret(value)
            return _REDACTED
        if len(value) > _MAX_STR:
            return {"type": "str", "len": len(value), "head": value[: _MAX_STR // 2]}
        return value
    if value is None or t is bool:
        return value
    if t is int:
        if -(10**15) < value < 10**15:
            return value
        return {"type": "int", "digits": len(str(abs(value)))}
    if t is float:
        if value != value or value in (_INF, _NINF):
            return {"type": "float", "repr": repr(value)}
        return value
    if t is list or t is tuple:
        n = len(value)
        if depth >= _MAX_DEPTH:
            return {"type": t.__name__, "len": n}
        return {
            "type": t.__name__,
            "len": n,
            "items": [_safe(v, depth + 1, opaque) for v in value[:_MAX_ITEMS]],
        }
    if t is dict:
        n = len(value)
        if depth >= _MAX_DEPTH:
            return {"type": "dict", "len": n}
        items = {}
        for k, v in _head(value):
            key = k if type(k) is str else _key(k)
            kind = _secret_name(k) if type(k) is str else 0
            if kind == 2:
                _redact_all(v)
                items[key] = _REDACTED
            else:
                items[key] = _safe(v, depth + 1, opaque or kind == 1)
        return {"type": "dict", "len": n, "items": items}
    if t is set or t is frozenset:
        n = len(value)
        if depth >= _MAX_DEPTH:
            return {"type": t.__name__, "len": n}
        items = _sorted_head(value)
        return {"type": t.__name__, "len": n, "items": [_safe(v, depth + 1, opaque) for v in items]}
    if t is bytes:
        return {"type": "bytes", "len": len(value)}
    if t is complex:
        return {"type": "complex", "repr": repr(value)}
    how, name = _type_kind(t, value)
    if how == "str":
        return {"type": name, "str": str(value)}
    if how == "fixed":
        return {"type": name}
    doc = {"type": name}
    if depth < _MAX_DEPTH - 1:
        try:
            d = object.__getattribute__(value, "__dict__")
        except Exception:
            d = None
        if type(d) is dict:
            fields = {}
            for k, v in _head(d):
                if type(k) is not str:
                    continue
                kind = _secret_name(k)
                if kind == 2:
                    _redact_all(v)
                    fields[k] = _REDACTED
                else:
                    fields[k] = _safe(v, depth + 1, opaque or kind == 1)
            doc["fields"] = fields
    return doc


_INF = float("inf")
_NINF = float("-inf")


def _head(d: dict) -> list:
    """The first ``_MAX_ITEMS`` items of a dict, without copying the rest."""
    if len(d) <= _MAX_ITEMS:
        return list(d.items())
    return list(itertools.islice(d.items(), _MAX_ITEMS))


def _key(k) -> str:
    r = _safe(k, _MAX_DEPTH)
    return r if isinstance(r, str) else json.dumps(r, sort_keys=True, default=str)


def _sorted_head(value):
    items = list(value)
    try:
        if all(type(v) in (int, float, str) for v in items[:200]):
            items = sorted(items[:200], key=lambda v: (type(v).__name__, v))
    except Exception:
        pass
    return items[:_MAX_ITEMS]


def _snapshot(frame) -> dict:
    out = {}
    try:
        loc = frame.f_locals
    except Exception:
        return out
    for name, value in list(loc.items())[:40]:
        if type(name) is not str:
            continue
        kind = _secret_name(name)
        if kind == 2:
            _redact_all(value)
            out[name] = _REDACTED
        else:
            try:
                out[name] = _safe(value, 0, kind == 1)
            except Exception:
                out[name] = {"type": "unserializable"}
    return out


def _value_global(frame, event, arg):
    """The trace function while a watched test runs under the monitoring engine (which
    records the lines itself): value capture only."""
    code = frame.f_code
    kind = _kind.get(code)
    if kind is None:
        kind = _classify(code)
    if kind == _SKIP:
        _mock_called(frame, code)
        return None
    return _value_call(frame, code, None) if kind == _FUNC else None


_MOCK_FILES = ("/unittest/mock.py", "/mock/mock.py")
_mock_entry: dict = {}  # code -> whether it is a mock object's __call__
_MAX_MOCK_CALLS = 200


def _mock_called(frame, code) -> None:
    """While a watched test runs: a call of a ``unittest.mock`` object is recorded with the
    project line it came from (the nearest project frame up the stack: the project may
    call a library that calls the mock). What a failed ``assert_called_with`` checks was
    made there."""
    is_mock = _mock_entry.get(code)
    if is_mock is None:
        name = code.co_filename.replace("\\", "/")
        is_mock = _mock_entry[code] = code.co_name == "__call__" and name.endswith(_MOCK_FILES)
    if not is_mock or _ctx is None or _ctx[0] != "T":
        return
    caller = frame.f_back
    depth = 0
    while caller is not None and depth < 30:
        ccode = caller.f_code
        kind = _kind.get(ccode)
        if kind is None:
            kind = _classify(ccode)
        if kind != _SKIP:
            calls = _value_rec(_ctx[1]).setdefault("mock_calls", [])
            entry = {"file": _file_of[ccode], "line": caller.f_lineno}
            if len(calls) < _MAX_MOCK_CALLS and entry not in calls:
                calls.append(entry)
            return
        caller = caller.f_back
        depth += 1


def _value_call(frame, code, add_line):
    """A local trace function recording values (and, given ``add_line``, lines)."""
    if _ctx is None or _ctx[0] != "T":
        return None
    rec = _value_rec(_ctx[1])
    events = rec["events"]
    budget = rec["budget"]
    if events[0] >= budget and add_line is None:
        sys.settrace(None)  # spent: see _local
        return None
    rel = _file_of[code]
    func = code.co_name
    state = {"line": None, "snap": None, "seq": 0}

    def _local(frame, event, arg):
        if events[0] >= budget:  # over budget: lines only (settrace engine), or stop
            if add_line is None:
                # nothing more to record: no trace function at all for the rest of the
                # test (on 3.11 one makes every call slow; a test that loops long, as a
                # DoS test does, paid several times its run for values it did not keep)
                sys.settrace(None)
                return None
            if event == "line":
                add_line(frame.f_lineno)
            return _local
        if event == "line" or event == "return":
            events[0] += 1
            _seq[0] += 1
            seq = _seq[0]
            snap = _snapshot(frame)
            prev_line, prev = state["line"], state["snap"]
            if prev_line is None and event == "line" and len(rec["assigns"]) < _MAX_ASSIGNS:
                _argument_edges(frame, code, snap, seq, rec["assigns"])
            if prev_line is not None and len(rec["assigns"]) < _MAX_ASSIGNS:
                for name, val in snap.items():
                    if name not in prev or prev[name] != val:
                        a = {
                            "file": rel,
                            "line": prev_line,
                            "func": func,
                            "var": name,
                            "value": val,
                            "seq": seq,
                        }
                        lr = _last_return[0]
                        if lr is not None and lr[0] > state["seq"] and lr[3] == val:
                            a["from"] = {"file": lr[1], "line": lr[2]}
                        rec["assigns"].append(_encode(a))
            if event == "line":
                ln = frame.f_lineno
                if add_line is not None:
                    add_line(ln)
                key = (rel, ln)
                n = rec["per"].get(key, 0)
                rec["per"][key] = n + 1
                if n < _PER_LINE and len(rec["states"]) < _MAX_STATES:
                    rec["states"].append(
                        _encode(
                            {"file": rel, "line": ln, "func": func, "locals": snap, "hit": n + 1}
                        )
                    )
                state["line"], state["snap"], state["seq"] = ln, snap, seq
            else:
                if not state.get("raised") and len(rec["returns"]) < _MAX_RETURNS:
                    try:
                        val = _safe(arg)
                    except Exception:
                        val = {"type": "unserializable"}
                    line = frame.f_lineno
                    ret = {"file": rel, "line": line, "func": func, "value": val, "seq": seq}
                    back = frame.f_back
                    if back is not None and _in_test_file(back.f_code):
                        ret["to_test"] = True  # the value the test itself received
                    rec["returns"].append(_encode(ret))
                    _last_return[0] = (seq, rel, line, val)
        elif event == "exception":
            state["raised"] = True
        if event == "line":
            state["raised"] = False
        return _local

    return _local


_watch: frozenset = frozenset()


def _argument_edges(frame, code, snap, seq, assigns) -> None:
    """A project function's first line: each argument its project caller built in the
    call itself (``raise Invalid("one of {}".format(c))``, ``f(x + 1)``), not a variable
    of the caller passed along, was produced at the caller's line. Without this, a value
    made inside a call's arguments has no producer: it is nobody's assignment or return."""
    back = frame.f_back
    if back is None:
        return
    bcode = back.f_code
    kind = _kind.get(bcode)
    if kind is None:
        kind = _classify(bcode)
    if kind == _SKIP:
        return  # called by a test or a library: the test's own inputs are not made here
    # texts only: another object may be made here or read from an attribute, no telling
    try:
        mine = frame.f_locals
        texts = [
            (name, mine[name])
            for name in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            if name in snap and type(mine.get(name)) is str
        ]
        theirs = list(back.f_locals.values()) if texts else []
    except Exception:
        return
    for name, raw in texts:
        if any(raw is v for v in theirs):
            continue  # one of the caller's variables, passed along: not made here
        assigns.append(
            _encode(
                {
                    "file": _file_of[bcode],
                    "line": back.f_lineno,
                    "func": bcode.co_name,
                    "var": name,
                    "value": snap[name],
                    "seq": seq,
                    "arg": True,
                }
            )
        )


# ---------------------------------------------------------------- the import graph


def _import_graph() -> dict:
    """For each project (and test) module: the project modules its globals refer to."""
    graph: dict = {}
    for mod in list(sys.modules.values()):
        try:
            f = mod.__dict__.get("__file__")
        except Exception:
            continue
        if not isinstance(f, str):
            continue
        src = _rel(f)
        if src is None:
            continue
        refs = set()
        for v in list(mod.__dict__.values()):
            target = None
            try:
                if isinstance(v, types.ModuleType):
                    target = v.__dict__.get("__file__")
                elif isinstance(v, (type, types.FunctionType)):
                    m = sys.modules.get(
                        type.__getattribute__(v, "__module__")
                        if isinstance(v, type)
                        else v.__module__
                    )
                    target = m.__dict__.get("__file__") if m is not None else None
            except Exception:
                target = None
            if isinstance(target, str):
                r = _rel(target)
                if r is not None and r != src:
                    refs.add(r)
        graph[src] = sorted(refs)
    return graph


# ---------------------------------------------------------------- pytest hooks

_out = None
_graph: dict = {}


def _start() -> None:
    global _root, _out, _engine, _watch, _values_cfg
    _out = os.environ.get(_OUT_VAR)
    root = os.environ.get(_ROOT_VAR)
    if not _out or not root:
        return
    _root = os.path.abspath(root)
    vpath = os.environ.get(_VALUES_VAR)
    if vpath:
        try:
            with open(vpath, encoding="utf-8") as fh:
                _values_cfg = json.load(fh)
        except (OSError, ValueError):
            _values_cfg = {}
        _watch = frozenset(_values_cfg.get("tests", []))
    _quiet_explanations()
    _quiet_unittest_explanations()
    if _watch:
        _watch_unittest_equal()
    if _probes_installed:
        _engine = "probe"
    elif _wanted_engine() == "monitoring" and _start_monitoring():
        _engine = "monitoring"
    else:
        _engine = "settrace"
        threading.settrace(_global)
        sys.settrace(_global)


def _wanted_engine() -> str:
    wanted = os.environ.get(_ENGINE_VAR, "")
    if wanted in ("monitoring", "probe", "settrace"):
        return wanted
    return "monitoring" if hasattr(sys, "monitoring") else "probe"


_probes_installed = False
_hooked = False  # the import hook is installed (it records receivers)


_preloaded: set = set()


def _early() -> None:
    """At plugin import, before conftest files are imported: install the import hook, so
    that every project module imported from then on runs its body in an import context
    (and, for the probe engine, is instrumented)."""
    global _root, _probes_installed, _hooked
    root = os.environ.get(_ROOT_VAR)
    if os.environ.get(_OUT_VAR) and root:
        _root = os.path.abspath(root)
        probes = _wanted_engine() == "probe"
        _install_import_hook(probes)
        _probes_installed = probes
        _hooked = True
        # project modules already imported ran their bodies unmeasured: say which
        for mod in list(sys.modules.values()):
            try:  # the module's dict: no module-level __getattr__ runs
                f = vars(mod).get("__file__") if isinstance(mod, types.ModuleType) else None
            except Exception:
                continue
            rel = _rel(f) if isinstance(f, str) else None
            if rel is not None and not _is_test_rel(rel):
                _preloaded.add(rel)


def pytest_configure(config) -> None:
    if hasattr(config, "workerinput"):
        return
    _start()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session) -> None:
    global _graph
    if _engine != "off":
        _graph = _import_graph()
        _watch_siblings(session.items)
        # Tracing slows every frame on 3.11 (the interpreter's tracing path), so it is on
        # only while project code can run: imports (collection) and test phases.
        _pause()


def _pause() -> None:
    if _engine == "settrace" or _watching:
        sys.settrace(None)


def _resume() -> None:
    if _engine == "settrace":
        sys.settrace(_global)
    elif _watching and not _spent():
        sys.settrace(_value_global)


def _spent() -> bool:
    """Whether the watched test running now has used up its value budget."""
    rec = _values.get(_ctx[1]) if _ctx is not None and _ctx[0] == "T" else None
    return rec is not None and rec["events"][0] >= rec["budget"]


def expand_ids(wanted, ids) -> list:
    """``wanted`` node ids as collected: a parametrized function named without its
    parameters (``test_x.py::test_f``) stands for its instances (``test_f[a]``...)."""
    present = set(ids)
    out: list = []
    for w in wanted:
        out += [w] if w in present else [n for n in ids if n.startswith(w + "[")]
    return out


def _watch_siblings(items) -> None:
    """Watch, next to the given tests, their nearest collected neighbours: the passing
    test to compare values with is chosen among them (by spectrum, afterwards), so that
    the values come from the same, measured run. Nearest: the same parametrized function,
    else the same class, else the same file; the closest in collection order first."""
    global _watch, _value_targets
    want = int(_values_cfg.get("siblings", 0) or 0)
    ids = [getattr(i, "nodeid", "") for i in items]
    targets = expand_ids(_values_cfg.get("tests", [])[:5], ids)
    _watch = _watch | frozenset(targets)
    _value_targets = _watch
    if not _watch or want <= 0:
        return
    pos = {nid: k for k, nid in enumerate(ids)}
    extra: list = []
    for target in targets:
        k = pos.get(target)
        if k is None:
            continue
        groups = (
            target.split("[", 1)[0],
            target.split("[", 1)[0].rsplit("::", 1)[0],
            target.split("::", 1)[0],
        )

        def near(nid, k=k, groups=groups):
            base = nid.split("[", 1)[0]
            level = next(
                (n for n, g in enumerate(groups) if base == g or base.startswith(g + "::")), 3
            )
            return (level, abs(pos[nid] - k), pos[nid])

        cands = sorted((n for n in ids if n not in _watch and n not in extra), key=near)
        extra += [n for n in cands[:want] if near(n)[0] < 3]
    _watch = _watch | frozenset(extra)


def _phase_wrapper(phase):
    def wrapper(item):
        if _engine == "off":
            yield
            return
        _switch(("T", item.nodeid, phase))
        _resume()
        try:
            yield
        finally:
            _pause()
            _switch(None)

    return wrapper


pytest_runtest_setup = pytest.hookimpl(hookwrapper=True, tryfirst=True)(_phase_wrapper("setup"))
pytest_runtest_call = pytest.hookimpl(hookwrapper=True, tryfirst=True)(_phase_wrapper("call"))
pytest_runtest_teardown = pytest.hookimpl(hookwrapper=True, tryfirst=True)(
    _phase_wrapper("teardown")
)


_failures: dict = {}
_FIRST_VAR = "TRUEGREEN_TRACE_FIRST"  # a JSON list of node ids to run before all others
_KEEP_VAR = "TRUEGREEN_TRACE_KEEP"  # a JSON list of node ids no -m/-k/--deselect leaves out


def _env_ids(name) -> list:
    try:
        ids = json.loads(os.environ.get(name) or "[]")
    except ValueError:
        return []
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(session, config, items):
    """The project's own exclusions (``-m "not slow"``, ``-k``, ``--deselect`` from its
    addopts) apply to the tests run beside the targets, never to the targets themselves:
    they are taken out of ``items`` while the other plugins deselect, and put back where
    they were. Then the tests ``first`` (if any) are moved to the front."""
    keep = _env_ids(_KEEP_VAR)
    kept: list = []
    if keep:
        where = set(expand_ids(keep, [i.nodeid for i in items]))
        order = {id(i): k for k, i in enumerate(items)}
        kept = [i for i in items if i.nodeid in where]
        items[:] = [i for i in items if i.nodeid not in where]
    yield
    if kept:
        rest = list(items)
        out: list = []
        j = 0
        for item in kept:  # before the first survivor that came after it
            while j < len(rest) and order.get(id(rest[j]), -1) < order[id(item)]:
                out.append(rest[j])
                j += 1
            out.append(item)
        items[:] = out + rest[j:]
    first = _env_ids(_FIRST_VAR)
    if not first:
        return
    first = expand_ids(first, [i.nodeid for i in items])
    at = {nid: k for k, nid in enumerate(first)}
    front = sorted((i for i in items if i.nodeid in at), key=lambda i: at[i.nodeid])
    if front:
        items[:] = front + [i for i in items if i.nodeid not in at]


#: {"deadline": epoch seconds, "keep": [node ids], "files": false (optional: only the
#: tests "keep" names always run, not the other tests of their files)}
_BUDGET_VAR = "TRUEGREEN_TRACE_BUDGET"
#: what a passing test stopped at the deadline is skipped with (truegreen.localize.budget)
_BUDGET_REASON = "truegreen: stopped at the localize time budget"
_budget_state: dict = {}


class _BudgetStop(BaseException):
    """Raised by the alarm in a passing test still running at the deadline (a
    BaseException: the test's own ``except Exception`` must not swallow it)."""


def _budget():
    """(deadline, the node ids that always run), or None without a budget."""
    if "spec" not in _budget_state:
        try:
            spec = json.loads(os.environ.get(_BUDGET_VAR) or "null")
        except ValueError:
            spec = None
        ok = isinstance(spec, dict) and isinstance(spec.get("deadline"), (int, float))
        _budget_state["spec"] = spec if ok else None
    return _budget_state["spec"]


def _budget_alarm(signum, frame):
    raise _BudgetStop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Under a time budget, a passing test is not started once the deadline has passed
    (the probe then has no report of it: truegreen counts it as left out), and one still
    running at the deadline is stopped by an alarm (reported skipped, with
    ``_BUDGET_REASON``). The targets, and the other tests of their files (unless the
    budget says ``"files": false``), always run to their end."""
    spec = _budget()
    if spec is None:
        return None
    if "keep" not in _budget_state:
        ids = [i.nodeid for i in item.session.items]
        wanted = [k for k in spec.get("keep") or [] if isinstance(k, str)]
        _budget_state["keep"] = set(expand_ids(wanted, ids))
        whole = spec.get("files", True) is not False
        _budget_state["files"] = {k.split("::", 1)[0] for k in wanted} if whole else set()
    if (
        item.nodeid in _budget_state["keep"]
        or item.nodeid.split("::", 1)[0] in _budget_state["files"]
    ):
        return None
    left = float(spec["deadline"]) - time.time()
    if left <= 0:
        return True
    # only where no one else (pytest-timeout's signal method) owns the alarm
    if (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    ):
        signal.signal(signal.SIGALRM, _budget_alarm)
        signal.setitimer(signal.ITIMER_REAL, left)
        _budget_state["armed"] = True
    return None


def pytest_runtest_logfinish(nodeid, location) -> None:
    if _budget_state.pop("armed", False):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, _BudgetStop):
        report = outcome.get_result()
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, "Skipped: " + _BUDGET_REASON)
        return
    if _engine == "off" or call.excinfo is None or item.nodeid in _failures:
        return
    try:
        report = outcome.get_result()
        if not report.failed:
            return
        frames = []
        crash_locals = None
        tb = call.excinfo.tb
        while tb is not None:
            code = tb.tb_frame.f_code
            rel = _rel(code.co_filename)
            frames.append(
                {
                    "file": rel if rel is not None else "<library>",
                    "line": tb.tb_lineno,
                    "function": code.co_name,
                    "project": rel is not None and not _is_test_rel(rel),
                }
            )
            if rel is not None and not _is_test_rel(rel):
                crash_locals = (len(frames) - 1, tb.tb_frame)
            tb = tb.tb_next
        rec = {"phase": call.when, "type": _type_name(call.excinfo.value), "frames": frames[-60:]}
        if crash_locals is not None:
            rec["crash_frame"] = crash_locals[0] - max(0, len(frames) - 60)
            rec["locals"] = _snapshot(crash_locals[1])
        _failures[item.nodeid] = rec
        if isinstance(call.excinfo.value, AssertionError):
            _record_plain_assert(item.nodeid, call.excinfo.tb)
    except Exception:
        pass


_assert_trees: dict = {}
_CMP_OPS = {
    "Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
    "Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in",
}  # fmt: skip


def _record_plain_assert(nid, tb) -> None:
    """A watched test that failed on a plain ``assert a == b`` pytest did not rewrite (in a
    helper module such as ``tests/common.py``: pytest rewrites only test modules and
    conftest files): keep the operands as the rewritten ones are kept, when they are local
    or global names of the frame that failed. Names are read from the frame's dicts; no
    expression is evaluated and no attribute of a user object is read."""
    rec = _values.get(nid)
    if rec is None or rec.get("compared"):
        return  # not watched, or the rewritten assertion already said what it compared
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame, line = tb.tb_frame, tb.tb_lineno
    filename = frame.f_code.co_filename
    if _rel(filename) is None:
        # raised in a library (unittest's ``assertEquals``, a plugin): not the test's
        # own comparison, and parsing a large library file cost 20 ms a failing test
        return
    tree = _assert_trees.get(filename)
    if tree is None:
        try:
            with open(filename, "rb") as fh:
                tree = ast.parse(fh.read(), filename)
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        _assert_trees[filename] = tree
    found = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Assert) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    if not found:
        return
    test = min(found, key=lambda n: (n.end_lineno or n.lineno) - n.lineno).test
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return
    operands = []
    for node in (test.left, test.comparators[0]):
        if isinstance(node, ast.Name):
            scope = frame.f_locals if node.id in frame.f_locals else frame.f_globals
            if node.id not in scope:
                return
            operands.append(scope[node.id])
        else:
            try:
                operands.append(ast.literal_eval(node))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return  # an expression: its value is not kept anywhere to read
    rec["compared"] = [
        _compared(_CMP_OPS.get(type(test.ops[0]).__name__, "?"), 0, operands[0], operands[1])
    ]


_early()


def _graph_with_edges() -> dict:
    """The import graph, with the imports that ran inside other modules' bodies (a module
    imported inside a function called at import time is in no module's globals)."""
    graph = {k: set(v) for k, v in (_graph or _import_graph()).items()}
    for parent, children in _import_edges.items():
        graph.setdefault(parent, set()).update(children)
    return {k: sorted(v) for k, v in sorted(graph.items())}


def _sets(d: dict) -> dict:
    return {k: sorted(v) for k, v in d.items()}


_class_cache: dict = {}


def _classes_of(cls) -> tuple:
    """The project classes in a receiver class's MRO, as (file, qualified name) pairs; read
    with ``type.__getattribute__``, so no metaclass code runs."""
    got = _class_cache.get(cls)
    if got is not None:
        return got
    out = []
    try:
        mro = type.__getattribute__(cls, "__mro__") if isinstance(cls, type) else ()
    except Exception:
        mro = ()
    for c in mro:
        try:
            mod = sys.modules.get(type.__getattribute__(c, "__module__"))
            f = vars(mod).get("__file__") if isinstance(mod, types.ModuleType) else None
            qual = type.__getattribute__(c, "__qualname__")
        except Exception:
            continue
        rel = _rel(f) if isinstance(f, str) else None
        if rel is not None and isinstance(qual, str) and not _is_test_rel(rel):
            out.append((rel, qual))
    got = _class_cache[cls] = tuple(out)
    return got


def _receivers() -> dict:
    out = {}
    for nid, classes in _phase_recv.items():
        pairs = {pair for c in classes for pair in _classes_of(c)}
        if pairs:
            out[nid] = sorted(pairs)
    return out


def _write() -> None:
    global _engine
    if _engine == "off" or not _out:
        return
    engine = _engine
    if engine == "settrace":
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
    _switch(None)
    _flush_cur()
    if engine == "probe":
        _probe_flush()
    if engine == "monitoring":
        _mon_flush()
        _stop_monitoring()
    _engine = "off"
    # the records are JSON texts already (see ``_encode``): spliced in, not encoded again
    values = []
    for nid, rec in _values.items():
        parts = []
        for k, v in rec.items():
            if k in _RECORD_LISTS:
                parts.append(f"{_encode(k)}:[{','.join(v)}]")
            elif k not in ("per", "events", "budget"):
                parts.append(f"{_encode(k)}:{_encode(v)}")
        values.append(f"{_encode(nid)}:{{{','.join(parts)}}}")
    doc = {
        "engine": engine,
        "python": ".".join(str(v) for v in sys.version_info[:3]),
        "phases": {
            nid: {ph: _sets(files) for ph, files in p.items()} for nid, p in _phases.items()
        },
        "import_lines": _sets(_import_lines),
        "session_lines": _sets(_session_lines),
        "imports": _graph_with_edges(),
        "import_runs": {f: _sets(files) for f, files in _import_runs.items()},
        "phase_imports": {
            nid: {ph: sorted(mods) for ph, mods in p.items()} for nid, p in _phase_imports.items()
        },
        "failures": _failures,
        "secrets": [{"sha256": h, "len": n} for h, n in sorted(_secrets.items())],
        "settings": {"recursionlimit": sys.getrecursionlimit()},
        "preloaded": sorted(_preloaded),
    }
    if _hooked:
        doc["receivers"] = _receivers()
    tmp = _out + ".tmp"
    # json.dumps, not json.dump: only dumps uses the C encoder (5-10x faster on the
    # values of a long test)
    text = json.dumps(doc, default=str)
    # the values last: the document is a non-empty object, so its text ends with "}"
    text = text[:-1] + ',"values":{' + ",".join(values) + "}}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, _out)
    # written: what was recorded is not read again. Dropped now, so that the garbage
    # collections pytest runs at its cleanup traverse what a bare run's would
    for recorded in (
        _values,
        _phases,
        _phase_imports,
        _phase_recv,
        _import_runs,
        _import_lines,
        _session_lines,
        _failures,
        _name_verdicts,
        _shape_verdicts,
        _assert_trees,
    ):
        recorded.clear()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    _write()
