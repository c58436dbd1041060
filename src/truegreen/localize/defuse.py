"""Which tests an import-time definition matters to: def-use over the names it binds.

Module and class bodies run once per process, so by coverage alone every test that
depends on a module "ran" all of its top-level lines, and a fault in one of them (a wrong
constant, a bad default value, a mistyped table entry) ties with hundreds of others. A
definition matters to a test when the test reads what it binds:

* an assignment at module level (``LIMIT = 3``, ``Point = namedtuple(...)``) matters to
  the tests that ran a line reading its name (as a name, as an attribute, ``cfg.LIMIT``,
  or as a string, ``getattr(cfg, "LIMIT")``), in any module they depend on, or whose
  test file (or a conftest.py above it) names it;
* an assignment at class level (``max: float | None = None``) is an attribute: outside
  its class body no plain name reaches it, so only the attribute and string reads count
  (and the plain names of its own class body); ``max(a, b)`` does not read it;
* a ``def`` or ``class`` statement (decorators, default values, base classes) matters to
  the tests that ran a line inside it, or read its name;
* what such a definition reads in turn (``TABLE = build(BASE)``) matters to the same tests.

Reading is over-approximated (any name or attribute of that name counts), so a test is
never denied a definition it may use; a definition that no test of the selection is seen
to read goes back to the coarse rule (every test that depends on its module), so that a
read this analysis cannot see (``getattr(module, name)``) never hides a line.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from truegreen.localize.syntax import blocks, module_level, statements

Line = tuple[str, int]
#: the mark of a read that can reach an attribute: ``obj.NAME``, ``getattr(obj, "NAME")``,
#: a dotted string's part. A read set holds ``NAME`` for a plain name and ``.NAME`` for
#: these; a class-level binding is found by the second only
ATTR = "."
#: a class: its file and qualified name, as the tracer reports receivers
Class = tuple[str, str]


@dataclass
class _File:
    #: statement line -> the names it binds (module- and class-level assignments)
    binds: dict[int, frozenset[str]] = field(default_factory=dict)
    #: statement line of a ``def``/``class`` -> (first, last) line of its body
    blocks: dict[int, tuple[int, int]] = field(default_factory=dict)
    #: the ``class`` statements' names
    classes: dict[int, str] = field(default_factory=dict)
    #: the ``class`` statements' qualified names (``Outer.Inner``)
    qualnames: dict[int, str] = field(default_factory=dict)
    #: a class-level assignment's line -> its class's qualified name
    owners: dict[int, str] = field(default_factory=dict)
    #: statement line -> names and attribute names it reads (its own expressions only;
    #: attribute-kind reads marked with :data:`ATTR`)
    reads: dict[int, frozenset[str]] = field(default_factory=dict)


def _names_read(nodes: Iterable[ast.AST]) -> set[str]:
    """Names loaded (``NAME``), and attribute names loaded and strings that are identifiers
    (``getattr(obj, "name")``, ``globals()["NAME"]``), marked as attribute-kind reads
    (``.name``, :data:`ATTR`). A walk of its own: the data tables of a module (tens of
    thousands of literals) are read element by element, without ``ast.iter_child_nodes``
    asking each constant for its fields."""
    out: set[str] = set()
    stack = list(nodes)
    pop, push = stack.pop, stack.extend
    while stack:
        n = pop()
        t = type(n)
        if t is ast.Constant:
            v = n.value  # type: ignore[attr-defined]
            if type(v) is str and v.isidentifier():
                out.add(ATTR + v)
        elif t is ast.Tuple or t is ast.List or t is ast.Set:
            push(n.elts)  # type: ignore[attr-defined]
        elif t is ast.Dict:
            push(k for k in n.keys if k is not None)  # type: ignore[attr-defined]
            push(n.values)  # type: ignore[attr-defined]
        elif t is ast.Name:
            if type(n.ctx) is ast.Load:  # type: ignore[attr-defined]
                out.add(n.id)  # type: ignore[attr-defined]
        else:
            if t is ast.Attribute and type(n.ctx) is ast.Load:  # type: ignore[attr-defined]
                out.add(ATTR + n.attr)  # type: ignore[attr-defined]
            push(ast.iter_child_nodes(n))
    return out


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _own_expressions(node: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that are not nested statements (a compound statement's
    header: its test, iterator, context managers, decorators, defaults, bases)."""
    out: list[ast.AST] = []
    for name, value in ast.iter_fields(node):
        if name in _BODIES:
            continue
        items = value if isinstance(value, list) else [value]
        out += [v for v in items if isinstance(v, ast.AST) and not isinstance(v, ast.stmt)]
    return out


def _targets(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Assign):
        targets: list[ast.expr] = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return set()
    out: set[str] = set()
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name):
                out.add(n.id)
    return out


def analyse(tree: ast.Module | None) -> _File:
    info = _File()
    if tree is None:
        return info

    #: a statement directly in a class body -> its class; a class -> the names it binds
    in_class: dict[int, str] = {}
    class_binds: dict[str, set[str]] = {}

    def definitions(stmts: list[ast.stmt], owner: str = "") -> None:
        """Module- or class-level statements (and those in top-level if/try blocks);
        ``owner``: the qualified name of the class whose body they are in."""
        for st in stmts:
            names = _targets(st)
            if owner:
                in_class[st.lineno] = owner
                if isinstance(st, ast.ClassDef):
                    names.add(st.name)
                class_binds.setdefault(owner, set()).update(names)
            if names and not isinstance(st, ast.ClassDef):
                info.binds[st.lineno] = frozenset(names)
                if owner:
                    info.owners[st.lineno] = owner
            if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                info.blocks[st.lineno] = (st.body[0].lineno, st.end_lineno or st.lineno)
                if isinstance(st, ast.ClassDef):
                    qual = f"{owner}.{st.name}" if owner else st.name
                    info.classes[st.lineno] = st.name
                    info.qualnames[st.lineno] = qual
                    definitions(st.body, qual)
            elif isinstance(st, ast.If | ast.Try | ast.With):
                for name in _BODIES:
                    for block in getattr(st, name, None) or []:
                        if isinstance(block, ast.ExceptHandler):
                            definitions(block.body, owner)
                        elif isinstance(block, ast.stmt):
                            definitions([block], owner)

    definitions(tree.body)
    every = statements(tree)
    globals_declared = False
    for node in every:
        globals_declared |= isinstance(node, ast.Global)
        read = _names_read(_own_expressions(node))
        owner = in_class.get(node.lineno)
        if owner is not None:
            # in its class body, a plain name reads the class's own attributes
            read |= {ATTR + n for n in read & class_binds[owner]}
        if read:
            info.reads[node.lineno] = frozenset(read)
    _in_place(tree, every, info, globals_declared)
    return info


def _changed(node: ast.stmt, names: frozenset[str]) -> set[str]:
    """The module-level names of ``names`` that a simple statement changes: in place,
    ``NAME.method(...)`` as a statement of its own (``RULES.insert(0, rule)``,
    ``registry.register(cls)``), ``NAME[key] = value``, ``NAME.attr = value``,
    ``del NAME[key]``; or by assigning the name (in a function, one declared ``global``:
    ``names`` holds no local name there)."""
    if isinstance(node, ast.Expr):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            base = call.func.value
            if isinstance(base, ast.Name) and base.id in names:
                return {base.id}
        return set()
    if isinstance(node, ast.Assign):
        targets: list[ast.expr] = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = list(node.targets)
    else:
        return set()
    # a plain name of ``names`` assigned in a function is a ``global`` one
    out = {n for t in targets for n in _bound(t) if n in names}
    for t in targets:
        for part in ast.walk(t):
            if isinstance(part, ast.Subscript | ast.Attribute):
                base = part.value
                if isinstance(base, ast.Name) and base.id in names:
                    out.add(base.id)
    return out


def _bound(target: ast.expr) -> Iterator[str]:
    """The names an assignment target binds: a name, or the names of a tuple, list or
    starred target (``x[k] = v`` and ``x.a = v`` bind nothing, they change ``x``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for t in target.elts:
            yield from _bound(t)
    elif isinstance(target, ast.Starred):
        yield from _bound(target.value)


def _locals(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function binds for itself: its parameters and what it assigns,
    imports or names in a loop, ``with`` or ``except``, less what it declares ``global``
    or ``nonlocal``."""
    args = func.args
    out = {
        a.arg
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        if a is not None
    }
    declared: set[str] = set()
    for node in statements(func):
        if node is func:
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        elif isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            targets = [node.target]
        elif isinstance(node, ast.With | ast.AsyncWith):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Try):
            out.update(h.name for h in node.handlers if h.name)
        for t in targets:
            out.update(_bound(t))
    return out - declared


def _changes_in(
    stmts: list[ast.stmt], names: frozenset[str], found: dict[int, set[str]]
) -> set[str]:
    """The names of ``names`` that ``stmts`` (a function's) change in place, each
    statement's into ``found`` by line: a compound statement's are those of the statements
    in it. A nested function or class is a scope of its own, walked on its own."""
    total: set[str] = set()
    for st in stmts:
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        got = _changed(st, names)
        for block in blocks(st):
            got |= _changes_in(block, names, found)
        if got:
            found[st.lineno] = got
            total |= got
    return total


def _in_place(tree: ast.Module, every: list[ast.stmt], info: _File, globals_declared: bool) -> None:
    """Record as definitions the statements that change a module-level variable of the
    file in place, where a module's code can run them at import: in a function (a table
    built by calls at import, ``_irregular("cow", "kine")`` inserting rules into
    ``PLURALS``), a compound statement in a function around such statements (its decision
    chose them), and a module-level call of such a function. Without this, their lines
    went to every test that depends on the module; now to the tests that read the
    variable (and, as for any definition, to every dependent when none is seen to)."""
    module = frozenset(
        n for ln, bound in info.binds.items() if ln not in info.owners for n in bound
    )
    if not module:
        return
    # a statement changes a variable in place only where it reads its name: the
    # functions without such a statement (most of them) are not walked again
    reading = sorted(ln for ln, read in info.reads.items() if not module.isdisjoint(read))
    if not reading and not globals_declared:
        return
    top = {id(st) for st in tree.body}
    by_function: dict[str, set[str]] = {}
    for func in every:
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not globals_declared:
            at = bisect.bisect_right(reading, func.lineno)
            if at == len(reading) or reading[at] > (func.end_lineno or func.lineno):
                continue
        names = module - _locals(func)
        if not names:
            continue
        found: dict[int, set[str]] = {}
        whole = _changes_in(func.body, names, found)
        for ln, got in found.items():
            info.binds[ln] = info.binds.get(ln, frozenset()) | got
        if whole and id(func) in top:
            by_function.setdefault(func.name, set()).update(whole)
    # module-level statements: in-place changes, and calls of the functions above
    for st in module_level(tree):
        got = _changed(st, module)
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            callee = st.value.func
            if isinstance(callee, ast.Name) and callee.id in by_function:
                got |= by_function[callee.id]
        if got:
            info.binds[st.lineno] = info.binds.get(st.lineno, frozenset()) | got


_WORD = re.compile(r"[^\W\d]\w*")


def file_reads(path: Path) -> frozenset[str]:
    """Every identifier a (test) file reads (:func:`test_names`); every word of it, read
    both ways, when it cannot be parsed."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        words = _WORD.findall(text)
        return frozenset([*words, *(ATTR + w for w in words)])
    return frozenset(test_names([tree]))


_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)+")


def test_names(nodes: Iterable[ast.AST]) -> set[str]:
    """What test code reads by name: as project code (:func:`_names_read`), plus the names
    it imports (``from pkg.mod import NAME``, plain names) and the parts of dotted names
    written as strings (``mock.patch("pkg.mod.Class.NAME")``, attribute-kind reads)."""
    out = _names_read(nodes)
    for top in nodes:
        for n in ast.walk(top):
            if isinstance(n, ast.Import | ast.ImportFrom):
                for a in n.names:
                    out.update(a.name.split("."))
                if isinstance(n, ast.ImportFrom) and n.module:
                    out.update(n.module.split("."))
            elif (
                isinstance(n, ast.Constant) and type(n.value) is str and _DOTTED.fullmatch(n.value)
            ):
                out.update(ATTR + part for part in n.value.split("."))
    return out


_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
#: methods pytest and unittest run around a test of their class
_AROUND = frozenset(
    {
        "setup",
        "teardown",
        "setup_method",
        "teardown_method",
        "setup_class",
        "teardown_class",
        "setUp",
        "tearDown",
        "setUpClass",
        "tearDownClass",
        "asyncSetUp",
        "asyncTearDown",
        "__init__",
        "__init_subclass__",
        "__class_getitem__",
    }
)


def _is_fixture(node: ast.stmt) -> bool:
    """A fixture (or anything whose decorator names ``fixture``), which pytest may run for
    a test without a line of the test naming it."""
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
        "fixture" in n for d in node.decorator_list for n in _names_read([d])
    )


#: a part of a test file: a statement, or a class's header (``(class,)``)
_Part = ast.stmt | tuple[ast.ClassDef]


class SlicedTestFile:
    """What one test can read of its test file (:meth:`reads`). The module-level part,
    which every test of the file reads, and each part's names are worked out once per
    file: a selection runs hundreds of tests of one file."""

    def __init__(self, tree: ast.Module) -> None:
        self._words: dict[int, frozenset[str]] = {}
        self.top: dict[str, _Def] = {}
        parts: list[_Part] = []
        for st in tree.body:
            if isinstance(st, _Def):
                self.top[st.name] = st
                if _is_fixture(st) or st.name.startswith("pytest_"):
                    parts.append(st)
            else:
                parts.append(st)
        self._base_taken: set[str] = set()
        self._base = self._close(parts, set(), self._base_taken, {})

    def _part_words(self, part: _Part) -> frozenset[str]:
        key = -id(part[0]) if isinstance(part, tuple) else id(part)
        got = self._words.get(key)
        if got is None:
            nodes = _own_expressions(part[0]) if isinstance(part, tuple) else [part]
            got = self._words[key] = frozenset(test_names(nodes))
        return got

    def _close(
        self,
        parts: list[_Part],
        words: set[str],
        taken: set[str],
        methods: Mapping[str, list[ast.stmt]],
    ) -> frozenset[str]:
        """``words`` with the names ``parts`` read and, closing over names, of the
        module-level functions and classes (``taken``: those followed already) and of
        ``methods`` they name (a name's methods are followed when it first appears)."""
        todo = parts
        top = self.top
        while todo:
            fresh: set[str] = set()
            for part in todo:
                fresh |= self._part_words(part)
            fresh -= words
            words |= fresh
            todo = []
            for read in fresh:
                name = read.removeprefix(ATTR)  # a function or method, read either way
                if name in top and name not in taken:
                    taken.add(name)
                    todo.append(top[name])
                    todo += _bases_in(top[name], top)
                todo += methods.get(name, ())
        return frozenset(words)

    def reads(self, path: Sequence[str]) -> frozenset[str] | None:
        """The identifiers the part of the file that one test can run mentions, the test
        being ``path`` (``["TestX", "test_y"]``, parameters stripped): the module's
        statements other than ``def``/``class``, its fixtures and ``pytest_*`` hooks, the
        test function, the headers and class-level statements of the classes around it
        (their bases in the file whole, with their fixtures and set-up methods), and,
        closing over names, the module-level functions and classes and the methods of
        those classes the slice names (``helper(...)``, ``self.check(...)``). None when the
        test is not found there (a doctest, a test defined elsewhere): then the whole file
        counts."""
        top = self.top
        classes: list[ast.ClassDef] = []
        found: ast.stmt | None = None
        for i, name in enumerate(path):
            node = _member(classes[-1] if classes else None, name, top)
            if node is None or (i < len(path) - 1) != isinstance(node, ast.ClassDef):
                return None
            if isinstance(node, ast.ClassDef):
                classes.append(node)
            else:
                found = node
        if found is None:
            return None
        parts: list[_Part] = [found]
        methods: dict[str, list[ast.stmt]] = {}
        for cls in classes:
            parts += _bases_in(cls, top)
            parts.append((cls,))
            for st in cls.body:
                if not isinstance(st, _Def):
                    parts.append(st)
                elif isinstance(st, ast.ClassDef):
                    methods.setdefault(st.name, []).append(st)
                elif st.name in _AROUND or _is_fixture(st):
                    parts.append(st)
                else:
                    methods.setdefault(st.name, []).append(st)
        # the methods the module-level part names (its names are followed already)
        base = self._base
        parts += [
            m for name, ms in methods.items() if ATTR + name in base or name in base for m in ms
        ]
        # the classes around the test are in already, as far as the test can run them
        taken = self._base_taken | {c.name for c in classes}
        return self._close(parts, set(base), taken, methods)


def _member(owner: ast.ClassDef | None, name: str, top: Mapping[str, _Def]) -> _Def | None:
    """``name`` in the module's namespace (``owner`` None) or in a class's, looked up in
    the class and then in its bases defined in the same file."""
    if owner is None:
        return top.get(name)
    for cls in [owner, *_bases_in(owner, top)]:
        got = None
        for st in cls.body:
            if isinstance(st, _Def) and st.name == name:
                got = st  # the last definition wins, as at run time
        if got is not None:
            return got
    return None


def _bases_in(cls: _Def, top: Mapping[str, _Def]) -> list[_Def]:
    """The classes of the same file that ``cls`` derives from, transitively."""
    out: list[_Def] = []
    todo = [cls]
    seen = {id(cls)}
    while todo:
        node = todo.pop()
        if not isinstance(node, ast.ClassDef):
            continue
        for b in node.bases:
            base = top.get(b.id) if isinstance(b, ast.Name) else None
            if base is not None and id(base) not in seen:
                seen.add(id(base))
                out.append(base)
                todo.append(base)
    return out


class DefUse:
    """Def-use facts of a project's files, parsed once each."""

    def __init__(self, root: Path, tree: Callable[[str], ast.Module | None]) -> None:
        self.root = root
        self._tree = tree
        self._files: dict[str, _File] = {}
        self._test_reads: dict[str, frozenset[str]] = {}
        self._test_files: dict[str, SlicedTestFile | None] = {}
        self._whole_files: dict[str, frozenset[str]] = {}
        self._conftests: dict[tuple[str, ...], frozenset[str]] = {}
        self._around: dict[str, dict[int, tuple[int, ...]]] = {}
        self._indexed: set[str] = set()
        self._by_name: dict[str, list[Line]] = {}
        #: a class-level assignment -> its class, as (file, qualified name)
        self._owner: dict[Line, Class] = {}
        #: a ``class`` statement -> the class, as (file, qualified name)
        self._class_at: dict[Line, Class] = {}
        #: (file, statement line) -> the names it reads, for every analysed file
        self._reads: dict[Line, frozenset[str]] = {}
        #: (file, line) -> the module- or class-level def/class statements around it
        self._around_line: dict[Line, tuple[Line, ...]] = {}
        self._part_facts: dict[frozenset[Line], tuple[frozenset[str], frozenset[Line]]] = {}

    def file(self, rel: str) -> _File:
        got = self._files.get(rel)
        if got is None:
            got = self._files[rel] = analyse(self._tree(rel))
            for ln, names in got.reads.items():
                self._reads[(rel, ln)] = names
            for ln, defs in self._enclosing(rel).items():
                self._around_line[(rel, ln)] = tuple((rel, d) for d in defs)
        return got

    def test_reads(self, test: str) -> frozenset[str]:
        """What a test can read of its test file (:meth:`SlicedTestFile.reads`; the whole file
        when the test is not found in it) and the conftest.py files above it. ``test``: its
        id (parameters are ignored: ``tests/test_x.py::TestX::test_y``) or a file alone."""
        key = test_key(test)
        got = self._test_reads.get(key)
        if got is not None:
            return got
        test_file, *path = key.split("::")
        got = self._test_file_reads(test_file, path) | self._conftest_reads(test_file)
        self._test_reads[key] = got
        return got

    def warm_test_file(self, test_file: str) -> None:
        """Parse ``test_file`` and read its conftest.py files ahead of need (see
        :meth:`test_reads`); the answers are the ones asked for later."""
        if test_file.endswith(".py") and test_file not in self._test_files:
            tree = self._tree(test_file)
            self._test_files[test_file] = None if tree is None else SlicedTestFile(tree)
        self._conftest_reads(test_file)

    def _conftest_reads(self, test_file: str) -> frozenset[str]:
        """What the conftest.py files above a test file read (whole)."""
        parts = test_file.split("/")[:-1]
        got = self._conftests.get(tuple(parts))
        if got is None:
            names: set[str] = set()
            for i in range(len(parts) + 1):
                conftest = "/".join([*parts[:i], "conftest.py"])
                if (self.root / conftest).is_file():
                    names |= file_reads(self.root / conftest)
            got = self._conftests[tuple(parts)] = frozenset(names)
        return got

    def _test_file_reads(self, test_file: str, path: Sequence[str]) -> frozenset[str]:
        if path and test_file.endswith(".py"):
            if test_file not in self._test_files:
                self.warm_test_file(test_file)
            parsed = self._test_files[test_file]
            got = parsed.reads(path) if parsed is not None else None
            if got is not None:
                return got
        return self._whole(test_file)

    def _whole(self, test_file: str) -> frozenset[str]:
        got = self._whole_files.get(test_file)
        if got is None:
            # the tree the statements were parsed from, not a second parse of the file
            tree = self._tree(test_file) if test_file.endswith(".py") else None
            got = frozenset(test_names([tree])) if tree is not None else None
            got = self._whole_files[test_file] = got or file_reads(self.root / test_file)
        return got

    def precise(self, rel: str, line: int) -> bool:
        """Whether an import-time statement is a definition this analysis can attribute."""
        f = self.file(rel)
        return line in f.binds or line in f.blocks

    def _enclosing(self, rel: str) -> dict[int, tuple[int, ...]]:
        """line -> the module- or class-level ``def``/``class`` statements around it."""
        got = self._around.get(rel)
        if got is None:
            around: dict[int, list[int]] = {}
            for ln, (first, last) in self._files[rel].blocks.items():
                for x in range(first, last + 1):
                    around.setdefault(x, []).append(ln)
            got = self._around[rel] = {k: tuple(v) for k, v in around.items()}
        return got

    def index(self, files: Iterable[str]) -> None:
        """Know the definitions of ``files`` by the names they bind."""
        for rel in sorted(set(files) - self._indexed):
            self._indexed.add(rel)
            f = self.file(rel)
            by_name = self._by_name
            for ln, bound in f.binds.items():
                # a class attribute is found by attribute-kind reads only
                plain = ln not in f.owners
                for n in bound:
                    by_name.setdefault(ATTR + n, []).append((rel, ln))
                    if plain:
                        by_name.setdefault(n, []).append((rel, ln))
            for ln, cls in f.classes.items():
                by_name.setdefault(ATTR + cls, []).append((rel, ln))
                if "." not in f.qualnames[ln]:  # a nested class is an attribute too
                    by_name.setdefault(cls, []).append((rel, ln))
                self._class_at[(rel, ln)] = (rel, f.qualnames[ln])
            for ln, qual in f.owners.items():
                self._owner[(rel, ln)] = (rel, qual)

    def _facts(self, part: frozenset[Line]) -> tuple[frozenset[str], frozenset[Line]]:
        """What the lines of ``part`` read, and the definitions around them; remembered,
        since tests of one area run the very same lines of a file."""
        got = self._part_facts.get(part)
        if got is None:
            for f in {f for f, _n in part} - self._files.keys():
                self.file(f)
            reads, around = self._reads, self._around_line
            got = self._part_facts[part] = (
                frozenset().union(*(reads[ln] for ln in part if ln in reads)),
                frozenset(d for ln in part for d in around.get(ln, ())),
            )
        return got

    def _narrow(self, where: list[Line], mods: set[str], evidence: set[Class]) -> list[Line]:
        """The definitions of one name a test can have read, given the classes it is seen
        to use: when classes of ``mods`` bind the name in their bodies and the test used
        some of them, the others' bindings are left out (module-level ones stay). With no
        evidence for any of them, all stay."""
        owner = self._owner
        classes = {owner[w] for w in where if w in owner and w[0] in mods}
        if len(classes) < 2 or classes.isdisjoint(evidence):
            return where
        return [w for w in where if w not in owner or owner[w] in evidence]

    def used(
        self,
        ran: Iterable[frozenset[Line]],
        modules: Iterable[str],
        test: str,
        receivers: frozenset[Class] | None = None,
    ) -> set[Line]:
        """The definitions in ``modules`` that a test uses which ran the lines of ``ran``
        (sets of lines, a file's each, as the tracer reported them), ``test`` its id (what
        it reads of its test file: :meth:`test_reads`). ``receivers``: the
        classes whose instances the test's method calls had as receivers (with their base
        classes), when the tracer recorded them; a class attribute whose name several
        classes bind then goes only to the tests that used its class (see
        :meth:`_narrow`)."""
        mods = set(modules)
        self.index(mods)
        by_name, reads, around = self._by_name, self._reads, self._around_line
        names = set(self.test_reads(test))
        defs: set[Line] = set()
        for part in ran:
            part_reads, part_defs = self._facts(part)
            names |= part_reads
            defs |= part_defs
        evidence: set[Class] | None = None
        if receivers is not None:
            # the classes it used: receivers, classes whose code it ran or name it read
            class_at = self._class_at
            evidence = set(receivers)
            evidence.update(class_at[d] for d in defs if d in class_at)
            for n in names & by_name.keys():
                evidence.update(class_at[w] for w in by_name[n] if w in class_at)
        used: set[Line] = {d for d in defs if d[0] in mods}
        todo = list(used)
        seen: set[str] = set()
        fresh = names & by_name.keys()
        while fresh or todo:
            for n in fresh:
                found = by_name[n]
                if evidence is not None:
                    found = self._narrow(found, mods, evidence)
                for where in found:
                    if where[0] in mods and where not in used:
                        used.add(where)
                        todo.append(where)
            seen |= fresh
            more: set[str] = set()
            while todo:
                ln = todo.pop()
                more |= reads.get(ln, frozenset())
                for d in around.get(ln, ()):
                    if d not in used:
                        used.add(d)
                        todo.append(d)
            fresh = (more & by_name.keys()) - seen
        return used


def attribute(
    defuse: DefUse,
    tests: Mapping[str, tuple[Sequence[frozenset[Line]], set[str]]],
    imports: set[Line],
    receivers: Mapping[str, Iterable[Class]] | None = None,
) -> dict[str, set[Line]]:
    """For each test (its own lines, in sets of one file each, and its dependency
    modules): the import-time lines it gets. Definitions (see :meth:`DefUse.precise`) go
    to the tests that use them; the other import-time lines, and definitions no test is
    seen to use, to every test that depends on their module. ``receivers`` (test -> the
    classes of its method calls' receivers), when the tracer recorded them, tell apart
    the classes that bind one attribute name. A test of a test class with none of its
    own gets its class's: a class-scoped fixture (``request.cls.locale = ...``) runs in
    the first test's set-up only, and the others use what it made."""
    by_module: dict[str, set[Line]] = {}
    for ln in imports:
        by_module.setdefault(ln[0], set()).add(ln)
    shared_recv: dict[str, set[Class]] = {}
    for tid, pairs in (receivers or {}).items():
        cls = _test_class(tid)
        if cls:
            shared_recv.setdefault(cls, set()).update(pairs)
    used: dict[str, set[Line]] = {}
    anyone: set[Line] = set()
    memo: dict[
        tuple[frozenset[frozenset[Line]], frozenset[str], str, frozenset[Class] | None], set[Line]
    ] = {}
    for tid, (own, modules) in tests.items():
        recv = None
        if receivers is not None:
            recv = frozenset(receivers.get(tid, ()) or shared_recv.get(_test_class(tid), ()))
        key = (
            frozenset(own),
            frozenset(m for m in modules if m in by_module),
            test_key(tid),
            recv,
        )
        got = memo.get(key)
        if got is None:  # parametrized tests often run the very same lines
            got = memo[key] = defuse.used(*key) & imports
        used[tid] = got
        anyone |= got
    # definitions someone uses went to their users; the rest to every dependent
    shared = {
        m: {ln for ln in lines if ln not in anyone or not defuse.precise(*ln)}
        for m, lines in by_module.items()
    }
    out: dict[str, set[Line]] = {}
    by_modules: dict[frozenset[str], set[Line]] = {}
    for tid, (_own, modules) in tests.items():
        out[tid] = used[tid] | united(by_modules, modules, shared)
    return out


def _test_class(test_id: str) -> str:
    """The test class a test is in (``file::Class``), or "" outside one."""
    head = test_key(test_id).rsplit("::", 1)[0]
    return head if "::" in head else ""


def test_key(test_id: str) -> str:
    """A test's id without its parameters: the parametrized cases of one test function
    read the same part of the file."""
    head, bracket, _params = test_id.partition("[")
    return head if bracket else test_id


def united(
    memo: dict[frozenset[str], set[Line]],
    modules: Iterable[str],
    per_module: Mapping[str, Iterable[Line]],
) -> set[Line]:
    """The union of ``per_module``'s lines over ``modules``, computed once per distinct set
    of modules (``memo``): tens of thousands of parametrized tests share a handful."""
    key = frozenset(modules)
    got = memo.get(key)
    if got is None:
        got = memo[key] = set().union(*(per_module.get(m, ()) for m in key))
    return got
