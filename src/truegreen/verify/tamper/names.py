"""Syntax-tree helpers: import aliases, dotted names, test functions, markers."""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from dataclasses import dataclass


def parse(text: str | None) -> ast.Module | None:
    """The module's syntax tree (cached by text: a big test file is read once per analysis,
    not once per test; callers never mutate trees)."""
    if text is None:
        return None
    return _parse_cached(text)


@functools.lru_cache(maxsize=256)
def _parse_cached(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


_ALIASES: dict[int, tuple[ast.Module, dict[str, str]]] = {}


def dump(node: ast.AST) -> str:
    """Structure without positions: equal for reformatted code."""
    return ast.dump(node, annotate_fields=False)


def aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted origin (``pt`` -> ``pytest``, ``mark`` -> ``pytest.mark``)."""
    hit = _ALIASES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return dict(hit[1])
    names = _aliases(tree)
    if len(_ALIASES) > 512:
        _ALIASES.clear()
    _ALIASES[id(tree)] = (tree, names)  # holds the tree, so its id is not reused
    return dict(names)


def _aliases(tree: ast.Module) -> dict[str, str]:
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    names[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Attribute | ast.Name)
        ):
            # skip = pytest.mark.skip; @skip
            origin = dotted(node.value, names)
            if origin and origin.split(".")[0] in ("pytest", "unittest", "_pytest"):
                names[node.targets[0].id] = origin
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


def marker_kind(name: str | None) -> str | None:
    """ "skip" or "xfail" for a skipping/xfailing decorator, marker or call."""
    if not name:
        return None
    last = name.rsplit(".", 1)[-1]
    if last in ("xfail", "expectedFailure"):
        return "xfail"
    if last in ("skip", "skipif", "skipIf", "skipUnless", "importorskip", "skipTest", "SkipTest"):
        return "skip"
    return None


def line(node: ast.AST | None) -> int | None:
    return getattr(node, "lineno", None)


Func = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class TestFunc:
    qualname: str  # "Class::test" or "test"
    node: Func
    cls: ast.ClassDef | None

    @property
    def name(self) -> str:
        return self.node.name


def test_functions(tree: ast.Module) -> dict[str, TestFunc]:
    """Test functions at module level and in (nested) classes, by qualname."""
    out: dict[str, TestFunc] = {}

    def visit(body: list[ast.stmt], prefix: str, cls: ast.ClassDef | None) -> None:
        for node in body:
            if isinstance(node, Func) and node.name.startswith("test"):
                q = f"{prefix}{node.name}"
                out[q] = TestFunc(q, node, cls)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::", node)

    visit(tree.body, "", None)
    return out


class _Renamer(ast.NodeTransformer):
    """Local variables renamed in order of first binding, so renaming one is no change."""

    def __init__(self, keep: set[str]) -> None:
        self.keep = keep
        self.map: dict[str, str] = {}

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.keep:
            if isinstance(node.ctx, ast.Store) and node.id not in self.map:
                self.map[node.id] = f"_v{len(self.map)}"
            if node.id in self.map:
                return ast.copy_location(ast.Name(self.map[node.id], node.ctx), node)
        return node


def normalized(fn: Func) -> ast.AST:
    """The function with its docstring dropped and local variables renamed."""
    import copy

    clone = copy.deepcopy(fn)
    body = clone.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        clone.body = body[1:] or [ast.Pass()]
    keep = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs, *fn.args.posonlyargs]}
    out: ast.AST = _Renamer(keep).visit(clone)
    return out


def body_key(fn: Func) -> str:
    """Body, arguments and decorators without positions, name or docstring: a moved or
    renamed test keeps it."""
    n = normalized(fn)
    assert isinstance(n, Func)
    return "|".join(
        [dump(ast.Module(body=list(n.body), type_ignores=[])), dump(n.args)]
        + [dump(d) for d in n.decorator_list]
    )
