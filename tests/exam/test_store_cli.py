"""`truegreen exams ...`, `ledger verify`, `receipt verify`: output, exit codes, bad input."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli
from truegreen.exam.receipt import make_receipt, write_receipt
from truegreen.exam.store import Ledger

from .conftest import db_file, tamper_sqlite


@pytest.fixture
def sealed(make_exam):
    exams = [make_exam(issue=1), make_exam(issue=2, hidden=True)]
    with Ledger() as ledger:
        for exam in exams:
            ledger.add_exam(exam)
    return exams


def test_list_and_show(capsys, sealed):
    code, out, _ = cli(capsys, "exams", "list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [e.id for e in sealed]
    assert "(hidden)" in out.splitlines()[1]

    code, out, _ = cli(capsys, "exams", "list", "--json")
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.exam-list/1"
    assert [e["id"] for e in doc["exams"]] == [e.id for e in sealed]

    code, out, _ = cli(capsys, "exams", "show", sealed[0].id[:9], "--json")
    assert code == 0
    assert json.loads(out) == sealed[0].to_json()

    code, out, _ = cli(capsys, "exams", "show", sealed[0].id, "--content")
    assert code == 0
    assert "hashes checked" in out and "assert total([1, 2]) == 3" in out


def test_export_import_between_data_directories(capsys, sealed, tmp_path, monkeypatch):
    bundle = tmp_path / "bundle.json"
    code, _, err = cli(capsys, "exams", "export", "-o", str(bundle))
    assert code == 0 and "exported 2 exam(s)" in err
    code, out, _ = cli(capsys, "exams", "export", sealed[1].id)
    assert [e["id"] for e in json.loads(out)["exams"]] == [sealed[1].id]

    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "elsewhere"))
    code, out, _ = cli(capsys, "exams", "import", str(bundle))
    assert code == 0
    assert out.count("imported") == 2
    code, out, _ = cli(capsys, "exams", "import", str(bundle), "--json")
    assert [e["status"] for e in json.loads(out)["exams"]] == ["already present"] * 2
    assert cli(capsys, "ledger", "verify")[0] == 0


def test_ledger_verify(capsys, sealed):
    code, out, _ = cli(capsys, "ledger", "verify")
    assert code == 0 and "intact: 2 entries" in out
    code, out, _ = cli(capsys, "ledger", "verify", "--json")
    doc = json.loads(out)
    assert (code, doc["schema"], doc["ok"], doc["entries"]) == (
        0,
        "truegreen.ledger-check/1",
        True,
        2,
    )
    head = f"{doc['head']['seq']}:{doc['head']['entry_hash']}"
    assert cli(capsys, "ledger", "verify", "--expect-head", head)[0] == 0
    _one_line_error(*cli(capsys, "ledger", "verify", "--expect-head", "3:" + "0" * 64), "entry 3")
    _one_line_error(*cli(capsys, "ledger", "verify", "--expect-head", "x"), "is not SEQ:HASH")


def _one_line_error(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("truegreen: error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_a_tampered_ledger_exits_2_naming_the_entry(capsys, sealed):
    tamper_sqlite(
        db_file(), "UPDATE ledger SET payload = replace(payload, '== 3', '== 4') WHERE seq = 2"
    )
    code, out, err = cli(capsys, "ledger", "verify")
    _one_line_error(code, out, err, "entry 2 was edited")
    code, out, err = cli(capsys, "ledger", "verify", "--json")
    assert code == 2 and json.loads(out)["first_bad"]["seq"] == 2
    code, out, err = cli(capsys, "exams", "show", sealed[1].id)
    _one_line_error(code, out, err, f"exam {sealed[1].id}", "was edited", "ledger verify")


@pytest.mark.parametrize(
    "args, needles",
    [
        (
            ["exams", "show", "ex-ffffffffffffffff"],
            ["unknown exam id 'ex-ffffffffffffffff'", "exams list"],
        ),
        (["exams", "show", "NOT AN ID"], ["is not an exam id"]),
        (["exams", "export", "ex-ffff"], ["unknown exam id"]),
        (["exams", "import", "/no/such/bundle.json"], ["cannot read"]),
        (["exams", "list", "--db", "mysql://x@y/z"], ["unsupported database"]),
        (["receipt", "verify", "/no/such/receipt.json"], ["cannot read"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, sealed, args, needles):
    _one_line_error(*cli(capsys, *args), *needles)


def test_a_tampered_bundle_is_refused(capsys, sealed, tmp_path):
    bundle = tmp_path / "bundle.json"
    cli(capsys, "exams", "export", "-o", str(bundle))
    doc = json.loads(bundle.read_text())
    doc["exams"][0]["hidden"] = not doc["exams"][0]["hidden"]
    bundle.write_text(json.dumps(doc))
    _one_line_error(*cli(capsys, "exams", "import", str(bundle)), "nothing was imported")


def test_receipt_verify(capsys, tmp_path):
    path = write_receipt(tmp_path / "receipt.json", make_receipt({"a": 1}, {"b": 2}))
    code, out, _ = cli(capsys, "receipt", "verify", str(path))
    assert code == 0 and "ok" in out
    path.write_text(path.read_text().replace('"b": 2', '"b": 3'))
    _one_line_error(*cli(capsys, "receipt", "verify", str(path)), "does not match its sha256")
    code, out, _ = cli(capsys, "receipt", "verify", str(path), "--json")
    assert code == 2 and json.loads(out)["ok"] is False
    path.write_text("<html>")
    _one_line_error(*cli(capsys, "receipt", "verify", str(path)), "is not a JSON receipt")


def test_import_reads_stdin(capsys, sealed, tmp_path, monkeypatch):
    import io

    code, bundle, _ = cli(capsys, "exams", "export")
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "other"))
    monkeypatch.setattr("sys.stdin", io.StringIO(bundle))
    code, out, _ = cli(capsys, "exams", "import", "-")
    assert code == 0 and out.count("imported") == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("not json"))
    _one_line_error(*cli(capsys, "exams", "import", "-"), "stdin is not JSON")
