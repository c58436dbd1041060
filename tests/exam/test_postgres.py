"""The same store on PostgreSQL: triggers, the chain, fail-closed lookups, migrations."""

from __future__ import annotations

import threading

import psycopg
import pytest
from sqlalchemy import event

from truegreen.errors import IntegrityError, StoreError
from truegreen.exam import db
from truegreen.exam.store import Ledger

pytestmark = pytest.mark.postgres


def _sql(url: str, *statements: str) -> None:
    """Run statements as the database owner would (an attacker with the password)."""
    schema = url.rsplit("%3D", 1)[1]
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as con:
        con.execute(f"SET search_path TO {schema}")
        for statement in statements:
            con.execute(statement)


def test_round_trip_and_chain(pg_url, make_exam):
    with Ledger(pg_url) as ledger:
        exam = make_exam()
        assert ledger.add_exam(exam).created
        assert not ledger.add_exam(exam).created
        ledger.record_verification({"schema": "truegreen.verification/1", "verdict": "verified"})
        assert ledger.get_exam(exam.id[:7]) == exam
        assert [s.id for s in ledger.list_exams(exam.repo)] == [exam.id]
        report = ledger.verify_chain()
        assert report.ok, report.message
        assert report.entries == 2
    with Ledger(pg_url) as again:  # opening an up-to-date schema migrates nothing
        assert again.verify_chain().head == report.head


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger SET payload = '{}'",
        "DELETE FROM ledger WHERE seq = 1",
        "TRUNCATE ledger CASCADE",
        "UPDATE exams SET hidden = true",
        "DELETE FROM exams",
    ],
)
def test_the_database_refuses_update_and_delete(pg_url, make_exam, statement):
    with Ledger(pg_url) as ledger:
        ledger.add_exam(make_exam())
    with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
        _sql(pg_url, statement)
    with Ledger(pg_url) as ledger:
        assert ledger.verify_chain().ok


def test_tampering_is_named_and_fails_closed(pg_url, make_exam):
    with Ledger(pg_url) as ledger:
        exam = make_exam()
        ledger.append("note", {"n": 1})
        ledger.add_exam(exam)
        ledger.append("note", {"n": 3})
    _sql(
        pg_url,
        "ALTER TABLE ledger DISABLE TRIGGER USER",
        "UPDATE ledger SET payload = replace(payload, '== 3', '== 4') WHERE seq = 2",
        "ALTER TABLE ledger ENABLE TRIGGER USER",
    )
    with Ledger(pg_url) as ledger:
        report = ledger.verify_chain()
        assert report.first_bad is not None
        assert (report.first_bad.seq, report.first_bad.problem) == (2, "edited")
        with pytest.raises(IntegrityError, match="was edited"):
            ledger.get_exam(exam.id)


def test_a_dropped_trigger_is_reported(pg_url):
    with Ledger(pg_url) as ledger:
        ledger.append("note", {})
    _sql(pg_url, "DROP TRIGGER ledger_append_only ON ledger")
    with Ledger(pg_url) as ledger:
        report = ledger.verify_chain()
        assert report.missing_guards == ("ledger_append_only",)
        ledger.restore_guards()
        assert ledger.verify_chain().ok


def test_an_interrupted_append_leaves_nothing(pg_url):
    with Ledger(pg_url) as ledger:
        ledger.append("note", {"n": 1})

        def interrupt(conn, cursor, statement, *args):
            if statement.startswith("INSERT INTO ledger"):
                raise KeyboardInterrupt

        event.listen(ledger._engine, "after_cursor_execute", interrupt)
        with pytest.raises(KeyboardInterrupt):
            ledger.append("note", {"n": 2})
        event.remove(ledger._engine, "after_cursor_execute", interrupt)
    with Ledger(pg_url) as ledger:
        assert [e.seq for e in ledger.entries()] == [1]


def test_concurrent_appenders_do_not_fork_the_chain(pg_url):
    Ledger(pg_url).close()
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with Ledger(pg_url) as mine:
                for i in range(5):
                    mine.append("note", {"worker": n, "i": i})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with Ledger(pg_url) as ledger:
        report = ledger.verify_chain()
        assert report.ok and report.entries == 15


def test_a_newer_schema_is_refused(pg_url):
    Ledger(pg_url).close()
    _sql(pg_url, f"UPDATE schema_version SET version = {db.SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this truegreen knows"):
        Ledger(pg_url)


def test_an_unreachable_server_is_a_store_error():
    with pytest.raises(StoreError, match="cannot use the database") as exc:
        Ledger("postgresql://nobody:secret@127.0.0.1:1/none")
    assert "secret" not in str(exc.value)
