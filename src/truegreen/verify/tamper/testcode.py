"""Existing tests: skips and xfails added, assertions weakened, the exam edited, tests
deleted, renamed or hidden from collection."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator, Mapping

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.testpaths import is_test_code, is_test_module
from truegreen.verify.tamper import asserts, weakened
from truegreen.verify.tamper.names import (
    Func,
    TestFunc,
    aliases,
    body_key,
    dotted,
    dump,
    line,
    marker_kind,
    parse,
    test_functions,
)
from truegreen.verify.tamper.snapshot import ChangeSnapshot, ExamRef


def _markers_in(node: ast.AST, names: Mapping[str, str]) -> list[tuple[str, ast.AST]]:
    """(kind, node) for every skip/xfail marker or call inside ``node``."""
    out: list[tuple[str, ast.AST]] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call | ast.Attribute | ast.Name):
            kind = marker_kind(dotted(n, names))
            if kind and not (isinstance(n, ast.Attribute | ast.Name) and _is_call_func(node, n)):
                out.append((kind, n))
    return out


def _is_call_func(root: ast.AST, target: ast.AST) -> bool:
    return any(isinstance(c, ast.Call) and c.func is target for c in ast.walk(root))


def _module_markers(tree: ast.Module, names: Mapping[str, str]) -> list[tuple[str, ast.AST, str]]:
    """Skips and xfails that reach every test of a module."""
    out: list[tuple[str, ast.AST, str]] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
            out += [(k, n, "pytestmark") for k, n in _markers_in(node, names)]
        elif isinstance(node, ast.Expr | ast.Assign | ast.If | ast.Try):
            for k, n in _markers_in(node, names):
                if isinstance(n, ast.Call):
                    out.append((k, n, f"module-level {dotted(n, names)}()"))
    return out


def _counted(items: list[tuple[str, ast.AST, str]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for kind, node, _ in items:
        key = f"{kind}:{dump(node)}"
        out[key] = out.get(key, 0) + 1
    return out


def _added(
    old: list[tuple[str, ast.AST, str]], new: list[tuple[str, ast.AST, str]]
) -> Iterator[tuple[str, ast.AST, str]]:
    have = _counted(old)
    for kind, node, text in new:
        key = f"{kind}:{dump(node)}"
        if have.get(key, 0) > 0:
            have[key] -= 1
        else:
            yield kind, node, text


def _hidden(tree: ast.Module) -> list[ast.AST]:
    """``__test__ = False`` at module level, in a class, or on a function."""
    out: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and not n.value.value:
            for t in n.targets:
                if (isinstance(t, ast.Name) and t.id == "__test__") or (
                    isinstance(t, ast.Attribute) and t.attr == "__test__"
                ):
                    out.append(n)
    return out


class TestAnalysis:
    def __init__(
        self, snap: ChangeSnapshot, changed: list[str], test_paths_head: list[str]
    ) -> None:
        self.snap = snap
        self.changed = changed
        self.head_tests = test_paths_head
        self.found: list[Reason] = []
        self.exam_ids = {e.test for e in snap.exams}
        self.exam_quals = {(e.path, e.qualname) for e in snap.exams}

    def add(self, code: str, file: str | None, ln: int | None, detail: str) -> None:
        self.found.append(Reason(code, file, ln, detail))

    # -- files that exist on both sides ------------------------------------------------
    def compare_file(self, path: str) -> None:
        old, new = parse(self.snap.base_text(path)), parse(self.snap.head_text(path))
        if old is None or new is None:
            return
        o_names, n_names = aliases(old), aliases(new)
        for kind, node, text in _added(
            _module_markers(old, o_names), _module_markers(new, n_names)
        ):
            self.add(
                f"tamper.{kind}_added",
                path,
                line(node),
                f"{text}: {kind} added for the whole module",
            )
        o_funcs, n_funcs = test_functions(old), test_functions(new)
        for q, fn in n_funcs.items():
            if q in o_funcs and (path, q) not in self.exam_quals:
                self.compare_test(path, q, o_funcs[q], fn, o_names, n_names)
                if dump(o_funcs[q].node) != dump(fn.node):
                    self.weakened(path, q, o_funcs[q].node, fn.node, old, new)
        # helpers that assert for the tests (``assert_equal(expected, result)`` in a common
        # module): weakening one weakens every test that calls it
        o_help, n_help = _checking_helpers(old), _checking_helpers(new)
        for q, helper in n_help.items():
            if q in o_help:
                for node, why in asserts.compare(o_help[q], helper, o_names, n_names):
                    self.add(
                        R.TAMPER_ASSERT_WEAKENED,
                        path,
                        line(node),
                        f"{q} (a helper the tests check with): {why}",
                    )
        if self.snap.base_collected is None:
            for node in _hidden(new)[len(_hidden(old)) :]:
                self.add(
                    R.TAMPER_TEST_DELETED,
                    path,
                    line(node),
                    "`__test__ = False` hides tests from pytest",
                )

    def compare_test(
        self,
        path: str,
        q: str,
        before: TestFunc,
        after: TestFunc,
        o_names: Mapping[str, str],
        n_names: Mapping[str, str],
    ) -> None:
        if dump(before.node) == dump(after.node) and _cls_decos(before) == _cls_decos(after):
            return
        old_marks = [
            (k, n, "") for d in before.node.decorator_list for k, n in _markers_in(d, o_names)
        ]
        old_marks += [
            (k, n, "") for d in _cls_deco_nodes(before) for k, n in _markers_in(d, o_names)
        ]
        old_marks += [(k, n, "") for k, n in _markers_in(ast.Module(before.node.body, []), o_names)]
        new_marks = [
            (k, n, f"@{dotted(n, n_names)}")
            for d in after.node.decorator_list
            for k, n in _markers_in(d, n_names)
        ]
        new_marks += [
            (k, n, f"@{dotted(n, n_names)} on class")
            for d in _cls_deco_nodes(after)
            for k, n in _markers_in(d, n_names)
        ]
        new_marks += [
            (k, n, f"{dotted(n, n_names)}()")
            for k, n in _markers_in(ast.Module(after.node.body, []), n_names)
        ]
        for kind, node, text in _added(old_marks, new_marks):
            self.add(
                f"tamper.{kind}_added", path, line(node), f"{q}: {text} added to an existing test"
            )
        for node, why in asserts.compare(before.node, after.node, o_names, n_names):
            self.add(R.TAMPER_ASSERT_WEAKENED, path, line(node), f"{q}: {why}")

    # -- tests that check less without a weaker assertion (weakened.py) ------------------
    @functools.cached_property
    def _modules(self) -> tuple[weakened.Modules, weakened.Modules]:
        return (
            weakened.Modules(self.snap.base_files, self.snap.base_text),
            weakened.Modules(self.snap.head_files, self.snap.head_text),
        )

    @functools.cached_property
    def _changed_code(self) -> list[str]:
        """The dotted names of the non-test modules the change touches."""
        return sorted(
            {
                m
                for p in self.changed
                if p.endswith(".py") and not is_test_code(p)
                if (m := weakened.module_name(p)) is not None
            }
        )

    def weakened(
        self, path: str, q: str, before: Func, after: Func, old: ast.Module, new: ast.Module
    ) -> None:
        """``tamper.expectation_changed`` and ``tamper.test_weakened`` for one test."""
        o_names, n_names = aliases(old), aliases(new)
        covered = weakened.imports_of(new, n_names, self._changed_code)
        if covered:
            for node, was, now in weakened.expectation_changes(before, after, o_names, n_names):
                self.add(
                    R.TAMPER_EXPECTATION_CHANGED,
                    path,
                    line(node),
                    f"{q}: expected values changed in the same change as "
                    f"{', '.join(covered)}: `{was}` -> `{now}`",
                )
        base_m, head_m = self._modules
        lost = weakened.units_called(
            before, path, old, base_m, self.snap.base_text
        ) - weakened.units_called(after, path, new, head_m, self.snap.head_text)
        gone = sorted(u for u in lost if head_m.defines(u))
        if gone:
            self.add(
                R.TAMPER_TEST_WEAKENED,
                path,
                line(after),
                f"{q}: no longer calls {', '.join(gone)}, which it exercised on the base",
            )

    # -- tests that are gone -------------------------------------------------------------
    def gone_tests(self) -> None:
        """Tests of the base missing from the head, from the syntax trees; with pytest's
        collection on both sides, also those still written but no longer collected.
        The head's other test files are read only when some test is missing."""
        collected = self.snap.base_collected is not None and self.snap.head_collected is not None
        missing: list[tuple[str, str, TestFunc, ast.Module]] = []
        if collected:
            if not (self.snap.base_collected or set()) - (self.snap.head_collected or set()):
                return
        else:
            for path in self.changed:
                if not is_test_module(path):
                    continue
                old = parse(self.snap.base_text(path))
                if old is None:
                    continue
                new = parse(self.snap.head_text(path))
                here = test_functions(new) if new is not None else {}
                for q, fn in test_functions(old).items():
                    if q not in here and (path, q) not in self.exam_quals:
                        missing.append((path, q, fn, old))
            if not missing:
                return
        head_funcs: dict[str, list[tuple[str, TestFunc]]] = {}
        for p in self.head_tests:
            tree = parse(self.snap.head_text(p))
            for tf in (test_functions(tree) if tree else {}).values():
                head_funcs.setdefault(tf.name, []).append((p, tf))
        by_body = _LazyBodies(head_funcs)
        head_ids = {f"{p}::{tf.qualname}" for v in head_funcs.values() for p, tf in v}
        if collected:
            self._gone_collected(head_funcs, by_body, head_ids)
            return
        for path, q, fn, old in missing:
            tid = f"{path}::{q}"
            if tid not in head_ids and tid not in self.exam_ids:
                self._judge_missing(path, q, fn, head_funcs, by_body, aliases(old), tid)

    def _judge_missing(
        self,
        path: str,
        q: str,
        fn: TestFunc,
        head_funcs: dict[str, list[tuple[str, TestFunc]]],
        by_body: _LazyBodies,
        old_names: Mapping[str, str],
        tid: str,
        why: str = "removed",
        allowed: set[str] | None = None,
    ) -> None:
        same_body = [
            m
            for m in by_body.get(body_key(fn.node))
            if m != f"{path}::{q}" and (allowed is None or m in allowed)
        ]
        if any(m.rsplit("::", 1)[-1] == fn.name for m in same_body):
            return  # moved to another file or class
        moved = [
            (p, tf)
            for p, tf in head_funcs.get(fn.name, [])
            if f"{p}::{tf.qualname}" != f"{path}::{q}" and not self._on_base(p, tf.qualname)
        ]
        if moved:
            # moved and edited: judge the edit like one in place
            p, tf = moved[0]
            tree = parse(self.snap.head_text(p))
            self.compare_test(p, tf.qualname, fn, tf, old_names, aliases(tree) if tree else {})
            return
        if same_body:
            self.add(
                R.TAMPER_TEST_RENAMED,
                path,
                line(fn.node),
                f"{tid} is now {same_body[0]} (same body, new name)",
            )
            return
        self.add(R.TAMPER_TEST_DELETED, path, line(fn.node), f"{tid}: {why}")

    def _on_base(self, path: str, qualname: str) -> bool:
        """Whether a test of that name already stood at that place on the base (then it is
        another test with the same name, not this one moved)."""
        ids = self.snap.base_collected
        if ids is not None:
            here = f"{path}::{qualname}"
            return any(i == here or i.startswith(here + "[") for i in ids)
        tree = parse(self.snap.base_text(path))
        return tree is not None and qualname in test_functions(tree)

    def _gone_collected(
        self,
        head_funcs: dict[str, list[tuple[str, TestFunc]]],
        by_body: _LazyBodies,
        head_ids: set[str],
    ) -> None:
        base_c, head_c = self.snap.base_collected or set(), self.snap.head_collected or set()
        head_quals = {i.split("[", 1)[0] for i in head_c}
        reported: set[str] = set()
        for tid in sorted(base_c - head_c):
            path, _, rest = tid.partition("::")
            q = rest.split("[", 1)[0]
            if tid in self.exam_ids or (path, q) in self.exam_quals:
                continue
            old = parse(self.snap.base_text(path))
            fn = test_functions(old).get(q) if old is not None else None
            if f"{path}::{q}" in head_quals:
                self.add(
                    R.TAMPER_TEST_DELETED,
                    path,
                    line(fn.node) if fn else None,
                    f"{tid}: a parametrized case is gone",
                )
                continue
            if f"{path}::{q}" in reported:
                continue
            reported.add(f"{path}::{q}")
            if fn is None or old is None:
                self.add(R.TAMPER_TEST_DELETED, path, None, f"{tid}: no longer collected")
                continue
            # moved or renamed only counts if pytest collects the new place
            funcs_c = {
                k: [(p, tf) for p, tf in v if f"{p}::{tf.qualname}" in head_quals]
                for k, v in head_funcs.items()
            }
            still = f"{path}::{q}" in head_ids
            why = (
                "still written but no longer collected by pytest"
                if still
                else ("its file was deleted" if path not in self.snap.head_files else "removed")
            )
            self._judge_missing(path, q, fn, funcs_c, by_body, aliases(old), tid, why, head_quals)

    # -- the sealed exam -----------------------------------------------------------------
    def exams_edited(self) -> None:
        for exam in self.snap.exams:
            new = self.snap.head_text(exam.path)
            if new is None:
                continue  # not on the head: the sealed copy runs anyway
            self.exam_edited(exam, new)

    def exam_edited(self, exam: ExamRef, new: str) -> None:
        """What the change did to the exam's code. The reference is the sealed copy, but
        only what the change touched counts: a head that leaves the exam's file as the base
        has it (a fix branch made before the exam was written into an existing test file)
        edits nothing, and a part of the exam the head has as the base had it is not the
        change's doing."""
        old_text = self.snap.base_text(exam.path)
        if old_text == new:
            return
        sealed, head = parse(exam.content), parse(new)
        if head is None:
            self.add(
                R.TAMPER_EXAM_EDITED,
                exam.path,
                None,
                f"{exam.test}: the exam's file no longer parses",
            )
            return
        if sealed is None:
            return
        old = parse(old_text) if old_text is not None else None
        self.exam_function_edited(exam, sealed, head, old)
        # the same names on every side: a definition the head's edit of the function starts
        # (or stops) using is compared, not reported as added (or removed) when it is not
        uses = exam_uses(sealed, exam.qualname) | exam_uses(head, exam.qualname)
        a, b = exam_slice(sealed, exam.qualname, uses), exam_slice(head, exam.qualname, uses)
        c = exam_slice(old, exam.qualname, uses) if old is not None else {}
        for key in sorted(set(a) | set(b)):
            now = b.get(key, (None, ""))[1]
            if a.get(key, (None, ""))[1] != now and c.get(key, (None, ""))[1] != now:
                node = b.get(key, (None, ""))[0]
                what = "changed" if key in a and key in b else ("removed" if key in a else "added")
                self.add(
                    R.TAMPER_EXAM_EDITED,
                    exam.path,
                    line(node) if node else None,
                    f"{exam.test}: {key} {what}",
                )

    def exam_function_edited(
        self, exam: ExamRef, sealed: ast.Module, head: ast.Module, old: ast.Module | None
    ) -> None:
        """A skip, an xfail or a weaker assertion on the exam's own function, named as for
        any existing test: found against the sealed copy and, when the base has the
        function too (the exam is a new case of a parametrized test), against the base's."""
        found = self._compared(exam.path, exam.qualname, sealed, head)
        if old is not None and exam.qualname in test_functions(old):
            keep = {(r.code, r.line) for r in self._compared(exam.path, exam.qualname, old, head)}
            found = [r for r in found if (r.code, r.line) in keep]
        self.found += found

    def _compared(self, path: str, q: str, before: ast.Module, after: ast.Module) -> list[Reason]:
        """:meth:`compare_test` of test ``q`` in two versions of a file, as a list."""
        old, new = test_functions(before).get(q), test_functions(after).get(q)
        if old is None or new is None:
            return []
        saved, self.found = self.found, []
        try:
            self.compare_test(path, q, old, new, aliases(before), aliases(after))
            return self.found
        finally:
            self.found = saved


def _checking_helpers(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions of a test module that are not tests and assert something, by qualname
    (module level and in classes; fixtures and hooks are the conftest analysis' business)."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if not node.name.startswith(("test", "pytest_")) and asserts.assertions(node):
                    out[f"{prefix}{node.name}"] = node
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::")

    visit(tree.body, "")
    return out


class _LazyBodies:
    """Head test functions by :func:`body_key`, computed on first use (it is costly)."""

    def __init__(self, funcs: dict[str, list[tuple[str, TestFunc]]]) -> None:
        self._funcs = funcs
        self._index: dict[str, list[str]] | None = None

    def get(self, key: str) -> list[str]:
        if self._index is None:
            self._index = {}
            for v in self._funcs.values():
                for p, tf in v:
                    self._index.setdefault(body_key(tf.node), []).append(f"{p}::{tf.qualname}")
        return self._index.get(key, [])


def _cls_deco_nodes(tf: TestFunc) -> list[ast.expr]:
    return list(tf.cls.decorator_list) if tf.cls is not None else []


def _cls_decos(tf: TestFunc) -> list[str]:
    return [dump(d) for d in _cls_deco_nodes(tf)]


def _used_names(node: ast.AST) -> set[str]:
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        out |= {a.arg for a in [*node.args.args, *node.args.kwonlyargs]}
    # fixtures asked for by name
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier():
            out.add(n.value)
    return out


def exam_uses(tree: ast.Module | None, qualname: str) -> set[str]:
    """The names the exam's function (with its decorators) uses in one version of its file."""
    fn = test_functions(tree).get(qualname) if tree is not None else None
    return _used_names(fn.node) if fn is not None else set()


def exam_slice(
    tree: ast.Module, qualname: str, also: Iterable[str] = ()
) -> dict[str, tuple[ast.AST | None, str]]:
    """What the exam depends on in its file, each part by a stable key: the function, its
    class (decorators and every member that is not another test), the module-level
    definitions and imports it uses (transitively), autouse fixtures, hooks, pytestmark
    and module-level statements with effects. Other tests and unrelated helpers are not
    part of it."""
    parts: dict[str, tuple[ast.AST | None, str]] = {}
    fn = test_functions(tree).get(qualname)
    if fn is None:
        return {"the exam's test function": (None, "<missing>")}
    parts["the test function"] = (fn.node, dump(fn.node))
    wanted = _used_names(fn.node) | set(also)
    if fn.cls is not None:
        parts["the test class's decorators"] = (
            fn.cls,
            "|".join(dump(d) for d in fn.cls.decorator_list),
        )
        for m in fn.cls.body:
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name.startswith("test"):
                continue
            parts[f"class member {getattr(m, 'name', dump(m)[:40])}"] = (m, dump(m))
            wanted |= _used_names(m)
    defs: dict[str, list[ast.stmt]] = {}
    effects: list[ast.stmt] = []
    imports: dict[str, tuple[ast.AST, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                local = a.asname or a.name.split(".")[0]
                origin = (
                    a.name
                    if isinstance(node, ast.Import)
                    else f"{'.' * node.level}{node.module}.{a.name}"
                )
                imports[local] = (node, origin)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name.startswith("test") or node is fn.cls:
                continue
            defs.setdefault(node.name, []).append(node)
            text = ast.unparse(node.decorator_list[0]) if node.decorator_list else ""
            if ("autouse" in ast.unparse(node)[:200] and "fixture" in text) or node.name.startswith(
                "pytest_"
            ):
                wanted.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        defs.setdefault(n.id, []).append(node)
                        if n.id in ("pytestmark", "__test__", "pytest_plugins"):
                            wanted.add(n.id)
                    elif isinstance(n, ast.Attribute):
                        effects.append(node)
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            effects.append(node)
    # transitively: what the used definitions use
    todo = list(wanted)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for d in defs.get(name, []):
            todo += list(_used_names(d) - seen)
    for name in sorted(seen):
        if name in defs:
            parts[f"`{name}`"] = (defs[name][-1], "|".join(dump(d) for d in defs[name]))
        if name in imports:
            parts[f"import of `{name}`"] = imports[name]
    parts["module-level statements"] = (
        effects[0] if effects else None,
        "|".join(dump(e) for e in effects),
    )
    return parts
