"""Walking a module's statements without its expressions."""

from __future__ import annotations

import ast


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
        for block in blocks(node):
            todo.extend(reversed(block))
    return out


def module_level(tree: ast.Module) -> list[ast.stmt]:
    """The statements a module's body runs itself, in order: its simple statements and
    compound ones (``if``, ``try``, ``for``, ``with``) with what they hold, not the
    functions and classes (nor their ``def`` and ``class`` statements)."""
    out: list[ast.stmt] = []
    todo: list[ast.stmt] = list(reversed(tree.body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        out.append(node)
        for block in blocks(node):
            todo.extend(reversed(block))
    return out
