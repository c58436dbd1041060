"""What a context's handle names, in full: the answer to "tell me more about X" from a
reader of a localize context packed to a token budget.

Handles (the context's own, and a few more a reader may ask for):

* ``suspect:FILE:LINE``  the ranking entry, and the source of the function around the line;
* ``values:FILE:LINE[:VAR]``  the values that differ there, failing and passing;
* ``origin:VAR``  where the bad value the crash used came from;
* ``function:FILE:LINE``  the source of the innermost function or class around the line;
* ``file:FILE:LINE``  the lines around FILE:LINE (:data:`AROUND` on each side);
* ``excerpt``  pytest's whole failure text for the failing test.

Source is read from the checkout the localization was made in; a file that changed since
is said to be stale in the text (``context.stale_files``).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from truegreen.errors import UsageError
from truegreen.localize.context import excerpt, show, stale_files

#: lines on each side of ``file:FILE:LINE``
AROUND = 15
#: the longest function source returned (lines)
MAX_FUNCTION = 120

KINDS = ("suspect", "values", "origin", "function", "file", "excerpt")


def _bad(handle: str, why: str) -> UsageError:
    return UsageError(
        f"{handle!r} {why}",
        hint="give a handle the context named (suspect:FILE:LINE, values:FILE:LINE:VAR, "
        "origin:VAR), or function:FILE:LINE, file:FILE:LINE, excerpt",
        field="handle",
    )


def _file_line(handle: str, rest: str) -> tuple[str, int, str | None]:
    """FILE:LINE[:VAR] (a file name may hold no colon here)."""
    parts = rest.split(":")
    if len(parts) < 2 or not parts[1].isdigit() or not parts[0]:
        raise _bad(handle, "does not name FILE:LINE")
    var = ":".join(parts[2:]) or None
    return parts[0], int(parts[1]), var


def _lines(root: Path, rel: str, handle: str) -> list[str]:
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()):
        raise _bad(handle, "names a file outside the repository")
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        raise _bad(handle, f"names {rel}, which cannot be read in {root}") from None


def function_source(lines: list[str], line: int) -> tuple[int, int] | None:
    """The first and last line of the innermost function or class around ``line``."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return None
    best: tuple[int, int] | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.end_lineno or node.lineno
            if first <= line <= last and (best is None or last - first < best[1] - best[0]):
                best = (first, last)
    return best


def _numbered(lines: list[str], first: int, last: int, mark: int | None) -> str:
    width = len(str(last))
    return "\n".join(
        f"{'>' if n == mark else ' '} {n:>{width}} | {lines[n - 1].rstrip()}"
        for n in range(first, last + 1)
    )


def _function_text(lines: list[str], rel: str, line: int) -> str:
    span = function_source(lines, line)
    if span is None:
        lo, hi = max(1, line - AROUND), min(len(lines), line + AROUND)
        return f"{rel}:{lo}-{hi} (no function around line {line})\n" + _numbered(
            lines, lo, hi, line
        )
    first, last = span
    cut = last - first + 1 > MAX_FUNCTION
    if cut:
        last = first + MAX_FUNCTION - 1
    text = f"{rel}:{first}-{last}\n" + _numbered(lines, first, last, line)
    return text + (f"\n... (cut at {MAX_FUNCTION} lines)" if cut else "")


def expand(doc: Mapping[str, Any], handle: str, root: Path | None = None) -> dict[str, Any]:
    """The :class:`~truegreen.model.results.Evidence` fields for ``handle`` in the
    ``truegreen.localization/1`` document ``doc`` (made in the checkout ``root``, default:
    the document's ``repo``)."""
    handle = handle.strip()
    base = Path(root if root is not None else doc.get("repo") or ".")
    kind, _, rest = handle.partition(":")
    if kind not in KINDS:
        raise _bad(handle, f"is not a handle (kinds: {', '.join(KINDS)})")
    out: dict[str, Any]
    if kind == "excerpt":
        out = {"handle": handle, "kind": kind, "text": str(doc.get("excerpt") or "(no excerpt)")}
    elif kind == "origin":
        found = [o for o in doc["values"]["origins"] if o.get("var") == rest]
        if not found:
            raise _bad(handle, "names no origin of a bad value in this localization")
        at = found[0]["used_at"]
        out = {
            "handle": handle,
            "kind": kind,
            "file": at["file"],
            "line": at["line"],
            "text": "\n".join(json.dumps(o, sort_keys=True) for o in found),
            "data": found,
        }
    else:
        rel, line, var = _file_line(handle, rest)
        if kind == "values":
            diffs = [
                d
                for d in doc["values"]["differences"]
                if d["file"] == rel and d["line"] == line and (var is None or d["var"] == var)
            ]
            if not diffs:
                raise _bad(handle, "names no value difference in this localization")
            text = "\n".join(
                f"{d['var']}: failing {', '.join(show(v, 400) for v in d['failing'])} | passing "
                + (
                    ", ".join(show(v, 400) for v in d["passing"])
                    if d["passing"] is not None
                    else "(no recorded state)"
                )
                for d in diffs
            )
            out = {"handle": handle, "kind": kind, "file": rel, "line": line, "text": text}
            out["data"] = diffs
        else:
            lines = _lines(base, rel, handle)
            if not 1 <= line <= len(lines):
                raise _bad(handle, f"names line {line}; {rel} has {len(lines)}")
            data: list[dict[str, Any]] = []
            if kind == "suspect":
                data = [r for r in doc["ranking"] if r["file"] == rel and r["line"] == line]
                if not data:
                    raise _bad(handle, "is not a ranked line of this localization")
                r = data[0]
                head = f"rank {r['rank']} ({r['ties']} tied) score {r['score']}"
                ev = "; ".join(r["evidence"])
                text = head + (f" [{ev}]" if ev else "") + "\n" + _function_text(lines, rel, line)
            elif kind == "function":
                text = _function_text(lines, rel, line)
            else:
                text = excerpt(lines, line, AROUND, AROUND)
            out = {"handle": handle, "kind": kind, "file": rel, "line": line, "text": text}
            out["data"] = data
            stale = rel in stale_files(doc.get("context") or {}, base)
            if stale:
                out["text"] += f"\n(stale: {rel} changed since the localization was made)"
    return out
