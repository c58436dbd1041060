"""The exam's file on each side of a verification: the sealed copy runs as the exam, and
the suite and the collection see each side's own copy.

Found on a real project: the exam was a new test in an existing test file; a fix that also
deleted another test of that file was approved, because the sealed copy of the file stood
in the head's worktree during the regression run and the collection, hiding the deletion.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.calls import seal_exam, verify_fix
from tests.conftest import git, write_files
from truegreen.errors import UsageError
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


@pytest.mark.slow
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
        doc = verify_fix(project, base="main", head=head, exams=[exam_id], runs=1, strength=False)
        return doc["verdict"], [f"{r['code']} {r['detail']}" for r in doc["reasons"]]

    # the fix alone, without the exam in its test file: verified
    assert verdict("fix") == ("verified", [])
    # the fix, and a test of the exam's file deleted: refuted for that deletion
    got, reasons = verdict("fix-and-delete")
    assert got == "refuted"
    assert any(
        r.startswith("tamper.test_deleted tests/test_app.py::test_double_small") for r in reasons
    ), reasons


@pytest.mark.slow
def test_a_fix_branch_behind_the_base_is_graded_merged_into_it(tmp_path: Path) -> None:
    """The fix was branched before the base got a new test: base -> head seems to delete
    it. Graded as CI grades a pull request, merged into the base, the branch deletes
    nothing. A branch that does not merge cleanly is an input error."""
    root = tmp_path / "proj"
    write_files(root, {"pyproject.toml": "[project]\nname = 'p'\n"})
    git(root, "init", "-q", "-b", "main")
    commit(root, "first", {"app.py": BUGGY, "tests/test_app.py": BASE_TESTS})
    git(root, "checkout", "-q", "-b", "fix")
    commit(root, "fix", {"app.py": FIXED})
    git(root, "checkout", "-q", "-b", "conflict", "main")
    commit(root, "other fix", {"app.py": BUGGY.replace("x // 2", "x >> 1")})
    git(root, "checkout", "-q", "main")
    newer = BASE_TESTS + "\n\ndef test_half_odd():\n    assert half(5) == 2\n"
    commit(
        root,
        "a newer test",
        {"tests/test_app.py": newer, "app.py": BUGGY.replace("x // 2", "int(x / 2)")},
    )
    exam_file = tmp_path / "exam.py"
    exam_file.write_text(
        newer + "\n\ndef test_double_big():\n    assert double(10**6) == 2 * 10**6\n"
    )
    project = open_project(root, sys.executable, "none", need_git=True)
    exam = seal_exam(project, "tests/test_app.py::test_double_big", test_file=exam_file, runs=1)
    doc = verify_fix(project, base="main", head="fix", exams=[exam.exam.id], runs=1, strength=False)
    assert (doc["verdict"], doc["reasons"]) == ("verified", [])
    assert doc["head"] != git(root, "rev-parse", "fix")  # the merge commit was graded
    with pytest.raises(UsageError, match="does not merge cleanly"):
        verify_fix(project, base="main", head="conflict", exams=[exam.exam.id], runs=1)
    assert git(root, "worktree", "list").count("\n") == 0  # nothing left behind
