"""Context packing to a token budget, freshness, scrubbing."""

from __future__ import annotations

import hashlib

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


def test_required_items_are_kept_even_over_budget():
    text, omitted, _ = pack([Item("crash", "c" * 400, required=True), Item("x", "y")], 50)
    assert "c" * 400 in text and omitted == ["x"]


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
