"""``seal TEST_ID --issue-file F``: the bug report is recorded with the exam (sha256, title,
and the issue number its title names), in an optional field that leaves the ids of exams
sealed without one unchanged; a file that is not a report is refused before anything runs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import cli
from truegreen import canonical
from truegreen.errors import UsageError
from truegreen.exam.issue_report import MAX_TITLE, parse_report, read_report
from truegreen.exam.store import Ledger
from truegreen.model.exam import Exam

from .conftest import exam_fields


@pytest.mark.parametrize(
    ("text", "title", "issue"),
    [
        ("Total is wrong for two items\n\nSteps: ...\n", "Total is wrong for two items", None),
        ("\n\n   \n## Crash on empty input  \nbody\n", "Crash on empty input", None),
        ("\ufeffTitle after a BOM\n", "Title after a BOM", None),
        ("#12 total([1, 2]) gives 2\n", "#12 total([1, 2]) gives 2", 12),
        ("# Bug: see https://github.com/acme/inv/issues/345\n", "Bug: see https://github.com/acme/inv/issues/345", 345),
        ("Sum is off (#7)\r\nsee also #99\r\n", "Sum is off (#7)", 7),
        # not an issue number: C#, an HTML entity, a number on a later line
        ("C#1 port breaks &#123; parsing\nfixes #5\n", "C#1 port breaks &#123; parsing", None),
        ("tab\there\x07bell\n", "tab here bell", None),
    ],
)  # fmt: skip
def test_title_and_issue_number_come_from_the_first_line(text, title, issue):
    report = parse_report(text.encode(), "F")
    assert (report.title, report.issue) == (title, issue)
    assert report.sha256 == canonical.sha256_bytes(text.encode())  # the file's bytes


def test_a_long_title_is_cut():
    report = parse_report(("word " * 100).encode(), "F")
    assert len(report.title) == MAX_TITLE and report.title.endswith("...")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is empty: a bug report needs at least a title line"),
        (b"  \n\t\n", "is empty"),
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "is not a text file (it holds NUL bytes)"),
        (b"caf\xe9 au lait\n", "is not UTF-8 text"),
    ],
)
def test_a_file_that_is_not_a_report_is_refused(data, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_report(data, "--issue-file 'F'")


def test_read_report_names_a_missing_a_directory_or_an_unreadable_file(tmp_path, monkeypatch):
    with pytest.raises(UsageError, match="'.*nope.md' does not exist") as info:
        read_report(tmp_path / "nope.md")
    assert info.value.field == "issue_file"  # the CLI names it --issue-file
    with pytest.raises(UsageError, match="is not a file"):
        read_report(tmp_path)
    locked = tmp_path / "locked.md"
    locked.write_text("title\n")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(UsageError, match="cannot read '.*locked.md': Permission denied"):
        read_report(locked)


def test_exams_without_a_report_keep_the_ids_they_had():
    # ids computed by the truegreen before issue_report existed (main at d4d804d)
    assert Exam.create(**exam_fields()).id == "ex-07441e6b2228f79f"
    assert Exam.create(**exam_fields(hidden=True, issue="GH-7")).id == "ex-5739de51f5d14dac"
    assert "issue_report" not in Exam.create(**exam_fields()).to_json()


def test_the_report_is_part_of_the_exams_content():
    record = {"sha256": "ab" * 32, "title": "Total is wrong"}
    exam = Exam.create(**exam_fields(), issue_report=record)
    assert exam.id != Exam.create(**exam_fields()).id
    assert exam.to_json()["issue_report"] == record
    assert Exam.from_json(json.loads(json.dumps(exam.to_json()))) == exam
    other = Exam.create(**exam_fields(), issue_report={**record, "title": "Total is right"})
    assert other.id != exam.id


FAILING = "from calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"


@pytest.fixture
def project(make_project):
    return make_project(
        {"calc.py": "def total(xs):\n    return sum(xs) - 1\n", "tests/test_calc.py": FAILING}
    )


def _seal(capsys, root: Path, *extra: str) -> tuple[int, str, str]:
    return cli(
        capsys, "seal", "tests/test_calc.py::test_total", "--repo", str(root),
        "--python", sys.executable, "--sandbox", "none", "--runs", "1", *extra,
    )  # fmt: skip


@pytest.mark.slow
def test_seal_records_the_report_and_show_prints_it(capsys, project, tmp_path):
    report = tmp_path / "bug.md"
    report.write_bytes(b"# total() is off by one (#42)\r\n\r\ntotal([1, 2]) gives 2\r\n")
    code, out, err = _seal(capsys, project, "--issue-file", str(report), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["issue_report"] == {
        "sha256": canonical.sha256_bytes(report.read_bytes()),
        "title": "total() is off by one (#42)",
    }
    assert doc["issue"] == 42  # named by the title, --issue not given

    code, out, _ = cli(capsys, "exams", "show", doc["id"])
    assert code == 0
    assert "  issue:       42\n" in out
    sha = doc["issue_report"]["sha256"]
    assert f"  report:      total() is off by one (#42) (sha256 {sha})\n" in out

    # --issue wins over the number in the title; the human output says what it is for
    code, out, err = _seal(capsys, project, "--issue-file", str(report), "--issue", "GH-7")
    assert code == 0, err
    assert f"for issue GH-7: total() is off by one (#42) (report sha256 {sha[:12]})" in out
    with Ledger() as ledger:
        assert [ledger.get_exam(e.id).issue for e in ledger.list_exams()] == [42, "GH-7"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"", "is empty"),
        (b"\0\0binary", "is not a text file"),
        (b"\xff\xfe\x00", "is not a text file"),
    ],
)
def test_seal_with_a_bad_issue_file_exits_2_and_seals_nothing(
    capsys, project, tmp_path, content, message
):
    report = tmp_path / "bug.md"
    if content is not None:
        report.write_bytes(content)
    code, out, err = _seal(capsys, project, "--issue-file", str(report))
    assert (code, out) == (2, "")
    (line,) = err.strip().splitlines()  # said before anything runs
    assert line.startswith(f"truegreen: error: --issue-file: {str(report)!r} {message}")
    with Ledger() as ledger:
        assert ledger.list_exams() == []


def test_seal_from_a_report_alone_is_refused_until_the_writer_exists(capsys, project, tmp_path):
    report = tmp_path / "bug.md"
    report.write_text("total() is off by one\n")
    code, out, err = cli(capsys, "seal", "--repo", str(project), "--issue-file", str(report))
    assert (code, out) == (2, "")
    assert "writing an exam from a bug report is not available in this version" in err
    assert "--issue-file F to record the report with the exam" in err
