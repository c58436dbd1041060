"""A compact context for a person or an agent, packed to a token budget.

Tokens are estimated as ``ceil(characters / 4)`` (a common rule of thumb for English
and code with BPE tokenizers; it is an estimate, not a tokenizer). Sections go in by
priority: the header, the crash site and the rerun command always; then suspects and
value differences, best first, while they fit. Whatever does not fit is named by a
*handle* (``suspect:FILE:LINE``, ``values:FILE:LINE``) in ``omitted`` and in the text's
last line, so a reader can ask for it.

Freshness: the context records the sha256 of every file it quotes; :func:`stale_files`
names those that changed since, and a stale context says so rather than mislead.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): the documented estimate used for ``--budget-tokens``."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class Item:
    handle: str
    text: str
    required: bool = False


#: tokens kept free for the line that names what was left out
OMITTED_RESERVE = 40


def pack(items: Sequence[Item], budget: int) -> tuple[str, list[str], int]:
    """Greedy packing in the given order. Returns (text, omitted handles, tokens).

    The text stays within ``budget`` unless the required items alone exceed it.
    """
    kept: list[str] = []
    omitted: list[str] = []
    used = 0
    for i, item in enumerate(items):
        cost = estimate_tokens(item.text + "\n")
        more = omitted or any(not it.required for it in items[i + 1 :])
        reserve = OMITTED_RESERVE if more else 0
        if item.required or used + cost + reserve <= budget:
            kept.append(item.text)
            used += cost
        else:
            omitted.append(item.handle)
    if omitted:
        kept.append(_omitted_line(omitted, budget - used))
    text = "\n".join(kept)
    return text, omitted, estimate_tokens(text)


def _omitted_line(handles: Sequence[str], room: int) -> str:
    """Name as many handles as fit in ``room`` tokens, then count the rest."""
    line = "omitted (ask for these by handle): "
    for n, h in enumerate(handles):
        rest = len(handles) - n - 1
        candidate = line + ("" if n == 0 else ", ") + h
        tail = f", +{rest} more in the JSON document" if rest else ""
        if estimate_tokens(candidate + tail) > room:
            return line + (", " if n else "") + f"+{len(handles) - n} more in the JSON document"
        line = candidate
    return line


def file_hashes(root: Path, files: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for rel in sorted(set(files)):
        try:
            out[rel] = hashlib.sha256((root / rel).read_bytes()).hexdigest()
        except OSError:
            out[rel] = "missing"
    return out


def stale_files(context: Mapping[str, Any], root: Path) -> list[str]:
    """Files the context quoted that changed (or vanished) since it was made."""
    recorded = context.get("files") or {}
    now = file_hashes(root, list(recorded))
    return sorted(f for f, h in recorded.items() if now.get(f) != h)


def excerpt(lines: Sequence[str], line: int, before: int = 2, after: int = 1) -> str:
    """Numbered source lines around ``line`` (1-based), the line itself marked ``>``."""
    lo, hi = max(1, line - before), min(len(lines), line + after)
    width = len(str(hi))
    return "\n".join(
        f"{'>' if n == line else ' '} {n:>{width}} | {lines[n - 1].rstrip()}"
        for n in range(lo, hi + 1)
    )


def show(value: Any, limit: int = 80) -> str:
    """A short, one-line rendering of a serialized value."""
    if isinstance(value, dict) and "type" in value:
        t = value["type"]
        if "items" in value:
            inner = json.dumps(value["items"], sort_keys=True, default=str)
            text = f"{t}(len={value.get('len')}) {inner}"
        elif "fields" in value:
            text = f"<{t}> " + json.dumps(value["fields"], sort_keys=True, default=str)
        elif "str" in value:
            text = f"{t}({value['str']})"
        else:
            rest = {k: v for k, v in value.items() if k != "type"}
            text = f"<{t}>" + (f" {json.dumps(rest, sort_keys=True)}" if rest else "")
    else:
        text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
