"""A small project for the engine API's tests: calc.py's ``add`` subtracts (the bug), a
branch ``fix`` fixes it, and an exam (tests/test_exam.py) fails on main and passes on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import TARGET_PYTHON, git

EXAM_TEST = "tests/test_exam.py::test_add"
EXAM = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = BUGGY.replace("a - b", "a + b")
FILES = {
    "calc.py": BUGGY,
    "tests/__init__.py": "",
    "tests/test_calc.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
}


def commit_branch(root: Path, branch: str, files: dict[str, str]) -> None:
    """A branch off main with ``files`` changed; the checkout stays on main."""
    git(root, "checkout", "-q", "-b", branch, "main")
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "commit", "-qam", branch)
    git(root, "checkout", "-q", "main")


@pytest.fixture
def calc_project(make_project: Callable[..., Path]) -> Callable[..., Path]:
    """``calc_project(name="calc", fix=FIXED)``: the project, with the exam file written
    next to it (``<root>.exam.py``), and a ``fix`` branch holding ``fix`` as calc.py."""

    def make(name: str = "calc", fix: str = FIXED) -> Path:
        # the name in a file: two projects are two repositories (another first commit)
        root = make_project({**FILES, "README": f"{name}\n"}, name=name)
        commit_branch(root, "fix", {"calc.py": fix})
        (root.parent / f"{name}.exam.py").write_text(EXAM, encoding="utf-8")
        return root

    return make


def where(root: Path) -> dict[str, object]:
    """The request fields that name the project and how it runs."""
    return {"repo": root, "python": str(TARGET_PYTHON), "sandbox": "none"}


def exam_file(root: Path) -> Path:
    return root.parent / f"{root.name}.exam.py"
