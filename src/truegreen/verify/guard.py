"""The tamper layer: what a change did to the evidence, found with syntax trees and
pytest's own collection, not line regexes.

``analyze(change) -> list[Finding]`` looks only at what the change *added* (base vs
head), so a pre-existing skip marker or a ``sys.exit`` in a CLI's ``main`` is not the
change's doing. Every code is from DESIGN.md's "Tamper layer" list.
"""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from truegreen.repo.git import ChangedFile, GitRepo
from truegreen.run.signature import is_test_path
from truegreen.verify.verdict import Finding

# -- the change ---------------------------------------------------------------------


@dataclass(frozen=True)
class ExamSource:
    """A sealed exam as the tamper layer needs it."""

    test: str
    path: str
    content: str


@dataclass
class Change:
    """Base and head content of every changed file, plus what pytest collected."""

    changed: list[ChangedFile]
    base: Mapping[str, str | None]
    head: Mapping[str, str | None]
    exams: Sequence[ExamSource] = ()
    base_collected: set[str] | None = None
    head_collected: set[str] | None = None
    #: every test file of the head (path -> text), for finding moved tests
    head_tests: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_git(
        cls,
        git: GitRepo,
        base: str,
        head: str,
        exams: Sequence[ExamSource] = (),
        base_collected: set[str] | None = None,
        head_collected: set[str] | None = None,
    ) -> Change:
        changed = git.changed(base, head)
        base_text: dict[str, str | None] = {}
        head_text: dict[str, str | None] = {}
        for c in changed:
            old = c.old_path or c.path
            base_text[old] = git.show_text(base, old) if c.status != "A" else None
            head_text[c.path] = git.show_text(head, c.path) if c.status != "D" else None
        head_tests = {}
        for path in git.files(head):
            if path.endswith(".py") and is_test_path(path):
                text = head_text.get(path) if path in head_text else git.show_text(head, path)
                if text is not None:
                    head_tests[path] = text
        # the base side of tests that are no longer collected, to tell moved from deleted
        for tid in sorted((base_collected or set()) - (head_collected or set())):
            path = tid.split("::", 1)[0]
            if path not in base_text:
                base_text[path] = git.show_text(base, path)
        return cls(changed, base_text, head_text, exams, base_collected, head_collected, head_tests)


# -- names and aliases --------------------------------------------------------------


def _parse(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted origin, from the module's imports (``pt`` -> ``pytest``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = (
                    a.name if a.asname else a.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def dotted(node: ast.AST, names: Mapping[str, str]) -> str | None:
    """``pt.mark.skip(...)`` -> ``pytest.mark.skip`` (aliases resolved)."""
    if isinstance(node, ast.Call):
        return dotted(node.func, names)
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(names.get(node.id, node.id))
        return ".".join(reversed(parts))
    return None


_SKIP = (
    "pytest.mark.skip",
    "pytest.mark.skipif",
    "unittest.skip",
    "unittest.skipIf",
    "unittest.skipUnless",
    "unittest.case.skip",
    "pytest.skip",
    "pytest.importorskip",
    "_pytest.outcomes.skip",
)
_XFAIL = ("pytest.mark.xfail", "pytest.xfail", "unittest.expectedFailure")


def _marker_kind(name: str | None) -> str | None:
    if name is None:
        return None
    if name in _XFAIL or name.endswith(".xfail") or name == "expectedFailure":
        return "xfail"
    if name in _SKIP or name.endswith(
        (".skip", ".skipif", ".skipIf", ".skipUnless", ".importorskip", ".skipTest")
    ):
        return "skip"
    return None


# -- test functions -----------------------------------------------------------------


@dataclass(frozen=True)
class TestFunc:
    qualname: str  # Class::test or test
    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: ast.ClassDef | None

    @property
    def name(self) -> str:
        return self.node.name


def test_functions(tree: ast.Module) -> dict[str, TestFunc]:
    out: dict[str, TestFunc] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            out[node.name] = TestFunc(node.name, node, None)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(
                    item, ast.FunctionDef | ast.AsyncFunctionDef
                ) and item.name.startswith("test"):
                    out[f"{node.name}::{item.name}"] = TestFunc(
                        f"{node.name}::{item.name}", item, node
                    )
    return out


def body_key(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function's body and decorators without positions or its name: moved and
    renamed tests keep it."""
    return (
        ast.dump(ast.Module(body=list(fn.body), type_ignores=[]), annotate_fields=False)
        + "|"
        + "|".join(ast.dump(d, annotate_fields=False) for d in fn.decorator_list)
    )


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=False)


# -- assertions ---------------------------------------------------------------------


def _asserts(fn: ast.AST) -> list[ast.Assert]:
    return [n for n in ast.walk(fn) if isinstance(n, ast.Assert)]


_STRICT = {
    ast.Eq: 3,
    ast.Is: 3,
    ast.In: 2,
    ast.Lt: 2,
    ast.Gt: 2,
    ast.LtE: 1,
    ast.GtE: 1,
    ast.NotEq: 0,
    ast.IsNot: 0,
    ast.NotIn: 0,
}


def _approx_tol(node: ast.AST, names: Mapping[str, str]) -> float | None:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and (dotted(n.func, names) or "").endswith("approx"):
            tol = 0.0
            for kw in n.keywords:
                if (
                    kw.arg in ("abs", "rel")
                    and isinstance(kw.value, ast.Constant)
                    and isinstance(kw.value.value, int | float)
                ):
                    tol = max(tol, float(kw.value.value))
            if (
                len(n.args) > 1
                and isinstance(n.args[1], ast.Constant)
                and isinstance(n.args[1].value, int | float)
            ):
                tol = max(tol, float(n.args[1].value))
            return tol if tol else 1e-6
    return None


def weakening(old: ast.Assert, new: ast.Assert, names: Mapping[str, str]) -> str | None:
    """Why ``new`` is a weaker form of ``old``, or None."""
    t_old, t_new = old.test, new.test
    if isinstance(t_new, ast.Constant) and t_new.value:
        return "replaced by an assertion that is always true"
    if (
        isinstance(t_new, ast.BoolOp)
        and isinstance(t_new.op, ast.Or)
        and any(isinstance(v, ast.Constant) and v.value for v in t_new.values)
    ):
        return "made vacuous with `or True`"
    if isinstance(t_old, ast.Compare) and not isinstance(t_new, ast.Compare):
        return "a comparison replaced by a truthiness check"
    if isinstance(t_old, ast.Compare) and isinstance(t_new, ast.Compare):
        o, n = type(t_old.ops[0]), type(t_new.ops[0])
        none_check = (
            isinstance(t_new.comparators[0], ast.Constant) and t_new.comparators[0].value is None
        )
        if n is ast.IsNot and none_check and o is not ast.IsNot:
            return "a comparison replaced by `is not None`"
        if _STRICT.get(n, 3) < _STRICT.get(o, 3):
            return f"`{_op(o)}` loosened to `{_op(n)}`"
        tol_old, tol_new = _approx_tol(t_old, names), _approx_tol(t_new, names)
        if tol_new is not None and (tol_old is None or tol_new > tol_old):
            return "a wider tolerance (pytest.approx)"
    return None


def _op(op: type[ast.cmpop]) -> str:
    return {
        ast.Eq: "==",
        ast.NotEq: "!=",
        ast.Lt: "<",
        ast.LtE: "<=",
        ast.Gt: ">",
        ast.GtE: ">=",
        ast.Is: "is",
        ast.IsNot: "is not",
        ast.In: "in",
        ast.NotIn: "not in",
    }.get(op, op.__name__)


def _raises_types(fn: ast.AST, names: Mapping[str, str]) -> list[str]:
    out = []
    for n in ast.walk(fn):
        if (
            isinstance(n, ast.Call)
            and (dotted(n.func, names) or "").endswith(("raises", "assertRaises"))
            and n.args
        ):
            out.append(dotted(n.args[0], names) or _dump(n.args[0]))
    return out


def _swallows_assertion(fn: ast.AST, names: Mapping[str, str]) -> int:
    count = 0
    for n in ast.walk(fn):
        if isinstance(n, ast.ExceptHandler):
            t = n.type
            caught = (
                [t]
                if t is not None and not isinstance(t, ast.Tuple)
                else list(t.elts)
                if isinstance(t, ast.Tuple)
                else []
            )
            if t is None or any(
                (dotted(c, names) or "") in ("AssertionError", "Exception", "BaseException")
                for c in caught
            ):
                count += 1
    return count


_STUBS = (
    "setattr",
    "patch",
    "patch.object",
    "mock.patch",
    "unittest.mock.patch",
    "MagicMock",
    "Mock",
)


def _stubs(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: Mapping[str, str]) -> int:
    count = 0
    for n in [*ast.walk(fn), *fn.decorator_list]:
        if isinstance(n, ast.Call):
            name = dotted(n.func, names) or ""
            if name.endswith(
                ("monkeypatch.setattr", ".patch", ".patch.object", "patch.object")
            ) or name in ("unittest.mock.patch", "mock.patch"):
                count += 1
    return count


# -- the checks -----------------------------------------------------------------------


def _line(node: ast.AST | None) -> int | None:
    return getattr(node, "lineno", None)


def _is_test_file(path: str) -> bool:
    return path.endswith(".py") and is_test_path(path) and PurePosixPath(path).name != "conftest.py"


class _Analysis:
    def __init__(self, change: Change) -> None:
        self.c = change
        self.found: list[Finding] = []
        self.exam_ids = {e.test for e in change.exams}
        self.exam_paths = {e.path for e in change.exams}

    def add(self, code: str, file: str | None, line: int | None, detail: str) -> None:
        self.found.append(Finding(code, file, line, detail))

    def pairs(self) -> Iterator[tuple[ChangedFile, str | None, str | None]]:
        for c in self.c.changed:
            yield c, self.c.base.get(c.old_path or c.path), self.c.head.get(c.path)

    def run(self) -> list[Finding]:
        for c, old, new in self.pairs():
            path = c.path
            if path.endswith(".py"):
                if PurePosixPath(path).name == "conftest.py":
                    self.conftest(c, old, new)
                elif _is_test_file(path):
                    self.test_file(c, old, new)
                else:
                    self.source_file(c, old, new)
            elif is_test_path(path) and c.status != "A":
                self.add(
                    "tamper.test_data_changed",
                    path,
                    None,
                    f"a data file under the tests was {'deleted' if c.status == 'D' else 'changed'}",
                )
            self.config_file(c, old, new)
        self.exams_edited()
        self.collection()
        return sorted(set(self.found))

    # -- tests ----------------------------------------------------------------------
    def test_file(self, c: ChangedFile, old: str | None, new: str | None) -> None:
        t_old, t_new = _parse(old), _parse(new)
        if t_new is None:
            return
        names = aliases(t_new)
        old_names = aliases(t_old) if t_old is not None else {}
        # module-level skips/xfails (pytestmark, pytest.skip(allow_module_level=True), importorskip)
        old_mod = self._module_markers(t_old, old_names) if t_old is not None else set()
        if t_old is None:
            return  # a new test file: skipping new tests is not tampering with existing ones
        for kind, line, text in sorted(
            self._module_markers(t_new, names) - old_mod, key=lambda x: x[1] or 0
        ):
            self.add(f"tamper.{kind}_added", c.path, line, f"module-level {text} added")
        old_funcs, new_funcs = test_functions(t_old), test_functions(t_new)
        for q, fn in new_funcs.items():
            before = old_funcs.get(q)
            if before is None:
                continue
            self._compare_test(c.path, q, before, fn, old_names, names)

    def _module_markers(
        self, tree: ast.Module | None, names: Mapping[str, str]
    ) -> set[tuple[str, int | None, str]]:
        out: set[tuple[str, int | None, str]] = set()
        if tree is None:
            return out
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                for n in ast.walk(node.value):
                    kind = (
                        _marker_kind(dotted(n, names))
                        if isinstance(n, ast.Attribute | ast.Call)
                        else None
                    )
                    if kind:
                        out.add((kind, None, f"pytestmark {kind}"))
            elif isinstance(node, ast.Expr | ast.Assign) and isinstance(
                getattr(node, "value", None), ast.Call
            ):
                kind = _marker_kind(dotted(node.value, names))
                if kind:
                    out.add((kind, None, dotted(node.value, names) or kind))
        return out

    def _compare_test(
        self,
        path: str,
        q: str,
        before: TestFunc,
        after: TestFunc,
        old_names: Mapping[str, str],
        names: Mapping[str, str],
    ) -> None:
        fn_old, fn_new = before.node, after.node
        if _dump(fn_old) == _dump(fn_new) and (
            before.cls is None or _decos(before.cls) == _decos(after.cls)
        ):
            return
        old_marks = {(_marker_kind(dotted(d, old_names)), _dump(d)) for d in fn_old.decorator_list}
        for d in fn_new.decorator_list:
            kind = _marker_kind(dotted(d, names))
            if kind and (kind, _dump(d)) not in old_marks:
                self.add(f"tamper.{kind}_added", path, _line(d), f"{q}: @{dotted(d, names)} added")
        if after.cls is not None and before.cls is not None:
            old_cls = {_dump(d) for d in before.cls.decorator_list}
            for d in after.cls.decorator_list:
                kind = _marker_kind(dotted(d, names))
                if kind and _dump(d) not in old_cls:
                    self.add(
                        f"tamper.{kind}_added",
                        path,
                        _line(d),
                        f"class {after.cls.name}: @{dotted(d, names)} added",
                    )
        old_calls = _skip_calls(fn_old, old_names)
        for kind, node in _skip_calls(fn_new, names):
            if (kind, _dump(node)) not in {(k, _dump(n)) for k, n in old_calls}:
                self.add(
                    f"tamper.{kind}_added",
                    path,
                    _line(node),
                    f"{q}: {dotted(node, names)}() added to the test",
                )
        self._compare_asserts(path, q, fn_old, fn_new, old_names, names)

    def _compare_asserts(
        self,
        path: str,
        q: str,
        fn_old: ast.AST,
        fn_new: ast.FunctionDef | ast.AsyncFunctionDef,
        old_names: Mapping[str, str],
        names: Mapping[str, str],
    ) -> None:
        a_old, a_new = _asserts(fn_old), _asserts(fn_new)
        new_keys = [_dump(a) for a in a_new]
        unmatched_old = [a for a in a_old if _dump(a) not in new_keys]
        old_keys = [_dump(a) for a in a_old]
        unmatched_new = [a for a in a_new if _dump(a) not in old_keys]
        for i, old in enumerate(unmatched_old):
            if i < len(unmatched_new):
                why = weakening(old, unmatched_new[i], names)
                if why:
                    self.add("tamper.assert_weakened", path, _line(unmatched_new[i]), f"{q}: {why}")
            else:
                self.add(
                    "tamper.assert_weakened",
                    path,
                    _line(fn_new),
                    f"{q}: an assertion was removed (`{ast.unparse(old)[:80]}`)",
                )
        for extra in unmatched_new[len(unmatched_old) :]:
            why = (
                weakening(extra, extra, names)
                if isinstance(extra.test, ast.Constant | ast.BoolOp)
                else None
            )
            if why:
                self.add("tamper.assert_weakened", path, _line(extra), f"{q}: {why}")
        if _swallows_assertion(fn_new, names) > _swallows_assertion(fn_old, names):
            self.add(
                "tamper.assert_weakened",
                path,
                _line(fn_new),
                f"{q}: failures are caught and swallowed",
            )
        if isinstance(fn_old, ast.FunctionDef | ast.AsyncFunctionDef) and _stubs(
            fn_new, names
        ) > _stubs(fn_old, names):
            self.add(
                "tamper.assert_weakened",
                path,
                _line(fn_new),
                f"{q}: the code under test is replaced by a stub or monkeypatch in the test",
            )
        r_old, r_new = _raises_types(fn_old, old_names), _raises_types(fn_new, names)
        broad = {"Exception", "BaseException", "builtins.Exception"}
        if any(r in broad for r in r_new) and not any(r in broad for r in r_old):
            self.add(
                "tamper.assert_weakened",
                path,
                _line(fn_new),
                f"{q}: pytest.raises broadened to Exception",
            )

    # -- the exam itself ------------------------------------------------------------------
    def exams_edited(self) -> None:
        for exam in self.c.exams:
            if exam.path not in self.c.head:
                continue
            new = self.c.head.get(exam.path)
            if new is None:
                continue  # deleted: the sealed copy runs anyway; collection diff reports it
            sealed_tree, head_tree = _parse(exam.content), _parse(new)
            if sealed_tree is None or head_tree is None:
                self.add(
                    "tamper.exam_edited",
                    exam.path,
                    None,
                    f"{exam.test}: the exam's file no longer parses",
                )
                continue
            q = exam.test.split("::", 1)[1].split("[", 1)[0]
            if _exam_slice(sealed_tree, q) != _exam_slice(head_tree, q):
                fn = test_functions(head_tree).get(q)
                self.add(
                    "tamper.exam_edited",
                    exam.path,
                    _line(fn.node) if fn else None,
                    f"{exam.test}: the change edits the sealed exam's code (the sealed copy is what runs)",
                )

    # -- conftest -------------------------------------------------------------------------
    def conftest(self, c: ChangedFile, old: str | None, new: str | None) -> None:
        if new is None:
            return
        tree = _parse(new)
        hooks = []
        if tree is not None:
            names = aliases(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    if node.name.startswith("pytest_"):
                        hooks.append(node.name)
                    for d in node.decorator_list:
                        if (
                            isinstance(d, ast.Call)
                            and (dotted(d, names) or "").endswith("fixture")
                            and any(kw.arg == "autouse" for kw in d.keywords)
                        ):
                            hooks.append(f"autouse fixture {node.name}")
                elif isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name) and t.id in (
                            "pytest_plugins",
                            "collect_ignore",
                            "collect_ignore_glob",
                        ):
                            hooks.append(t.id)
        what = "added" if c.status == "A" else "changed"
        detail = f"conftest.py {what}" + (f" ({', '.join(sorted(set(hooks)))})" if hooks else "")
        self.add("tamper.conftest_changed", c.path, None, detail)

    # -- non-test source ----------------------------------------------------------------
    def source_file(self, c: ChangedFile, old: str | None, new: str | None) -> None:
        t_new = _parse(new)
        if t_new is None:
            return
        t_old = _parse(old)
        names, old_names = aliases(t_new), aliases(t_old) if t_old is not None else {}
        old_det = _counts(_runner_detection(t_old, old_names)) if t_old is not None else {}
        for key, node in _runner_detection(t_new, names):
            if old_det.get(key, 0) > 0:
                old_det[key] -= 1
                continue
            self.add(
                "tamper.test_env_detection",
                c.path,
                _line(node),
                f"looks for the test runner: {key}",
            )
        old_exit = _counts(_exit_calls(t_old, old_names)) if t_old is not None else {}
        for key, node in _exit_calls(t_new, names):
            if old_exit.get(key, 0) > 0:
                old_exit[key] -= 1
                continue
            self.add("tamper.exit_call", c.path, _line(node), f"adds {key}")
        self.literal_special_case(c.path, t_old, t_new)

    def literal_special_case(self, path: str, t_old: ast.Module | None, t_new: ast.Module) -> None:
        lits = self.exam_literals()
        if not lits:
            return
        old = {_dump(n) for n in ast.walk(t_old)} if t_old is not None else set()
        strings = [v for v in lits if isinstance(v, str)]
        for node in ast.walk(t_new):
            if _dump(node) in old:
                continue
            hit = None
            if isinstance(node, ast.Compare):
                for side in [node.left, *node.comparators]:
                    for v in _literal_values(side):
                        if _matches(v, lits, strings):
                            hit = v
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr
                in (
                    "startswith",
                    "endswith",
                    "match",
                    "fullmatch",
                    "search",
                    "count",
                    "find",
                    "index",
                )
            ):
                for arg in node.args:
                    for v in _literal_values(arg):
                        if _matches(v, lits, strings):
                            hit = v
            if hit is not None:
                self.add(
                    "tamper.exam_literal_special_case",
                    path,
                    _line(node),
                    f"compares with {hit!r}, a literal of the exam (a hint, not proof)",
                )

    _literals: set[object] | None = None

    def exam_literals(self) -> set[object]:
        if self._literals is None:
            found: set[object] = set()
            for exam in self.c.exams:
                tree = _parse(exam.content)
                if tree is None:
                    continue
                for node in ast.walk(tree):
                    if (
                        isinstance(node, ast.Constant)
                        and not isinstance(node.value, bool)
                        and node.value is not None
                    ):
                        v = node.value
                        if isinstance(v, int | float) and v in (0, 1, -1):
                            continue
                        if isinstance(v, str) and (len(v) < 2 or "\n" in v):
                            continue
                        if isinstance(v, int | float | str | bytes):
                            found.add(v)
            self._literals = found
        return self._literals

    # -- configuration --------------------------------------------------------------------
    def config_file(self, c: ChangedFile, old: str | None, new: str | None) -> None:
        name = PurePosixPath(c.path).name
        if "/" in c.path and not c.path.startswith(".github/workflows/"):
            return  # pytest reads its configuration at the root
        if name in (
            "pyproject.toml",
            "pytest.ini",
            ".pytest.ini",
            "tox.ini",
            "setup.cfg",
            "truegreen.toml",
        ):
            before, after = pytest_settings(c.path, old), pytest_settings(c.path, new)
            for key in sorted(set(before) | set(after)):
                if before.get(key) != after.get(key) and key in SETTINGS_THAT_MATTER:
                    self.add(
                        "tamper.pytest_config_changed",
                        c.path,
                        None,
                        f"{key}: {before.get(key)!r} -> {after.get(key)!r}",
                    )
            fo, fn = fail_under(c.path, old), fail_under(c.path, new)
            if fo is not None and (fn is None or fn < fo):
                self.add(
                    "tamper.coverage_threshold_lowered", c.path, None, f"fail_under {fo} -> {fn}"
                )
        if name == ".coveragerc":
            fo, fn = fail_under(c.path, old), fail_under(c.path, new)
            if fo is not None and (fn is None or fn < fo):
                self.add(
                    "tamper.coverage_threshold_lowered", c.path, None, f"fail_under {fo} -> {fn}"
                )
        if c.path.startswith(".github/workflows/") and c.path.endswith((".yml", ".yaml")):
            for line, detail in workflow_weakened(old, new):
                self.add("tamper.ci_step_removed", c.path, line, detail)
        if name in ("tox.ini", "noxfile.py", "Makefile"):
            for detail in commands_weakened(old, new):
                self.add("tamper.ci_step_removed", c.path, None, detail)

    # -- collection -------------------------------------------------------------------
    def collection(self) -> None:
        before, after = self.c.base_collected, self.c.head_collected
        if before is None or after is None:
            return
        gone = sorted(i for i in before - after if i not in self.exam_ids)
        if not gone:
            return
        bodies: dict[str, list[str]] = {}
        for path, text in self.c.head_tests.items():
            tree = _parse(text)
            if tree is None:
                continue
            for q, tf in test_functions(tree).items():
                bodies.setdefault(body_key(tf.node), []).append(f"{path}::{q}")
        for tid in gone:
            path, _, rest = tid.partition("::")
            q = rest.split("[", 1)[0]
            old_tree = _parse(self.c.base.get(path))
            fn = test_functions(old_tree).get(q) if old_tree is not None else None
            if fn is not None:
                here = f"{path}::{q}"
                moved = [m for m in bodies.get(body_key(fn.node), []) if m != here]
                if any(m.rsplit("::", 1)[-1] == fn.name for m in moved):
                    continue  # moved to another file or class, same name and body
                if moved:
                    self.add(
                        "tamper.test_renamed", path, _line(fn.node), f"{tid} is now {moved[0]}"
                    )
                    continue
            why = "no longer collected"
            if fn is not None and any(
                m == f"{path}::{q}" for m in bodies.get(body_key(fn.node), [])
            ):
                why = "still in the file but no longer collected by pytest"
            if path in self.c.head and self.c.head.get(path) is None:
                why = "its file was deleted"
            self.add("tamper.test_deleted", path, _line(fn.node) if fn else None, f"{tid}: {why}")


def _decos(cls: ast.ClassDef | None) -> list[str]:
    return [_dump(d) for d in cls.decorator_list] if cls is not None else []


def _skip_calls(fn: ast.AST, names: Mapping[str, str]) -> list[tuple[str, ast.Call]]:
    out = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            name = dotted(n.func, names) or ""
            kind = _marker_kind(name)
            if kind and not name.startswith("pytest.mark"):
                out.append((kind, n))
    return out


def _exam_slice(tree: ast.Module, qualname: str) -> list[str]:
    """What the exam depends on in its file: its function (and class), the fixtures it
    names, and module-level statements other than other tests."""
    funcs = test_functions(tree)
    fn = funcs.get(qualname)
    parts: list[str] = []
    if fn is None:
        return ["<missing>"]
    parts.append(_dump(fn.node))
    if fn.cls is not None:
        parts += _decos(fn.cls)
        parts += [
            _dump(n)
            for n in fn.cls.body
            if not (
                isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")
            )
        ]
    wanted = {a.arg for a in fn.node.args.args}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name.startswith("test") or (isinstance(node, ast.ClassDef) and node is fn.cls):
                continue
            if (
                isinstance(node, ast.ClassDef)
                or node.name in wanted
                or not node.name.startswith("test")
            ):
                parts.append(_dump(node))
        else:
            parts.append(_dump(node))
    return parts


def _counts(items: Iterable[tuple[str, ast.AST]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, _ in items:
        out[key] = out.get(key, 0) + 1
    return out


_RUNNER_STRINGS = (
    "PYTEST_CURRENT_TEST",
    "PYTEST_XDIST_WORKER",
    "PYTEST_VERSION",
    "_pytest",
    "pytest",
)


def _runner_detection(tree: ast.Module, names: Mapping[str, str]) -> list[tuple[str, ast.AST]]:
    found: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and (
                node.value in _RUNNER_STRINGS
                or node.value.startswith("PYTEST_")
                or node.value == "TRUEGREEN_RUN_MARKER"
            )
        ):
            found.append((repr(node.value), node))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            mods = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            if any(m.split(".")[0] in ("pytest", "_pytest") for m in mods):
                found.append(("import pytest", node))
    return found


_EXITS = (
    "os._exit",
    "sys.exit",
    "exit",
    "quit",
    "os.abort",
    "os.kill",
    "signal.signal",
    "atexit.register",
    "signal.alarm",
    "os.killpg",
)


def _exit_calls(tree: ast.Module, names: Mapping[str, str]) -> list[tuple[str, ast.AST]]:
    found: list[tuple[str, ast.AST]] = []
    skip: set[int] = set()
    for top in tree.body:
        if isinstance(top, ast.If) and "__main__" in ast.unparse(top.test):
            skip.update(id(n) for n in ast.walk(top))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Call):
            name = dotted(node.func, names) or ""
            if name in _EXITS:
                found.append((f"{name}()", node))
        elif (
            isinstance(node, ast.Raise)
            and node.exc is not None
            and (dotted(node.exc, names) or "") == "SystemExit"
        ):
            found.append(("raise SystemExit", node))
    return found


def _literal_values(node: ast.AST) -> list[object]:
    if (
        isinstance(node, ast.Constant)
        and node.value is not None
        and not isinstance(node.value, bool)
    ):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        out: list[object] = []
        for e in node.elts:
            out += _literal_values(e)
        return out
    return []


def _matches(value: object, lits: set[object], strings: Sequence[str]) -> bool:
    if isinstance(value, bool):
        return False
    if value in lits:
        return not (isinstance(value, int | float) and value in (0, 1, -1))
    if isinstance(value, str) and len(value) >= 4:
        return any(value in s for s in strings)
    return False


# -- configuration files --------------------------------------------------------------

SETTINGS_THAT_MATTER = {
    "addopts",
    "testpaths",
    "python_files",
    "python_classes",
    "python_functions",
    "norecursedirs",
    "xfail_strict",
    "filterwarnings",
    "required_plugins",
    "usefixtures",
    "pythonpath",
    "confcutdir",
    "empty_parameter_set_mark",
    "strict",
    "strict_markers",
    "minversion",
    "consider_namespace_packages",
    "truegreen.tests",
    "truegreen.ignore",
    "truegreen.pytest-args",
    "truegreen.always-run",
    "truegreen.suite-timeout",
    "truegreen.sandbox",
}


def pytest_settings(path: str, text: str | None) -> dict[str, Any]:
    """pytest's settings (and truegreen's) from one configuration file's text."""
    if text is None:
        return {}
    name = PurePosixPath(path).name
    out: dict[str, Any] = {}
    if name.endswith(".toml"):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {"<unparseable>": text}
        if name == "truegreen.toml":
            return {f"truegreen.{k}": v for k, v in data.items()}
        tool = data.get("tool", {})
        ini = tool.get("pytest", {})
        if isinstance(ini, dict):
            opts = ini.get("ini_options", {})
            out.update({k: v for k, v in ini.items() if k != "ini_options"})
            if isinstance(opts, dict):
                out.update(opts)
        tg = tool.get("truegreen", {})
        if isinstance(tg, dict):
            out.update({f"truegreen.{k}": v for k, v in tg.items()})
        return out
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {"<unparseable>": text}
    section = {"setup.cfg": "tool:pytest"}.get(name, "pytest")
    if parser.has_section(section):
        out.update({k: " ".join(v.split()) for k, v in parser.items(section)})
    return out


def fail_under(path: str, text: str | None) -> float | None:
    if text is None:
        return None
    values: list[float] = []
    for m in re.finditer(r"--cov-fail-under[= ](\d+(?:\.\d+)?)", text):
        values.append(float(m.group(1)))
    name = PurePosixPath(path).name
    if name.endswith(".toml"):
        try:
            data = tomllib.loads(text)
            v = data.get("tool", {}).get("coverage", {}).get("report", {}).get("fail_under")
            if isinstance(v, int | float):
                values.append(float(v))
        except tomllib.TOMLDecodeError:
            pass
    else:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
            for section in ("report", "coverage:report"):
                if parser.has_option(section, "fail_under"):
                    values.append(float(parser.get(section, "fail_under")))
        except (configparser.Error, ValueError):
            pass
    return min(values) if values else None


_NARROWING = re.compile(
    r"(\s-k\s|\s-m\s|--deselect|--ignore|--lf\b|--last-failed|\|\|\s*true|;\s*exit 0|\|\|\s*exit 0|"
    r"--exitfirst|\s-x\b|--co\b|--collect-only|-p\s+no:)"
)


def _steps(doc: Any) -> dict[str, tuple[dict[str, Any], str]]:
    out: dict[str, tuple[dict[str, Any], str]] = {}
    if not isinstance(doc, dict):
        return out
    for job_name, job in (doc.get("jobs") or {}).items():
        if not isinstance(job, dict):
            continue
        out[f"job {job_name}"] = ({k: v for k, v in job.items() if k != "steps"}, "")
        for i, step in enumerate(job.get("steps") or []):
            if isinstance(step, dict):
                key = (
                    step.get("name")
                    or step.get("uses")
                    or (str(step.get("run", ""))[:60])
                    or str(i)
                )
                out[f"{job_name}: {key}"] = (step, str(step.get("run", "")))
    return out


def workflow_weakened(old: str | None, new: str | None) -> list[tuple[int | None, str]]:
    import yaml

    def load(text: str | None) -> Any:
        if text is None:
            return {}
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError:
            return {}

    before, after = _steps(load(old)), _steps(load(new))
    found: list[tuple[int | None, str]] = []
    for key, (step, run) in before.items():
        if key not in after:
            if new is None:
                found.append((None, f"the workflow was deleted ({key})"))
            elif not key.startswith("job "):
                found.append((None, f"step removed: {key}"))
            else:
                found.append((None, f"{key} removed"))
            continue
        nstep, nrun = after[key]
        if "if" in nstep and nstep.get("if") != step.get("if"):
            found.append((None, f"{key}: `if: {nstep['if']}` added"))
        if nstep.get("continue-on-error") and not step.get("continue-on-error"):
            found.append((None, f"{key}: continue-on-error added"))
        added = set(_NARROWING.findall(" " + nrun)) - set(_NARROWING.findall(" " + run))
        if added:
            found.append(
                (None, f"{key}: the command now has {', '.join(sorted(a.strip() for a in added))}")
            )
    return found


def commands_weakened(old: str | None, new: str | None) -> list[str]:
    if old is None or new is None:
        return []
    added = set(_NARROWING.findall(" " + new)) - set(_NARROWING.findall(" " + old))
    return (
        [f"test commands now have {', '.join(sorted(a.strip() for a in added))}"] if added else []
    )


def analyze(change: Change) -> list[Finding]:
    """Every tamper finding for one change, sorted."""
    return _Analysis(change).run()
