"""Ordering comparisons that the failing run evaluated at their boundary.

An off-by-one in a comparison (``<=`` written for ``<``, ``> 0`` for ``> 1``) changes the
outcome only where the operands are equal, so a run that never compares equal operands
there cannot tell the right comparison from the wrong one. When the failing test evaluated
``a <= b`` (or ``<``, ``>``, ``>=``) with ``a == b`` on a line, and the most similar
passing test never did (or never reached the line), that is evidence among tied lines:
the line where the two runs differ in the one case that matters for the comparison.

The operands are read from the locals the tracer recorded before the line ran, never by
running project code: names, ``obj.attr`` of a recorded object, numbers, ``len()`` of a
recorded container or string, and ``+``/``-`` of those. Anything else (a call, an index)
is left alone.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from truegreen.localize.spectrum import Line, Statements
from truegreen.localize.values import by_line

_ORDERING: dict[type[ast.cmpop], str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ARITH: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
}

#: an operand pair of an ordering comparison, with its operator's text
Pair = tuple[ast.expr, str, ast.expr]


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _length(value: Any) -> int | None:
    """The length of a recorded value: a string as it is, a container or a long string
    as the tracer summarizes it (``{"type": ..., "len": n}``)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict) and isinstance(value.get("len"), int) and "type" in value:
        return int(value["len"])
    return None


def _recorded(node: ast.expr, snap: Mapping[str, Any]) -> Any:
    """The recorded value of a name or of ``name.attr`` (an object's field), else None."""
    if isinstance(node, ast.Name):
        return snap.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = snap.get(node.value.id)
        if isinstance(owner, dict) and isinstance(owner.get("fields"), dict):
            return owner["fields"].get(node.attr)
    return None


def operand(node: ast.expr, snap: Mapping[str, Any]) -> int | float | None:
    """The number ``node`` evaluates to under the recorded locals ``snap``, where that can
    be read without running code; None otherwise."""
    if isinstance(node, ast.Constant):
        return _number(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = operand(node.operand, snap)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, right = operand(node.left, snap), operand(node.right, snap)
        if left is None or right is None:
            return None
        return _number(_ARITH[type(node.op)](left, right))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
    ):
        return _length(_recorded(node.args[0], snap))
    return _number(_recorded(node, snap))


def _reads_locals(node: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) for n in ast.walk(node))


def ordering_pairs(tree: ast.Module, key: Callable[[int], int]) -> dict[int, list[Pair]]:
    """Statement line (``key`` of the comparison's line) -> the operand pairs of the
    ordering comparisons on it whose operands can be read (a chain ``a <= b < c`` gives
    two pairs); a pair of two constants is left out."""
    out: dict[int, list[Pair]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            text = _ORDERING.get(type(op))
            if text is not None and (_reads_locals(left) or _reads_locals(right)):
                out.setdefault(key(node.lineno), []).append((left, text, right))
            left = right
    return out


def _hits(pairs: Sequence[Pair], snaps: Iterable[Mapping[str, Any]]) -> list[str]:
    """The comparisons (as text) that some snapshot evaluates with equal operands."""
    found: list[str] = []
    for snap in snaps:
        for left, op, right in pairs:
            a, b = operand(left, snap), operand(right, snap)
            if a is not None and b is not None and a == b:
                text = f"{ast.unparse(left)} {op} {ast.unparse(right)}"
                if text not in found:
                    found.append(text)
    return found


def _states(values: Mapping[str, Any] | None, stmts: Statements) -> dict[Line, list[Any]]:
    """The recorded locals by statement (the engines report different lines of one)."""
    out: dict[Line, list[Any]] = {}
    for (f, line), snaps in by_line((values or {}).get("states", ())).items():
        out.setdefault((f, stmts.line(f, line)), []).extend(snaps)
    return out


def _file_pairs(stmts: Statements, f: str) -> dict[int, list[Pair]]:
    tree = stmts.tree(f)
    return {} if tree is None else ordering_pairs(tree, lambda n: stmts.line(f, n))


def boundary_lines(
    failing: Mapping[str, Any],
    passing: Mapping[str, Any] | None,
    stmts: Statements,
    accept: Callable[[str], bool] = lambda f: True,
) -> dict[Line, str]:
    """Statements where the failing run evaluated an ordering comparison with equal
    operands and the passing run (when it reached them) never did: line -> the
    comparison, as written."""
    f_states = _states(failing, stmts)
    p_states = _states(passing, stmts)
    pairs_of: dict[str, dict[int, list[Pair]]] = {}
    out: dict[Line, str] = {}
    for ln, snaps in sorted(f_states.items()):
        f, line = ln
        if not accept(f):
            continue
        if f not in pairs_of:
            pairs_of[f] = _file_pairs(stmts, f)
        pairs = pairs_of[f].get(line)
        if not pairs:
            continue
        hit = _hits(pairs, snaps)
        if not hit:
            continue
        if set(hit) & set(_hits(pairs, p_states.get(ln, ()))):
            continue  # the passing run met the same boundary: it decides nothing here
        out[ln] = hit[0]
    return out
