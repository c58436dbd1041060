"""Runtime values: the failing run against the most similar passing run.

The tracer records, for two tests, the locals before each traced line ran (``states``),
what each line assigned (``assigns``, with ``from`` when the value came back from a call)
and what each function returned (``returns``). From those:

* ``differences``: on the suspect lines, variables whose values differ between the runs;
* ``origins``: where the failure was a ``None`` (or another bad value) used at the crash
  line, the line that assigned it, and the ``return`` that produced it;
* ``rejected``: where a failed ``assert a == b`` compared a value the code produced, the
  line that first produced it;
* evidence for breaking ranking ties: the crash frame, the origin lines, and lines that
  produced a value of a different *kind* (None, sign, emptiness, type) than the passing
  run did on the same line. Kinds, not raw values: two tests with different inputs
  differ in raw values everywhere; and ordering comparisons the failing run alone
  evaluated with equal operands (see localize.boundary).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

Line = tuple[str, int]

#: evidence levels, strongest first (see ranking.rank); TEXT: a literal of the line is
#: the text the failure rejected (a producer of the whole value only assembled it)
CRASH, TEXT, ORIGIN, KIND_DIFF, TRACEBACK = 5, 4, 3, 2, 1

_MAX_DIFFS = 40
#: the shortest part of a one-line text that is traced to its producer (a single
#: character, a space or a comma, is made everywhere)
_MIN_PART = 2
_MAX_VALUES = 3


def kind(value: Any) -> str:
    """A coarse, input-independent description of a serialized value."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, int | float):
        return "num:" + ("neg" if value < 0 else "zero" if value == 0 else "pos")
    if isinstance(value, str):
        return "str:empty" if value == "" else "str"
    if isinstance(value, dict):
        t = str(value.get("type", "?"))
        if "len" in value:
            return f"{t}:{'empty' if value['len'] == 0 else 'items'}"
        return t
    return type(value).__name__


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def by_line(states: Iterable[Mapping[str, Any]]) -> dict[Line, list[Mapping[str, Any]]]:
    """Recorded locals (``states``) grouped by (file, line), in the order they ran."""
    out: dict[Line, list[Mapping[str, Any]]] = {}
    for s in states:
        out.setdefault((str(s.get("file")), int(s.get("line", 0))), []).append(
            s.get("locals") or {}
        )
    return out


def _distinct(values: Iterable[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for v in values:
        seen.setdefault(_key(v), v)
    return list(seen.values())[:_MAX_VALUES]


def differences(
    failing: Mapping[str, Any], passing: Mapping[str, Any] | None, lines: Sequence[Line]
) -> list[dict[str, Any]]:
    """Variables on ``lines`` whose values differ between the two runs (bounded)."""
    f_states = by_line(failing.get("states", ()))
    p_states = by_line(passing.get("states", ())) if passing else {}
    out: list[dict[str, Any]] = []
    for ln in lines:
        fl = f_states.get(ln)
        if not fl:
            continue
        pl = p_states.get(ln)
        names = sorted({n for snap in fl for n in snap})
        for name in names:
            fv = _distinct(snap[name] for snap in fl if name in snap)
            pv = _distinct(snap[name] for snap in pl if name in snap) if pl else None
            if pv is not None and {_key(v) for v in fv} == {_key(v) for v in pv}:
                continue
            out.append(
                {
                    "file": ln[0],
                    "line": ln[1],
                    "var": name,
                    "failing": fv,
                    "passing": pv,
                    "passing_reached": pl is not None,
                }
            )
            if len(out) >= _MAX_DIFFS:
                return out
    return out


_IDENT = re.compile(r"[A-Za-z_]\w*")


#: where a TypeError's or AttributeError's message names the type of the value it could
#: not use: ``'int' object is not iterable``, ``object of type 'int' has no len()``, ``must
#: be str, not int``, ``need a bytes-like object, int found``, ``unhashable type: 'list'``.
#: Not ``unsupported operand type(s) for +: 'int' and 'str'``: either operand may be the
#: wrong one
_WRONG_TYPE = re.compile(
    r"""'(\w+)' object|of type '(\w+)'|(?:, |\()not ["']?(\w+)|\b(\w+) found\b"""
    r"""|unhashable type: '(\w+)'"""
)
#: exceptions whose message can name the type of the value that was used wrongly
_TYPE_ERRORS = frozenset({"TypeError", "AttributeError"})


def wrong_types(exc_type: str, message: str) -> frozenset[str]:
    """The type names a ``TypeError``/``AttributeError`` message gives for the value it
    could not use (not the type it expected: ``must be str, not int`` -> ``int``)."""
    if exc_type.rsplit(".", 1)[-1] not in _TYPE_ERRORS:
        return frozenset()
    first_line = message.strip().splitlines()[0] if message.strip() else ""
    return frozenset(name for m in _WRONG_TYPE.finditer(first_line) for name in m.groups() if name)


def type_name(value: Any) -> str:
    """The Python type name of a serialized value (``NoneType``, ``int``, ``list``, a
    class's name)."""
    if value is None:
        return "NoneType"
    if isinstance(value, dict):
        return str(value.get("type", "dict"))
    return type(value).__name__


def origins(
    failure: Mapping[str, Any] | None,
    failing: Mapping[str, Any],
    source_line: str,
    message: str = "",
) -> list[dict[str, Any]]:
    """Where a bad value used at the crash line came from: a ``None``, or a value of the
    type a ``TypeError``'s message names (``decoding to str: need a bytes-like object, int
    found``: the local holding an ``int``). ``assigned_at``: the last line of the crash's
    file that bound the variable to that value; ``returned_at``: the ``return`` that
    produced it."""
    if not failure or "crash_frame" not in failure:
        return []
    frames = failure.get("frames") or []
    idx = int(failure["crash_frame"])
    if not 0 <= idx < len(frames):
        return []
    crash = frames[idx]
    used = set(_IDENT.findall(source_line))
    loc = failure.get("locals") or {}
    named = wrong_types(str(failure.get("type") or ""), message)
    suspects = sorted(
        n for n, v in loc.items() if n in used and (v is None or type_name(v) in named)
    )
    out: list[dict[str, Any]] = []
    assigns = list(failing.get("assigns", ()))
    for name in suspects:
        value = loc[name]
        doc: dict[str, Any] = {
            "var": name,
            "value": value,
            "type": type_name(value),
            "used_at": {"file": crash["file"], "line": crash["line"]},
        }
        for a in reversed(assigns):
            if a.get("var") == name and a.get("file") == crash["file"] and a.get("value") == value:
                doc["assigned_at"] = {"file": a["file"], "line": a["line"]}
                if isinstance(a.get("from"), dict):
                    doc["returned_at"] = dict(a["from"])
                break
        out.append(doc)
    return out


def _trivial(value: Any) -> bool:
    """A value produced all over a program (None, a flag, 0 or 1, an empty string or
    collection): finding where it was made says nothing."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value in (-1, 0, 1)
    if isinstance(value, str | list):
        return len(value) == 0
    if isinstance(value, dict):
        return value.get("len") == 0 or value.get("type") in ("unserializable", "redacted")
    return False


def _made_in_order(
    failing: Mapping[str, Any], source: Callable[[str], bool] | None
) -> list[Mapping[str, Any]]:
    """The failing run's assignments and returns (in files ``source`` accepts), in
    execution order: what project code made, first made first."""
    events = [*failing.get("assigns", ()), *failing.get("returns", ())]
    if source is not None:
        events = [e for e in events if source(str(e.get("file")))]
    return sorted(events, key=lambda e: int(e.get("seq", 0)))


def rejected(
    failing: Mapping[str, Any],
    literal: Sequence[bool] = (),
    *,
    source: Callable[[str], bool] | None = None,
) -> list[dict[str, Any]]:
    """Where the values of a failed ``assert a == b`` were first produced in project code.

    The tracer keeps the operands of the comparison that failed (``compared``). For each
    operand that is not a literal written in the assertion (``literal[i]``: the expected
    value, most often), the first assignment or ``return`` in the failing run (in execution
    order, in files ``source(file)`` accepts) that produced an equal value: the line where
    the wrong value came from, which a pass-through later (a ``return x``) only repeats.

    When the operands are texts of several lines (a rendered table, a help page), also the
    first producer of the first line where they differ (``"part": "first differing line"``):
    the whole text is assembled last, from parts made where the fault is."""
    out: list[dict[str, Any]] = []
    compared = list(failing.get("compared", ()))[:1]
    # each value's first producer, in execution order: one pass, whatever is looked up
    first: dict[str, Mapping[str, Any]] = {}
    if compared:
        for e in _made_in_order(failing, source):
            first.setdefault(_key(e.get("value")), e)

    def first_producer(v: Any) -> Mapping[str, Any] | None:
        return first.get(_key(v))

    def part_producer(v: str, other: str) -> Mapping[str, Any] | None:
        """The first text made in project code (the longest, among equals) that the
        rejected text holds at the position where it first differs from ``other``: the
        part nearest to where the difference was made, before it was assembled into more."""
        at = next((i for i, (a, b) in enumerate(zip(v, other, strict=False)) if a != b), None)
        if at is None:
            at = min(len(v), len(other))
        if at >= len(v):
            return None  # the rejected text is a prefix of the other: nothing was added
        best: tuple[int, int] | None = None  # (seq, -length)
        found: Mapping[str, Any] | None = None
        for e in first.values():
            s = e.get("value")
            if not isinstance(s, str) or len(s) < _MIN_PART or s == v:
                continue
            start = v.find(s)
            while start != -1 and start + len(s) <= at:
                start = v.find(s, start + 1)
            if start == -1 or start > at:
                continue
            rank = (int(e.get("seq", 0)), -len(s))
            if best is None or rank < best:
                best, found = rank, e
        return found

    for cmp in compared:
        differs = cmp.get("differs") or {}
        parts = list(differs.get("values") or ())
        for i, v in enumerate(cmp.get("values") or ()):
            if i < len(literal) and literal[i]:
                continue
            found = None if _trivial(v) else first_producer(v)
            if found is not None:
                out.append(
                    {
                        "value": v,
                        "op": cmp.get("op"),
                        "produced_at": {"file": found["file"], "line": found["line"]},
                    }
                )
            part = parts[i] if i < len(parts) else None
            others = cmp.get("values") or ()
            other = others[1 - i] if len(others) == 2 and i in (0, 1) else None
            if part is None and isinstance(v, str) and isinstance(other, str) and "\n" not in v:
                # one line of text, made of parts: the part where it differs
                made_part = part_producer(v, other)
                if made_part is not None and (
                    found is None
                    or (made_part["file"], made_part["line"]) != (found["file"], found["line"])
                ):
                    out.append(
                        {
                            "value": made_part.get("value"),
                            "op": cmp.get("op"),
                            "part": "where the text first differs",
                            "produced_at": {"file": made_part["file"], "line": made_part["line"]},
                        }
                    )
                continue
            if part is None or _trivial(part) or isinstance(part, dict):
                continue  # no such line, a blank one, or one too long to be matched whole
            made = first_producer(part)
            where = (made["file"], made["line"]) if made is not None else None
            if where is not None and (found is None or where != (found["file"], found["line"])):
                out.append(
                    {
                        "value": part,
                        "op": cmp.get("op"),
                        "part": "first differing line",
                        "produced_at": {"file": where[0], "line": where[1]},
                    }
                )
            other_part = parts[1 - i] if len(parts) == 2 and i in (0, 1) else None
            if isinstance(part, str) and isinstance(other_part, str):
                # within that line, the part where it differs (a cell, a rule's segment)
                made_part = part_producer(part, other_part)
                at = (made_part["file"], made_part["line"]) if made_part is not None else None
                if (
                    made_part is not None
                    and at is not None
                    and at != where
                    and (found is None or at != (found["file"], found["line"]))
                ):
                    out.append(
                        {
                            "value": made_part.get("value"),
                            "op": cmp.get("op"),
                            "part": "where the text first differs",
                            "produced_at": {"file": at[0], "line": at[1]},
                        }
                    )
    return out + _receivers(out, failing, source)


def _receivers(
    docs: Sequence[Mapping[str, Any]],
    failing: Mapping[str, Any],
    source: Callable[[str], bool] | None,
) -> list[dict[str, Any]]:
    """For each producer in ``docs`` inside a function that returned the value it made,
    the caller's line that received it (``alt = escape(striptags(text))``, where
    ``escape`` made the doubled ``&amp;amp;``): a helper that made the wrong value often
    did what it was asked, and the call is the fault, so the call site is evidence too.
    One level up: the first assignment of the returned value."""
    made = _made_in_order(failing, source)
    first: dict[tuple[str, int, str], Mapping[str, Any]] = {}
    received: dict[tuple[str, int, str], Mapping[str, Any]] = {}
    for m in made:
        key = _key(m.get("value"))
        first.setdefault((str(m.get("file")), int(m.get("line", 0)), key), m)
        came = m.get("from")
        if "var" in m and isinstance(came, dict):
            received.setdefault((str(came["file"]), int(came["line"]), key), m)
    out: list[dict[str, Any]] = []
    for d in docs:
        at = d["produced_at"]
        key = _key(d.get("value"))
        e: Mapping[str, Any] | None = first.get((str(at["file"]), int(at["line"]), key))
        if e is not None and "var" in e:  # an assignment: the function's return of it
            made_at = e
            e = next(
                (
                    r
                    for r in made
                    if "var" not in r
                    and int(r.get("seq", 0)) > int(made_at.get("seq", 0))
                    and (r.get("file"), r.get("func")) == (made_at.get("file"), made_at.get("func"))
                    and _key(r.get("value")) == key
                ),
                None,
            )
        if e is None:
            continue
        got = received.get((str(e["file"]), int(e["line"]), key))
        if got is not None and (got["file"], got["line"]) != (at["file"], at["line"]):
            out.append(
                {
                    **d,
                    "produced_at": {"file": got["file"], "line": got["line"]},
                    "from_call": dict(at),
                }
            )
    return out


#: pytest's explanation of the value an assertion judged, when the test got it from a call
#: (the first level only: deeper ``+    where`` lines explain that call's arguments):
#: ``+  where False = is_valid('x')``, ``where None = <function fmt at 0x..>(..)``,
#: ``<bound method A.f of ..>()``
_WHERE = re.compile(
    r"^ ?\+  where (?P<value>.+?) = "
    r"(?:<(?:function|bound method|built-in method|method) (?P<repr>[\w.]+)[^>]*>"
    r"|(?P<name>[A-Za-z_][\w.]*))\(",
    re.M,
)

_EMPTY: dict[str, Any] = {
    "[]": {"type": "list", "len": 0, "items": []},
    "()": {"type": "tuple", "len": 0, "items": []},
    "{}": {"type": "dict", "len": 0, "items": {}},
    "set()": {"type": "set", "len": 0, "items": []},
    "''": "",
    '""': "",
    "True": True,
    "False": False,
    "None": None,
}


_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_UNKNOWN = object()


def _recorded(text: str) -> Any:
    """A value of pytest's explanation as the tracer records it (``_UNKNOWN``: an object's
    repr, which only the function's name can be matched by)."""
    if text in _EMPTY:
        return _EMPTY[text]
    if _NUMBER.fullmatch(text):
        return float(text) if "." in text else int(text)
    return _UNKNOWN


#: a text shorter than this is found in too many messages to say where one came from
_MIN_MESSAGE_PART = 4


def in_message(
    failing: Mapping[str, Any],
    message: str,
    test_source: str,
    *,
    source: Callable[[str], bool] | None = None,
) -> list[dict[str, Any]]:
    """For an assertion that compared nothing (``assert ok, msg``, ``assertTrue(r, msg)``,
    ``pytest.fail(msg)``): the first text made in project code (an assignment, a return,
    an argument built in a call) that the failure message holds whole, where the test's own
    source does not (so not an input the test wrote and the message echoes). The message
    shows what the code made; the first such text is nearest to where it was made, before
    being assembled into more (a regex ``\\d+\\.\\d+``, shown inside the pattern built from
    it)."""
    if failing.get("compared") or not message:
        return []
    for e in _made_in_order(failing, source):
        s = e.get("value")
        if not isinstance(s, str) or len(s.strip()) < _MIN_MESSAGE_PART or s == message:
            continue
        if (s in message or repr(s)[1:-1] in message) and s not in test_source:
            return [
                {
                    "value": s,
                    "part": "in the failure message",
                    "produced_at": {"file": str(e["file"]), "line": int(e["line"])},
                }
            ]
    return []


def received(
    failing: Mapping[str, Any], literal: Sequence[bool] = (), message: str = ""
) -> list[dict[str, Any]]:
    """Where the test received a value its assertion rejected that code makes everywhere
    (True, None, 0, an empty list: :func:`rejected` does not trace those): the project
    function that returned it to the test's own frame, the last time before the failure.

    The values come from the failed comparison's operands that are not literals of the
    assertion, and from pytest's explanation of a plain ``assert f(x)`` (``where False =
    f(x)``, which also names the function). A predicate that answered wrong (``return
    "ls" in command.script``) is often its own fault."""
    wanted: list[tuple[Any, str | None]] = []  # (value or _UNKNOWN, the function's name)
    for cmp in list(failing.get("compared", ()))[:1]:
        for i, v in enumerate(cmp.get("values") or ()):
            if _trivial(v) and not (i < len(literal) and literal[i]):
                wanted.append((v, None))
    for m in _WHERE.finditer(message):
        name = (m.group("repr") or m.group("name") or "").rsplit(".", 1)[-1]
        wanted.append((_recorded(m.group("value")), name or None))
    if not wanted:
        return []
    returns = sorted(
        (r for r in failing.get("returns", ()) if r.get("to_test")),
        key=lambda r: int(r.get("seq", 0)),
    )
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for value, name in wanted:
        for r in reversed(returns):
            if name and r.get("func") != name:
                continue
            if value is not _UNKNOWN and _key(r.get("value")) != _key(value):
                continue
            at = (str(r["file"]), int(r["line"]))
            if at not in seen:
                seen.add(at)
                out.append(
                    {
                        "value": r.get("value"),
                        "received": True,
                        "produced_at": {"file": at[0], "line": at[1]},
                    }
                )
            break
    return out


def kind_diff_lines(failing: Mapping[str, Any], passing: Mapping[str, Any] | None) -> set[Line]:
    """Lines that produced a value of a kind the passing run never produced there."""
    if not passing:
        return set()
    seen: dict[tuple[str, int, str], set[str]] = {}
    for a in passing.get("assigns", ()):
        seen.setdefault((a["file"], a["line"], a["var"]), set()).add(kind(a.get("value")))
    for r in passing.get("returns", ()):
        seen.setdefault((r["file"], r["line"], "<return>"), set()).add(kind(r.get("value")))
    out: set[Line] = set()
    for a in failing.get("assigns", ()):
        k = (a["file"], a["line"], a["var"])
        if k in seen and kind(a.get("value")) not in seen[k]:
            out.add((a["file"], a["line"]))
    for r in failing.get("returns", ()):
        k = (r["file"], r["line"], "<return>")
        if k in seen and kind(r.get("value")) not in seen[k]:
            out.add((r["file"], r["line"]))
    return out


def raised_by_test_code(failure: Mapping[str, Any]) -> bool:
    """Whether a failure's exception was raised in test code that project code called (a
    callback, a test function given as a side effect): the innermost project
    frame is then a call into the test's own code, not a statement that failed."""
    frames = failure.get("frames") or []
    if not frames:
        return False
    last = frames[-1]
    return (
        not last.get("project")
        and last.get("file") != "<library>"
        and any(f.get("project") for f in frames)
    )


def evidence(
    failures: Sequence[Mapping[str, Any]],
    origin_docs: Sequence[Mapping[str, Any]],
    kind_lines: Iterable[Line],
    rejected_docs: Sequence[Mapping[str, Any]] = (),
    raise_guards: Mapping[Line, str] | None = None,
    boundaries: Mapping[Line, str] | None = None,
    mock_calls: Iterable[Line] = (),
    key_writers: Mapping[Line, str] | None = None,
    truths: Mapping[Line, str] | None = None,
    text_writers: Mapping[Line, str] | None = None,
) -> dict[Line, tuple[int, tuple[str, ...]]]:
    """Tie-breaking evidence per line: (level, notes); the strongest level wins."""
    ev: dict[Line, tuple[int, set[str]]] = {}

    def add(ln: Line, level: int, note: str) -> None:
        old_level, notes = ev.get(ln, (0, set()))
        notes.add(note)
        ev[ln] = (max(old_level, level), notes)

    for fail in failures:
        frames = fail.get("frames") or []
        project = [f for f in frames if f.get("project")]
        for f in project[:-1]:
            add((f["file"], int(f["line"])), TRACEBACK, "in the failing traceback")
        if project and raised_by_test_code(fail):
            f = project[-1]
            add((f["file"], int(f["line"])), TRACEBACK, "called the test code that raised")
        elif project:
            f = project[-1]
            add((f["file"], int(f["line"])), CRASH, "crash frame")
    for o in origin_docs:
        what = "the None" if o.get("value") is None else f"the {o.get('type')} the error names"
        for key, note in (
            ("assigned_at", f"assigned {what}"),
            ("returned_at", f"returned {what}"),
        ):
            at = o.get(key)
            if isinstance(at, dict):
                add((str(at["file"]), int(at["line"])), ORIGIN, note)
        for w in o.get("written_at", ()):
            add(
                (str(w["file"]), int(w["line"])),
                ORIGIN,
                f"wrote the attribute {what} was read from",
            )
    for r in rejected_docs:
        at = r["produced_at"]
        note = (
            "produced the part of the rejected text where it first differs"
            if r.get("part") == "where the text first differs"
            else "made a text the failure message shows"
            if r.get("part") == "in the failure message"
            else "produced the first line where the rejected text differs"
            if r.get("part")
            else "returned to the test the value its assertion rejected"
            if r.get("received")
            else "produced the value the assertion rejected"
        )
        came = r.get("from_call")
        if isinstance(came, dict):
            note = f"called the code that {note} ({came['file']}:{came['line']})"
        add((str(at["file"]), int(at["line"])), ORIGIN, note)
    for ln in mock_calls:
        add(ln, ORIGIN, "called the mock whose calls the test checks")
    for ln, key in (key_writers or {}).items():
        add(ln, ORIGIN, f"wrote the entry {key!r}, which the assertion found different")
    for ln, part in (text_writers or {}).items():
        add(ln, TEXT, f"holds the text {part!r}, which the failure shows where it differs")
    for ln, name in (raise_guards or {}).items():
        add(ln, ORIGIN, f"decides the {name} the test expected, which was not raised")
    for ln in kind_lines:
        add(ln, KIND_DIFF, "produced a value unlike the passing run's")
    for ln, compared in (boundaries or {}).items():
        add(
            ln, KIND_DIFF, f"compared {compared} with equal operands, which the passing run did not"
        )
    for ln, tested in (truths or {}).items():
        add(ln, KIND_DIFF, f"tested the truth of {tested}, which the passing run did not")
    return {ln: (lvl, tuple(sorted(notes))) for ln, (lvl, notes) in ev.items()}
