"""values.rejected: where the value a failed comparison rejected was first produced; and
how the tracer renders the values it records."""

from __future__ import annotations

from typing import Any
from unittest import mock

from truegreen.localize._tracer import truegreen_trace as tracer
from truegreen.localize.values import ORIGIN, evidence, in_message, rejected


def _run(*events: dict[str, Any], compared: list[Any]) -> dict[str, Any]:
    assigns = [e for e in events if "var" in e]
    returns = [e for e in events if "var" not in e]
    return {"assigns": assigns, "returns": returns, "compared": compared}


def _assign(line: int, value: Any, seq: int, file: str = "pkg/m.py") -> dict[str, Any]:
    return {"file": file, "line": line, "var": "x", "value": value, "seq": seq}


def _return(line: int, value: Any, seq: int, file: str = "pkg/m.py") -> dict[str, Any]:
    return {"file": file, "line": line, "func": "f", "value": value, "seq": seq}


def test_the_first_producer_in_execution_order_wins_over_later_pass_throughs() -> None:
    run = _run(
        _return(30, "glasse", 9),  # a later `return out`, listed first
        _assign(12, "glasse", 4),
        _assign(20, "glasse", 6),
        compared=[{"op": "==", "index": 0, "values": ["glasse", "glass"]}],
    )
    got = rejected(run)
    assert got == [{"value": "glasse", "op": "==", "produced_at": {"file": "pkg/m.py", "line": 12}}]


def test_a_literal_operand_and_values_made_everywhere_are_not_looked_for() -> None:
    events = (_assign(5, "glass", 1), _assign(6, 0, 2), _assign(7, "", 3), _assign(8, None, 4))
    run = _run(*events, compared=[{"op": "==", "index": 0, "values": ["glass", "x"]}])
    assert rejected(run, [True, False]) == []  # "glass" is the literal expected value
    for trivial in (0, 1, -1, True, None, "", [], {"type": "list", "len": 0}):
        run = _run(*events, compared=[{"op": "==", "values": [trivial, "zz"]}])
        assert rejected(run) == []


def test_only_files_the_filter_accepts_count() -> None:
    run = _run(
        _assign(3, "1024B", 1, file="tests/test_m.py"),
        _return(9, "1024B", 2),
        compared=[{"op": "==", "values": ["1024B", "1K"]}],
    )
    got = rejected(run, source=lambda f: not f.startswith("tests/"))
    assert [g["produced_at"] for g in got] == [{"file": "pkg/m.py", "line": 9}]


def test_nothing_compared_nothing_found() -> None:
    assert rejected({"assigns": [_assign(1, "v", 1)], "returns": []}) == []


def test_the_first_differing_line_of_a_text_is_traced_to_the_line_that_made_it() -> None:
    """A rendered table is assembled last (its producer is the join), from rows made where
    the fault is: the row where the texts first differ is traced too."""
    table = {"type": "str", "len": 400, "head": "name  qty\n----  ---\n"}
    run = _run(
        _return(40, "name  qty", 1),
        _return(51, "pear   10", 3),  # the wrong row, made by the row formatter
        _return(51, "fig     2", 5),
        _assign(70, table, 7),  # the join
        compared=[
            {
                "op": "==",
                "index": 0,
                "values": [table, {"type": "str", "len": 401, "head": "name  qty\n"}],
                "differs": {"line": 2, "values": ["pear   10", "pear  10"]},
            }
        ],
    )
    got = rejected(run, [False, True])
    assert got == [
        {"value": table, "op": "==", "produced_at": {"file": "pkg/m.py", "line": 70}},
        {
            "value": "pear   10",
            "op": "==",
            "part": "first differing line",
            "produced_at": {"file": "pkg/m.py", "line": 51},
        },
    ]
    # the expected side is a literal; a blank or missing line is not looked for
    run["compared"][0]["differs"]["values"] = ["", "pear  10"]
    assert [g.get("part") for g in rejected(run, [False, True])] == [None]


def test_within_the_first_differing_line_the_part_where_it_differs_is_traced() -> None:
    """A markdown rule ``|:-----:|`` rejected for ``| :---: |``: the row is the join of
    its segments, and the segment where the lines first differ was made elsewhere."""
    rule = "|:-----:|:-----:|"
    run = _run(
        _assign(30, "-------", 1),  # the plain rule: after the place where they differ
        _assign(31, ":-----", 2),  # the first segment, made wrong
        _assign(32, ":-----:", 3),
        _return(40, rule, 4),  # the join
        _return(50, f"| a | b |\n{rule}", 5),
        compared=[
            {
                "op": "==",
                "values": [f"| a | b |\n{rule}", "| a | b |\n| :---: | :---: |"],
                "differs": {"line": 1, "values": [rule, "| :---: | :---: |"]},
            }
        ],
    )
    got = rejected(run, [False, True])
    assert [(g.get("part"), g["produced_at"]["line"]) for g in got] == [
        (None, 50),
        ("first differing line", 40),
        ("where the text first differs", 31),
    ]
    # the other operand's line is not a text (one too long, kept by its head): no part
    run["compared"][0]["differs"]["values"][1] = {"type": "str", "len": 9000, "head": "| "}
    assert [g.get("part") for g in rejected(run, [False, True])] == [None, "first differing line"]


def test_a_differing_line_made_at_the_same_line_number_of_another_file_is_kept() -> None:
    """The whole text and its differing row are told apart by file and line, not line."""
    run = _run(
        _return(12, "pear   10", 1, file="pkg/rows.py"),
        _return(12, "name\npear   10", 2),
        compared=[
            {
                "op": "==",
                "values": ["name\npear   10", "name\npear  10"],
                "differs": {"line": 1, "values": ["pear   10", "pear  10"]},
            }
        ],
    )
    got = rejected(run, [False, True])
    assert [g["produced_at"] for g in got] == [
        {"file": "pkg/m.py", "line": 12},
        {"file": "pkg/rows.py", "line": 12},
    ]


def test_the_part_of_a_one_line_text_where_it_differs_is_traced_to_its_maker() -> None:
    """``f"{value_}{space}{unit}"`` made "1000 μV" where "1.00 mV" was expected: the whole
    text's producer is the f-string's return; the part where the texts first differ,
    "1000", was made by the line that formatted the number."""
    run = _run(
        _assign(10, "μ", 1),  # one character: made everywhere, not looked for
        _assign(12, "1000", 2),  # value_ = format(value, ...)
        _assign(13, "00", 3),  # covering the same place, made after it: the first one wins
        _assign(16, "1000 μ", 4),  # a longer assembly of it, made after it: not the maker
        _assign(14, " μV", 4),  # after the place where the texts differ
        _return(15, "1000 μV", 5),
        compared=[{"op": "==", "values": ["1000 μV", "1.00 mV"]}],
    )
    got = rejected(run, [False, True])
    assert got == [
        {"value": "1000 μV", "op": "==", "produced_at": {"file": "pkg/m.py", "line": 15}},
        {
            "value": "1000",
            "op": "==",
            "part": "where the text first differs",
            "produced_at": {"file": "pkg/m.py", "line": 12},
        },
    ]


def test_no_part_when_the_rejected_text_only_lacks_an_ending_or_no_part_covers_it() -> None:
    # "teststr" rejected for "teststr!": nothing was made wrong, something was left out
    run = _run(_assign(3, "test", 1), compared=[{"op": "==", "values": ["teststr", "teststr!"]}])
    assert rejected(run, [False, True]) == []
    # the parts made lie before the place where the texts differ
    run = _run(_assign(3, "abc", 1), compared=[{"op": "==", "values": ["abc-x", "abc+x"]}])
    assert rejected(run, [False, True]) == []
    # a literal operand is not traced, nor are texts of several lines this way
    run = _run(_assign(3, "10", 1), compared=[{"op": "==", "values": ["10 B", "1 KB"]}])
    assert rejected(run, [True, False]) == []


def test_a_text_the_failure_message_shows_is_traced_to_where_it_was_first_made() -> None:
    # parse: `assert r, "%r (%r) did not match %r" % (fmt, parser._expression, text)`; the
    # pattern shown was assembled from `s = r'\d+\.\d+'`, which is the first text made
    message = r"'a {:f} b' ('a ([-+ ]?\\d+\\.\\d+) b') did not match 'a .121 b'"
    run = _run(
        _assign(5, "{:f}", 1),  # in the message, but the test wrote it
        _assign(7, "did", 2),  # in the message, but too short to say where it came from
        _assign(1002, r"\d+\.\d+", 3),
        _return(1010, r"([-+ ]?\d+\.\d+)", 4),
        _return(1020, r"a ([-+ ]?\d+\.\d+) b", 5),
        compared=[],
    )
    test_source = "def test_f():\n    r = parse('a {:f} b', 'a .121 b')\n    assert r, msg\n"
    got = in_message(run, message, test_source)
    assert got == [
        {
            "value": r"\d+\.\d+",
            "part": "in the failure message",
            "produced_at": {"file": "pkg/m.py", "line": 1002},
        }
    ]
    # a library's file is not project code
    assert in_message(run, message, test_source, source=lambda f: f != "pkg/m.py") == []


def test_no_text_in_the_message_when_the_assertion_compared_values() -> None:
    # a failed ==: its operands are traced by rejected(), not the message
    run = _run(_assign(3, "glasse", 1), compared=[{"op": "==", "values": ["glasse", "glass"]}])
    assert in_message(run, "assert 'glasse' == 'glass'", "") == []
    assert in_message(_run(_assign(3, "glasse", 1), compared=[]), "", "") == []
    # the message is the text itself: nothing more to say than the crash
    assert in_message(_run(_assign(3, "no such key", 1), compared=[]), "no such key", "") == []


def test_values_are_rendered_as_far_as_they_are_shown_and_proxies_each_time() -> None:
    """A local is rendered at every traced line: a big container only as far as it is shown
    (its first items and its length), and a type's kind is remembered, except for a type
    whose instances choose their own ``__class__`` (a mock with a spec)."""
    big = {i: i * i for i in range(100_000)}
    got = tracer._safe(big)
    assert got == {"type": "dict", "len": 100_000, "items": {str(i): i * i for i in range(6)}}
    rows = [[i, str(i)] for i in range(50_000)]
    got = tracer._safe(rows)
    assert got["len"] == 50_000 and len(got["items"]) == 6
    assert got["items"][1] == {"type": "list", "len": 2, "items": [1, "1"]}
    assert tracer._safe(frozenset({3, 1, 2}))["items"] == [1, 2, 3]

    class Plain:
        pass

    p = Plain()
    p.__dict__.update({f"f{i}": i for i in range(10)})
    shown = tracer._safe(p)
    assert shown["type"].endswith("Plain") and list(shown["fields"]) == [f"f{i}" for i in range(6)]

    # one type, two answers: an instance that says it is a function, one that does not
    class Proxy:
        def __init__(self, target: object) -> None:
            self._target = target

        @property  # type: ignore[misc]
        def __class__(self) -> type:
            return type(self._target)

    assert tracer._safe(Proxy(len)) == {"type": "function"}
    assert tracer._safe(Proxy(p))["type"].endswith("Proxy")
    assert tracer._safe(mock.Mock(spec=len)) == {"type": "function"}
    assert tracer._safe(len) == {"type": "function"} and tracer._safe(Plain) == {"type": "class"}


def test_the_caller_that_received_a_helpers_wrong_text_is_traced_too() -> None:
    """``alt = escape(text)`` on a text already escaped: ``escape`` made the doubled
    ``&amp;amp;`` as asked, and the call is the fault. The line that received the
    helper's return is traced beside the helper's own line."""
    made = "a &amp;amp; b"
    run = _run(
        {"file": "pkg/util.py", "line": 25, "func": "escape", "var": "s", "value": made, "seq": 5},
        {"file": "pkg/util.py", "line": 29, "func": "escape", "value": made, "seq": 7},
        {
            "file": "pkg/html.py",
            "line": 83,
            "func": "image",
            "var": "alt",
            "value": made,
            "seq": 8,
            "from": {"file": "pkg/util.py", "line": 29},
        },
        _return(90, f"<p>{made}</p>", 9, file="pkg/html.py"),
        compared=[{"op": "==", "values": [f"<p>{made}</p>", "<p>a &amp; b</p>"]}],
    )
    got = rejected(run, [False, True])
    assert [(g.get("part"), g["produced_at"], g.get("from_call")) for g in got] == [
        (None, {"file": "pkg/html.py", "line": 90}, None),
        ("where the text first differs", {"file": "pkg/util.py", "line": 25}, None),
        (
            "where the text first differs",
            {"file": "pkg/html.py", "line": 83},
            {"file": "pkg/util.py", "line": 25},
        ),
    ]
    notes = evidence([], [], [], got)[("pkg/html.py", 83)]
    assert notes == (
        ORIGIN,
        (
            "called the code that produced the part of the rejected text where it first "
            "differs (pkg/util.py:25)",
        ),
    )
    # a helper whose function never returned the value it made: nothing received it
    run["returns"] = [r for r in run["returns"] if r["line"] != 29]
    assert [g["produced_at"]["line"] for g in rejected(run, [False, True])] == [90, 25]
