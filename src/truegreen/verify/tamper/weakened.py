"""Existing tests that check less without a weaker assertion (issue #38).

Two findings, both hints that escalate, found from the syntax trees of both sides:

- ``tamper.expectation_changed``: an existing test's expected values change in the same
  change as the non-test code the test file imports. The assertion is the same but for
  its expected literals (``assert coupon(" A ") == 5`` -> ``== 0``: the inputs, the
  comparison and the subject unchanged), or a parametrize case keeps some of its values
  and changes others (``(60, 10)`` -> ``(60, 12)``). Both versions are shown. A test that
  only got stronger (assertions added, a comparison made stricter, a tolerance narrowed,
  cases added) is not reported: an assertion whose comparison changed is not paired, and
  a wider comparison or tolerance is ``tamper.assert_weakened``'s finding.
- ``tamper.test_weakened``: an existing test no longer calls a unit of the project (a
  function or class of non-test code) that it called on the base, directly or through a
  helper or fixture of its own file, a conftest.py above it or a test module, while the
  head still defines that unit: its call was removed (``assert COUPONS["A"] == 10``
  instead of ``assert coupon("A") == 10``). A unit replaced by a stub, mock or monkeypatch,
  and an assertion made vacuous, are ``tamper.assert_weakened`` (which refutes).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import PurePosixPath

from truegreen.testpaths import is_test_code
from truegreen.verify.tamper.asserts import as_written, assertions, parametrize_lists
from truegreen.verify.tamper.names import Func, dotted, dump, normalized, parse

#: calls whose arguments are expected values, not inputs (``pytest.approx(50)``)
_EXPECTING = ("approx", "isclose", "allclose", "Decimal", "Fraction")
#: their keyword arguments that are tolerances, not expectations
_TOLERANCES = frozenset({"abs", "rel", "rel_tol", "abs_tol", "atol", "rtol", "places", "delta"})
#: a side's text of a file (None: not on that side)
TextOf = Callable[[str], "str | None"]
#: how deep helpers are followed from a test (helper -> helper -> ...)
_DEPTH = 4


def module_name(path: str) -> str | None:
    """``src/pkg/mod.py`` -> ``pkg.mod``, ``pkg/__init__.py`` -> ``pkg`` (None: not Python)."""
    p = PurePosixPath(path)
    if p.suffix != ".py":
        return None
    parts = list(p.with_suffix("").parts)
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or None


class Modules:
    """The Python modules of one side, by dotted name, read lazily."""

    def __init__(self, paths: Iterable[str], text_of: TextOf) -> None:
        self.paths: dict[str, str] = {}
        for path in sorted(paths):
            name = module_name(path)
            if name is not None:
                self.paths.setdefault(name, path)
        self._text_of = text_of

    def tree(self, module: str) -> ast.Module | None:
        path = self.paths.get(module)
        return parse(self._text_of(path)) if path else None

    def split(self, name: str) -> tuple[str, str] | None:
        """``pkg.mod.func`` -> (``pkg.mod``, ``func``): the longest module prefix."""
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in self.paths:
                return module, parts[i]
        return None

    def is_unit(self, name: str) -> bool:
        """Whether ``name`` is a function or class of the project's non-test code."""
        where = self.split(name)
        return where is not None and not is_test_code(self.paths[where[0]])

    def defines(self, name: str) -> bool:
        """Whether the module of ``name`` defines it at module level (or imports it)."""
        where = self.split(name)
        tree = self.tree(where[0]) if where else None
        if tree is None or where is None:
            return False
        return where[1] in _top_level(tree)


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    found[t.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                found[(a.asname or a.name).split(".")[0]] = node
    return found


def _functions(tree: ast.Module) -> dict[str, Func]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _fixtures_around(path: str, text_of: TextOf) -> dict[str, Func]:
    """The functions of the conftest.py files above ``path``, nearest last (it wins)."""
    found: dict[str, Func] = {}
    parents = list(PurePosixPath(path).parents)
    for parent in reversed(parents):
        conftest = "conftest.py" if str(parent) == "." else f"{parent}/conftest.py"
        tree = parse(text_of(conftest))
        if tree is not None:
            found.update(_functions(tree))
    return found


def units_called(
    fn: Func,
    path: str,
    tree: ast.Module,
    modules: Modules,
    text_of: TextOf,
) -> set[str]:
    """The project's units (dotted names) ``fn`` calls, directly or through helpers: the
    functions of its own file, the fixtures it asks for (its file's, a conftest.py's above
    it), and functions of test modules it imports."""
    from truegreen.verify.tamper.names import aliases

    local = {**_fixtures_around(path, text_of), **_functions(tree)}
    found: set[str] = set()
    seen: set[int] = set()

    def visit(f: Func, names: Mapping[str, str], here: dict[str, Func], depth: int) -> None:
        if id(f) in seen or depth > _DEPTH:
            return
        seen.add(id(f))
        for arg in [*f.args.args, *f.args.kwonlyargs]:
            if arg.arg in here and arg.arg not in ("self", "cls"):
                visit(here[arg.arg], names, here, depth + 1)
        for n in ast.walk(f):
            if not isinstance(n, ast.Call):
                continue
            if isinstance(n.func, ast.Name) and n.func.id in here and n.func.id not in names:
                visit(here[n.func.id], names, here, depth + 1)
                continue
            name = dotted(n.func, names)
            if name is None:
                continue
            if modules.is_unit(name):
                found.add(name)
                continue
            where = modules.split(name)
            other = modules.tree(where[0]) if where else None
            if where is not None and other is not None:  # a helper in a test module
                helper = _functions(other).get(where[1])
                if helper is not None:
                    visit(helper, aliases(other), _functions(other), depth + 1)

    visit(fn, aliases(tree), local, 0)
    return found


# -- expected values ---------------------------------------------------------------------


def _mask(node: ast.AST, names: Mapping[str, str]) -> tuple[str, list[str]]:
    """The assertion with its expected literals masked (its skeleton), and those literals.

    A literal is expected unless it is an argument of a call other than the assertion
    itself or an ``approx``-like call (then it is an input); tolerances are neither."""
    import copy

    clone = copy.deepcopy(node)
    expected: list[str] = []

    def walk(n: ast.AST, is_input: bool) -> None:
        if isinstance(n, ast.keyword) and n.arg in _TOLERANCES:
            n.value = ast.Constant("<tolerance>")
            return
        for field, value in ast.iter_fields(n):
            items = value if isinstance(value, list) else [value]
            for i, child in enumerate(items):
                if not isinstance(child, ast.AST):
                    continue
                child_input = is_input
                if isinstance(n, ast.Call) and field in ("args", "keywords") and n is not clone:
                    last = (dotted(n.func, names) or "").rsplit(".", 1)[-1]
                    child_input = is_input or last not in _EXPECTING
                if isinstance(child, ast.Constant) and not child_input:
                    expected.append(repr(child.value))
                    masked = ast.Constant("<expected>")
                    if isinstance(value, list):
                        value[i] = masked
                    else:
                        setattr(n, field, masked)
                    continue
                walk(child, child_input)

    walk(clone, False)
    return dump(clone), expected


def _as_written(fn: Func, node: ast.AST) -> str:
    """The source of the node of ``fn`` at ``node``'s place (its locals not renamed)."""
    return _one_line(ast.unparse(as_written(fn, node)))


def _one_line(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def expectation_changes(
    old_fn: Func, new_fn: Func, old_names: Mapping[str, str], names: Mapping[str, str]
) -> Iterator[tuple[ast.AST, str, str]]:
    """(head node, before, after) for each assertion or parametrize case of the test whose
    expected values changed, the rest of it as it was."""
    o_norm, n_norm = normalized(old_fn), normalized(new_fn)
    old_a = {dump(a): a for a in assertions(o_norm)}
    new_a = {dump(a): a for a in assertions(n_norm)}
    gone = [a for k, a in old_a.items() if k not in new_a]
    added = [a for k, a in new_a.items() if k not in old_a]
    by_skeleton: dict[str, list[tuple[ast.AST, list[str]]]] = {}
    for a in added:
        skeleton, lits = _mask(a, names)
        by_skeleton.setdefault(skeleton, []).append((a, lits))
    for a in gone:
        skeleton, lits = _mask(a, old_names)
        partners = by_skeleton.get(skeleton)
        if not partners:
            continue
        b, new_lits = partners.pop(0)
        if new_lits != lits:
            yield b, _as_written(old_fn, a), _as_written(new_fn, b)
    yield from _case_changes(old_fn, new_fn, old_names, names)


def _cases(fn: Func, names: Mapping[str, str]) -> list[tuple[ast.AST, list[str]]]:
    """Each parametrize case of ``fn``: (node, the dumps of its values)."""
    out: list[tuple[ast.AST, list[str]]] = []
    for cases in parametrize_lists(fn, names):
        for case in cases.elts:
            values = case.elts if isinstance(case, ast.Tuple | ast.List) else [case]
            out.append((case, [dump(v) for v in values]))
    return out


def _case_changes(
    old_fn: Func, new_fn: Func, old_names: Mapping[str, str], names: Mapping[str, str]
) -> Iterator[tuple[ast.AST, str, str]]:
    old_c, new_c = _cases(old_fn, old_names), _cases(new_fn, names)
    new_keys = [v for _, v in new_c]
    gone = [(n, v) for n, v in old_c if v not in new_keys]
    old_keys = [v for _, v in old_c]
    added = [(n, v) for n, v in new_c if v not in old_keys]
    for node, values in gone:
        for i, (b, new_values) in enumerate(added):
            same = sum(x == y for x, y in zip(values, new_values, strict=False))
            if len(values) == len(new_values) > 1 and 0 < same < len(values):
                del added[i]
                yield b, _one_line(ast.unparse(node)), _one_line(ast.unparse(b))
                break


def imports_of(tree: ast.Module, names: Mapping[str, str], modules: Iterable[str]) -> list[str]:
    """The ``modules`` (dotted) that a test module imports, or a package of which it imports."""
    origins = set(names.values())
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            origins.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            origins.add(n.module)
    return sorted(
        m
        for m in modules
        if any(o == m or o.startswith(m + ".") or m.startswith(o + ".") for o in origins)
    )
