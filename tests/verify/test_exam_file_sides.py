"""The exam's file on each side of a verification: the sealed copy runs as the exam, and
the suite and the collection see each side's own copy.

Found on a real project: the exam was a new test in an existing test file; a fix that also
deleted another test of that file was approved, because the sealed copy of the file stood
in the head's worktree during the regression run and the collection, hiding the deletion.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import git, write_files
from truegreen.api import seal_exam, verify_fix
from truegreen.project import open_project

BASE_TESTS = (
    "from app import double, half\n\n\n"
    "def test_half():\n    assert half(4) == 2\n\n\n"
    "def test_double_small():\n    assert double(1) == 2\n"
)
EXAM = BASE_TESTS + "\n\ndef test_double_big():\n    assert double(10**6) == 2 * 10**6\n"
BUGGY = "def half(x):\n    return x // 2\n\n\ndef double(x):\n    return x * 2 if x < 1000 else x\n"
FIXED = BUGGY.replace("x * 2 if x < 1000 else x", "x * 2")


def commit(root: Path, message: str, files: dict[str, str]) -> None:
    write_files(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def test_a_test_deleted_from_the_exams_file_is_seen(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_files(root, {"pyproject.toml": "[project]\nname = 'p'\n"})
    git(root, "init", "-q", "-b", "main")
    commit(root, "base", {"app.py": BUGGY, "tests/test_app.py": BASE_TESTS})
    exam_file = tmp_path / "exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, sys.executable, "none", need_git=True)
    exam = seal_exam(project, "tests/test_app.py::test_double_big", test_file=exam_file, runs=1)
    exam_id = exam.exam.id

    git(root, "checkout", "-q", "-b", "fix")
    commit(root, "fix", {"app.py": FIXED})
    git(root, "checkout", "-q", "-b", "fix-and-delete")
    commit(root, "and delete", {"tests/test_app.py": BASE_TESTS.split("\n\n\ndef test_double")[0]})
    git(root, "checkout", "-q", "main")

    def verdict(head: str) -> tuple[str, list[str]]:
        doc = verify_fix(
            project, base="main", head=head, exam_refs=[exam_id], runs=1, strength=False
        )
        return doc["verdict"], [f"{r['code']} {r['detail']}" for r in doc["reasons"]]

    # the fix alone, without the exam in its test file: verified
    assert verdict("fix") == ("verified", [])
    # the fix, and a test of the exam's file deleted: refuted for that deletion
    got, reasons = verdict("fix-and-delete")
    assert got == "refuted"
    assert any(
        r.startswith("tamper.test_deleted tests/test_app.py::test_double_small") for r in reasons
    ), reasons
