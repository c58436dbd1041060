"""A test that expected an exception the code did not raise.

``pytest.raises(ValueError)`` fails with "DID NOT RAISE <class 'ValueError'>" and
unittest's ``assertRaises`` with "AssertionError: ValueError not raised": the failure is
in the test's own frame, so no project line is on the traceback. What decided it is the
condition in front of a ``raise ValueError(...)`` that the failing test evaluated without
entering: a wrong comparison (``>`` for ``>=``) or a missing case. Those conditions are
evidence among tied lines (they are not put above the scores: a wrong value computed
earlier makes a right condition miss too).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from truegreen.localize.spectrum import Line, Statements

_PYTEST = re.compile(r"DID NOT RAISE (.+)")
_CLASS = re.compile(r"<class '([\w.]+)'>|\b([A-Z]\w*(?:\.[A-Z]\w*)*)\b")
_UNITTEST = re.compile(r"AssertionError: ([A-Za-z_][\w.]*) not raised\b")


def expected_exceptions(excerpt: str) -> frozenset[str]:
    """The names of the exceptions a failure says were expected and not raised."""
    names: set[str] = set()
    for line in excerpt.splitlines():
        m = _PYTEST.search(line)
        if m:
            # pytest 9 names the class (ValueError), older ones its repr (<class '...'>)
            for quoted, bare in _CLASS.findall(m.group(1)):
                names.add((quoted or bare).rsplit(".", 1)[-1])
            continue
        m = _UNITTEST.search(line)
        if m:
            names.add(m.group(1).rsplit(".", 1)[-1])
    return frozenset(names)


def _name(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _with_subclasses(expected: Iterable[str], trees: Iterable[ast.Module]) -> set[str]:
    """``expected`` and the project's classes that derive from one of them (by name)."""
    bases: dict[str, set[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found = {_name(b) for b in node.bases}
                bases.setdefault(node.name, set()).update(n for n in found if n)
    names = set(expected)
    grown = True
    while grown:
        grown = False
        for cls, of in bases.items():
            if cls not in names and of & names:
                names.add(cls)
                grown = True
    return names


def missed_raise_guards(
    expected: frozenset[str], executed: frozenset[Line], stmts: Statements
) -> dict[Line, str]:
    """The conditions (``if``/``while``/``for`` headers) the failing test ran whose body
    raises one of ``expected`` (or a project subclass) at a line the test did not run:
    line -> the exception's name."""
    if not expected:
        return {}
    ran: dict[str, set[int]] = {}
    for f, ln in executed:
        ran.setdefault(f, set()).add(ln)
    trees = {f: t for f in ran if (t := stmts.tree(f)) is not None}
    names = _with_subclasses(expected, trees.values())
    out: dict[Line, str] = {}
    for f, tree in sorted(trees.items()):
        lines = ran[f]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise):
                continue
            name = _name(node.exc)
            if name not in names:
                continue
            at = stmts.line(f, node.lineno)
            if at in lines:
                continue
            guard = stmts.guard(f, at)
            if guard is not None and stmts.line(f, guard) in lines:
                out.setdefault((f, stmts.line(f, guard)), name)
    return out
