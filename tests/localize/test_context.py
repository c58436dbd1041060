"""Context packing to a token budget, freshness, scrubbing."""

from __future__ import annotations

import hashlib

import pytest

from truegreen.localize.context import (
    Item,
    estimate_tokens,
    excerpt,
    file_hashes,
    pack,
    stale_files,
)
from truegreen.localize.redact import REDACTED, Scrubber


def test_token_estimate_is_chars_over_four_rounded_up():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


def test_pack_respects_the_budget_and_names_what_it_left_out():
    items = [Item("header", "# head", required=True)]
    items += [Item(f"suspect:a.py:{i}", f"suspect {i} " + "x" * 200) for i in range(20)]
    for budget in (60, 120, 400, 5000):
        text, omitted, tokens = pack(items, budget)
        assert tokens <= budget
        assert tokens == estimate_tokens(text)
        kept = [it for it in items[1:] if it.text in text]
        assert len(kept) + len(omitted) == 20
        if omitted:
            last = text.splitlines()[-1]
            assert last.startswith("omitted (ask for these by handle): ")
            named = [h for h in omitted if h in last]
            assert named == omitted or last.endswith(
                f"+{len(omitted) - len(named)} more in the JSON document"
            )
    assert pack(items, 5000)[1] == []


def test_required_items_are_kept_even_over_budget_and_one_line_says_so():
    text, omitted, _ = pack([Item("crash", "c" * 400, required=True), Item("x", "y")], 50)
    assert "c" * 400 in text and omitted == ["x"]
    assert text.splitlines()[-1].startswith("over budget (50 tokens): the shortest context")
    assert text.count("\n") == 1


# --- packing by priority (small budgets) ---------------------------------------------------

RERUN = "rerun: /very/long/venv/bin/python -m pytest " + "-p no:plugin " * 30 + "t.py::test_a"
SHORT_RERUN = "rerun: ... -m pytest t.py::test_a"


def _context_items(suspects: int = 6) -> list[Item]:
    items = [
        Item(
            "header",
            "# t.py::test_a failed: AssertionError: " + "m" * 150,
            required=True,
            shorter=("# t.py::test_a failed: AssertionError",),
        ),
        Item(
            "crash",
            "crash site: t.py:3 in test_a\n  2 | x\n> 3 | y\n  4 | z",
            required=True,
            shorter=("crash site: t.py:3 in test_a\n> 3 | y", "crash site: t.py:3 in test_a"),
        ),
        Item("rerun", RERUN, required=True, shorter=(SHORT_RERUN,)),
        Item("origin:x", "bad value's origin: x is None at a.py:9, assigned at a.py:4"),
    ]
    for i in range(1, suspects + 1):
        items.append(
            Item(
                f"suspect:a.py:{i}",
                f"suspect rank {i}: a.py:{i}\n  {i - 1} | a\n> {i} | b\n  {i + 1} | c",
                shorter=(f"suspect rank {i}: a.py:{i}\n> {i} | b",),
                lead=i == 1,
            )
        )
        items.append(
            Item(
                f"values:a.py:{i}:v",
                f"value a.py:{i} v: failing {'1' * 60} | passing 2",
                parent=f"suspect:a.py:{i}",
            )
        )
    return items


@pytest.mark.parametrize("budget", [0, 1, 20, 35, 50, 60, 80, 100, 150, 200, 300, 500, 5000])
def test_pack_never_exceeds_a_budget_the_shortest_forms_fit(budget):
    items = _context_items()
    text, omitted, tokens = pack(items, budget)
    assert tokens == estimate_tokens(text)
    shortest = sum(estimate_tokens(it.forms[-1] + "\n") for it in items if it.required)
    if shortest + estimate_tokens("omitted: +99999 more in the JSON document\n") <= budget:
        assert tokens <= budget
        assert "over budget" not in text
    else:
        # the minimum does not fit: the required items' shortest forms and one line
        lines = text.splitlines()
        assert lines[-1].startswith(f"over budget ({budget} tokens)")
        assert lines[:-1] == "\n".join(it.forms[-1] for it in items if it.required).splitlines()
        assert len(omitted) == len([it for it in items if not it.required])


@pytest.mark.parametrize("budget", [50, 60, 80, 100, 150, 200, 300])
def test_the_top_suspect_goes_in_before_the_full_forms_and_the_values(budget):
    text, omitted, tokens = pack(_context_items(), budget)
    assert tokens <= budget
    if budget >= 60:
        assert "suspect rank 1: a.py:1" in text and "> 1 | b" in text
    # the long rerun command waits until the suspects had their turn
    assert RERUN not in text and SHORT_RERUN in text


def test_a_value_never_goes_in_without_its_suspect():
    for budget in range(40, 400, 7):
        text, omitted, tokens = pack(_context_items(), budget)
        assert tokens <= budget
        for i in range(1, 7):
            if f"value a.py:{i} " in text:
                assert f"suspect rank {i}: a.py:{i}" in text, (budget, i)
            if f"suspect:a.py:{i}" in omitted:
                assert f"values:a.py:{i}:v" in omitted


def test_a_small_value_does_not_slip_in_after_its_large_suspect_was_left_out():
    items = [
        Item("header", "# h", required=True),
        Item("suspect:a.py:1", "s" * 400, lead=True),
        Item("values:a.py:1:v", "value a.py:1 v", parent="suspect:a.py:1"),
    ]
    text, omitted, _ = pack(items, 60)
    assert omitted == ["suspect:a.py:1", "values:a.py:1:v"]
    assert "value a.py:1" not in text


def test_an_item_whose_parent_is_unknown_or_comes_after_it_is_left_out():
    items = [
        Item("header", "# h", required=True),
        Item("values:a.py:1:v", "value a.py:1 v", parent="suspect:a.py:1"),
        Item("suspect:a.py:1", "suspect a.py:1"),
        Item("values:b.py:1:v", "value b.py:1 v", parent="suspect:nowhere"),
    ]
    text, omitted, _ = pack(items, 5000)
    assert "suspect a.py:1" in text
    assert omitted == ["values:a.py:1:v", "values:b.py:1:v"]


def test_with_room_to_spare_everything_goes_in_at_full_length():
    items = _context_items()
    text, omitted, tokens = pack(items, 5000)
    assert omitted == [] and "omitted" not in text
    assert text == "\n".join(it.text for it in items)


def test_pack_of_nothing_is_empty():
    assert pack([], 50) == ("", [], 0)
    assert pack([], 0) == ("", [], 0)


def test_stale_files_name_what_changed(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    ctx = {"files": file_hashes(tmp_path, ["a.py", "b.py"])}
    assert stale_files(ctx, tmp_path) == []
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "b.py").unlink()
    assert stale_files(ctx, tmp_path) == ["a.py", "b.py"]


def test_excerpt_marks_the_line():
    text = excerpt(["a", "b", "c", "d"], 3, 1, 1)
    assert text.splitlines() == ["  2 | b", "> 3 | c", "  4 | d"]


def test_scrubber_removes_reported_secrets_tokens_and_assigned_literals():
    secret = "correct-horse-battery"
    s = Scrubber([{"len": len(secret), "sha256": hashlib.sha256(secret.encode()).hexdigest()}])
    text = s.text(f"E  assert 'x{secret}y' == ''\napi_key = 'abc123xyz'\nghp_{'a' * 36}")
    assert secret not in text and "abc123xyz" not in text and "ghp_" not in text
    assert text.count(REDACTED) == 3
    assert s.document({"k": [secret]}) == {"k": [REDACTED]}


def test_document_keys_are_never_scrubbed():
    # a redacted local that happened to hold the word "values" must not eat the document
    word = "values"
    s = Scrubber([{"len": len(word), "sha256": hashlib.sha256(word.encode()).hexdigest()}])
    assert s.document({"values": {"differences": ["values"]}}) == {
        "values": {"differences": [REDACTED]}
    }


# --- the localization's context (engine._context) on a document like parse's -------------

PARSE_PY = "\n".join(f"line_{n} = {n}" for n in range(1, 101)) + "\n"


def _doc(suspects: int = 8) -> dict:
    ranking = [
        {
            "file": "parse.py",
            "line": 90 - r,
            "rank": r + 1,
            "ties": 1,
            "score": "sqrt(1/2)",
            "evidence": ["produced the value the assertion rejected"] if r == 0 else [],
        }
        for r in range(suspects)
    ]
    # value differences of the lowest-ranked suspect's line, short ones, listed first
    differences = [
        {
            "file": "parse.py",
            "line": 90 - suspects + 1,
            "var": v,
            "passing_reached": True,
            "failing": [1],
            "passing": [2],
        }
        for v in "abcdef"
    ] + [
        {
            "file": "parse.py",
            "line": 90,
            "var": "x",
            "passing_reached": False,
            "failing": ["y" * 70],
            "passing": None,
        }
    ]
    return {
        "failure": {
            "test": "tests/test_parse.py::test_two",
            "outcome": "failed",
            "exc_type": "AssertionError",
            "message": "assert {'a': 'y'} == {'a': 'x', 'b': 'y'}\nmore",
            "crash": {"file": "tests/test_parse.py", "line": 3, "function": "test_two"},
        },
        "command": [
            "/a/long/path/to/the/project/.venv/bin/python",
            "-m",
            "pytest",
            *("-p", "no:plugin") * 25,
            "tests/test_parse.py::test_two",
        ],
        "failing": ["tests/test_parse.py::test_two"],
        "order_dependence": {"order_dependent": False},
        "warnings": ["the sandbox is off: " + "w" * 200],
        "measurement": {"checked": True, "consistent": True},
        "values": {"origins": [], "differences": differences, "passing": "tests/t.py::test_one"},
        "ranking": ranking,
        "formula": "ochiai",
    }


def _context_of(doc: dict, tmp_path, budget: int) -> dict:
    from truegreen.localize.engine import _context, _Source

    (tmp_path / "parse.py").write_text(PARSE_PY)
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "test_parse.py").write_text(
        "import parse\n\ndef test_two():\n    assert 0\n"
    )
    return _context(doc, tmp_path, _Source(tmp_path), budget, Scrubber([]))


@pytest.mark.parametrize("budget", [50, 100, 200, 300, 1500])
def test_the_context_has_the_top_suspect_within_small_budgets(tmp_path, budget):
    ctx = _context_of(_doc(), tmp_path, budget)
    text = ctx["text"]
    if budget == 50:
        # the warning's shortest form does not fit beside the others: said in one line
        assert text.splitlines()[-1].startswith("over budget (50 tokens): the shortest context")
        assert "WARNING: the sandbox is off: www" in text and "suspect" not in text
    else:
        assert ctx["tokens"] <= budget
    assert text.startswith("# tests/test_parse.py::test_two failed")
    assert "crash site: tests/test_parse.py:3 in test_two" in text
    assert "rerun: " in text and "tests/test_parse.py::test_two" in text
    if budget >= 100:
        assert "suspect rank 1: parse.py:90" in text and "> 90 | line_90 = 90" in text
    if budget < 400:
        assert "rerun: ... -m pytest tests/test_parse.py::test_two" in text
    else:
        assert "/a/long/path/to/the/project/.venv/bin/python" in text
    for line in text.splitlines():
        if line.startswith("value parse.py:"):
            where = line.split()[1]
            assert f"suspect rank {91 - int(where.split(':')[1])}: {where} " in text


def test_a_value_of_a_low_ranked_suspect_comes_right_after_it(tmp_path):
    text = _context_of(_doc(), tmp_path, 5000)["text"]
    lines = text.splitlines()
    at = next(i for i, s in enumerate(lines) if s.startswith("suspect rank 8: parse.py:83"))
    assert lines[at + 4].startswith("value parse.py:83 a:")  # after its 3 lines of source


def test_values_are_shown_when_there_are_fewer_than_three_suspects(tmp_path):
    doc = _doc(suspects=1)
    doc["values"]["differences"] = [
        {
            "file": "parse.py",
            "line": 90,
            "var": "x",
            "passing_reached": True,
            "failing": [1],
            "passing": [2],
        },
        {
            "file": "other.py",
            "line": 4,
            "var": "z",
            "passing_reached": True,
            "failing": [1],
            "passing": [2],
        },
    ]
    ctx = _context_of(doc, tmp_path, 1500)
    assert "value parse.py:90 x: failing 1 | passing 2" in ctx["text"]
    assert "value other.py:4 z: failing 1 | passing 2" in ctx["text"]
    assert ctx["omitted"] == []


def test_no_suspects_and_no_crash_site_still_packs(tmp_path):
    doc = _doc(suspects=0)
    doc["failure"]["crash"] = None
    doc["failure"]["exc_type"] = None
    doc["values"]["differences"] = []
    doc["failing"] = []
    ctx = _context_of(doc, tmp_path, 50)
    assert ctx["tokens"] <= 50
    assert "rerun: ... -m pytest tests/test_parse.py::test_two" in ctx["text"]
