"""truegreen's per-test recorder, for regression selection.

A pytest plugin (``-p truegreen_record``), stdlib only, loaded into the project's own
interpreter from a directory truegreen puts on ``PYTHONPATH`` while the suite runs on the
base. For each test it records:

* the functions (code objects) of files under ``TRUEGREEN_RECORD_ROOT`` that ran during
  its setup, call and teardown; with the markers tracer, also the statement lists inside
  those functions it entered (a branch of an ``if``, a loop's ``else``, the parts of a
  ``try``, a ``with`` body, a ``case``; not a loop's body), in the project's functions
  that never suspend (not in test modules and conftest files);
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

* 3.12+, ``monitoring``: ``sys.monitoring``'s PY_START and PY_RESUME events (a generator
  resumed in a later test than the one that started it), each function once per test,
  then disabled until the next test (``restart_events``);
* before 3.12, ``markers``: the project's modules (files under the root, not an
  environment inside it) are compiled as they are imported with a marker, a call of a C
  method with a constant of its own, wherever one of their code objects starts or resumes
  (see the markers tracer below), and at the start of each statement list but a loop's
  body inside a function that has no ``yield`` or ``await`` (a block's marker, named by the
  line and column of the list's first statement); test modules and conftest files too
  (function markers only), through pytest's
  assertion rewriting (whose cache of rewritten code is then neither read nor written).
  Nothing else of the run is slowed: on five real suites on 3.11 (median of 3
  interleaved runs each) a recording run took 1.1-1.5x a bare run's CPU time where neither kept
  compiled code (the profiler: 1.6-2.5x in the same runs), and 1.1-1.25x a bare run that
  reads its ``.pyc`` files where the marked code is kept (``TRUEGREEN_RECORD_CODE_CACHE``,
  below); it recorded the same functions per test as the profiler. What runs unmarked is not lost: the project's modules imported before the
  recorder (another ``-p`` plugin), or executed by a loader it does not wrap (seen
  through the audit hook's ``exec`` event), are the session's, every function of them, so
  that a change to any runs the whole suite. A generator expression is recorded where it
  is made as well as where it is resumed;
* ``profile`` (``TRUEGREEN_RECORD_TRACER=profile``, or where the markers cannot start):
  the C-level profiler of the standard library (``_lsprof``, what
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
  ``TRUEGREEN_RECORD_TRACER=settrace`` asks for it.

The tracer is checked at every switch: when it was switched off or replaced (a
RecursionError inside the trace function, a test that sets a tracer or a profiler of its
own, ``cProfile`` included), the bucket is marked ``unrecorded`` and the tracer is put back.
Files opened, directories listed and processes started are seen through an audit hook. The
record is written as JSON to ``TRUEGREEN_RECORD_OUT`` when pytest unconfigures.
"""

import hashlib
import importlib.machinery
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
    __slots__ = ("blocks", "codes", "dirs", "files", "lost", "spawned")

    def __init__(self):
        #: id -> code object: by identity, as code objects compare equal by content
        #: whatever their file (two empty modules, two alike functions at the same line)
        self.codes = {}
        #: (file, line, column) of the statement lists entered (the markers tracer)
        self.blocks = set()
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
#: asked for by ``TRUEGREEN_RECORD_TRACER`` (markers, profile or settrace; else the
#: version's own)
_WANTED = os.environ.get("TRUEGREEN_RECORD_TRACER", "")
#: the ``markers`` tracer is on
_MARKS = [False]


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
#: the ``monitoring`` tracer's events
_EVENTS = [0]


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
        elif event == "exec" and _MARKS[0] and args and type(args[0]) is _CodeType:
            _executed(args[0])
    except Exception:
        pass


def _begin():
    sys.addaudithook(_audit)
    _ACTIVE[0] = True
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None and _WANTED not in ("settrace", "profile", "markers"):
        for tool in (3, 4):
            try:
                monitoring.use_tool_id(tool, "truegreen")
            except ValueError:
                continue
            _MONITOR[0] = tool
            _DISABLE[0] = monitoring.DISABLE
            # a generator or coroutine resumed in a later test than the one that started it
            _EVENTS[0] = monitoring.events.PY_START | monitoring.events.PY_RESUME
            for event in (monitoring.events.PY_START, monitoring.events.PY_RESUME):
                monitoring.register_callback(tool, event, _start)
            monitoring.set_events(tool, _EVENTS[0])
            return
    if _WANTED not in ("settrace", "profile"):
        try:
            _markers_begin()
        except Exception:
            _markers_end()
            _MARKS[0] = False
        else:
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
    if _MARKS[0]:
        _markers_end()
    elif tool is not None:
        sys.monitoring.set_events(tool, 0)
        sys.monitoring.register_callback(tool, sys.monitoring.events.PY_START, None)
        sys.monitoring.register_callback(tool, sys.monitoring.events.PY_RESUME, None)
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
    if _MARKS[0]:
        return True  # compiled into the code: nothing can switch them off
    tool = _MONITOR[0]
    if tool is not None:
        m = sys.monitoring
        return m.get_tool(tool) == "truegreen" and m.get_events(tool) == _EVENTS[0]
    if _PROF[0] is not None:
        return sys.getprofile() is _PROF[0]
    return sys.gettrace() is _trace


def _reinstall():
    tool = _MONITOR[0]
    if tool is not None:
        m = sys.monitoring
        if m.get_tool(tool) is None:
            m.use_tool_id(tool, "truegreen")
        for event in (m.events.PY_START, m.events.PY_RESUME):
            m.register_callback(tool, event, _start)
        m.set_events(tool, _EVENTS[0])
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
    if _MARKS[0]:
        _markers_flush()
    elif _PROF[0] is not None:
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


# ---------------------------------------------------------------- the markers tracer (< 3.12)
#
# The project's modules are compiled, as they are imported, with a call of a C method (the
# ``add`` of one shared set) of a constant string, its marker, at each place a code object
# of theirs starts or resumes: the start of each function, class body and module, after
# each ``yield``, ``yield from`` and ``await`` (and where ``async for`` and ``async with``
# resume), at the start of each ``except`` and ``finally`` block (a generator closed or
# thrown into in a later test), in the body of each lambda and in the element and
# conditions of each comprehension. Nothing else is slowed. A code object is known by the
# marker in its own constants; at each switch the markers hit go to the bucket as code
# objects, the same as the profiler's.

_CodeType = type(_flush.__code__)
_MARK = "__truegreen_mark__"
#: every marker starts with this (a constant string no project writes)
_TAG = "\x00truegreen\x00"
#: the alias of a comprehension's marker, in the code that makes it
_ALIAS = "\x00truegreen\x00="
#: a block's marker: ``_BLOCK`` + the file's digest + ``:line:column`` of the block's first
#: statement (see ``_Marker._mark_blocks``)
_BLOCK = "\x00truegreen\x00#"
#: the end of a function's own marker when its blocks are marked too
_BLOCKY = "+"
#: the markers hit since the last switch (cleared, never replaced)
_hits = set()
#: marker -> the code object it is compiled into
_BY_MARK = {}
#: a block's marker -> (its file, the line and column of its first statement)
_BLOCK_OF = {}
#: ids of the code objects whose blocks are marked
_BLOCKY_CODES = set()
#: id -> code of the project's module code executed (kept alive: ids stay unique)
_EXECUTED = {}
#: pytest's assertion rewriting functions this tracer wrapped: (module, name, original)
_PATCHED = []


def _excluded(path):
    """Files under the root that are not the project's: an environment inside it."""
    if os.sep + "site-packages" + os.sep in path or os.sep + "dist-packages" + os.sep in path:
        return True
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        prefix = os.path.realpath(prefix).rstrip(os.sep) + os.sep
        if prefix.startswith(_PREFIX) and path.startswith(prefix):
            return True
    return False


def _project_file(path):
    """Whether ``path`` (a module's file) is one of the project's sources to mark."""
    if not isinstance(path, str) or not path.endswith(".py") or not os.path.isabs(path):
        return False
    real = os.path.realpath(path)
    return real.startswith(_PREFIX) and not _excluded(real)


def _at(node, anchor):
    """``node`` (a marker's statement or call) placed where ``anchor`` is."""
    line = getattr(anchor, "lineno", 1)
    col = getattr(anchor, "col_offset", 0)
    stack = [node]
    while stack:
        n = stack.pop()
        n.lineno = n.end_lineno = line
        n.col_offset = n.end_col_offset = col
        if type(n) is ast.Expr:
            stack.append(n.value)
        elif type(n) is ast.Call:
            stack.append(n.func)
            stack.extend(n.args)
    return node


import ast  # noqa: E402 (only the markers tracer needs it)


class _Marker(ast.NodeTransformer):
    """Puts the markers in a module's tree (see above)."""

    def __init__(self, path, blocks=True):
        #: statement lists are marked (not in test modules and conftest files, which
        #: pytest rewrites: a change there runs the module whole)
        self.blocks = blocks
        self.keys = []
        self.count = 0
        #: per function being visited: whether a ``yield`` or ``await`` was seen in it
        #: (a lambda's, a class's or a comprehension's count for the function around them)
        self.suspends = []
        #: key -> the marker constants made with it (a function's key gets its end once
        #: its body is seen)
        self.made = {}
        # the same markers for the same file, whichever run compiles it (a cached code
        # object's markers never collide with another module's)
        digest = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=6)
        self.prefix = _TAG + digest.hexdigest() + ":"

    def _new(self):
        self.count += 1
        return self.prefix + str(self.count)

    def _call(self, anchor):
        const = ast.Constant(self.keys[-1])
        self.made.setdefault(const.value, []).append(const)
        return _at(ast.Call(ast.Name(_MARK, ast.Load()), [const], []), anchor)

    def _stmt(self, anchor):
        return _at(ast.Expr(self._call(anchor)), anchor)

    def _then(self, value, anchor):
        """``(value, mark)[0]``: the marker runs after ``value`` (a resume)."""
        return self._sub(ast.Tuple([value, self._call(anchor)], ast.Load()), 0, anchor)

    def _first(self, value, anchor):
        """``(mark, value)[1]``: the marker runs before ``value``."""
        return self._sub(ast.Tuple([self._call(anchor), value], ast.Load()), 1, anchor)

    def _sub(self, tup, index, anchor):
        sub = ast.Subscript(tup, ast.Constant(index), ast.Load())
        for n in (sub, tup, sub.slice):
            ast.copy_location(n, anchor)
        return sub

    def _open(self, body, doc=True, future=False):
        """``body`` starting with a marker, after its docstring (and ``__future__``)."""
        at = 0
        while at < len(body) and (
            (doc and at == 0 and _is_docstring(body[at]))
            or (future and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__")
        ):
            at += 1
        anchor = body[at] if at < len(body) else body[-1]
        body.insert(at, self._stmt(anchor))
        return body

    def module(self, tree):
        self.keys.append(self._new())
        self.generic_visit(tree)
        if tree.body:
            self._open(tree.body, future=True)
        else:
            tree.body.append(self._stmt(tree))
        self.keys.pop()
        return tree

    def _outer(self, node, fields):
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                setattr(node, name, [self.visit(v) for v in value if v is not None])
            elif isinstance(value, ast.AST):
                setattr(node, name, self.visit(value))

    def _function(self, node):
        self._outer(node, ("decorator_list", "args", "returns"))
        key = self._new()
        self.keys.append(key)
        self.suspends.append(False)
        node.body = [self.visit(st) for st in node.body]
        node.body = _flatten(node.body)
        suspends = self.suspends.pop()
        made = self.made.pop(key, ())
        if self.blocks and isinstance(node, ast.FunctionDef) and not suspends:
            # its blocks are marked, and its own key says so
            self.keys[-1] = key = key + _BLOCKY
            for const in made:
                const.value = key
            self._mark_blocks(node.body)
        self._open(node.body)
        self.made.pop(key, None)
        self.keys.pop()
        return node

    def _mark_blocks(self, body):
        """A marker at the start of each statement list inside a function's body (the
        branches of an ``if``, a loop's ``else``, a ``try``'s parts, a ``with``'s body, a
        ``match``'s cases; not a loop's body, where it would run at every turn), named by
        the line and column of the list's first statement: a test that never entered a list
        never ran a line of it. Only in functions that never suspend (no ``yield``, no
        ``await``): a generator resumed in a later test goes on inside a list it entered in
        an earlier one."""
        for st in body:
            if not isinstance(st, _COMPOUND):
                continue
            for block in _statement_lists(st):
                if not block:
                    continue
                self._mark_blocks(block)
                if block is getattr(st, "body", None) and isinstance(st, _LOOPS):
                    # a loop's body is not marked (its marker would run at every turn):
                    # a change there is placed in the list that holds the loop
                    continue
                first = block[0]
                key = f"{self.prefix[len(_TAG) :]}{first.lineno}:{first.col_offset}"
                call = ast.Call(ast.Name(_MARK, ast.Load()), [ast.Constant(_BLOCK + key)], [])
                block.insert(0, _at(ast.Expr(call), first))

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node):
        self._outer(node, ("decorator_list", "bases", "keywords"))
        self.keys.append(self._new())
        node.body = _flatten([self.visit(st) for st in node.body])
        self._open(node.body)
        self.keys.pop()
        return node

    def visit_Lambda(self, node):
        self._outer(node, ("args",))
        self.keys.append(self._new())
        node.body = self._first(self.visit(node.body), node.body)
        self.keys.pop()
        return node

    def _comprehension(self, node):
        gens = node.generators
        # the first iterable is evaluated where the comprehension is made
        gens[0].iter = self.visit(gens[0].iter)
        self.keys.append(self._new())
        lazy = isinstance(node, ast.GeneratorExp)
        for i, gen in enumerate(gens):
            if i:
                gen.iter = self.visit(gen.iter)
            gen.target = self.visit(gen.target)
            gen.ifs = [self.visit(c) for c in gen.ifs]
            if lazy:
                # a generator expression runs when it is resumed, maybe in a later test
                gen.ifs = [self._first(c, c) for c in gen.ifs]
        # (the element's marker also names the code object of the comprehension)
        if isinstance(node, ast.DictComp):
            node.key = self._first(self.visit(node.key), node.key)
            node.value = self.visit(node.value)
        else:
            node.elt = self._first(self.visit(node.elt), node.elt)
        key = self.keys.pop()
        # marked where it is made, in the enclosing code, under its alias: it runs then
        # (a list, set or dict comprehension runs whole; a generator expression is said
        # to run where it is made, and again where it is resumed)
        self.keys.append(_ALIAS + key[len(_TAG) :])
        made = self._first(node, node)
        self.keys.pop()
        return made

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def _resume(self, node):
        if self.suspends:
            self.suspends[-1] = True
        self.generic_visit(node)
        return self._then(node, node)

    visit_Yield = visit_YieldFrom = visit_Await = _resume

    def _async_block(self, node):
        self.generic_visit(node)
        node.body.insert(0, self._stmt(node.body[0]))
        if getattr(node, "orelse", None):
            node.orelse.insert(0, self._stmt(node.orelse[0]))
        return [node, self._stmt(node)]

    visit_AsyncFor = visit_AsyncWith = _async_block

    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        node.body.insert(0, self._stmt(node.body[0]))
        return node

    def _try(self, node):
        self.generic_visit(node)
        if node.finalbody:
            node.finalbody.insert(0, self._stmt(node.finalbody[0]))
        return node

    visit_Try = _try
    visit_TryStar = _try


#: the statements whose statement lists get a block's marker
_COMPOUND = (
    (ast.If, ast.For, ast.While, ast.With, ast.Try)
    + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
    + ((ast.Match,) if hasattr(ast, "Match") else ())
)


_LOOPS = (ast.For, ast.While)


def _statement_lists(st):
    """The statement lists of a compound statement, in a fixed order."""
    out = [getattr(st, name, None) for name in ("body", "orelse", "finalbody")]
    out = [value for value in out if isinstance(value, list)]
    out += [h.body for h in getattr(st, "handlers", ())]
    out += [c.body for c in getattr(st, "cases", ())]
    return out


def _is_docstring(st):
    return (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Constant)
        and isinstance(st.value.value, str)
    )


def _flatten(stmts):
    out = []
    for st in stmts:
        if isinstance(st, list):
            out.extend(st)
        elif st is not None:
            out.append(st)
    return out


def _mark_tree(tree, path, blocks=True):
    """``tree`` (a module's, parsed or rewritten by pytest) with its markers; with
    ``blocks``, its functions' statement lists' too."""
    return _Marker(path, blocks).module(tree)


def _register(code):
    """Map the markers compiled into ``code`` (a module's) and its inner code objects to
    them; False when it has none (compiled without markers)."""
    marked = False
    stack = [code]
    while stack:
        c = stack.pop()
        for k in c.co_consts:
            if type(k) is _CodeType:
                stack.append(k)
            elif type(k) is not str or not k.startswith(_TAG) or k.startswith(_ALIAS):
                continue
            elif k.startswith(_BLOCK):
                line, col = k.rsplit(":", 2)[1:]
                _BLOCK_OF[k] = (c.co_filename, int(line), int(col))
            else:
                _BY_MARK[k] = c
                _BY_MARK[_ALIAS + k[len(_TAG) :]] = c
                if k.endswith(_BLOCKY):
                    _BLOCKY_CODES.add(id(c))
                marked = True
    return marked


def _all_codes(code):
    out = []
    stack = [code]
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(k for k in c.co_consts if type(k) is _CodeType)
    return out


def _unmarked(code):
    """Code of the project that runs without markers (a module imported before the
    recorder, or by a loader it does not wrap): every function of it is the session's,
    so that a change to any of them runs the whole suite."""
    for c in _all_codes(code):
        _SESSION.codes[id(c)] = c


def _executed(code):
    """The audit hook's ``exec`` event: a module's code (or another's) is executed."""
    if id(code) in _EXECUTED:
        return
    name = code.co_filename
    if not _project_file(name):
        return
    _EXECUTED[id(code)] = code
    if not _register(code):
        _unmarked(code)


def _markers_flush():
    if not _hits:
        return
    keys = _hits.copy()
    _hits.difference_update(keys)
    bucket = _CUR[0]
    codes = bucket.codes
    get = _BY_MARK.get
    for k in keys:
        code = get(k)
        if code is not None:
            codes[id(code)] = code
        else:
            block = _BLOCK_OF.get(k)
            if block is not None:
                bucket.blocks.add(block)


def _marked_code(path, source):
    tree = ast.parse(source, path)
    return compile(_mark_tree(tree, path), path, "exec", dont_inherit=True)


#: a directory where marked code is kept from run to run (never the checkout)
_CODE_CACHE = os.environ.get("TRUEGREEN_RECORD_CODE_CACHE")
_VERSION = []


def _version():
    """This recorder's and this interpreter's bytecode version: code marked by another is
    never read."""
    if not _VERSION:
        import importlib.util

        with open(__file__, "rb") as f:
            _VERSION.append(f.read() + importlib.util.MAGIC_NUMBER)
    return _VERSION[0]


def _cached_marked_code(path, source):
    """A module's marked code: parsing, marking and compiling a module costs several times
    what reading its ``.pyc`` does (a third to half of what the markers add to a run),
    so it is kept in ``TRUEGREEN_RECORD_CODE_CACHE`` when that is set, by the file's path
    and source."""
    if not _CODE_CACHE:
        return _marked_code(path, source)
    parts = (path.encode("utf-8", "surrogateescape"), source, _version())
    name = _cache_name(parts)
    code = _cache_read(name)
    if type(code) is _CodeType:
        return code
    code = _marked_code(path, source)
    _cache_write(name, code)
    return code


def _cache_name(parts):
    """The file in ``TRUEGREEN_RECORD_CODE_CACHE`` of what ``parts`` (bytes) decide."""
    key = hashlib.blake2b(b"\0".join(parts), digest_size=16).hexdigest()
    return os.path.join(_CODE_CACHE, key + ".tgm")


def _cache_read(name):
    """What the cache file ``name`` holds (marshalled), or None."""
    import marshal

    try:
        with open(name, "rb") as f:
            return marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _cache_write(name, value):
    """Keep ``value`` in the cache file ``name``, whole or not at all."""
    import marshal

    try:
        os.makedirs(_CODE_CACHE, exist_ok=True)
        tmp = f"{name}.{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(marshal.dumps(value))
        os.replace(tmp, name)
    except (OSError, ValueError):
        pass


class _MarkingLoader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname):
        source = self.get_data(self.path)
        try:
            code = _cached_marked_code(self.path, source)
        except Exception:  # never break an import: the plain module (all the session's)
            return super().get_code(fullname)
        _register(code)
        return code


class _MarkingFinder:
    """Puts the marking loader in place of the plain source loader of project modules."""

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
        if type(loader) is importlib.machinery.SourceFileLoader and _project_file(spec.origin):
            spec.loader = _MarkingLoader(loader.name, loader.path)
        return spec

    @staticmethod
    def invalidate_caches():
        pass


def _patch_rewrite():
    """Test modules and conftest files are compiled by pytest's assertion rewriting, not by
    the import system's loader: their rewritten tree gets its markers too, and no rewritten
    code is read from or written to pytest's cache (it would have none, or keep them);
    with ``TRUEGREEN_RECORD_CODE_CACHE``, it is kept there instead, by the file's path and
    source, pytest's version and the options that change the rewritten code. Where
    pytest's internals are not as expected, they run unmarked (all the session's)."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    names = ("rewrite_asserts", "_read_pyc", "_write_pyc", "_rewrite_test")
    if not all(callable(getattr(rewrite, n, None)) for n in names):
        return
    original = rewrite.rewrite_asserts
    original_test = rewrite._rewrite_test

    def rewrite_asserts(mod, source, module_path=None, config=None):
        original(mod, source, module_path, config)
        if _MARKS[0] and _project_file(module_path):
            # (a test module or conftest file: a change there runs it whole, and the
            # rewritten assertions are branches by the thousand)
            _mark_tree(mod, module_path, blocks=False)

    def _read_pyc(*args, **kwargs):
        return None

    def _write_pyc(*args, **kwargs):
        return False

    def _rewrite_test(fn, config):
        if not (_CODE_CACHE and _MARKS[0]):
            return original_test(fn, config)
        import pytest

        path = str(fn)
        with open(path, "rb") as f:
            source = f.read()
        try:
            hook = repr(config.getini("enable_assertion_pass_hook")).encode()
        except Exception:
            hook = b"?"
        parts = (path.encode("utf-8", "surrogateescape"), source, _version())
        parts += (b"rewritten", pytest.__version__.encode(), hook)
        name = _cache_name(parts)
        kept = _cache_read(name)
        if type(kept) is tuple and len(kept) == 2 and type(kept[1]) is _CodeType:
            return kept
        done = original_test(fn, config)
        _cache_write(name, tuple(done))
        return done

    for name, new in (
        ("rewrite_asserts", rewrite_asserts),
        ("_read_pyc", _read_pyc),
        ("_write_pyc", _write_pyc),
        ("_rewrite_test", _rewrite_test),
    ):
        _PATCHED.append((rewrite, name, getattr(rewrite, name)))
        setattr(rewrite, name, new)


def _markers_begin():
    import builtins

    setattr(builtins, _MARK, _hits.add)
    _MARKS[0] = True
    sys.meta_path.insert(0, _MarkingFinder)
    _patch_rewrite()
    # the project's modules imported before the recorder: no markers
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if _project_file(path) and module is not sys.modules.get(__name__):
            try:
                with open(path, "rb") as f:
                    source = f.read()
                _unmarked(compile(source, path, "exec", dont_inherit=True))
            except Exception:
                # what it defines is not known: nothing the session ran is
                _SESSION.lost = True


def _markers_end():
    import builtins

    _markers_flush()
    if _MarkingFinder in sys.meta_path:
        sys.meta_path.remove(_MarkingFinder)
    for module, name, original in _PATCHED:
        setattr(module, name, original)
    _PATCHED.clear()
    # (the markers stay callable: marked code may still run at exit)
    builtins.__dict__.setdefault(_MARK, _hits.add)


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
    entry = [rel, code.co_firstlineno, last, name]
    if id(code) in _BLOCKY_CODES:
        entry.append(1)  # its blocks are marked: what it entered is recorded too
    table.append(entry)
    return key


def _block_key(block, index, table):
    """The index of ``block`` (file, line, column) in ``table``: [file, line, column]."""
    key = index.get(block)
    if key is None:
        rel = _path(block[0]) if os.path.isabs(block[0]) else None
        if rel is None:
            key = -1
        else:
            key = len(table)
            table.append([rel, block[1], block[2]])
        index[block] = key
    return key


def _dump(bucket, index, table, blocks):
    codes = sorted(k for k in (_code_key(c, index, table) for c in bucket.codes.values()) if k >= 0)
    doc = {"codes": codes, "files": sorted(bucket.files), "dirs": sorted(bucket.dirs)}
    if bucket.blocks:
        doc["blocks"] = sorted(
            k
            for k in (_block_key(b, blocks[0], blocks[1]) for b in sorted(bucket.blocks))
            if k >= 0
        )
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
    blocks = ({}, [])
    tests = {}
    for nodeid, bucket in _TESTS.items():
        doc = _dump(bucket, index, table, blocks)
        uses = sorted(_USES.get(nodeid, ()))
        if uses:
            doc["fixtures"] = uses
        tests[nodeid] = doc
    fixtures = {name: _dump(b, index, table, blocks) for name, b in sorted(_FIXTURES.items())}
    session = _dump(_SESSION, index, table, blocks)
    doc = {
        "version": 2,
        "python": list(sys.version_info[:2]),
        "tracer": "markers"
        if _MARKS[0]
        else (
            "monitoring"
            if _MONITOR[0] is not None
            else ("profile" if _PROF[0] is not None else "settrace")
        ),
        "codes": table,
        "blocks": blocks[1],
        "session": session,
        "fixtures": fixtures,
        "tests": tests,
    }
    tmp = _OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(tmp, _OUT)
