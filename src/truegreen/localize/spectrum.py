"""Per-test spectra from the tracer's document, and the choice of passing tests to run.

A test's spectrum is the set of project source lines (not tests, not libraries) it ran
in any phase (setup, call, teardown), plus the import-time lines of every project module
it depends on: module and class bodies, decorator arguments and default values run once
per process, outside any test, so a spectrum tool that only looks inside tests can never
rank a fault there. A test depends on a module when it ran a line of it, or when its test
module (or a module it depends on) refers to it in its globals.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from truegreen.localize.defuse import DefUse, attribute, united
from truegreen.localize.syntax import blocks, statements
from truegreen.testpaths import is_test_code, is_test_module

Line = tuple[str, int]
_T = TypeVar("_T")

_SKIP_DIRS = frozenset(
    {".venv", "venv", ".tox", ".nox", "site-packages", ".git", "node_modules", "build", "dist"}
)


@functools.lru_cache(maxsize=65536)
def is_source(rel: str) -> bool:
    """A project source file that may be ranked: Python, not a test, not a library. Asked
    once per recorded line (a few hundred thousand times on a big selection), about a few
    hundred files: cached."""
    return rel.endswith(".py") and not is_test_code(rel)


@dataclass(frozen=True)
class Trace:
    """The tracer's document, typed."""

    engine: str
    phases: Mapping[str, Mapping[str, Mapping[str, Sequence[int]]]]
    import_lines: Mapping[str, Sequence[int]]
    session_lines: Mapping[str, Sequence[int]]
    imports: Mapping[str, Sequence[str]]
    values: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: module file -> the lines (any file) that ran while its body ran
    import_runs: Mapping[str, Mapping[str, Sequence[int]]] = field(default_factory=dict)
    #: node id -> phase -> the module files imported during it
    phase_imports: Mapping[str, Mapping[str, Sequence[str]]] = field(default_factory=dict)
    failures: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    secrets: Sequence[Mapping[str, Any]] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: project modules imported before the tracer's import hook (their bodies unmeasured)
    preloaded: Sequence[str] = ()
    #: node id -> the project classes of its method calls' receivers (file, qualified
    #: name), MRO included; None when the engine does not record them
    receivers: Mapping[str, Sequence[Sequence[str]]] | None = None

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Trace:
        return cls(
            engine=str(doc.get("engine", "?")),
            phases=doc.get("phases") or {},
            import_lines=doc.get("import_lines") or {},
            session_lines=doc.get("session_lines") or {},
            imports=doc.get("imports") or {},
            values=doc.get("values") or {},
            import_runs=doc.get("import_runs") or {},
            phase_imports=doc.get("phase_imports") or {},
            failures=doc.get("failures") or {},
            secrets=doc.get("secrets") or (),
            settings=doc.get("settings") or {},
            preloaded=doc.get("preloaded") or (),
            receivers=doc.get("receivers"),
        )


class Statements:
    """Statement-level lines: every line of a statement (a multi-line call, a decorated
    ``def`` with its signature, the condition of an ``if`` spread over lines) counts as
    the statement's own line, ``node.lineno``, once. The engines report different lines
    of one statement (the probe engine its first line, line events every line that starts
    bytecode), so spectra and evidence are keyed by statement. A line that is in no
    statement's header (``except X:``, ``case P:``) keeps its own number; so does every
    line of a file that cannot be read or parsed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._maps: dict[str, tuple[dict[int, int], dict[int, tuple[int, int]]]] = {}
        self._funcs: dict[str, list[tuple[int, int]]] = {}
        self._guards: dict[str, list[tuple[int, int, int]]] = {}
        self._outcomes: dict[str, Mapping[int, tuple[int, ...]]] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._lines: dict[tuple[str, tuple[int, ...]], frozenset[Line]] = {}
        self._memo: dict[tuple[str, str], Any] = {}
        self.defuse = DefUse(root, self.tree)

    def memo(self, kind: str, rel: str, make: Callable[[], _T]) -> _T:
        """``make()``, once per file and kind: the per-file analyses of other modules
        (see :meth:`warm`)."""
        key = (kind, rel)
        if key not in self._memo:
            self._memo[key] = make()
        got: _T = self._memo[key]
        return got

    def warm(self, rel: str) -> None:
        """Analyse ``rel`` ahead of need: its statements, branches, functions, guards and
        definitions. Run while the traced tests run, on the core the bare check freed; the
        answers are the same as when asked later."""
        self._map(rel)
        self.outcomes(rel)
        self.function(rel, 0)
        self.guard(rel, 0)
        self.headers(rel)
        self.defuse.file(rel)

    def tree(self, rel: str) -> ast.Module | None:
        """The file's syntax tree (parsed once; None when it cannot be read or parsed)."""
        if rel not in self._trees:
            self._trees[rel] = parse(self.root / rel)
        return self._trees[rel]

    def _map(self, rel: str) -> tuple[dict[int, int], dict[int, tuple[int, int]]]:
        got = self._maps.get(rel)
        if got is None:
            got = self._maps[rel] = statement_map(self.root / rel, self.tree(rel))
        return got

    def line(self, rel: str, line: int) -> int:
        return self._map(rel)[0].get(line, line)

    def span(self, rel: str, line: int) -> tuple[int, int]:
        """The first and last line of the statement keyed ``line``."""
        return self._map(rel)[1].get(line, (line, line))

    def function(self, rel: str, line: int) -> tuple[int, int] | None:
        """The first and last line of the innermost ``def`` holding ``line``, if any."""
        spans = self._funcs.get(rel)
        if spans is None:
            spans = self._funcs[rel] = function_spans(self.root / rel, self.tree(rel))
        inside = [s for s in spans if s[0] <= line <= s[1]]
        return min(inside, key=lambda s: s[1] - s[0]) if inside else None

    def guard(self, rel: str, line: int) -> int | None:
        """The innermost ``if``/``while``/``for`` whose body (or ``else``) holds ``line``:
        the statement whose condition decided that ``line`` ran."""
        spans = self._guards.get(rel)
        if spans is None:
            spans = self._guards[rel] = guard_spans(self.root / rel, self.tree(rel))
        inside = [g for g in spans if g[1] <= line <= g[2]]
        return min(inside, key=lambda g: g[2] - g[1])[0] if inside else None

    def headers(self, rel: str) -> frozenset[int]:
        """The ``def``, ``class`` and ``try`` statements of ``rel`` (their lines): code
        that runs nothing of its own when a test calls into it (see :func:`headers`)."""
        return self.memo("headers", rel, lambda: headers(self.tree(rel)))

    def outcomes(self, rel: str) -> Mapping[int, tuple[int, ...]]:
        """``if`` line -> the statements whose running shows one outcome of its condition
        (see :func:`branch_outcomes`)."""
        got = self._outcomes.get(rel)
        if got is None:
            got = self._outcomes[rel] = branch_outcomes(self.tree(rel))
        return got

    def file_lines(self, f: str, ns: Sequence[int]) -> frozenset[Line]:
        """The statements of ``f`` that the lines ``ns`` belong to (none for a file that is
        not ranked)."""
        memo = (f, tuple(ns))
        got = self._lines.get(memo)
        if got is None:  # tests of one file often run the very same lines
            got = frozenset()
            if is_source(f):
                key = self._map(f)[0]
                got = frozenset((f, key.get(n, n)) for n in ns if n > 0)
            self._lines[memo] = got
        return got

    def lines(self, files: Mapping[str, Sequence[int]]) -> set[Line]:
        out: set[Line] = set()
        for f, ns in files.items():
            out |= self.file_lines(f, ns)
        return out


def parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None


def headers(tree: ast.Module | None) -> frozenset[int]:
    """The lines of the ``def``, ``class`` and ``try`` statements of ``tree``.

    A test that calls a function runs its ``def`` line, and every ``try:`` it enters, but
    neither holds code that runs then: a header's decorators, defaults and annotations run
    once, when the module is imported, and ``try:`` evaluates nothing. Each repeats the
    coverage of the first statement under it, so the spectrum cannot tell them apart from
    the code they hold, while they are seldom the fault themselves."""
    if tree is None:
        return frozenset()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.TryStar)
    return frozenset(node.lineno for node in statements(tree) if isinstance(node, kinds))


def function_spans(path: Path, tree: ast.Module | None = None) -> list[tuple[int, int]]:
    """(first, last) line of every function in the file (decorators included)."""
    tree = tree or parse(path)
    if tree is None:
        return []
    return [
        (min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno or n.lineno)
        for n in statements(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def guard_spans(path: Path, tree: ast.Module | None = None) -> list[tuple[int, int, int]]:
    """(header line, first, last line) of each body and ``else`` of every if/while/for."""
    tree = tree or parse(path)
    if tree is None:
        return []
    out: list[tuple[int, int, int]] = []
    for n in statements(tree):
        if isinstance(n, ast.If | ast.While | ast.For | ast.AsyncFor):
            for block in (n.body, n.orelse):
                if block:
                    out.append((n.lineno, block[0].lineno, block[-1].end_lineno or n.lineno))
    return out


_JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def branch_outcomes(tree: ast.Module | None) -> dict[int, tuple[int, ...]]:
    """For every ``if`` (and ``elif``), the statements that run only on one outcome of its
    condition: the first of its body (true); the first of its ``else`` (false), or, with no
    ``else`` and a body that always leaves (``return``, ``raise``, ``continue``, ``break``
    last), the statement after the ``if``, which only a false condition reaches.

    Line coverage records a condition's line whichever way it went; the statement an
    outcome leads to records the outcome.
    """
    out: dict[int, tuple[int, ...]] = {}
    if tree is None:
        return out
    every = [block for node in [tree, *statements(tree)] for block in blocks(node)]
    for block in every:  # bodies of defs, loops, handlers, cases...
        for i, st in enumerate(block):
            if not isinstance(st, ast.If) or not st.body:
                continue
            shown = [st.body[0].lineno]
            if st.orelse:
                shown.append(st.orelse[0].lineno)
            elif isinstance(st.body[-1], _JUMPS) and i + 1 < len(block):
                shown.append(block[i + 1].lineno)
            out[st.lineno] = tuple(shown)
    return out


def statement_map(
    path: Path, tree: ast.Module | None = None
) -> tuple[dict[int, int], dict[int, tuple[int, int]]]:
    """line -> its statement's line, and statement line -> (first, last) header line."""
    tree = tree or parse(path)
    if tree is None:
        return {}, {}
    key_of: dict[int, int] = {}
    span: dict[int, tuple[int, int]] = {}
    for node in statements(tree):  # outer statements first: inner ones override
        start = node.lineno
        decorators = getattr(node, "decorator_list", None) or []
        first = min([start, *(d.lineno for d in decorators)])
        last = node.end_lineno or start
        nested = [
            c.lineno
            for f in ("body", "orelse", "finalbody", "handlers", "cases")
            for c in (getattr(node, f, None) or [])
            if hasattr(c, "lineno")
        ]
        if nested or isinstance(node, ast.Match):
            last = max(start, min([*nested, last + 1]) - 1)
            if isinstance(node, ast.Match) and node.cases:
                last = max(start, node.cases[0].pattern.lineno - 1)
        for ln in range(first, last + 1):
            key_of[ln] = start
        span[start] = (first, last)
    return key_of, span


def _file_lines(f: str, ns: Sequence[int], stmts: Statements | None) -> frozenset[Line]:
    if stmts is not None:
        return stmts.file_lines(f, ns)
    return frozenset((f, n) for n in ns if n > 0)


def _lines(files: Mapping[str, Sequence[int]], stmts: Statements | None = None) -> set[Line]:
    if stmts is not None:
        return stmts.lines(files)
    return {(f, n) for f, ns in files.items() if is_source(f) for n in ns if n > 0}


def dependencies(
    test_id: str, executed: Iterable[str], imports: Mapping[str, Sequence[str]]
) -> set[str]:
    """The module files ``test_id`` depends on (closure over the import graph)."""
    test_file = test_id.split("::", 1)[0]
    todo = [test_file, *executed]
    seen: set[str] = set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo.extend(imports.get(f, ()))
    return seen


def spectra(
    trace: Trace, tests: Iterable[str], stmts: Statements | None = None
) -> dict[str, frozenset[Line]]:
    """Each test's spectrum: its own lines, its modules' import-time lines, session lines
    (statement-level given ``stmts``, else as the engine reported them).

    Import-time lines (and the lines a module's body ran in other files) count for the
    tests that depend on the module, never for the test that happened to run them: a
    module imported lazily, by a fixture of whichever test ran first, would otherwise
    make that one test look like the only one to run them. A test depends on a module
    when it ran a function line of it outside an import, when its own body (the call
    phase) imported it, or through the import graph of those and of its test module.
    At statement level, definitions (module- and class-level assignments, ``def`` and
    ``class`` statements) go only to the dependent tests that use them
    (:mod:`truegreen.localize.defuse`)."""
    imports = _lines(trace.import_lines, stmts)
    imports_in: dict[str, set[Line]] = {}
    for ln in imports:
        imports_in.setdefault(ln[0], set()).add(ln)
    session_only: set[Line] = _lines(trace.session_lines, stmts) - imports
    runs: dict[str, set[Line]] = {}
    for mod, files in trace.import_runs.items():
        runs[mod] = _lines(files, stmts) - imports
    #: test -> its own lines (in sets of one file each, as reported), its modules
    per_test: dict[str, tuple[list[frozenset[Line]], set[str]]] = {}
    for tid in tests:
        own: list[frozenset[Line]] = []
        executed: set[str] = set()
        for phase, files in trace.phases.get(tid, {}).items():
            for f, ns in files.items():
                if not is_source(f):  # not ranked (a test helper): can still lead to modules
                    executed.add(f)
                    continue
                lines = _file_lines(f, ns, stmts)
                at_import = imports_in.get(f)
                ran = lines - at_import if at_import else lines
                if ran:
                    own.append(ran)
                    executed.add(f)
                if phase == "call" and at_import and not lines.isdisjoint(at_import):
                    executed.add(f)
            if phase == "call":
                executed.update(trace.phase_imports.get(tid, {}).get(phase, ()))
        modules = {m for m in dependencies(tid, executed, trace.imports) if is_source(m)}
        per_test[tid] = (own, modules)
    if stmts is not None:
        receivers = None
        if trace.receivers is not None:
            receivers = {
                tid: [(str(f), str(q)) for f, q in pairs] for tid, pairs in trace.receivers.items()
            }
        # the lines that functions ran at import and that change a module-level variable
        # in place (a table built by calls at import) are definitions too: they go to
        # the tests that read the variable, not to every dependent
        changes = {ln for lines in runs.values() for ln in lines if stmts.defuse.precise(*ln)}
        if changes:
            runs = {mod: lines - changes for mod, lines in runs.items()}
        given = attribute(stmts.defuse, per_test, imports | changes, receivers)
    else:
        by_module: dict[str, set[Line]] = {}
        for ln in imports:
            by_module.setdefault(ln[0], set()).add(ln)
        given = {
            tid: {ln for m in modules for ln in by_module.get(m, ())}
            for tid, (_own, modules) in per_test.items()
        }
    out: dict[str, frozenset[Line]] = {}
    by_modules: dict[frozenset[str], set[Line]] = {}
    for tid, (own, modules) in per_test.items():
        spectrum = given[tid].union(*own)
        spectrum |= united(by_modules, modules, runs)
        if spectrum:
            spectrum |= session_only
        out[tid] = frozenset(spectrum)
    return out


def import_only(trace: Trace, stmts: Statements | None = None) -> frozenset[Line]:
    """The lines of functions that ran while modules were imported and in no test's phase
    (a table built by calls at import): changing such a function later changes nothing."""
    by_file: dict[str, set[Line]] = {}
    for files in trace.import_runs.values():
        for ln in _lines(files, stmts):
            by_file.setdefault(ln[0], set()).add(ln)
    if not by_file:
        return frozenset()
    seen: set[Line] = set()
    for phases in trace.phases.values():
        for files in phases.values():
            for f, ns in files.items():
                wanted = by_file.get(f)
                if wanted and not wanted <= seen:
                    seen |= wanted & _file_lines(f, ns, stmts)
    return frozenset(ln for lines in by_file.values() for ln in lines if ln not in seen)


def similarity(a: frozenset[Line], b: frozenset[Line]) -> Fraction:
    """Jaccard overlap of two spectra, exact."""
    union = len(a | b)
    return Fraction(len(a & b), union) if union else Fraction(0)


# ---------------------------------------------------------------- choosing passing tests


#: an import statement at the start of a line (any indentation), with its continuation:
#: a parenthesised name list or backslash-continued lines
_IMPORT_LINE = re.compile(
    rb"^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+import[ \t]*(?:\([^)]*\)|(?:[^\n]*\\\r?\n)*[^\n]*)"
    rb"|import[ \t]+(?:[^\n]*\\\r?\n)*[^\n]*)",
    re.MULTILINE,
)


def _triple_quoted(source: bytes) -> list[tuple[int, int]]:
    """Spans of triple-quoted strings (docstrings), found by pairing the quotes."""
    spans: list[tuple[int, int]] = []
    opened: tuple[bytes, int] | None = None
    for m in re.finditer(rb"\"\"\"|'''", source):
        if opened is None:
            opened = (m.group(), m.start())
        elif m.group() == opened[0]:
            spans.append((opened[1], m.end()))
            opened = None
    if opened is not None:
        spans.append((opened[1], len(source)))
    return spans


def _import_statements(source: bytes) -> ast.Module:
    """The import statements of a file, parsed. Only lines that start an import are parsed
    (choosing the tests parses many files, most of which is not imports); a line that
    only looks like one (in a docstring) and is no statement is dropped."""
    body: list[ast.stmt] = []
    strings = _triple_quoted(source)
    snippets = [
        m.group().strip()
        for m in _IMPORT_LINE.finditer(source)
        if not any(a < m.start() < b for a, b in strings)
    ]
    try:
        body = ast.parse(b"\n".join(snippets)).body
    except (SyntaxError, ValueError):
        for snippet in snippets:
            try:
                body += ast.parse(snippet).body
            except (SyntaxError, ValueError):
                continue
    return ast.Module(body=body, type_ignores=[])


class _Imports:
    """Which project files a Python file imports (statically, from its AST); one per
    selection, so the file system is asked once per module name."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._bases = [b for b in (root, root / "src", root / "lib") if b.is_dir()]
        self._names: dict[str, tuple[str, ...]] = {}
        self._files: dict[str, frozenset[str]] = {}

    def module_files(self, name: str) -> tuple[str, ...]:
        """Files a dotted module name may refer to (the module and each package on its
        path)."""
        got = self._names.get(name)
        if got is not None:
            return got
        parts = name.split(".")
        found: list[str] = []
        if len(parts) > 1:
            found += self.module_files(".".join(parts[:-1]))
        for base in self._bases:
            p = base.joinpath(*parts)
            for cand in (p.with_suffix(".py"), p / "__init__.py"):
                if cand.is_file():
                    found.append(cand.relative_to(self.root).as_posix())
        out = self._names[name] = tuple(dict.fromkeys(found))
        return out

    def of(self, rel: str) -> frozenset[str]:
        got = self._files.get(rel)
        if got is not None:
            return got
        try:
            tree = _import_statements((self.root / rel).read_bytes())
        except OSError:
            tree = ast.Module(body=[], type_ignores=[])
        names: set[str] = set()
        pkg = rel.rsplit("/", 1)[0].replace("/", ".") if "/" in rel else ""
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    base = pkg.split(".")[: max(0, len(pkg.split(".")) - node.level + 1)]
                    mod = ".".join([*base, mod] if mod else base)
                if mod:
                    names.add(mod)
                    names.update(f"{mod}.{a.name}" for a in node.names)
        files: set[str] = set()
        for n in names:
            files.update(self.module_files(n))
        out = self._files[rel] = frozenset(files)
        return out


def test_files(root: Path, paths: Sequence[str]) -> list[str]:
    """Test files under ``paths`` (files or directories, relative to root)."""
    out: set[str] = set()
    for p in paths or (".",):
        base = root / p.split("::", 1)[0]
        if base.is_file():
            out.add(base.relative_to(root).as_posix())
            continue
        if not base.is_dir():
            continue
        for f in base.rglob("*.py"):
            rel = f.relative_to(root).as_posix()
            if any(part in _SKIP_DIRS for part in rel.split("/")):
                continue
            if is_test_module(rel):
                out.add(rel)
    return sorted(out)


def project_modules(
    root: Path, test_files: Sequence[str], stop: Callable[[], bool]
) -> Iterable[str]:
    """The project source modules ``test_files`` import, then those they import, and so
    on (statically), nearest first, until ``stop()``."""
    imports = _Imports(root)
    todo = list(dict.fromkeys(test_files))
    seen = set(todo)
    while todo and not stop():
        f = todo.pop(0)
        if is_source(f):
            yield f
        for m in sorted(imports.of(f)):
            if m not in seen and is_source(m):
                seen.add(m)
                todo.append(m)


def choose_test_files(
    root: Path, failing: Sequence[str], candidates: Sequence[str], *, max_files: int = 60
) -> list[str]:
    """Test files to run next to the failing tests: their own files, and files that import
    a project module the failing tests' files import (the modules they exercise)."""
    own = sorted({t.split("::", 1)[0] for t in failing})
    imports = _Imports(root)
    wanted: set[str] = set()
    for f in own:
        wanted |= {m for m in imports.of(f) if is_source(m)}
    # a package's __init__ alone says little: prefer the concrete modules
    concrete = {m for m in wanted if not m.endswith("__init__.py")} or wanted
    chosen = list(own)
    for cand in candidates:
        if cand in chosen:
            continue
        if any(is_source(m) and m in concrete for m in imports.of(cand)):
            chosen.append(cand)
        if len(chosen) >= max_files:
            break
    return chosen
