"""The statements that wrote the text a failure rejected, found by the literals they hold.

Much of what a test checks is text that project code writes from string literals: a
translation table (``future = "efter {0}"``), a message template, a warning, a help
line. When the wrong text is the fault, the spectrum ties the literal's line with the
code around it (a class body's assignments run together), but the failure itself shows
the literal: the rejected text holds a constant part of it (the text between a
template's fields) where it differs from the expected one.

* A failed ``==`` of two texts: the code's side (see :func:`keys.produced_side` for
  which side that is; for texts of several lines, the first line where they differ)
  holds the part over the span where it differs from the expected side (after their
  common prefix, before their common suffix), and the expected side does not hold it.
* A failure that compared nothing (``pytest.fail``, ``pytest.warns``'s "DID NOT WARN"
  naming the warnings that were emitted, ``assert ok, msg``): the message holds the part,
  and the test's source does not (so not an input the test wrote and the message echoes).

Only the statements the failing test ran count, and a part must be at least
:data:`MIN_PART` characters with a letter in it. When more than :data:`MAX_WRITERS`
statements match, the text says little about any one of them, and none is evidence.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from truegreen.localize.keys import produced_side
from truegreen.localize.spectrum import Line, Statements
from truegreen.localize.syntax import statements

#: the shortest constant part of a literal that counts (without surrounding blanks)
MIN_PART = 4
#: more statements than this holding the text: it is evidence for none of them
MAX_WRITERS = 3

#: a template's fields: ``{0}``, ``{name!r:>10}``, ``%s``, ``%(name)d``, ``%-5.2f``
_FIELD = re.compile(r"\{[^{}]*\}|%(?:\([^()]*\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%]")
_LETTER = re.compile(r"[^\W\d_]")


def constant_parts(text: str) -> list[str]:
    """The parts of a literal that reach the output as written: the text between its
    template fields, long enough to say something (:data:`MIN_PART`, with a letter)."""
    return [p for p in _FIELD.split(text) if len(p.strip()) >= MIN_PART and _LETTER.search(p)]


def differing_span(actual: str, expected: str) -> tuple[int, int]:
    """The span of ``actual`` where it differs from ``expected``: after their common
    prefix, before their common suffix (empty when ``actual`` only lacks text)."""
    n = min(len(actual), len(expected))
    start = 0
    while start < n and actual[start] == expected[start]:
        start += 1
    end = 0
    while end < n - start and actual[-1 - end] == expected[-1 - end]:
        end += 1
    return start, len(actual) - end


def compared_texts(
    failing: Mapping[str, Any], literal: Sequence[bool] = ()
) -> tuple[str, str] | None:
    """``(produced, expected)`` of a failed ``==`` of two texts (for texts of several
    lines, the first line where they differ; :func:`keys.produced_side` says which is
    which); None for any other failure."""
    compared = list(failing.get("compared", ()))[:1]
    if not compared or compared[0].get("op") != "==":
        return None
    cmp = compared[0]
    values = list(cmp.get("values") or ())
    differs = cmp.get("differs")
    if isinstance(differs, Mapping):
        values = list(differs.get("values") or ())
    if len(values) != 2 or not all(isinstance(v, str) for v in values):
        return None  # not two texts, or one too long to be kept whole
    side = produced_side(literal)
    return str(values[side]), str(values[1 - side])


def _header(node: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that run on its own line: a compound statement's header
    expression (a condition, an iterable, a context manager), a simple statement whole."""
    if isinstance(node, (ast.If, ast.While)):
        return [node.test]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.iter]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [i.context_expr for i in node.items]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)):
        return []
    if isinstance(node, ast.Match):
        return [node.subject]
    return [node]


def _literals_by_line(tree: ast.Module) -> dict[int, tuple[str, ...]]:
    """Each statement's string literals (its header's, for a compound statement), by the
    statement's first line (the first statement there that holds any)."""
    found = _Literals(tree)
    out: dict[int, tuple[str, ...]] = {}
    for line in found.lines():
        got = found.get(line)
        if got:
            out[line] = got
    return out


def _statement_literals(node: ast.stmt) -> tuple[str, ...]:
    return tuple(
        n.value
        for part in _header(node)
        for n in ast.walk(part)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )


class _Literals:
    """A file's statements' string literals, by line, found when a line is first asked
    for: the failing test ran a few thousand of a large project's statements, of hundreds
    of thousands of syntax nodes (walking them all was seconds on sqlglot)."""

    def __init__(self, tree: ast.Module) -> None:
        self._at: dict[int, list[ast.stmt]] = {}
        for node in statements(tree):  # each before those nested in it, as on its line
            self._at.setdefault(node.lineno, []).append(node)
        self._found: dict[int, tuple[str, ...]] = {}

    def lines(self) -> list[int]:
        return sorted(self._at)

    def get(self, line: int) -> tuple[str, ...]:
        """The literals of the first statement at ``line`` that holds any; () if none."""
        got = self._found.get(line)
        if got is None:
            got = ()
            for node in self._at.get(line, ()):
                got = _statement_literals(node)
                if got:
                    break
            self._found[line] = got
        return got


def _literals(stmts: Statements, rel: str) -> _Literals | None:
    def make() -> _Literals | None:
        tree = stmts.tree(rel)
        return _Literals(tree) if tree is not None else None

    return stmts.memo("texts.literals", rel, make)


def _executed_literals(
    executed: Iterable[Line], stmts: Statements, source: Callable[[str], bool]
) -> Iterator[tuple[Line, tuple[str, ...]]]:
    """The statements among ``executed`` (in files ``source`` accepts) that hold string
    literals, in file and line order, each with its literals."""
    for file, line in sorted(set(executed)):
        if file.endswith(".py") and source(file):
            literals = _literals(stmts, file)
            found = literals.get(line) if literals is not None else ()
            if found:
                yield (file, line), found


def _writers(
    holds: Callable[[str], bool],
    executed: Iterable[Line],
    stmts: Statements,
    source: Callable[[str], bool],
) -> dict[Line, str]:
    """The statements among ``executed`` (in files ``source`` accepts) with a literal
    whose constant part ``holds`` accepts: line -> the longest such part. Empty when more
    than :data:`MAX_WRITERS` statements match."""
    out: dict[Line, str] = {}
    for (file, line), found in _executed_literals(executed, stmts, source):
        parts = [p for t in found for p in constant_parts(t) if holds(p)]
        if parts:
            out[(file, line)] = max(parts, key=len)
            if len(out) > MAX_WRITERS:
                return {}
    return out


def literal_is_wrong(
    failing: Mapping[str, Any],
    literal: Sequence[bool],
    executed: Iterable[Line],
    stmts: Statements,
    source: Callable[[str], bool],
) -> bool:
    """For a failed ``==`` of two texts: no literal the failing test ran (in files
    ``source`` accepts) could have written the expected text where it differs, so the
    literal that wrote the rejected text is itself wrong (a translation, a template), rather
    than the code having picked the wrong entry of a table that holds the right one too
    (``"googol"`` where ``"decillion"`` was due: the fault is in the choosing)."""
    pair = compared_texts(failing, literal)
    if pair is None:
        return False
    produced, expected = pair
    start, end = differing_span(expected, produced)
    wanted = expected[start:end]
    if not wanted.strip():
        return False
    return not any(
        p.strip() in wanted
        for _line, found in _executed_literals(executed, stmts, source)
        for t in found
        for p in constant_parts(t)
    )


def rejected_text_writers(
    failing: Mapping[str, Any],
    literal: Sequence[bool],
    message: str,
    test_source: str,
    executed: Iterable[Line],
    stmts: Statements,
    source: Callable[[str], bool],
    *,
    raised_in_project: bool = False,
) -> dict[Line, str]:
    """The statements whose literals wrote the text the failure rejected (see the
    module's description): line -> the literal's part the failure shows.
    ``raised_in_project``: the failure was raised in project code, whose message its own
    ``raise`` wrote (that statement found the bad state; it did not make it)."""
    pair = compared_texts(failing, literal)
    if pair is not None:
        produced, expected = pair
        start, end = differing_span(produced, expected)
        if start >= end:
            return {}

        def in_difference(part: str) -> bool:
            if part in expected or part in test_source:
                return False
            at = produced.find(part)
            while at != -1:
                if at < end and at + len(part) > start:
                    return True
                at = produced.find(part, at + 1)
            return False

        return _writers(in_difference, executed, stmts, source)
    if failing.get("compared") or not message or raised_in_project:
        return {}

    def in_message(part: str) -> bool:
        return part in message and part not in test_source

    return _writers(in_message, executed, stmts, source)
