"""Walking a module's statements without its expressions."""

from __future__ import annotations

import ast

_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(tree: ast.AST) -> list[ast.stmt]:
    """Every statement of ``tree``, each before the statements nested in it. Walks statement
    blocks only, not expressions: statements cannot nest inside an expression, and a
    file's expression nodes outnumber its statements about ten to one (``ast.walk`` over a
    large module is most of the analysis time)."""
    out: list[ast.stmt] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.stmt):
            out.append(node)
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if block:
                todo.extend(reversed(block))
    return out
