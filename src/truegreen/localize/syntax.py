"""Walking a module's statements without its expressions."""

from __future__ import annotations

import ast

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly in ``node`` (a module or a statement): its body, else
    and finally, and the bodies of its ``except`` handlers and ``case``s."""
    out: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list) and block:
            out.append(block)
    for name in ("handlers", "cases"):
        out += [part.body for part in getattr(node, name, None) or [] if part.body]
    return out


def statements(tree: ast.AST, *, definitions: bool = True) -> list[ast.stmt]:
    """Every statement of ``tree``, each before the statements nested in it. Walks statement
    blocks only, not expressions: statements cannot nest inside an expression, and a
    file's expression nodes outnumber its statements about ten to one (``ast.walk`` over a
    large module is most of the analysis time). ``definitions=False``: not the bodies of
    the functions and classes in ``tree`` (the ``def`` and ``class`` statements are kept)."""
    out: list[ast.stmt] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.stmt):
            out.append(node)
            if not definitions and node is not tree and isinstance(node, _DEFINITIONS):
                continue
        for block in blocks(node):
            todo.extend(reversed(block))
    return out
