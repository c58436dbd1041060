"""A hidden exam's content is never printed by any command; a bundle carries it only
encoded and marked hidden, and import decodes it and re-checks every hash."""

from __future__ import annotations

import base64
import json
import sys

import pytest

from tests.conftest import cli
from truegreen import canonical
from truegreen.errors import IntegrityError
from truegreen.exam.bundle import HIDDEN_CONTENT, export_bundle, parse_bundle
from truegreen.exam.store import Ledger

from .conftest import TEST_FILE

#: a line of the exam's test file: it must appear in no output of a hidden exam
SECRET = "assert total([1, 2]) == 3"


@pytest.fixture
def exams(make_exam):
    """An ordinary exam and a hidden one, in the ledger."""
    shown, hidden = make_exam(issue=1), make_exam(issue=2, hidden=True)
    with Ledger() as ledger:
        ledger.add_exam(shown)
        ledger.add_exam(hidden)
    return shown, hidden


def test_show_lists_a_hidden_exams_hashes_not_its_content(capsys, exams):
    _, hidden = exams
    code, out, err = cli(capsys, "exams", "show", hidden.id)
    assert code == 0
    assert SECRET not in out + err
    assert "hidden:      yes" in out
    for f in hidden.files:  # the whole sha256, to check a copy against
        assert f"    {f.sha256}  {f.path}\n" in out
    assert "content:     hidden, never shown; to check a copy of a file" in out


def test_show_content_of_a_hidden_exam_is_refused_in_one_line(capsys, exams):
    _, hidden = exams
    code, out, err = cli(capsys, "exams", "show", hidden.id, "--content")
    assert (code, out) == (2, "")
    (line,) = err.strip().splitlines()
    assert f"exam {hidden.id} is hidden (sealed with --hidden): its content is never shown" in line
    assert "sha256sum FILE" in line and f"truegreen exams show {hidden.id}" in line
    assert SECRET not in err


def test_show_json_of_a_hidden_exam_carries_no_content(capsys, exams):
    shown, hidden = exams
    code, out, _ = cli(capsys, "exams", "show", hidden.id, "--json")
    assert code == 0 and SECRET not in out
    doc = json.loads(out)
    assert doc["hidden"] is True and doc["id"] == hidden.id
    assert [set(f) for f in doc["files"]] == [{"path", "sha256"}] * len(hidden.files)
    assert [f["sha256"] for f in doc["files"]] == [f.sha256 for f in hidden.files]
    # an ordinary exam's document is the stored one, content included
    code, out, _ = cli(capsys, "exams", "show", shown.id, "--json")
    assert json.loads(out) == shown.to_json() and SECRET in out


def test_export_encodes_hidden_exams_and_says_so(capsys, exams, tmp_path, monkeypatch):
    shown, hidden = exams
    path = tmp_path / "bundle.json"
    code, _, err = cli(capsys, "exams", "export", "-o", str(path))
    assert code == 0
    assert f"{path} holds 1 hidden exam(s) ({hidden.id})" in err
    assert "base64-encoded under hidden_content_base64, not encrypted" in err
    doc = json.loads(path.read_text())
    assert doc["schema"] == "truegreen.exam-bundle/1"
    assert doc["hidden_exams"] == [hidden.id]
    by_id = {e["id"]: e for e in doc["exams"]}
    for f, stored in zip(by_id[hidden.id]["files"], hidden.files, strict=True):
        assert "content" not in f
        assert base64.b64decode(f[HIDDEN_CONTENT]).decode() == stored.content
    assert by_id[shown.id]["files"][1]["content"] == TEST_FILE  # plain, as before
    assert path.read_text().count(SECRET) == 1  # the ordinary exam's copy only

    code, out, err = cli(capsys, "exams", "export", hidden.id)  # to stdout
    assert code == 0 and SECRET not in out and "the bundle holds 1 hidden exam(s)" in err

    # another ledger imports it, decoded and re-checked: the very exam
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "ci"))
    code, out, _ = cli(capsys, "exams", "import", str(path))
    assert code == 0 and out.count("imported") == 2
    with Ledger() as ci:
        assert ci.get_exam(hidden.id) == hidden
        assert canonical.pretty(export_bundle(ci)) == path.read_text()


def test_a_bundle_without_hidden_exams_is_as_it_was(ledger, make_exam):
    exam = make_exam()
    ledger.add_exam(exam)
    assert export_bundle(ledger) == {"schema": "truegreen.exam-bundle/1", "exams": [exam.to_json()]}


def _hidden_item(make_exam) -> dict:
    """A hidden exam as a bundle carries it."""
    exam = make_exam(hidden=True)
    with Ledger() as ledger:
        ledger.add_exam(exam)
        return export_bundle(ledger, [exam.id])["exams"][0]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # valid base64 of other content: the file no longer matches its sha256
        (
            lambda f: f.update(
                {HIDDEN_CONTENT: base64.b64encode(b"def test_x(): pass\n").decode()}
            ),
            "does not match its sha256",
        ),
        (lambda f: f.update({HIDDEN_CONTENT: "not base64!"}), "is not base64 of UTF-8 text"),
        (
            lambda f: f.update({HIDDEN_CONTENT: base64.b64encode(b"\xff\xfe").decode()}),
            "is not base64 of UTF-8 text",
        ),
        (lambda f: f.update({"content": "x"}), "carries both content and"),
    ],
)
def test_a_tampered_hidden_exam_imports_nothing(make_exam, edit, message):
    item = _hidden_item(make_exam)
    edit(item["files"][1])
    bundle = {"schema": "truegreen.exam-bundle/1", "exams": [item], "hidden_exams": [item["id"]]}
    with pytest.raises(IntegrityError, match=f"exam 1 of 1.*{message}.*nothing was imported"):
        parse_bundle(bundle)


@pytest.mark.slow
def test_seal_hidden_prints_and_exports_no_content(make_project, capsys, tmp_path):
    body = "def test_secret_case():\n    assert sorted([3, 1, 2]) == [3, 2, 1]\n"
    root = make_project({"tests/test_s.py": body})
    code, out, err = cli(
        capsys, "seal", "tests/test_s.py::test_secret_case", "--repo", str(root),
        "--python", sys.executable, "--sandbox", "none", "--runs", "1", "--hidden",
        "--export", str(tmp_path / "out"), "--json",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["hidden"] is True and "sorted([3, 1, 2])" not in out
    assert all("content" not in f for f in doc["files"])
    bundle = tmp_path / "out" / f"{doc['id']}.json"
    assert "sorted([3, 1, 2])" not in bundle.read_text()
    assert f"{bundle} holds 1 hidden exam(s) ({doc['id']})" in err
    (exam,) = parse_bundle(json.loads(bundle.read_text()))
    assert exam.file("tests/test_s.py").content == body
