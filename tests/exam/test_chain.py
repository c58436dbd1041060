"""`ledger verify` names the first entry that was edited, removed or reordered.

The database is tampered with the way an attacker would: sqlite3 on the file, after
dropping the append-only triggers (and putting them back, to hide it).
"""

from __future__ import annotations

import sqlite3

import pytest

from truegreen.exam.chain import GENESIS, entry_hash
from truegreen.exam.store import Ledger

from .conftest import db_file, tamper_sqlite


def _fill(ledger: Ledger, make_exam, n: int = 5) -> None:
    """Entries 1..n: exams at 2 and 4, notes elsewhere."""
    for seq in range(1, n + 1):
        if seq in (2, 4):
            ledger.add_exam(make_exam(issue=seq))
        else:
            ledger.append("note", {"n": seq})


def _rehash_from(con: sqlite3.Connection, seq: int) -> None:
    """Recompute payload and entry hashes from ``seq`` on, as a thorough attacker would."""
    import hashlib

    rows = con.execute("SELECT seq, kind, payload FROM ledger WHERE seq >= ? ORDER BY seq", (seq,))
    prev = con.execute("SELECT entry_hash FROM ledger WHERE seq = ?", (seq - 1,)).fetchone()
    prev_hash = prev[0] if prev else GENESIS
    for s, kind, payload in rows.fetchall():
        psha = hashlib.sha256(payload.encode()).hexdigest()
        eh = entry_hash(s, kind, psha, prev_hash)
        con.execute(
            "UPDATE ledger SET payload_sha256 = ?, prev_hash = ?, entry_hash = ? WHERE seq = ?",
            (psha, prev_hash, eh, s),
        )
        prev_hash = eh


def test_an_untouched_ledger_verifies(ledger, make_exam):
    _fill(ledger, make_exam)
    report = ledger.verify_chain()
    assert report.ok, report.message
    assert (report.entries, report.head_seq) == (5, 5)
    assert report.first_bad is None
    assert report.to_json()["head"]["entry_hash"] == report.head


def test_an_empty_ledger_verifies(ledger):
    report = ledger.verify_chain()
    assert report.ok and report.entries == 0 and report.head == GENESIS


@pytest.mark.parametrize(
    "statements, seq, problem",
    [
        # A payload edited in place.
        (["UPDATE ledger SET payload = '{\"n\":30}' WHERE seq = 3"], 3, "edited"),
        # The kind changed: the entry's hash covers it.
        (["UPDATE ledger SET kind = 'other' WHERE seq = 3"], 3, "edited"),
        # A middle entry deleted.
        (["DELETE FROM ledger WHERE seq = 3"], 3, "removed"),
        # Two entries deleted.
        (
            ["DELETE FROM ledger WHERE seq IN (3, 4)", "DELETE FROM exams WHERE seq = 4"],
            3,
            "removed",
        ),
        # A middle entry deleted and the later ones renumbered to close the gap.
        (
            [
                "DELETE FROM ledger WHERE seq = 3",
                "UPDATE exams SET seq = seq - 1 WHERE seq > 3",
                "UPDATE ledger SET seq = seq - 1 WHERE seq > 3",
            ],
            3,
            "removed",
        ),
        # Two entries swapped.
        (
            [
                "UPDATE ledger SET seq = 100 WHERE seq = 3",
                "UPDATE ledger SET seq = 3 WHERE seq = 5",
                "UPDATE ledger SET seq = 5 WHERE seq = 100",
            ],
            3,
            "reordered",
        ),
        # The last entry cut off, but the exams index still points at an exam there.
        (["DELETE FROM ledger WHERE seq = 5", "DELETE FROM ledger WHERE seq = 4"], 4, "removed"),
        # The index redirected to another entry.
        (["UPDATE exams SET seq = 3 WHERE seq = 4"], 3, "edited"),
    ],
    ids=[
        "payload",
        "kind",
        "deleted",
        "two-deleted",
        "deleted-renumbered",
        "swapped",
        "tail-with-exam",
        "index",
    ],
)
def test_tampering_is_named_at_the_first_bad_entry(ledger, make_exam, statements, seq, problem):
    _fill(ledger, make_exam)
    tamper_sqlite(db_file(), *statements)
    report = ledger.verify_chain()
    assert not report.ok
    assert report.first_bad is not None, report.message
    assert (report.first_bad.seq, report.first_bad.problem) == (seq, problem), report.message
    assert report.message.startswith(f"the ledger is broken: entry {seq} was {problem}")


def test_a_tail_rewritten_hashes_and_all_shows_only_in_the_head(ledger, make_exam):
    # The chain's known limit (docs/ledger.md): a rewrite from one entry to the end is
    # self-consistent. The head then differs from any head recorded before.
    _fill(ledger, make_exam)
    before = ledger.verify_chain().head
    con = sqlite3.connect(db_file())
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    con.execute("UPDATE ledger SET payload = '{\"n\":30}' WHERE seq = 3")
    _rehash_from(con, 3)
    con.commit()
    con.close()
    report = ledger.verify_chain()
    assert report.first_bad is None
    assert report.head != before
    assert report.missing_guards  # this attacker did not put the triggers back


def test_a_single_rewritten_entry_is_named_edited(ledger, make_exam):
    _fill(ledger, make_exam)
    con = sqlite3.connect(db_file())
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    old_next_prev = con.execute("SELECT prev_hash FROM ledger WHERE seq = 4").fetchone()[0]
    con.execute("UPDATE ledger SET payload = '{\"n\":30}' WHERE seq = 3")
    _rehash_from(con, 3)
    # Leave entry 4 as it was: it still commits to the original entry 3.
    con.execute("UPDATE ledger SET prev_hash = ? WHERE seq = 4", (old_next_prev,))
    con.commit()
    con.close()
    report = ledger.verify_chain()
    assert report.first_bad is not None
    assert (report.first_bad.seq, report.first_bad.problem) == (3, "edited")


def test_dropped_triggers_are_reported_and_can_be_restored(ledger, make_exam):
    _fill(ledger, make_exam, 2)
    con = sqlite3.connect(db_file())
    con.execute("DROP TRIGGER ledger_no_delete")
    con.commit()
    con.close()
    report = ledger.verify_chain()
    assert not report.ok
    assert report.first_bad is None
    assert report.missing_guards == ("ledger_no_delete",)
    assert "triggers were removed" in report.message
    ledger.restore_guards()
    assert ledger.verify_chain().ok


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger SET payload = '{}' WHERE seq = 1",
        "DELETE FROM ledger WHERE seq = 2",
        "UPDATE exams SET hidden = 1",
        "DELETE FROM exams",
    ],
)
def test_the_database_refuses_update_and_delete(ledger, make_exam, statement):
    _fill(ledger, make_exam, 2)
    con = sqlite3.connect(db_file())
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        con.execute(statement)
    con.close()
    assert ledger.verify_chain().ok


def test_an_expected_head_catches_a_cut_off_end(ledger, make_exam):
    _fill(ledger, make_exam)
    report = ledger.verify_chain()
    head = (report.head_seq, report.head)
    assert ledger.verify_chain(head).ok
    # Cut off the last entry (a note: no exams index row gives it away).
    tamper_sqlite(db_file(), "DELETE FROM ledger WHERE seq = 5")
    assert ledger.verify_chain().ok  # the chain alone cannot tell
    cut = ledger.verify_chain(head)
    assert cut.first_bad is not None
    assert (cut.first_bad.seq, cut.first_bad.problem) == (5, "removed")


def test_an_expected_head_catches_a_rewritten_end(ledger, make_exam):
    _fill(ledger, make_exam)
    report = ledger.verify_chain()
    con = sqlite3.connect(db_file())
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    con.execute("UPDATE ledger SET payload = '{\"n\":50}' WHERE seq = 5")
    _rehash_from(con, 5)
    con.commit()
    con.close()
    rewritten = ledger.verify_chain((report.head_seq, report.head))
    assert rewritten.first_bad is not None
    assert (rewritten.first_bad.seq, rewritten.first_bad.problem) == (5, "edited")
