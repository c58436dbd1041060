"""Ledger.verifications: the recorded verifications by repository, time and number, every
entry checked against its hashes."""

from __future__ import annotations

import sqlite3

import pytest

from tests.exam.conftest import db_file
from truegreen.errors import IntegrityError


def _doc(*exam_ids: str, n: int = 0) -> dict[str, object]:
    return {
        "schema": "truegreen.verification/1",
        "exams": [{"id": e} for e in exam_ids],
        "verdict": "verified",
        "n": n,
    }


def test_verifications_of_a_repository_since_a_time_the_most_recent(ledger, make_exam):
    ours = make_exam(repo="ours")
    theirs = make_exam(repo="theirs")
    ledger.add_exam(ours)
    ledger.add_exam(theirs)
    ledger.record_verification(_doc(ours.id, n=1))
    ledger.record_verification(_doc(theirs.id, n=2))
    ledger.append("note", {"not": "a verification"})
    ledger.record_verification(_doc(ours.id, theirs.id, n=3))
    every = ledger.verifications()
    assert [e.payload["n"] for e in every] == [1, 2, 3]
    assert [e.payload["n"] for e in ledger.verifications(repo="ours")] == [1, 3]
    assert [e.payload["n"] for e in ledger.verifications(repo="theirs", limit=1)] == [3]
    assert ledger.verifications(repo="nobody's") == []
    assert len(ledger.verifications(since="2000-01-01T00:00:00+00:00")) == 3
    assert ledger.verifications(since="2999-01-01T00:00:00+00:00") == []


@pytest.mark.parametrize("column", ["payload", "entry_hash"])
def test_an_edited_verification_fails_closed(ledger, make_exam, column):
    exam = make_exam()
    ledger.add_exam(exam)
    ledger.record_verification(_doc(exam.id))
    con = sqlite3.connect(db_file())
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    value = (
        "replace(payload, 'verified', 'refuted')" if column == "payload" else "'0' || entry_hash"
    )
    con.execute(f"UPDATE ledger SET {column} = {value} WHERE kind = 'verification'")
    con.commit()
    con.close()
    with pytest.raises(
        IntegrityError, match="verification \\(ledger entry 2\\): the entry was edited"
    ):
        ledger.verifications()
