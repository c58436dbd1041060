"""Ordering comparisons that the failing run evaluated at their boundary.

An off-by-one in a comparison (``<=`` written for ``<``, ``> 0`` for ``> 1``) changes the
outcome only where the operands are equal, so a run that never compares equal operands
there cannot tell the right comparison from the wrong one. When the failing test evaluated
``a <= b`` (or ``<``, ``>``, ``>=``) with ``a == b`` on a line, and the most similar
passing test never did (or never reached the line), that is evidence among tied lines:
the line where the two runs differ in the one case that matters for the comparison.

The same holds for a truth test (``if ndigits:``, ``while queue``, ``x if opts else y``,
under ``not``/``and``/``or``): a zero or an empty value is the one case where ``if x:``
and ``if x is not None:`` part ways, so a failing run that tested the truth of such a value
where the passing run never did meets the test at its boundary (:func:`truth_lines`).

The operands are read from the locals the tracer recorded before the line ran, never by
running project code: names, ``obj.attr`` of a recorded object, numbers, ``len()`` of a
recorded container or string, and ``+``/``-`` of those. Anything else (a call, an index)
is left alone.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from truegreen.localize.spectrum import Line, Statements
from truegreen.localize.values import by_line

_ORDERING: dict[type[ast.cmpop], str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ARITH: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
}

#: an operand pair of an ordering comparison, with its operator's text
Pair = tuple[ast.expr, str, ast.expr]
_T = TypeVar("_T")


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


def truth_operands(tree: ast.Module, key: Callable[[int], int]) -> dict[int, list[ast.expr]]:
    """Statement line -> the names and ``name.attr`` fields whose truth it tests: an
    ``if``/``elif``/``while`` condition or a conditional expression's test that is such an
    operand, or one under ``not``, ``and``, ``or``."""
    out: dict[int, list[ast.expr]] = {}

    def operands(node: ast.expr) -> list[ast.expr]:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return operands(node.operand)
        if isinstance(node, ast.BoolOp):
            return [o for v in node.values for o in operands(v)]
        if isinstance(node, ast.Name) or (
            isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        ):
            return [node]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            found = operands(node.test)
            if found:
                out.setdefault(key(node.test.lineno), []).extend(found)
    return out


def _falsy(value: Any) -> str | None:
    """How a recorded value is false without being None or False: 0, an empty string or
    collection (the values that tell ``if x:`` from ``if x is not None:``)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float) and value == 0:
        return str(value)
    if value == "":
        return "''"
    if isinstance(value, dict) and value.get("len") == 0 and "type" in value:
        return f"an empty {value['type']}"
    return None


def _truth_hits(operands: Sequence[ast.expr], snaps: Iterable[Mapping[str, Any]]) -> list[str]:
    found: list[str] = []
    for snap in snaps:
        for node in operands:
            shown = _falsy(_recorded(node, snap))
            if shown is not None:
                text = f"{ast.unparse(node)} = {shown}"
                if text not in found:
                    found.append(text)
    return found


def truth_lines(
    failing: Mapping[str, Any],
    passing: Mapping[str, Any] | None,
    stmts: Statements,
    accept: Callable[[str], bool] = lambda f: True,
) -> dict[Line, str]:
    """Statements where the failing run tested the truth of a value that is false without
    being None or False (``if ndigits:`` with ``ndigits == 0``) and the passing run (when
    it reached them) never did: line -> the operand and its value. A zero or an empty
    value is the one case where ``if x:`` and ``if x is not None:`` part ways, the boundary
    of a truth test as equal operands are of an ordering comparison."""

    return _met_by_failing_only(
        failing, passing, stmts, accept, lambda f: _file_truths(stmts, f), _truth_hits
    )


def warm(stmts: Statements, f: str) -> None:
    """Compute ``f``'s comparisons and truth tests ahead of need (see ``Statements.warm``)."""
    _file_pairs(stmts, f)
    _file_truths(stmts, f)


def _file_truths(stmts: Statements, f: str) -> dict[int, list[ast.expr]]:
    def make() -> dict[int, list[ast.expr]]:
        tree = stmts.tree(f)
        return {} if tree is None else truth_operands(tree, _keyed(stmts, f))

    return stmts.memo("truths", f, make)


def _keyed(stmts: Statements, f: str) -> Callable[[int], int]:
    return lambda n: stmts.line(f, n)


def _states(values: Mapping[str, Any] | None, stmts: Statements) -> dict[Line, list[Any]]:
    """The recorded locals by statement (the engines report different lines of one)."""
    out: dict[Line, list[Any]] = {}
    for (f, line), snaps in by_line((values or {}).get("states", ())).items():
        out.setdefault((f, stmts.line(f, line)), []).extend(snaps)
    return out


def _file_pairs(stmts: Statements, f: str) -> dict[int, list[Pair]]:
    def make() -> dict[int, list[Pair]]:
        tree = stmts.tree(f)
        return {} if tree is None else ordering_pairs(tree, _keyed(stmts, f))

    return stmts.memo("pairs", f, make)


def boundary_lines(
    failing: Mapping[str, Any],
    passing: Mapping[str, Any] | None,
    stmts: Statements,
    accept: Callable[[str], bool] = lambda f: True,
) -> dict[Line, str]:
    """Statements where the failing run evaluated an ordering comparison with equal
    operands and the passing run (when it reached them) never did: line -> the
    comparison, as written."""
    return _met_by_failing_only(
        failing, passing, stmts, accept, lambda f: _file_pairs(stmts, f), _hits
    )


def _met_by_failing_only(
    failing: Mapping[str, Any],
    passing: Mapping[str, Any] | None,
    stmts: Statements,
    accept: Callable[[str], bool],
    per_file: Callable[[str], Mapping[int, Sequence[_T]]],
    hits: Callable[[Sequence[_T], Iterable[Mapping[str, Any]]], list[str]],
) -> dict[Line, str]:
    """Statements (of files ``accept`` takes) holding items (``per_file``: statement line
    -> items) that ``hits`` finds met in the failing run's recorded locals and not in the
    passing run's there: line -> the first item met, as text."""
    f_states = _states(failing, stmts)
    p_states = _states(passing, stmts)
    items_of: dict[str, Mapping[int, Sequence[_T]]] = {}
    out: dict[Line, str] = {}
    for ln, snaps in sorted(f_states.items()):
        f, line = ln
        if not accept(f):
            continue
        if f not in items_of:
            items_of[f] = per_file(f)
        items = items_of[f].get(line)
        if not items:
            continue
        hit = hits(items, snaps)
        if hit and not set(hit) & set(hits(items, p_states.get(ln, ()))):
            out[ln] = hit[0]
    return out
