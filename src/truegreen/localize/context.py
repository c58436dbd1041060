"""A compact context for a person or an agent, packed to a token budget.

Tokens are estimated as ``ceil(characters / 4)`` (a common rule of thumb for English
and code with BPE tokenizers; it is an estimate, not a tokenizer). Items go in by
priority (:func:`pack`): the header, the crash site and the rerun command always, cut to
their shortest forms when the budget is small (the crash site's marked line alone, the
rerun's node ids with the interpreter and options elided); then the top suspect with its
line; then those required items in full as far as they fit; then the other suspects and
value differences, best first. A value difference goes in only with the suspect it
belongs to. Whatever does not fit is named by a *handle* (``suspect:FILE:LINE``,
``values:FILE:LINE:VAR``) in ``omitted`` and in the text's last line, so a reader can ask
for it. The text never exceeds the budget, except when the required items' shortest
forms alone do not fit: then it is those and one line that says so.

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
    """One part of the context: its handle (what the omitted line names), its text, and
    optionally shorter forms of that text, longest first (the packing takes the longest
    form that fits; a required item's shortest form is its minimum)."""

    handle: str
    text: str
    required: bool = False
    #: shorter forms of ``text``, longest first (a source excerpt cut to its marked line,
    #: a rerun command with the interpreter and options elided)
    shorter: tuple[str, ...] = ()
    #: the handle of the item this one explains (a value difference's suspect): it goes in
    #: only when that item went in, and comes after it in the list
    parent: str | None = None
    #: packed before the required items are given more than their shortest forms (the top
    #: suspect: the one thing a context without it is not worth reading for)
    lead: bool = False

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.text, *self.shorter)


#: tokens kept free for the line that names what was left out, at most (a small budget
#: keeps less: :func:`_reserve`)
OMITTED_RESERVE = 40


#: before the other items, a required item grows past its shortest form only to a form that
#: takes at most this share of the budget (the whole rerun command, some 110 tokens, waits
#: for what is left at a budget under 440); whatever room is left at the end is used to
#: grow every item that went in
GROW_SHARE = 0.25


def _cost(text: str) -> int:
    return estimate_tokens(text + "\n")


def _reserve(budget: int) -> int:
    """Room for the omitted line: enough to name a few handles at a comfortable budget,
    never less than the shortest line that counts them."""
    return min(OMITTED_RESERVE, max(_cost(_omitted_line_min(99_999)), budget // 8))


def pack(items: Sequence[Item], budget: int) -> tuple[str, list[str], int]:
    """Pack ``items`` (given in the order they are shown) into ``budget`` tokens. Returns
    (text, omitted handles, tokens).

    By priority: (1) every required item in its shortest form; (2) the ``lead`` items,
    each in the longest form that fits; (3) the required items grown a form at a time,
    in turns, to forms of at most :data:`GROW_SHARE` of the budget; (4) the other items in
    order, each in the longest form that fits, else left out; (5) every item that went in
    grown, in turns, into the room left. An item whose parent was left out (or is not
    before it) is left out with it. What was left out is named on the last line by
    handle.

    The text stays within ``budget``. When the required items' shortest forms alone do not
    fit, it is those forms and one line that says so (over budget, as small as it gets).
    """
    chosen: dict[int, int] = {}  # item -> index of its form
    omitted: set[int] = set()
    required = [i for i, it in enumerate(items) if it.required]
    optional = [i for i, it in enumerate(items) if not it.required]
    for i in required:
        chosen[i] = len(items[i].forms) - 1
    used = sum(_cost(items[i].forms[chosen[i]]) for i in required)
    reserve = _reserve(budget) if optional else 0
    if used + reserve > budget:
        omitted.update(optional)
        need = used + (_cost(_omitted_line_min(len(optional))) if optional else 0)
        return _render(items, chosen, omitted, over=(budget, need))
    order = [i for i in optional if items[i].lead] + [i for i in optional if not items[i].lead]
    handles = {it.handle: i for i, it in enumerate(items)}
    decided: set[int] = set(required)

    def place(k: int, i: int) -> None:
        nonlocal used
        decided.add(i)
        item = items[i]
        parent = handles.get(item.parent) if item.parent is not None else None
        if item.parent is not None and (parent is None or parent not in chosen):
            omitted.add(i)
            return
        more = omitted or any(j not in decided for j in order[k + 1 :])
        room = budget - used - (reserve if more else 0)
        for f, text in enumerate(item.forms):
            if _cost(text) <= room:
                chosen[i] = f
                used += _cost(text)
                return
        omitted.add(i)

    def grow(which: Sequence[int], share: float) -> None:
        """Give ``which`` a longer form a step at a time, in turns, while each stays
        within ``share`` of the budget and the whole within the budget."""
        nonlocal used
        grown = True
        while grown:
            grown = False
            for i in which:
                f = chosen.get(i, 0)
                if f == 0:
                    continue
                longer = _cost(items[i].forms[f - 1])
                more = omitted or len(decided) < len(items)
                step = longer - _cost(items[i].forms[f])
                if longer <= budget * share and used + step + (reserve if more else 0) <= budget:
                    chosen[i] = f - 1
                    used += step
                    grown = True

    leads = sum(1 for i in order if items[i].lead)
    for k, i in enumerate(order[:leads]):
        place(k, i)
    grow(required, GROW_SHARE)
    for k, i in enumerate(order[leads:], start=leads):
        place(k, i)
    grow(sorted(chosen), 1.0)
    return _render(items, chosen, omitted, room=budget - used)


def _render(
    items: Sequence[Item],
    chosen: Mapping[int, int],
    omitted: set[int],
    *,
    room: int = 0,
    over: tuple[int, int] | None = None,
) -> tuple[str, list[str], int]:
    kept = [items[i].forms[chosen[i]] for i in sorted(chosen)]
    handles = [items[i].handle for i in sorted(omitted)]
    if over is not None:
        budget, need = over
        line = f"over budget ({budget} tokens): the shortest context, about {need}"
        if handles:
            line += "; " + _omitted_line_min(len(handles))
        kept.append(line)
    elif handles:
        kept.append(_omitted_line(handles, room))
    text = "\n".join(kept)
    return text, handles, estimate_tokens(text)


def _omitted_line_min(n: int) -> str:
    """The shortest omitted line: the count only."""
    return f"omitted: +{n} more in the JSON document"


def _omitted_line(handles: Sequence[str], room: int) -> str:
    """Name as many handles as fit in ``room`` tokens, then count the rest (only the count
    when not even the first fits)."""
    line = "omitted (ask for these by handle): "
    if estimate_tokens(f"{line}+{len(handles)} more in the JSON document") > room:
        return _omitted_line_min(len(handles))
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
