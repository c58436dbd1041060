"""Code the failing test names: ``test_get_real_name_multi_part_dotted`` tests
``get_real_name``, ``TestHebrewLocale::test_plurals`` tests ``HebrewLocale``.

Naming a test after the function or class it exercises is the most common convention
for tracing a test to its code, and a failing test's name says what it was written to
check. Among lines that the spectrum and the runtime values cannot tell apart, those
inside a function or class the failing test names go first: evidence from the test
itself, not a guess about the code.

A name matches when its words (split at ``_`` and at case changes, lower-cased) appear
in a row among the words of the test's class or function name; the parametrization
(``[...]``) is not part of the name. Dunder methods (``__init__``) and names shorter
than three letters never match: every test "names" them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Sequence

from truegreen.localize.spectrum import Statements
from truegreen.localize.syntax import statements

Line = tuple[str, int]

_CASE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
#: the shortest name (its letters, without ``_``) that can match
_MIN_NAME = 3


def words(name: str) -> tuple[str, ...]:
    """A name's words: ``get_real_name`` and ``getRealName`` -> get, real, name;
    ``HTTPServer`` -> http, server."""
    return tuple(w.lower() for part in name.split("_") for w in _CASE.split(part) if w)


def test_words(test_id: str) -> list[tuple[str, ...]]:
    """The words of each part of a test id after the file: its classes and function,
    without the parametrization."""
    parts = test_id.split("[", 1)[0].split("::")[1:]
    return [words(p) for p in parts]


def _in_a_row(hay: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    return any(tuple(hay[i : i + n]) == tuple(needle) for i in range(len(hay) - n + 1))


def named_by(name: str, tests: Sequence[Sequence[str]]) -> bool:
    """Whether ``name`` (a function's or class's) is named by one of ``tests`` (their
    parts' words)."""
    if name.startswith("__") and name.endswith("__"):
        return False
    w = words(name)
    if len("".join(w)) < _MIN_NAME:
        return False
    return any(_in_a_row(t, w) for t in tests)


def _scopes(tree: ast.Module | None) -> list[tuple[int, int, str]]:
    """Every ``def`` and ``class`` of a module: (first line, last line, name)."""
    if tree is None:
        return []
    return [
        (node.lineno, node.end_lineno or node.lineno, node.name)
        for node in statements(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def _scopes_of(stmts: Statements, file: str) -> Callable[[], list[tuple[int, int, str]]]:
    return lambda: _scopes(stmts.tree(file))


def named_lines(
    test_ids: Iterable[str], lines: Iterable[Line], stmts: Statements
) -> dict[Line, str]:
    """``lines`` inside a function or class that one of ``test_ids`` names, with the
    innermost such name."""
    tests = [w for t in test_ids for w in test_words(t) if w]
    out: dict[Line, str] = {}
    if not tests:
        return out
    matched: dict[str, list[tuple[int, int, str]]] = {}
    for file, line in lines:
        spans = matched.get(file)
        if spans is None:
            scopes = stmts.memo("scopes", file, _scopes_of(stmts, file))
            spans = matched[file] = [s for s in scopes if named_by(s[2], tests)]
        inside = [s for s in spans if s[0] <= line <= s[1]]
        if inside:
            out[(file, line)] = min(inside, key=lambda s: s[1] - s[0])[2]
    return out
