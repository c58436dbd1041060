"""The store on SQLite: appends, lookups that fail closed, interrupts, races, schema versions."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy import event

from truegreen.errors import IntegrityError, StoreError, UsageError
from truegreen.exam import db
from truegreen.exam.store import Ledger

from .conftest import db_file, tamper_sqlite


def test_add_get_and_list(ledger, make_exam):
    exam = make_exam()
    stored = ledger.add_exam(exam)
    assert stored.created and stored.entry.seq == 1 and stored.entry.kind == "exam.sealed"
    assert ledger.get_exam(exam.id) == exam
    assert ledger.get_exam(exam.id[:6]) == exam  # a unique prefix
    (summary,) = ledger.list_exams()
    assert (summary.id, summary.test, summary.issue, summary.seq) == (exam.id, exam.test, "42", 1)
    assert ledger.list_exams(repo="github.com/acme/invoices") == [summary]
    assert ledger.list_exams(repo="elsewhere") == []


def test_adding_the_same_exam_again_is_a_no_op(ledger, make_exam):
    first = ledger.add_exam(make_exam())
    again = ledger.add_exam(make_exam())
    assert not again.created
    assert again.entry == first.entry
    assert len(ledger.entries()) == 1


def test_entries_chain_from_genesis(ledger, make_exam):
    a = ledger.append("note", {"n": 1})
    b = ledger.add_exam(make_exam()).entry
    c = ledger.record_verification({"schema": "truegreen.verification/1", "verdict": "verified"})
    assert a.prev_hash == "0" * 64
    assert b.prev_hash == a.entry_hash and c.prev_hash == b.entry_hash
    assert [e.kind for e in ledger.entries()] == ["note", "exam.sealed", "verification"]


@pytest.mark.parametrize(
    "ref, message",
    [
        (
            "ex-ffffffffffffffff",
            "unknown exam id 'ex-ffffffffffffffff'; list them with `truegreen exams list`",
        ),
        ("EX-1", "is not an exam id"),
        ("ex-%", "is not an exam id"),
        ("ex-", "is ambiguous"),
    ],
)
def test_bad_exam_ids_are_usage_errors(ledger, make_exam, ref, message):
    ledger.add_exam(make_exam(issue=1))
    ledger.add_exam(make_exam(issue=2))
    with pytest.raises(UsageError) as exc:
        ledger.get_exam(ref)
    assert message in str(exc.value)


@pytest.mark.parametrize(
    "statements, message",
    [
        # The exam's content edited in the ledger row.
        (
            [
                "UPDATE ledger SET payload = replace(payload, 'total([1, 2]) == 3', 'True') WHERE seq = 1"
            ],
            "payload_sha256",
        ),
        # The index row pointed at an entry that is not the exam.
        (["UPDATE exams SET seq = 2 WHERE seq = 1"], "not an exam"),
        # The entry holding the exam deleted.
        (
            ["PRAGMA foreign_keys = OFF", "DELETE FROM ledger WHERE seq = 1"],
            "missing from the ledger",
        ),
    ],
)
def test_using_a_tampered_exam_fails_closed(ledger, make_exam, statements, message):
    exam = make_exam()
    ledger.add_exam(exam)
    ledger.append("note", {})
    tamper_sqlite(db_file(), *statements)
    with pytest.raises(IntegrityError, match=message):
        ledger.get_exam(exam.id)


def test_a_rehashed_entry_with_an_edited_exam_still_fails_closed(ledger, make_exam):
    import hashlib
    import json

    from truegreen.exam.chain import entry_hash

    exam = make_exam()
    ledger.add_exam(exam)
    con = sqlite3.connect(db_file())
    payload = json.loads(con.execute("SELECT payload FROM ledger WHERE seq = 1").fetchone()[0])
    payload["exam"]["hidden"] = True
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    psha = hashlib.sha256(text.encode()).hexdigest()
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    con.execute(
        "UPDATE ledger SET payload = ?, payload_sha256 = ?, entry_hash = ? WHERE seq = 1",
        (text, psha, entry_hash(1, "exam.sealed", psha, "0" * 64)),
    )
    con.commit()
    con.close()
    with pytest.raises(IntegrityError, match="does not match its content"):
        ledger.get_exam(exam.id)


@pytest.mark.parametrize("when", ["after_cursor_execute", "commit"])
@pytest.mark.parametrize("what", ["append", "add_exam"])
def test_an_interrupted_append_leaves_nothing(ledger, make_exam, when, what):
    ledger.append("note", {"n": 1})

    def interrupt(conn, *args):
        statement = args[1] if when == "after_cursor_execute" else ""
        if when == "commit" or statement.startswith("INSERT INTO"):
            raise KeyboardInterrupt

    event.listen(ledger._engine, when, interrupt)
    with pytest.raises(KeyboardInterrupt):
        if what == "append":
            ledger.append("note", {"n": 2})
        else:
            ledger.add_exam(make_exam())
    event.remove(ledger._engine, when, interrupt)
    with Ledger() as fresh:
        assert [e.seq for e in fresh.entries()] == [1]
        assert fresh.list_exams() == []
        assert fresh.verify_chain().ok
        assert fresh.append("note", {"n": 3}).seq == 2


def test_concurrent_appenders_do_not_fork_the_chain(ledger):
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with Ledger() as mine:
                for i in range(8):
                    mine.append("note", {"worker": n, "i": i})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    report = ledger.verify_chain()
    assert report.ok, report.message
    assert report.entries == 32


def test_reserved_kinds_and_bad_payloads_are_refused(ledger, make_exam):
    with pytest.raises(UsageError, match="add_exam"):
        ledger.append("exam.sealed", {"exam": make_exam().to_json()})
    with pytest.raises(UsageError, match="not a ledger entry kind"):
        ledger.append("Bad Kind", {})
    with pytest.raises(UsageError, match="not JSON"):
        ledger.append("note", {"x": float("nan")})
    with pytest.raises(UsageError, match="not a truegreen.verification"):
        ledger.record_verification({"schema": "truegreen.run/1"})
    assert ledger.entries() == []


def test_a_newer_schema_is_refused():
    Ledger().close()
    con = sqlite3.connect(db_file())
    con.execute("UPDATE schema_version SET version = ?", (db.SCHEMA_VERSION + 1,))
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer than this truegreen knows"):
        Ledger()


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path):
    path = tmp_path / "ledger.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a truegreen ledger, or is damaged"):
        Ledger(str(path))


@pytest.mark.parametrize(
    "url, message",
    [
        ("mysql://u@h/db", "unsupported database"),
        ("/no/such/dir/ledger.db", "does not exist"),
    ],
)
def test_bad_database_urls(url, message):
    with pytest.raises(StoreError, match=message):
        Ledger(url)


def test_the_default_database_lives_in_the_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "home"))
    with Ledger() as led:
        led.append("note", {})
    assert (tmp_path / "home" / "truegreen.db").is_file()
    monkeypatch.setenv("TRUEGREEN_DB", f"sqlite:///{tmp_path / 'other.db'}")
    with Ledger() as led:
        assert led.entries() == []
    assert (tmp_path / "other.db").is_file()


def test_an_interrupted_migration_leaves_an_empty_database(monkeypatch):
    real = db.create_engine

    def interrupting(url):
        engine = real(url)

        def interrupt(conn, cursor, statement, *args):
            if statement.lstrip().startswith("CREATE TABLE exams"):
                raise KeyboardInterrupt

        event.listen(engine, "after_cursor_execute", interrupt)
        return engine

    monkeypatch.setattr(db, "create_engine", interrupting)
    with pytest.raises(KeyboardInterrupt):
        Ledger()
    con = sqlite3.connect(db_file())
    assert con.execute("SELECT name FROM sqlite_master").fetchall() == []
    con.close()
    monkeypatch.setattr(db, "create_engine", real)
    with Ledger() as ledger:
        assert ledger.append("note", {}).seq == 1
        assert ledger.verify_chain().ok
