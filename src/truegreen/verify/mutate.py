"""Mutants of changed lines, for exam strength.

A strong exam fails when the fix it graded is subtly broken again. We make small,
deterministic, single-point changes to the lines the fix changed (flip a comparison,
swap an arithmetic or boolean operator, nudge an integer constant, negate a
condition) and count how many of them the sealed exam "kills" (does not pass).

Each mutant replaces only the source segment of one expression, so the rest of the
file, comments and line numbers included, stays as it was.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

_CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_OPS: dict[type[ast.cmpop], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_BIN_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
}


@dataclass(frozen=True)
class Mutant:
    path: str
    line: int
    description: str
    source: str  # the whole mutated file


def replace(text: str, node: ast.expr, new: str) -> str | None:
    """``text`` with the source of ``node`` replaced by ``new`` (one line), or None."""
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    lines = text.splitlines(keepends=True)
    start = sum(len(line.encode()) for line in lines[: node.lineno - 1])
    end = sum(len(line.encode()) for line in lines[: node.end_lineno - 1])
    data = text.encode()
    a = start + node.col_offset
    b = end + node.end_col_offset
    if new.count("\n"):
        return None
    return (data[:a] + new.encode() + data[b:]).decode()


def variants(node: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    """The single-point changes of ``node`` itself: (description, replacement node)."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            swap = _CMP_SWAP.get(type(op))
            if swap is not None:
                ops = list(node.ops)
                ops[i] = swap()
                yield (
                    f"{_OPS[type(op)]} -> {_OPS[swap]}",
                    ast.Compare(left=node.left, ops=ops, comparators=node.comparators),
                )
    elif isinstance(node, ast.BinOp):
        bswap = _BIN_SWAP.get(type(node.op))
        if bswap is not None:
            yield (
                f"{type(node.op).__name__} -> {bswap.__name__}",
                ast.BinOp(left=node.left, op=bswap(), right=node.right),
            )
    elif isinstance(node, ast.BoolOp):
        other: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield (
            f"{type(node.op).__name__} -> {type(other).__name__}",
            ast.BoolOp(op=other, values=node.values),
        )
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield ("drop not", node.operand)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield (f"{node.value} -> {node.value + 1}", ast.Constant(node.value + 1))
        yield (f"{node.value} -> {node.value - 1}", ast.Constant(node.value - 1))


def _conditions(tree: ast.AST) -> set[int]:
    """ids of expressions used as conditions (if/while/ternary/assert tests)."""
    found: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If | ast.While | ast.IfExp):
            found.add(id(n.test))
    return found


def _on_changed_lines(node: ast.expr, wanted: set[int]) -> bool:
    """An expression on changed lines: one line that changed, or several that all did (a
    condition the fix wrapped over three lines is still the changed code; a long call with
    one changed argument line is not)."""
    end = node.end_lineno or node.lineno
    return all(line in wanted for line in range(node.lineno, end + 1))


def mutants_for(path: str, text: str, lines: Iterable[int], per_line: int = 3) -> list[Mutant]:
    """Deterministic mutants of the expressions on ``lines`` of one Python file."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    wanted = set(lines)
    conditions = _conditions(tree)
    by_line: dict[int, list[Mutant]] = {}
    nodes = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.expr) and _on_changed_lines(n, wanted)),
        key=lambda n: (n.lineno, n.col_offset, -(n.end_col_offset or 0)),
    )
    # Docstrings and annotations are not behaviour.
    skip: set[int] = set()
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module)
            and n.body
        ):
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(n, ast.arg) and n.annotation is not None:
            skip.update(id(x) for x in ast.walk(n.annotation))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.returns is not None:
            skip.update(id(x) for x in ast.walk(n.returns))
    for node in nodes:
        if id(node) in skip:
            continue
        bucket = by_line.setdefault(node.lineno, [])
        candidates = list(variants(node))
        if id(node) in conditions:
            candidates.insert(0, ("negate condition", ast.UnaryOp(op=ast.Not(), operand=node)))
        for description, replacement in candidates:
            if len(bucket) >= per_line:
                break
            new = ast.unparse(replacement)
            if isinstance(replacement, ast.UnaryOp) and replacement.operand is node:
                new = f"not ({ast.get_source_segment(text, node) or ast.unparse(node)})"
            mutated = replace(
                text,
                node,
                new
                if not isinstance(replacement, ast.BoolOp | ast.BinOp | ast.Compare)
                else f"({new})",
            )
            if mutated is None or mutated == text:
                continue
            try:
                ast.parse(mutated)
            except SyntaxError:
                continue
            bucket.append(Mutant(path, node.lineno, description, mutated))
    return [m for line in sorted(by_line) for m in by_line[line]]


def changed_lines(diff_text: str) -> dict[str, set[int]]:
    """Head-side line numbers added or changed, per file, from a unified diff."""
    result: dict[str, set[int]] = {}
    current: str | None = None
    line_no = 0
    for raw in diff_text.splitlines():
        if raw.startswith("+++ "):
            target = raw[4:].strip()
            current = target[2:] if target.startswith("b/") else None
            continue
        if raw.startswith("@@"):
            try:
                plus = raw.split("+", 1)[1].split(" ", 1)[0]
                line_no = int(plus.split(",", 1)[0])
            except (IndexError, ValueError):
                current = None
            continue
        if current is None or raw.startswith("--- "):
            continue
        if raw.startswith("+"):
            result.setdefault(current, set()).add(line_no)
            line_no += 1
        elif raw.startswith("-"):
            # A deleted line: mark the line that now stands in its place.
            result.setdefault(current, set()).add(max(line_no, 1))
        elif raw.startswith(" "):
            line_no += 1
    return result
