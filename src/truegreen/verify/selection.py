"""Regression selection: which of the base's tests a change can affect.

The base's suite runs once under a per-test recorder (``verify/_regress/truegreen_record.py``):
the functions each test ran, the files it opened, the directories it listed, whether it
started a process, and the broader-scoped fixtures it used. The record is kept in
truegreen's cache, keyed by the base commit and everything else that decides what the suite
does (:func:`record_key`), so the next verification of the same base runs only the head.

:func:`plan` reads the change base -> head and picks:

* the tests that ran a function whose body or signature the change edits or removes (or
  used a fixture of a broader scope that ran it); where the record has the statement lists
  each test entered and the change lies inside such lists (:func:`_changed_blocks`,
  :func:`_scopes_agree`), the tests that entered them;
* every test of a test module the change touches (its own tests, whatever they are now);
* the doctests and tests collected from a changed file;
* the tests that opened a non-Python file the change edits, adds or removes, or listed the
  directory where a file is added or removed;
* every test that failed or errored on the base, and every test that started a process
  (what runs in another process is not seen).

Whatever the record cannot see sends the whole suite, with the reason (:class:`Plan`):
code that runs at import (module- or class-level statements, decorators, a new function
whose name is already used elsewhere), conftest.py, configuration and dependency files,
extension sources, a removed or renamed module, a function or file the session used while
collecting, and a file that does not parse.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import Any

from truegreen import __version__, tempdirs
from truegreen.repo.git import GitRepo
from truegreen.testpaths import is_conftest, is_test_code, is_test_module

RECORD_DIR = Path(__file__).resolve().parent / "_regress"
RECORD_PLUGIN = "truegreen_record"
SELECT_PLUGIN = "truegreen_select"
REPEAT_PLUGIN = "truegreen_repeat"
#: bump when the record's meaning changes (old records are then not reused)
RECORD_VERSION = 2

#: files whose change sends the whole suite: configuration, dependencies, build
WHOLE_SUITE_FILES = frozenset(
    {
        "setup.py",
        "setup.cfg",
        "pyproject.toml",
        "tox.ini",
        "pytest.ini",
        ".pytest.ini",
        "noxfile.py",
        "MANIFEST.in",
        "Pipfile",
        "Pipfile.lock",
        "poetry.lock",
        "uv.lock",
        "pdm.lock",
        "environment.yml",
    }
)
#: extension sources and binaries: what they do is not seen by a Python tracer
EXTENSION_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".pyx", ".pxd", ".pxi", ".rs")
EXTENSION_SUFFIXES_BINARY = (".so", ".pyd", ".dylib")


# --- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Bucket:
    """What one test (or a fixture, or the session) did: functions by index in
    :attr:`Record.codes`, files opened and directories listed (relative paths)."""

    codes: frozenset[int] = frozenset()
    files: frozenset[str] = frozenset()
    dirs: frozenset[str] = frozenset()
    spawned: bool = False
    fixtures: tuple[str, ...] = ()
    #: the recorder's tracer was off for part of it (it is always run)
    unrecorded: bool = False
    #: the statement lists it entered, by index in :attr:`Record.blocks`
    blocks: frozenset[int] = frozenset()

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Bucket:
        return cls(
            frozenset(int(c) for c in doc.get("codes", ())),
            frozenset(str(f) for f in doc.get("files", ())),
            frozenset(str(d) for d in doc.get("dirs", ())),
            bool(doc.get("spawned", False)),
            tuple(str(f) for f in doc.get("fixtures", ())),
            bool(doc.get("unrecorded", False)),
            frozenset(int(b) for b in doc.get("blocks", ())),
        )


@dataclass(frozen=True)
class Code:
    """A function the suite ran: its file, first and last line, and qualified name."""

    file: str
    first: int
    last: int
    name: str
    #: the recorder marked the statement lists of its body: a test that ran it and is not
    #: among a list's entrants never ran a line of that list
    blocks: bool = False


#: a statement list inside a function's body: its file, and the line and column of its
#: first statement
Block = tuple[str, int, int]


@dataclass(frozen=True)
class Record:
    """The base's suite, run once under the recorder: each test's outcome and what it ran."""

    codes: tuple[Code, ...]
    tests: Mapping[str, Bucket]
    fixtures: Mapping[str, Bucket]
    session: Bucket
    outcomes: Mapping[str, str]
    collected: frozenset[str]
    collection_errors: frozenset[str]
    tracer: str = ""
    #: the statement lists the recorder marked and some test entered (:class:`Block`)
    blocks: tuple[Block, ...] = ()

    @classmethod
    def from_plugin(
        cls,
        doc: Mapping[str, Any],
        outcomes: Mapping[str, str],
        collected: Iterable[str],
        collection_errors: Iterable[str],
    ) -> Record:
        return cls(
            codes=tuple(
                Code(str(c[0]), int(c[1]), int(c[2]), str(c[3]), len(c) > 4 and bool(c[4]))
                for c in doc["codes"]
            ),
            blocks=tuple((str(f), int(line), int(col)) for f, line, col in doc.get("blocks", ())),
            tests={k: Bucket.from_json(v) for k, v in doc["tests"].items()},
            fixtures={k: Bucket.from_json(v) for k, v in doc.get("fixtures", {}).items()},
            session=Bucket.from_json(doc.get("session", {})),
            outcomes=dict(outcomes),
            collected=frozenset(collected),
            collection_errors=frozenset(collection_errors),
            tracer=str(doc.get("tracer", "")),
        )

    def to_json(self) -> dict[str, Any]:
        def bucket(b: Bucket) -> dict[str, Any]:
            doc: dict[str, Any] = {
                "codes": sorted(b.codes),
                "files": sorted(b.files),
                "dirs": sorted(b.dirs),
            }
            if b.spawned:
                doc["spawned"] = True
            if b.fixtures:
                doc["fixtures"] = list(b.fixtures)
            if b.unrecorded:
                doc["unrecorded"] = True
            if b.blocks:
                doc["blocks"] = sorted(b.blocks)
            return doc

        return {
            "version": RECORD_VERSION,
            "tracer": self.tracer,
            "codes": [
                [c.file, c.first, c.last, c.name, *([1] if c.blocks else [])] for c in self.codes
            ],
            "blocks": [list(b) for b in self.blocks],
            "tests": {k: bucket(v) for k, v in sorted(self.tests.items())},
            "fixtures": {k: bucket(v) for k, v in sorted(self.fixtures.items())},
            "session": bucket(self.session),
            "outcomes": dict(sorted(self.outcomes.items())),
            "collected": sorted(self.collected),
            "collection_errors": sorted(self.collection_errors),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Record:
        return cls.from_plugin(
            doc, doc["outcomes"], doc.get("collected", ()), doc.get("collection_errors", ())
        )


def record_key(parts: Mapping[str, Any]) -> str:
    """The cache key of a record: a hash of the base commit and what else decides the
    suite's outcomes (interpreter and its installed distributions, arguments, sandbox,
    carried files, truegreen's version)."""
    payload = {"truegreen": __version__, "record": RECORD_VERSION, **parts}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()


def cache_dir() -> Path | None:
    from truegreen.localize.budget import cache_dir as _cache_dir

    return _cache_dir("regression")


def load(key: str) -> Record | None:
    """The record cached under ``key``, or None (none, unreadable, or an older format)."""
    where = cache_dir()
    if where is None:
        return None
    try:
        doc = json.loads((where / f"{key}.json").read_text(encoding="utf-8"))
        if doc.get("version") != RECORD_VERSION:
            return None
        return Record.from_json(doc)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(key: str, record: Record, revision: str | None = None) -> bool:
    """Keep ``record`` under ``key`` (written whole or not at all); with ``revision`` (the
    commit it was recorded at), also as that revision's newest record, which localize
    reads (:func:`for_revision`)."""
    where = cache_dir()
    if where is None:
        return False
    if not _write(where / f"{key}.json", json.dumps(record.to_json(), separators=(",", ":"))):
        return False
    if revision is not None:
        (where / REVISIONS).mkdir(exist_ok=True)
        _write(where / REVISIONS / revision, key)
    return True


#: the directory of the cache that names, per commit, the key of its newest record
REVISIONS = "revisions"


def _write(target: Path, text: str) -> bool:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def for_revision(revision: str) -> Record | None:
    """The newest record made at commit ``revision`` (by a verification whose base it was),
    whatever its environment, or None. For choosing what to run next to a failing test,
    where an approximate record is worth more than none; never for selection itself, which
    needs the exact key."""
    where = cache_dir()
    if where is None or not revision.isalnum():
        return None
    try:
        key = (where / REVISIONS / revision).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return load(key) if key.isalnum() else None


def related_test_files(
    record: Record, targets: Sequence[str], limit: int = 60
) -> tuple[list[str], frozenset[str]] | None:
    """The test files whose tests ran the project code the ``targets`` ran in ``record``,
    most related first, and every test file the record knows (a file it does not know is
    new, and another way must judge it); None when no target is in the record.

    A file's weight is its best test's: the sum, over the functions outside test code that
    it shares with the targets (their fixtures' included), of one over the number of tests
    that ran the function (a helper every test runs says little; a function only the
    target and one other test run says much). Ties go by file name."""

    def codes(test: str) -> set[int]:
        bucket = record.tests[test]
        out = set(bucket.codes)
        for name in bucket.fixtures:
            fixture = record.fixtures.get(name)
            if fixture is not None:
                out |= fixture.codes
        return out

    source = {i for i, c in enumerate(record.codes) if not is_test_code(c.file)}
    present = [t for t in targets if t in record.tests]
    if not present:
        return None
    wanted: set[int] = set()
    for t in present:
        wanted |= codes(t) & source
    ran = {t: codes(t) & wanted for t in record.tests if t not in present}
    runs_of: dict[int, int] = {}
    for shared in ran.values():
        for c in shared:
            runs_of[c] = runs_of.get(c, 0) + 1
    best: dict[str, float] = {}
    for test, shared in ran.items():
        if not shared:
            continue
        weight = sum(1.0 / runs_of[c] for c in shared)
        path = test.split("::", 1)[0]
        best[path] = max(best.get(path, 0.0), weight)
    own = {t.split("::", 1)[0] for t in present}
    order = sorted((f for f in best if f not in own), key=lambda f: (-best[f], f))
    known = frozenset(t.split("::", 1)[0] for t in record.tests)
    return order[:limit], known


def read_plugin_output(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("version") != RECORD_VERSION:
        return None
    return doc


def scratch_dir() -> Path:
    """A directory for the files a run reads (the selection, the gate) or writes (the
    record): readable by all, as the sandbox's uid 65534 reads what is given it, and one
    it cannot read makes the whole run fall back to the weaker user-namespace sandbox."""
    where = tempdirs.make("truegreen-record-")
    where.chmod(0o755)
    return where


# --- what a Python file's change does ------------------------------------------------------


class _Function:
    """One function of a module: its qualified name (as ``co_qualname`` spells it), lines,
    its source text, and syntax dumps without positions (its own body, nested functions'
    bodies left out; its signature and decorators), made when first asked for: a function
    whose text the change leaves as it was needs none."""

    def __init__(self, qualname: str, first: int, last: int, node: _Def, text: str) -> None:
        self.qualname = qualname
        self.first = first
        self.last = last
        self.text = text
        self._node = node

    @property
    def node(self) -> _Def:
        return self._node

    @functools.cached_property
    def _dumps(self) -> tuple[str, str, tuple[str, ...]]:
        node = self._node
        inner = ast.Module(body=list(node.body), type_ignores=[])
        hollowed = _hollow(ast.parse(ast.unparse(inner)))
        head = ast.parse(ast.unparse(node)).body[0]
        assert isinstance(head, _Def)
        head.body = [ast.Pass()]
        return (
            ast.dump(hollowed),
            ast.dump(head),
            tuple(ast.dump(d) for d in head.decorator_list),
        )

    @property
    def body(self) -> str:
        return self._dumps[0]

    @property
    def signature(self) -> str:
        return self._dumps[1]

    @property
    def decorators(self) -> tuple[str, ...]:
        return self._dumps[2]

    @property
    def doc(self) -> str | None:
        return ast.get_docstring(self._node, clean=False)

    @property
    def decorated(self) -> bool:
        return bool(self._node.decorator_list)


@dataclass(frozen=True)
class _Module:
    #: every definition of each qualified name, in the order of the source: a property's
    #: getter and setter, a function defined under both branches of an ``if``, an
    #: ``@overload`` stub and its implementation share one
    functions: Mapping[str, tuple[_Function, ...]]
    #: the module and class level without functions and docstrings (what runs at import)
    skeleton: str
    #: the source (its names are looked for only when the change adds a function)
    text: str = ""

    @functools.cached_property
    def compiled(self) -> dict[tuple[str, int], list[CodeType]]:
        """The module's code objects by qualified name and first line (none when it does
        not compile)."""
        try:
            top = compile(self.text, "<module>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return {}
        out: dict[tuple[str, int], list[CodeType]] = {}
        stack = [top]
        while stack:
            code = stack.pop()
            out.setdefault((code.co_qualname, code.co_firstlineno), []).append(code)
            stack.extend(c for c in code.co_consts if isinstance(c, CodeType))
        return out

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """Every name and attribute the module uses, and the functions it defines."""
        try:
            tree = ast.parse(self.text)
        except (SyntaxError, ValueError):
            return frozenset()
        return frozenset(
            n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.Name | ast.Attribute | ast.FunctionDef | ast.AsyncFunctionDef)
        )


def _strip_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return body


_Def = ast.FunctionDef | ast.AsyncFunctionDef


def _hollow(node: ast.AST) -> ast.AST:
    """A copy of ``node`` with every function body emptied (``pass``)."""

    class Hollow(ast.NodeTransformer):
        def visit_FunctionDef(self, n: ast.FunctionDef) -> ast.AST:
            return self._hollow(n)

        def visit_AsyncFunctionDef(self, n: ast.AsyncFunctionDef) -> ast.AST:
            return self._hollow(n)

        def _hollow(self, n: _Def) -> ast.AST:
            n.body = [ast.Pass()]
            return n

    hollowed: ast.AST = Hollow().visit(node)
    return hollowed


def _skeleton(tree: ast.Module) -> str:
    """The module without its functions and docstrings: the statements that run at import.
    ``tree`` is changed in place: its function nodes are taken out of it, not changed (the
    plan's :class:`_Function` objects keep theirs)."""

    class Drop(ast.NodeTransformer):
        def visit_FunctionDef(self, n: ast.FunctionDef) -> None:
            return None

        def visit_AsyncFunctionDef(self, n: ast.AsyncFunctionDef) -> None:
            return None

        def visit_ClassDef(self, n: ast.ClassDef) -> ast.AST:
            self.generic_visit(n)
            n.body = _strip_docstring(n.body) or [ast.Pass()]
            return n

    bare = Drop().visit(tree)
    assert isinstance(bare, ast.Module)
    bare.body = _strip_docstring(bare.body)
    return ast.dump(bare)


def _functions(tree: ast.Module, lines: Sequence[str]) -> dict[str, tuple[_Function, ...]]:
    out: dict[str, tuple[_Function, ...]] = {}

    def walk(body: Sequence[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, _Def):
                qual = f"{prefix}{node.name}"
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                last = node.end_lineno or node.lineno
                text = "\n".join(lines[first - 1 : last])
                out[qual] = (*out.get(qual, ()), _Function(qual, first, last, node, text))
                walk(node.body, f"{qual}.<locals>.")
            else:
                # functions defined under a compound statement (if, try, with, for, while,
                # match, their async and except* forms): the same qualified names
                for block in _blocks(node):
                    walk(block, prefix)

    walk(tree.body, "")
    return out


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists of a compound statement (none for a simple one), in the
    recorder's order (its ``_statement_lists``)."""
    out = [
        value
        for name in ("body", "orelse", "finalbody")
        if isinstance(value := getattr(node, name, None), list)
    ]
    out += [h.body for h in getattr(node, "handlers", ())]
    out += [c.body for c in getattr(node, "cases", ())]
    return out


def _unplaced(before: _Module, after: _Module) -> bool:
    """Whether the two versions of a module differ in code that is neither at module or
    class level (the skeleton) nor in a function the plan knows: a change the plan cannot
    place, which must not select nothing. (Comments, blank lines and a module's or a
    class's docstring are not code.)"""
    if before.skeleton != after.skeleton:
        return False  # (seen: the whole suite)
    for qual in set(before.functions) | set(after.functions):
        olds, news = before.functions.get(qual, ()), after.functions.get(qual, ())
        if [f.text for f in olds] != [f.text for f in news]:
            return False  # (compared function by function)
    return _code_dump(before.text) != _code_dump(after.text)


def _code_dump(text: str) -> str:
    """The module's syntax without positions, module and class docstrings left out."""

    class Undoc(ast.NodeTransformer):
        def visit_ClassDef(self, n: ast.ClassDef) -> ast.AST:
            self.generic_visit(n)
            n.body = _strip_docstring(n.body) or [ast.Pass()]
            return n

    try:
        tree = Undoc().visit(ast.parse(text))
    except (SyntaxError, ValueError):
        return text
    assert isinstance(tree, ast.Module)
    tree.body = _strip_docstring(tree.body)
    return ast.dump(tree)


def _module(text: str) -> _Module | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    # lines as the parser numbers them (str.splitlines would also split at a form feed)
    lines = re.split(r"\r\n|\r|\n", text)
    functions = _functions(tree, lines)  # (before the skeleton takes them out of the tree)
    return _Module(functions, _skeleton(tree), text)


# --- the plan -----------------------------------------------------------------------------


@dataclass
class Plan:
    """What the head runs: ``full`` with its ``reason``, or the selected node ids (of the
    base) and the test files that run whole."""

    full: bool = False
    reason: str | None = None
    ids: set[str] = field(default_factory=set)
    whole_files: set[str] = field(default_factory=set)
    #: test modules the change removes (what the base collected there is gone)
    gone_files: set[str] = field(default_factory=set)
    #: why tests were picked, counted: {"changed functions": 3, ...}
    why: dict[str, int] = field(default_factory=dict)

    def fall_back(self, reason: str) -> Plan:
        if not self.full:
            self.full, self.reason = True, reason
        return self


#: the names of the code objects written inside a function's body that are not functions
#: of their own (before 3.11 they have no qualified name: told by their lines)
_INNER_CODE = frozenset(("<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"))


class _Index:
    """Which tests ran what, from the record: looked up for the few things a change
    touches, never built whole (a record holds a hundred thousand test-function pairs)."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.codes_in: dict[str, list[int]] = {}
        for i, code in enumerate(record.codes):
            self.codes_in.setdefault(code.file, []).append(i)
        self._users: dict[str, set[str]] | None = None

    def _fixture_users(self) -> dict[str, set[str]]:
        if self._users is None:
            self._users = {}
            for test, b in self.record.tests.items():
                for name in b.fixtures:
                    self._users.setdefault(name, set()).add(test)
        return self._users

    def _tests(self, hit: Callable[[Bucket], bool]) -> set[str]:
        """The tests whose own bucket, or a broader fixture's they used, ``hit``."""
        out = {t for t, b in self.record.tests.items() if hit(b)}
        for name, fb in self.record.fixtures.items():
            if hit(fb):
                out |= self._fixture_users().get(name, set())
        return out

    def ran(self, codes: Iterable[int]) -> set[str]:
        wanted = frozenset(codes)
        return self._tests(lambda b: not wanted.isdisjoint(b.codes)) if wanted else set()

    def entered(self, blocks: Iterable[Block]) -> set[str]:
        where = {b: i for i, b in enumerate(self.record.blocks)}
        wanted = frozenset(where[b] for b in blocks if b in where)
        return self._tests(lambda b: not wanted.isdisjoint(b.blocks)) if wanted else set()

    def read(self, path: str) -> set[str]:
        return self._tests(lambda b: path in b.files)

    def listed(self, path: str) -> set[str]:
        return self._tests(lambda b: path in b.dirs)

    def blocks_marked(self, path: str, fn: _Function) -> bool:
        """Whether the recorder marked the statement lists of ``fn``'s body (its own code
        object, known by name and first line, says so)."""
        short = fn.qualname.rsplit(".", 1)[-1]
        for i in self.codes_in.get(path, ()):
            code = self.record.codes[i]
            if code.first == fn.first and code.name in (fn.qualname, short):
                return code.blocks
        return False

    def codes_of(self, path: str, fn: _Function) -> list[int]:
        """The record's code objects of function ``fn`` of ``path`` (by qualified name; by
        name and lines where the interpreter has no ``co_qualname``), and those of the
        code written inside its body: a lambda, a comprehension or a generator expression
        may run in a test that never called ``fn`` (returned, stored, resumed later), and
        its text is ``fn``'s body."""
        found = []
        short = fn.qualname.rsplit(".", 1)[-1]
        inner = fn.qualname + ".<locals>."
        for i in self.codes_in.get(path, ()):
            code = self.record.codes[i]
            if (
                code.name == fn.qualname
                or code.name.startswith(inner)
                or (
                    "." not in code.name
                    and (code.name == short or code.name in _INNER_CODE)
                    and fn.first <= code.first <= fn.last
                )
            ):
                found.append(i)
        return found


def _describe(path: str, fn: _Function) -> str:
    return f"{path}:{fn.first} ({fn.qualname})"


def plan(
    git: GitRepo,
    base: str,
    head: str,
    record: Record,
    *,
    skip: Iterable[str] = (),
) -> Plan:
    """The tests of the base's ``record`` that the change base -> head can affect."""
    index = _Index(record)
    out = Plan()

    def add(tests: Iterable[str], why: str) -> None:
        new = set(tests) - out.ids
        if new:
            out.ids |= new
            out.why[why] = out.why.get(why, 0) + len(new)

    session = record.session
    if session.unrecorded:
        return out.fall_back(
            "the recorder was switched off while the suite was collected (a RecursionError "
            "in it, or a tracer of the project's own): what ran then is not seen"
        )
    for change in git.changed(base, head):
        paths = [change.path] if change.old_path is None else [change.old_path, change.path]
        status = change.status
        for i, path in enumerate(paths):
            st = status if change.old_path is None else ("D" if i == 0 else "A")
            name = path.rsplit("/", 1)[-1]
            if is_conftest(path):
                return out.fall_back(f"{path} changed (conftest.py runs for every test under it)")
            if name in WHOLE_SUITE_FILES or (
                name.startswith("requirements") and name.endswith((".txt", ".in"))
            ):
                return out.fall_back(
                    f"{path} changed (configuration, dependencies or build: not seen by coverage)"
                )
            if path.endswith(EXTENSION_SUFFIXES + EXTENSION_SUFFIXES_BINARY):
                return out.fall_back(f"{path} changed (extension code: not seen by coverage)")
            if path in session.files and not path.endswith(".py"):
                # (a module's source is read when it is imported: its functions are
                # looked at below)
                return out.fall_back(f"{path} changed, and the suite read it while collecting")
            parent = path.rsplit("/", 1)[0] if "/" in path else ""
            if st in "AD" and parent in session.dirs:
                return out.fall_back(
                    f"{path} was {'added' if st == 'A' else 'removed'}, and the suite listed "
                    f"{parent or 'the root'} while collecting"
                )
            add(index.read(path), "read a changed file")
            if st in "AD":
                add(index.listed(parent), "listed a directory where a file came or went")
            if not path.endswith(".py"):
                continue
            if is_test_module(path):
                if st == "D":
                    out.gone_files.add(path)
                else:
                    out.whole_files.add(path)
                    key = "test modules the change touches, run whole"
                    out.why[key] = out.why.get(key, 0) + 1
                add(
                    (t for t in record.outcomes if t.split("::")[0] == path),
                    "tests of a changed file",
                )
            else:
                add(
                    (t for t in record.outcomes if t.split("::")[0] == path),
                    "collected from a changed file",
                )
            if st == "A":
                continue  # a new module runs only when changed code imports it
            if st == "D" and not is_test_module(path):
                return out.fall_back(f"{path} was removed or renamed (its importers are not seen)")
            before_text = git.show_text(base, path)
            after_text = git.show_text(head, path) if st != "D" else ""
            before = _module(before_text or "")
            after = _module(after_text or "") if st != "D" else _Module({}, "")
            if before is None or after is None:
                return out.fall_back(
                    f"{path} does not parse on the {'base' if before is None else 'head'}"
                )
            if st != "D" and before.skeleton != after.skeleton and not is_test_module(path):
                return out.fall_back(
                    f"{path}: module- or class-level code changed (it runs at import)"
                )
            # a test module runs whole on the head: only its helpers' other users are
            # looked for, never the whole suite
            strict = not is_test_module(path)
            if strict and st != "D" and _unplaced(before, after):
                return out.fall_back(f"{path}: a change outside the functions the plan knows")
            reason = _functions_changed(git, base, path, before, after, index, record, add, strict)
            if reason is not None:
                return out.fall_back(reason)
    skipped = set(skip)
    add(
        (t for t, o in record.outcomes.items() if o not in ("passed", "skipped", "xfailed")),
        "failed on the base",
    )
    add((t for t, b in record.tests.items() if b.spawned), "started a process on the base")
    lost = {name for name, b in record.fixtures.items() if b.unrecorded}
    add(
        (t for t, b in record.tests.items() if b.unrecorded or lost & set(b.fixtures)),
        "ran while the recorder was off",
    )
    out.ids -= skipped
    return out


def _functions_changed(
    git: GitRepo,
    base: str,
    path: str,
    before: _Module,
    after: _Module,
    index: _Index,
    record: Record,
    add: Callable[[Iterable[str], str], None],
    strict: bool = True,
) -> str | None:
    """Select the tests of ``path``'s changed functions; a reason for the whole suite, or
    None (never with ``strict`` off)."""
    for qual in sorted(set(before.functions) | set(after.functions)):
        olds, news = before.functions.get(qual, ()), after.functions.get(qual, ())
        if olds and news:
            if len(olds) != len(news):
                # a definition added or taken away under a name the module has (a
                # property's setter, a branch's variant): which one runs is decided at import
                if strict:
                    return (
                        f"{_describe(path, news[0])}: a definition of {qual} was added or "
                        "removed (which one runs is decided at import)"
                    )
            else:
                pairs = []
                for old, new in zip(olds, news, strict=True):
                    if old.text == new.text:
                        continue  # the same code (its lines may have moved)
                    if old.body == new.body and old.signature == new.signature:
                        continue
                    if (
                        strict
                        and (old.decorated or new.decorated)
                        and (old.decorators != new.decorators or old.doc != new.doc)
                    ):
                        return (
                            f"{_describe(path, new)}: its decorators or docstring changed "
                            "(decorators run at import)"
                        )
                    pairs.append((old, new))
                if not pairs:
                    continue
        elif news:
            if not strict:
                continue
            # a new function: reached by the changed code that calls it, unless it runs at
            # import (decorators) or takes a name something else already uses
            new = news[0]
            if any(n.decorated for n in news):
                return (
                    f"{_describe(path, new)}: a new decorated function (decorators run at import)"
                )
            short = qual.rsplit(".", 1)[-1]
            if short in before.names or _used_elsewhere(git, base, path, short):
                return (
                    f"{_describe(path, new)}: a new function whose name {short!r} is already "
                    "used (it may override or shadow it)"
                )
            continue
        # every code object of the name: the record tells a property's getter from its
        # setter by lines alone, and those moved with the change
        codes = sorted({c for old in olds for c in index.codes_of(path, old)})
        if any(c in record.session.codes for c in codes):
            return f"{_describe(path, olds[0])} changed, and the suite ran it while collecting"
        whole = olds
        if olds and news and len(olds) == len(news):
            # by the statement lists the change is in, where the record has them
            whole = ()
            for old, new in pairs:
                blocks = None
                if index.blocks_marked(path, old) and _scopes_agree(before, after, old, new):
                    blocks = _changed_blocks(old, new)
                if blocks is None:
                    whole = (*whole, old)
                    continue
                add(
                    index.entered((path, line, col) for line, col in blocks),
                    "entered a changed block",
                )
        add(
            index.ran(c for old in whole for c in index.codes_of(path, old)),
            "ran a changed function",
        )
    return None


#: statements whose statement lists the recorder marks (as ``_COMPOUND`` there)
_COMPOUND: tuple[type[ast.stmt], ...] = (
    ast.If,
    ast.For,
    ast.While,
    ast.With,
    ast.Try,
    ast.TryStar,
    ast.Match,
)


def _changed_blocks(old: _Function, new: _Function) -> set[tuple[int, int]] | None:
    """The statement lists of ``old`` (by the line and column of their first statement)
    that hold every difference between ``old`` and ``new``, innermost first; None when the
    difference is the function's own: its signature, a statement of its body's top level,
    a function that can suspend (a generator resumed in a later test goes on inside a list
    it entered in an earlier one), or a changed statement holding a lambda or a generator
    expression (code that may run later, outside the list)."""
    if old.signature != new.signature:
        return None
    a, b = old.node, new.node
    if not isinstance(a, ast.FunctionDef) or not isinstance(b, ast.FunctionDef):
        return None
    if _suspends(a) or _suspends(b):
        return None
    found = _diff_lists(a.body, b.body, None)
    if None in found:
        return None
    return {k for k in found if k is not None}


def _scopes_agree(before: _Module, after: _Module, old: _Function, new: _Function) -> bool:
    """Whether every name the two versions of a function share is bound alike (local,
    a closure's cell, free, or global), and they share their closure cells and free names:
    a name assigned, deleted or declared ``global`` inside one list changes what it means
    in the whole function (``x = 1`` added in a branch makes a read of ``x`` above it fail
    in every test), and a new cell changes what a function written in it reads."""
    a = before.compiled.get((old.qualname, old.first), [])
    b = after.compiled.get((new.qualname, new.first), [])
    if len(a) != 1 or len(b) != 1:
        return False
    x, y = a[0], b[0]
    if set(x.co_cellvars) != set(y.co_cellvars) or set(x.co_freevars) != set(y.co_freevars):
        return False

    def kinds(code: CodeType) -> dict[str, tuple[bool, bool]]:
        local, free = set(code.co_varnames), set(code.co_freevars) | set(code.co_cellvars)
        names = local | free | set(code.co_names)
        return {n: (n in local, n in free) for n in names}

    kx, ky = kinds(x), kinds(y)
    return all(kx[n] == ky[n] for n in kx.keys() & ky.keys())


def _diff_lists(
    olds: Sequence[ast.stmt], news: Sequence[ast.stmt], key: tuple[int, int] | None
) -> set[tuple[int, int] | None]:
    """The lists (``key``: this one's) where ``olds`` and ``news`` differ; None for the
    function's top level, or for a change that cannot be placed in a list."""
    if len(olds) != len(news):
        return {None} if _defers(olds) or _defers(news) else {key}
    found: set[tuple[int, int] | None] = set()
    for o, n in zip(olds, news, strict=True):
        if _stmt_dump(o) == _stmt_dump(n):
            continue
        if type(o) is type(n) and isinstance(o, _COMPOUND) and _header(o) == _header(n):
            for lo, ln in zip(_blocks(o), _blocks(n), strict=True):
                if not lo:
                    # a list added where the base had none (an ``else``): the tests that
                    # ran the statement that holds it
                    if ln:
                        found.add(None if _defers(ln) else key)
                    continue
                if lo is getattr(o, "body", None) and isinstance(o, ast.For | ast.While):
                    # a loop's body has no marker of its own (it would run at every turn):
                    # the loop's list stands for it
                    found |= _diff_lists(lo, ln, key)
                else:
                    found |= _diff_lists(lo, ln, (lo[0].lineno, lo[0].col_offset))
            continue
        found.add(None if _defers([o, n]) else key)
    return found


def _stmt_dump(st: ast.stmt) -> object:
    """A statement's syntax without positions, the bodies of functions in it left out (a
    function of its own in the plan)."""
    return _shape(st)


def _header(st: ast.stmt) -> object:
    """A compound statement without its statement lists' contents."""
    return _shape(st, bare=True)


_LISTS = frozenset(("body", "orelse", "finalbody"))


def _shape(node: object, bare: bool = False) -> object:
    """``node``'s syntax as nested tuples, without positions (as ``ast.dump`` without
    attributes, made without copying the tree): a function's body is left out; with
    ``bare``, so are the contents of the node's own statement lists (and those of its
    ``except`` clauses and ``case`` blocks)."""
    if isinstance(node, ast.AST):
        out: list[object] = [type(node).__name__]
        for name in node._fields:
            value = getattr(node, name, None)
            if (name == "body" and isinstance(node, _Def)) or (bare and name in _LISTS):
                out.append(None)
            elif bare and name in ("handlers", "cases"):
                out.append(tuple(_shape(part, bare=True) for part in value or ()))
            else:
                out.append(_shape(value))
        return tuple(out)
    if isinstance(node, list):
        return tuple(_shape(v) for v in node)
    return repr(node)  # (1, 1.0 and True are equal, their reprs are not)


def _defers(stmts: Sequence[ast.stmt]) -> bool:
    """Whether the statements hold code that can run after them, elsewhere: a lambda or a
    generator expression (a function written there is a function of its own)."""
    for st in stmts:
        stack: list[ast.AST] = [st]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Lambda | ast.GeneratorExp):
                return True
            if isinstance(n, _Def) and n is not st:
                stack.extend(n.decorator_list)
                stack.append(n.args)
                continue
            stack.extend(ast.iter_child_nodes(n))
    return False


def _suspends(node: _Def) -> bool:
    """Whether a function's own code can suspend (``yield``, ``yield from``, ``await``
    outside the functions, classes and lambdas written in it), as the recorder decides."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Yield | ast.YieldFrom | ast.Await):
            return True
        if isinstance(n, _Def | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _used_elsewhere(git: GitRepo, base: str, path: str, name: str) -> bool:
    """Whether ``name`` appears as a word in another tracked Python file of the base."""
    if name.startswith("__") and name.endswith("__"):
        return True  # a special method is called by the language, not by name
    done = git.git("grep", "-l", "-w", "-F", "-e", name, base, "--", "*.py", check=False)
    if done.returncode != 0:
        return False
    # "<rev>:<path from the repository's top>" per file
    files = [line.split(":", 1)[-1] for line in done.stdout.splitlines() if line]
    return any(f != path and not f.endswith("/" + path) for f in files)
