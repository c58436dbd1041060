"""A project in a subdirectory of its git repository (one package of a monorepo):
seal and verify from that directory see the project's own paths, run its tests from
its directory in the worktrees, and grade only changes inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.calls import seal_exam, verify_fix
from tests.conftest import git, write_files
from tests.verify.conftest import PY
from truegreen.errors import UsageError
from truegreen.project import open_project
from truegreen.repo.git import GitRepo

TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


@pytest.fixture
def mono(tmp_path: Path) -> Path:
    root = tmp_path / "mono"
    write_files(
        root,
        {
            "README.md": "# several packages\n",
            "libs/calc/pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "libs/calc/calc/__init__.py": "def add(a, b):\n    return a - b\n",
            "libs/calc/tests/test_calc.py": TEST,
            "libs/other/pyproject.toml": "",
            "libs/other/tests/test_calc.py": "def test_other():\n    pass\n",
        },
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def branch(root: Path, name: str, files: dict[str, str]) -> None:
    git(root, "checkout", "-q", "-b", name, "main")
    write_files(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", name)
    git(root, "checkout", "-q", "main")


def test_the_project_is_the_nearest_directory_with_a_project_file(mono: Path) -> None:
    sub = GitRepo.discover(mono / "libs/calc/tests")
    assert (sub.root, sub.top, sub.prefix) == (mono / "libs/calc", mono, "libs/calc")
    assert "tests/test_calc.py" in sub.files("main")
    assert "libs/other/tests/test_calc.py" not in sub.files("main")
    assert GitRepo.discover(mono).prefix == ""
    assert sub.identity() != GitRepo.discover(mono / "libs/other").identity()


@pytest.mark.slow
def test_seal_and_verify_a_fix_in_a_subproject(mono: Path) -> None:
    branch(mono, "fix", {"libs/calc/calc/__init__.py": "def add(a, b):\n    return a + b\n"})
    branch(
        mono,
        "cheat",
        {
            "libs/calc/tests/test_calc.py": TEST.replace("== 4", "== 0"),
            "README.md": "# changed outside the project\n",
        },
    )
    project = open_project(mono / "libs/calc", PY, "none", need_git=True)
    exam = seal_exam(project, "tests/test_calc.py::test_add", runs=1).exam
    assert exam.test == "tests/test_calc.py::test_add"

    doc = verify_fix(project, base="main", head="fix", exams=[exam.id], runs=1)
    assert doc["verdict"] == "verified", doc["reasons"]

    doc = verify_fix(project, base="main", head="cheat", exams=[exam.id], runs=1)
    assert doc["verdict"] == "refuted"
    assert {r["code"] for r in doc["reasons"]} >= {"exam.still_failing", "tamper.exam_edited"}

    # a patch made at the top level (git diff) and one made in the project (--relative)
    for extra in ((), ("--relative",)):
        patch = (git(mono / "libs/calc", "diff", *extra, "main", "fix") + "\n").encode()
        doc = verify_fix(project, base="main", patch=patch, exams=[exam.id], runs=1)
        assert doc["verdict"] == "verified", (extra, doc["reasons"])

    # the exam belongs to the subproject, not to the repository's top level
    top = open_project(mono, PY, "none", need_git=True)
    with pytest.raises(UsageError, match="another repository"):
        verify_fix(top, base="main", head="fix", exams=[exam.id], runs=1)
