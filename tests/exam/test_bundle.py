"""Export and import: an exam sealed on one machine, verified on another."""

from __future__ import annotations

import json

import pytest

from truegreen import canonical
from truegreen.errors import IntegrityError, UsageError
from truegreen.exam.bundle import export_bundle, import_bundle, parse_bundle, read_bundle
from truegreen.exam.store import Ledger


def test_round_trip_across_two_data_directories(tmp_path, monkeypatch, make_exam):
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "laptop"))
    exams = [make_exam(issue=1), make_exam(issue=2, hidden=True)]
    with Ledger() as laptop:
        for exam in exams:
            laptop.add_exam(exam)
        bundle = export_bundle(laptop)
    path = tmp_path / "bundle.json"
    path.write_text(canonical.pretty(bundle), encoding="utf-8")

    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "ci"))
    with Ledger() as ci:
        results = import_bundle(ci, read_bundle(path))
        assert [r.status for r in results] == ["imported", "imported"]
        assert {ci.get_exam(e.id) for e in exams} == set(exams)
        assert {e.kind for e in ci.entries()} == {"exam.imported"}
        # Importing again is a no-op that says so.
        again = import_bundle(ci, read_bundle(path))
        assert [r.status for r in again] == ["already present", "already present"]
        assert len(ci.entries()) == 2
        assert ci.verify_chain().ok
        # The re-exported bundle is byte-identical.
        assert canonical.pretty(export_bundle(ci)) == path.read_text(encoding="utf-8")


def test_export_names_exams_by_id_or_prefix(ledger, make_exam):
    a, b = make_exam(issue=1), make_exam(issue=2)
    ledger.add_exam(a)
    ledger.add_exam(b)
    bundle = export_bundle(ledger, [b.id[:8]])
    assert [e["id"] for e in bundle["exams"]] == [b.id]
    with pytest.raises(UsageError, match="unknown exam id"):
        export_bundle(ledger, ["ex-ffff"])


def test_a_tampered_bundle_imports_nothing(ledger, make_exam):
    good, bad = make_exam(issue=1).to_json(), make_exam(issue=2).to_json()
    bad["files"][1]["content"] = bad["files"][1]["content"].replace("== 3", "== 3 or True")
    bundle = {"schema": "truegreen.exam-bundle/1", "exams": [good, bad]}
    with pytest.raises(IntegrityError, match="exam 2 of 2.*nothing was imported"):
        import_bundle(ledger, parse_bundle(bundle))
    assert ledger.entries() == []


def test_an_interrupted_import_writes_nothing(ledger, make_exam, monkeypatch):
    from sqlalchemy import event

    exams = [make_exam(issue=1), make_exam(issue=2)]
    seen: list[str] = []

    def interrupt(conn, cursor, statement, *args):
        seen.append(statement)
        if sum(s.startswith("INSERT INTO ledger") for s in seen) == 2:
            raise KeyboardInterrupt

    event.listen(ledger._engine, "after_cursor_execute", interrupt)
    with pytest.raises(KeyboardInterrupt):
        import_bundle(ledger, exams)
    event.remove(ledger._engine, "after_cursor_execute", interrupt)
    assert ledger.entries() == [] and ledger.list_exams() == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "is not JSON"),
        ('{"schema": "truegreen.exam/1"}', "is not a truegreen.exam-bundle/1 document"),
        ('{"schema": "truegreen.exam-bundle/1"}', "no list of exams"),
        ('{"schema": "truegreen.exam-bundle/1", "exams": [{}]}', "exam 1 of 1"),
    ],
)
def test_a_file_that_is_not_a_bundle_is_refused(tmp_path, text, message):
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises((UsageError, IntegrityError), match=message):
        read_bundle(path)


def test_the_bundle_is_sorted_and_deduplicated(make_exam):
    a, b = make_exam(issue=1), make_exam(issue=2)
    docs = [b.to_json(), a.to_json(), b.to_json()]
    exams = parse_bundle(
        json.loads(json.dumps({"schema": "truegreen.exam-bundle/1", "exams": docs}))
    )
    assert [e.id for e in exams] == sorted([a.id, b.id])
