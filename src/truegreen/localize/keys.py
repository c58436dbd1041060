"""The statements that wrote the entries a failed ``==`` found different.

When a test compares a structure the code built (a JSON document, a settings dict, a
record) with the one it expects, the tracer walks both sides of the failed ``==`` and
keeps the named entries where they differ, innermost first along each path: dict keys
that are strings and objects' (and named tuples') field names, read without running user
code. An entry whose value differs, or that only the code's side has, was written by
some statement the failing test ran: one that names the key, as a dict display's key
(``{"allOf": ...}``), a subscript assignment (``schema["allOf"] = ...``), a keyword
argument (``dict(allOf=...)``, ``Binding(key=...)``) or an attribute assignment
(``self.key = ...``). Those statements are evidence among tied lines.

A key that many executed statements write (``"type"`` in a JSON-schema builder) says
little about any one of them: keys with more than :data:`MAX_WRITERS` writers are left
out. An entry only the expected side has was never written, and is not followed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from truegreen.localize.spectrum import Line, Statements

#: a key written by more statements than this (among those the failing test ran) is
#: not evidence for any of them
MAX_WRITERS = 3


def produced_side(literal: Sequence[bool]) -> int:
    """Which operand of a failed comparison the code produced (0 left, 1 right): the left
    one unless the left is a literal written in the assertion and the right one is not."""
    left_literal = len(literal) > 0 and literal[0]
    right_literal = len(literal) > 1 and literal[1]
    return 1 if left_literal and not right_literal else 0


def differing_keys(failing: Mapping[str, Any], literal: Sequence[bool] = ()) -> list[str]:
    """The keys of the failed comparison's differing entries that the code's side has:
    changed ones, and those only the produced side has. The produced side is the left
    one unless the left operand is a literal written in the assertion and the right one
    is not (``assert {"a": 1} == build()``)."""
    compared = list(failing.get("compared", ()))[:1]
    if not compared:
        return []
    only_produced = "missing" if produced_side(literal) == 1 else "extra"
    out: list[str] = []
    for entry in compared[0].get("keys") or ():
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str)):
            continue
        how, key = entry
        if how in ("changed", only_produced) and key and key not in out:
            out.append(key)
    return out


def _written(node: ast.AST) -> list[str]:
    """The keys a statement's own expressions name as written entries."""
    out: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Dict):
            out += [
                k.value for k in n.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
            if isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                out.append(n.slice.value)
        elif isinstance(n, ast.Call):
            out += [kw.arg for kw in n.keywords if kw.arg]
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            out.append(n.attr)
    return out


def _statement_keys(tree: ast.Module, key: Callable[[int], int]) -> dict[int, set[str]]:
    """Statement line -> the keys written on it. A compound statement counts only for its
    header (an ``if`` for its condition): the statements of its body have their own."""
    out: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        parts: list[ast.AST] = []
        for name, value in ast.iter_fields(node):
            if name in ("body", "orelse", "finalbody", "handlers", "cases"):
                continue
            if isinstance(value, ast.AST):
                parts.append(value)
            elif isinstance(value, list):
                parts += [v for v in value if isinstance(v, ast.AST)]
        written = {k for p in parts for k in _written(p)}
        if written:
            out.setdefault(key(node.lineno), set()).update(written)
    return out


def _keyed(stmts: Statements, f: str) -> Callable[[int], int]:
    return lambda n: stmts.line(f, n)


def writer_lines(
    keys: Sequence[str],
    executed: Iterable[Line],
    stmts: Statements,
    accept: Callable[[str], bool] = lambda f: True,
) -> dict[Line, str]:
    """Executed statements (of files ``accept`` takes) that write one of ``keys``: line ->
    the key (the first of ``keys`` it writes), for keys with at most :data:`MAX_WRITERS`
    writers."""
    if not keys:
        return {}
    wanted = set(keys)
    by_file: dict[str, set[int]] = {}
    for f, line in executed:
        if accept(f):
            by_file.setdefault(f, set()).add(line)
    writers: dict[str, list[Line]] = {}
    for f, lines in sorted(by_file.items()):
        tree = stmts.tree(f)
        if tree is None:
            continue
        for line, written in sorted(_statement_keys(tree, _keyed(stmts, f)).items()):
            if line not in lines:
                continue
            for k in written & wanted:
                writers.setdefault(k, []).append((f, line))
    out: dict[Line, str] = {}
    for k in keys:
        found = writers.get(k, [])
        if 0 < len(found) <= MAX_WRITERS:
            for ln in found:
                out.setdefault(ln, k)
    return out


def _assignment_at(
    stmts: Statements, file: str, line: int
) -> ast.Assign | ast.AnnAssign | ast.AugAssign | None:
    """The assignment statement (with a value) keyed ``line`` in ``file``."""
    tree = stmts.tree(file)
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
            and node.value is not None
            and stmts.line(file, node.lineno) == line
        ):
            return node
    return None


def value_attributes(stmts: Statements, file: str, line: int) -> list[str]:
    """The attributes an assignment's value reads as data, where the value it bound may
    have come from: ``used = name in scope and scope[name].used`` -> ``used``. Not the
    names an attribute is looked up on (``self`` and ``node`` of ``self.node.x``) nor
    methods called (``self.get(...)``)."""
    node = _assignment_at(stmts, file, line)
    if node is None or node.value is None:
        return []
    inner: set[int] = set()
    for n in ast.walk(node.value):
        if isinstance(n, ast.Attribute):
            inner.add(id(n.value))
        elif isinstance(n, ast.Call):
            inner.add(id(n.func))
    out: list[str] = []
    for n in ast.walk(node.value):
        if isinstance(n, ast.Attribute) and id(n) not in inner and n.attr not in out:
            out.append(n.attr)
    return out


_LITERALS = {ast.Tuple: "tuple", ast.List: "list", ast.Dict: "dict", ast.Set: "set"}


def written_literal_type(stmts: Statements, file: str, line: int) -> str | None:
    """The type of the literal an assignment statement writes (``x.used = True`` ->
    ``bool``, ``x.used = (a, b)`` -> ``tuple``); None when its value is not a literal."""
    node = _assignment_at(stmts, file, line)
    if node is None or isinstance(node, ast.AugAssign) or node.value is None:
        return None
    v = node.value
    if isinstance(v, ast.Constant):
        return "NoneType" if v.value is None else type(v.value).__name__
    return _LITERALS.get(type(v))
