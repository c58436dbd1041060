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
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    kind: str = "comparison"  # one of KINDS


def replace(text: str, node: ast.AST, new: str) -> str | None:
    """``text`` with the source of ``node`` replaced by ``new`` (one line), or None."""
    lineno: int | None = getattr(node, "lineno", None)
    col: int | None = getattr(node, "col_offset", None)
    end_lineno: int | None = getattr(node, "end_lineno", None)
    end_col: int | None = getattr(node, "end_col_offset", None)
    if lineno is None or col is None or end_lineno is None or end_col is None:
        return None
    lines = text.splitlines(keepends=True)
    start = sum(len(line.encode()) for line in lines[: lineno - 1])
    end = sum(len(line.encode()) for line in lines[: end_lineno - 1])
    data = text.encode()
    a = start + col
    b = end + end_col
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
    """ids of expressions used as conditions (if/while/ternary tests)."""
    found: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If | ast.While | ast.IfExp):
            found.add(id(n.test))
    return found


def _on_changed_lines(node: ast.AST, wanted: set[int]) -> bool:
    """A node on changed lines: one line that changed, or several that all did (a
    condition the fix wrapped over three lines is still the changed code; a long call with
    one changed argument line is not)."""
    lineno: int = getattr(node, "lineno", 0)
    end: int = getattr(node, "end_lineno", None) or lineno
    return lineno > 0 and all(line in wanted for line in range(lineno, end + 1))


# -- the operators ------------------------------------------------------------------------
#
# Each operator is one kind of single-point change. A changed line gets mutants whenever
# any operator applies to it; when more apply than a line's share, they are taken in turn
# by kind (:data:`KINDS` order), so a line's few mutants are of different kinds rather
# than three nudges of the same constant.

#: the kinds of mutant, in the order a line's share is handed out
KINDS = (
    "condition",  # a condition negated
    "comparison",  # == <-> !=, in <-> not in, is <-> is not
    "boundary",  # < <-> <=, > <-> >=, an integer constant +1/-1
    "boolean",  # and <-> or, not dropped, True <-> False
    "return",  # a returned value replaced by None
    "argument",  # a keyword argument dropped, two arguments swapped, a call's argument dropped
    "string",  # a string emptied or changed
    "regex",  # a regular expression pattern changed (anchor, quantifier, class)
    "arithmetic",  # + <-> -, * <-> //, ...
    "call",  # a call replaced by its receiver or its one argument
    "statement",  # a statement removed
)

#: functions whose first argument is a regular expression pattern (re, regex, fnmatch.translate
#: users): ``re.sub(r"\s+", " ", s)`` mutates the pattern, not only the string
_REGEX_FUNCS = frozenset(
    {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"}
)
_REGEX_MODULES = frozenset({"re", "regex"})


def _regex_changes(pattern: str) -> Iterator[tuple[str, str]]:
    """Single-point changes of a regular expression that still compiles."""

    def sub_first(old: str, new: str) -> str | None:
        # the first occurrence not escaped by a backslash
        i = 0
        while True:
            i = pattern.find(old, i)
            if i < 0:
                return None
            if i == 0 or pattern[i - 1] != "\\":
                return pattern[:i] + new + pattern[i + len(old) :]
            i += 1

    candidates: list[tuple[str, str | None]] = [
        ("drop the ^ anchor", pattern[1:] if pattern.startswith("^") else None),
        (
            "drop the $ anchor",
            pattern[:-1] if pattern.endswith("$") and not pattern.endswith("\\$") else None,
        ),
        ("quantifier + -> *", sub_first("+", "*")),
        ("quantifier * -> +", sub_first("*", "+")),
        ("class [..] -> [^..]", sub_first("[", "[^") if "[^" not in pattern else None),
        ("class [^..] -> [..]", sub_first("[^", "[")),
    ]
    for letter in "dws":
        esc = "\\" + letter
        if esc in pattern:
            flipped = pattern.replace(esc, "\\" + letter.upper(), 1)
            candidates.append((f"{esc} -> {esc.upper()}", flipped))
    for description, new in candidates:
        if new is None or new == pattern:
            continue
        try:
            re.compile(new)
        except re.error:
            continue
        yield description, new


def _regex_patterns(tree: ast.AST, names: Mapping[str, str]) -> set[int]:
    """ids of string constants passed as the pattern of a regular expression function."""
    found: set[int] = set()
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Constant)):
            continue
        if not isinstance(n.args[0].value, str):
            continue
        func = n.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module = names.get(func.value.id, func.value.id)
            if module in _REGEX_MODULES and func.attr in _REGEX_FUNCS:
                found.add(id(n.args[0]))
        elif isinstance(func, ast.Name):
            module, _, attr = names.get(func.id, "").rpartition(".")
            if module in _REGEX_MODULES and attr in _REGEX_FUNCS:
                found.add(id(n.args[0]))
    return found


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> what it names, for the module's imports (``import re as r`` ->
    ``{"r": "re"}``, ``from re import sub`` -> ``{"sub": "re.sub"}``)."""
    names: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                names[a.asname or a.name] = a.name
        elif isinstance(n, ast.ImportFrom) and n.module:
            for a in n.names:
                names[a.asname or a.name] = f"{n.module}.{a.name}"
    return names


@dataclass(frozen=True)
class _Candidate:
    kind: str
    description: str
    node: ast.AST
    new: str  # the replacement source of ``node``


def _src(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text, node) or ast.unparse(node)


def _wrapped(node: ast.expr) -> str:
    new = ast.unparse(node)
    return f"({new})" if isinstance(node, ast.BoolOp | ast.BinOp | ast.Compare) else new


#: comparison operators whose swap moves a boundary (< <-> <=) rather than inverting a test
_BOUNDARY = frozenset({"<", "<=", ">", ">="})


def _expression_candidates(
    text: str, node: ast.expr, conditions: set[int], patterns: set[int]
) -> Iterator[_Candidate]:
    """The candidates of one expression (not its sub-expressions)."""
    if id(node) in conditions:
        yield _Candidate("condition", "negate condition", node, f"not ({_src(text, node)})")
    for description, replacement in variants(node):
        if isinstance(node, ast.Compare):
            kind = "boundary" if description.split(" -> ")[0] in _BOUNDARY else "comparison"
        elif isinstance(node, ast.BinOp):
            kind = "arithmetic"
        elif isinstance(node, ast.Constant):
            kind = "boundary"
        else:
            kind = "boolean"
        yield _Candidate(kind, description, node, _wrapped(replacement))
    if isinstance(node, ast.Constant):
        yield from _constant_candidates(text, node, patterns)
    elif isinstance(node, ast.JoinedStr):
        yield _Candidate("string", 'f-string -> ""', node, '""')
    elif isinstance(node, ast.Call):
        yield from _call_candidates(text, node)


def _like(text: str, node: ast.Constant, new: str) -> str:
    """``new`` as a literal written like ``node`` (a raw string stays raw), else its repr."""
    old = _src(text, node)
    prefix = old[: len(old) - len(old.lstrip("rRbBuU"))]
    quote = old[len(prefix) : len(prefix) + 1]
    raw = "r" in prefix.lower() and quote in "'\"" and old[len(prefix) :][:3] != quote * 3
    if raw and quote not in new and "\n" not in new and not new.endswith("\\"):
        return f"{prefix}{quote}{new}{quote}"
    return repr(new)


def _constant_candidates(text: str, node: ast.Constant, patterns: set[int]) -> Iterator[_Candidate]:
    value = node.value
    if isinstance(value, bool):
        yield _Candidate("boolean", f"{value} -> {not value}", node, repr(not value))
    elif isinstance(value, str) and id(node) in patterns:
        for description, new in _regex_changes(value):
            yield _Candidate("regex", f"regex {description}", node, _like(text, node, new))
    elif isinstance(value, str | bytes):
        empty = value[:0]
        if value:
            yield _Candidate("string", f"{_short(value)} -> {empty!r}", node, repr(empty))
        changed = (b"XX" + value + b"XX") if isinstance(value, bytes) else f"XX{value}XX"
        yield _Candidate("string", f"{_short(value)} -> {_short(changed)}", node, repr(changed))


def _short(value: str | bytes) -> str:
    r = repr(value)
    return r if len(r) <= 24 else r[:20] + "..." + r[-1]


def _clip(source: str, width: int = 40) -> str:
    return source if len(source) <= width else source[: width - 3] + "..."


def _call_candidates(text: str, node: ast.Call) -> Iterator[_Candidate]:
    """Arguments dropped or swapped; the call replaced by its receiver or its one argument."""
    name = _src(text, node.func)
    simple = [a for a in node.args if not isinstance(a, ast.Starred)]
    for kw in node.keywords:
        if kw.arg is None:
            continue
        rest = ast.Call(
            func=node.func, args=node.args, keywords=[k for k in node.keywords if k is not kw]
        )
        yield _Candidate("argument", f"drop {kw.arg}= from {name}()", node, _call(text, rest))
    if len(simple) == len(node.args) and len(simple) >= 2:
        a, b = simple[0], simple[1]
        if _src(text, a) != _src(text, b):
            swapped = ast.Call(func=node.func, args=[b, a, *simple[2:]], keywords=node.keywords)
            yield _Candidate(
                "argument", f"swap the first two arguments of {name}()", node, _call(text, swapped)
            )
        last = ast.Call(func=node.func, args=simple[:-1], keywords=node.keywords)
        yield _Candidate("argument", f"drop the last argument of {name}()", node, _call(text, last))
    if isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
        receiver = _src(text, node.func.value)
        yield _Candidate("call", f"{name}() -> {_clip(receiver)}", node, f"({receiver})")
    elif (
        isinstance(node.func, ast.Name)
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        arg = _src(text, node.args[0])
        yield _Candidate("call", f"{name}(x) -> x", node, f"({arg})")


def _call(text: str, call: ast.Call) -> str:
    """A call's source from the sources of its parts (their spelling kept)."""
    parts = [_src(text, a) for a in call.args]
    parts += [
        f"{k.arg}={_src(text, k.value)}" if k.arg else f"**{_src(text, k.value)}"
        for k in call.keywords
    ]
    return f"{_src(text, call.func)}({', '.join(parts)})"


def _statement_candidates(text: str, stmt: ast.stmt) -> Iterator[_Candidate]:
    if isinstance(stmt, ast.Return) and stmt.value is not None:
        if not (isinstance(stmt.value, ast.Constant) and stmt.value.value is None):
            yield _Candidate("return", "return None", stmt.value, "None")
    elif isinstance(
        stmt,
        ast.Expr
        | ast.Assign
        | ast.AugAssign
        | ast.AnnAssign
        | ast.Raise
        | ast.Delete
        | ast.Break
        | ast.Continue,
    ):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return  # a docstring or a bare constant does nothing
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            return
        first = _src(text, stmt).splitlines()[0]
        yield _Candidate("statement", f"remove `{_clip(first)}`", stmt, "pass")


def _skipped(tree: ast.AST) -> set[int]:
    """ids of nodes that are not behaviour: docstrings, annotations, f-string parts."""
    skip: set[int] = set()
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module)
            and n.body
        ):
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
                skip.add(id(first))
        if isinstance(n, ast.arg) and n.annotation is not None:
            skip.update(id(x) for x in ast.walk(n.annotation))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.returns is not None:
            skip.update(id(x) for x in ast.walk(n.returns))
        if isinstance(n, ast.AnnAssign):
            skip.update(id(x) for x in ast.walk(n.annotation))
        if isinstance(n, ast.JoinedStr):
            skip.update(id(x) for x in ast.walk(n) if x is not n)
    return skip


def _round_robin(candidates: list[_Candidate], share: int) -> list[_Candidate]:
    """At most ``share`` candidates, taken in turn by kind (KINDS order), each kind's in
    source order."""
    by_kind = {k: [c for c in candidates if c.kind == k] for k in KINDS}
    chosen: list[_Candidate] = []
    depth = 0
    while len(chosen) < share and any(len(v) > depth for v in by_kind.values()):
        for k in KINDS:
            if depth < len(by_kind[k]) and len(chosen) < share:
                chosen.append(by_kind[k][depth])
        depth += 1
    return chosen


def mutants_for(path: str, text: str, lines: Iterable[int], per_line: int = 3) -> list[Mutant]:
    """Deterministic mutants of the code on ``lines`` of one Python file: at most
    ``per_line`` per line, of different kinds where several apply (see :data:`KINDS`)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    wanted = set(lines)
    conditions = _conditions(tree)
    patterns = _regex_patterns(tree, _imports(tree))
    skip = _skipped(tree)
    nodes = sorted(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.expr | ast.stmt)
            and id(n) not in skip
            and _on_changed_lines(n, wanted)
        ),
        key=lambda n: (n.lineno, n.col_offset, -(n.end_col_offset or 0)),
    )
    by_line: dict[int, list[_Candidate]] = {}
    for node in nodes:
        found = (
            _statement_candidates(text, node)
            if isinstance(node, ast.stmt)
            else _expression_candidates(text, node, conditions, patterns)
        )
        by_line.setdefault(node.lineno, []).extend(found)
    result: list[Mutant] = []
    for line in sorted(by_line):
        made: list[Mutant] = []
        seen = {text}
        for c in _round_robin(_valid(text, by_line[line]), per_line):
            source = replace(text, c.node, c.new)
            if source is None or source in seen:
                continue
            seen.add(source)
            made.append(Mutant(path, line, c.description, source, c.kind))
        result += made
    return result


def _valid(text: str, candidates: list[_Candidate]) -> list[_Candidate]:
    """The candidates whose mutant is valid Python and differs from the original."""
    ok: list[_Candidate] = []
    seen = {text}
    for c in candidates:
        source = replace(text, c.node, c.new)
        if source is None or source in seen:
            continue
        try:
            ast.parse(source)
        except SyntaxError:
            continue
        seen.add(source)
        ok.append(c)
    return ok


def interleaved(mutants: Sequence[Mutant], limit: int) -> list[Mutant]:
    """At most ``limit`` mutants, spread over the changed lines: each line's first, then
    each line's second, ... (in file and line order), so a long fix's last lines are
    mutated too, not only its first ones."""
    by_line: dict[tuple[str, int], list[Mutant]] = {}
    for m in mutants:
        by_line.setdefault((m.path, m.line), []).append(m)
    chosen: list[Mutant] = []
    depth = 0
    while len(chosen) < limit and any(len(v) > depth for v in by_line.values()):
        for key in sorted(by_line):
            if depth < len(by_line[key]) and len(chosen) < limit:
                chosen.append(by_line[key][depth])
        depth += 1
    return sorted(chosen, key=lambda m: (m.path, m.line, mutants.index(m)))


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
