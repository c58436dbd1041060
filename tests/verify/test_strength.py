"""Exam strength: only the changed lines the exam executes are mutated, on two workers,
with a time limit from the exam's own run (issue #38)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli, git, venv_with
from tests.verify.conftest import PY, seal_exam
from truegreen.events import QUIET
from truegreen.verify import strength

CALC = """\
def add(a, b):
    return a - b


def scale(x, k):
    return x * k
"""
FIXED = CALC.replace("a - b", "a + b").replace("x * k", "x * k + 0")
EXAM = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _with_fix(make_project) -> Path:
    """CALC on main, and a branch ``fix`` that fixes ``add`` and touches ``scale``."""
    root = make_project({"calc.py": CALC, "tests/test_calc.py": "def test_nothing():\n    pass\n"})
    git(root, "checkout", "-q", "-b", "fix")
    (root / "calc.py").write_text(FIXED)
    git(root, "commit", "-q", "-am", "fix add; touch scale")
    git(root, "checkout", "-q", "main")
    return root


@pytest.mark.slow
def test_only_the_changed_lines_the_exam_runs_are_mutated(capsys, tmp_path: Path, make_project):
    root = _with_fix(make_project)
    common = ["--repo", str(root), "--python", PY, "--sandbox", "none"]
    exam_id = seal_exam(capsys, root, tmp_path / "exam.py", EXAM)
    code, out, err = cli(
        capsys, "strength", "--exam", exam_id, "--base", "main", "--head", "fix", *common, "--json"
    )
    assert code == 0, err
    doc = json.loads(out)["strength"]
    # line 2 (add, run by the exam) gets its 2 mutants (return None, + -> -); line 6
    # (scale, never run) none: its 3 would all survive and say nothing about the exam
    assert (doc["killed"], doc["mutants"], doc["label"]) == (2, 2, "strong")
    assert "strength: running the exam against 2 mutant(s) of the changed lines it executes" in err


@pytest.mark.slow
def test_the_warm_path_under_pytest_8_3(capsys, tmp_path: Path, make_project) -> None:
    """pytest 8.3's parsefactories puts every registered plugin in a set: the baseline
    child's plugin must be hashable, or the child crashes and strength falls back to
    mutating every changed line (the note below), on every verify."""
    python = str(venv_with("pytest>=8.3,<8.4"))
    root = _with_fix(make_project)
    common = ["--repo", str(root), "--python", python, "--sandbox", "none"]
    (tmp_path / "exam.py").write_text(EXAM)
    code, out, err = cli(
        capsys, "seal", "tests/test_issue.py::test_add", *common,
        "--test-file", str(tmp_path / "exam.py"), "--runs", "1", "--json",
    )  # fmt: skip
    assert code == 0, err
    exam_id = str(json.loads(out)["id"])
    code, out, err = cli(
        capsys, "strength", "--exam", exam_id, "--base", "main", "--head", "fix", *common, "--json"
    )
    assert code == 0, err
    assert "were not recorded" not in err
    doc = json.loads(out)["strength"]
    assert doc, (out, err)
    # scale's line, never run by the exam, gets no mutant: the recorder's lines were read
    assert (doc["killed"], doc["mutants"], doc["label"]) == (2, 2, "strong")


class _Git:
    def __init__(self, diff: str) -> None:
        self._diff = diff

    def diff(self, base: str, head: str, context: int = 3) -> str:
        return self._diff


DIFF = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,2 @@\n-    return x * k\n+    return x * k + 0\n"


def test_an_exam_that_runs_no_changed_line_has_no_strength(tmp_path: Path, monkeypatch) -> None:
    """null is for an exam that executes no changed line (DESIGN.md): no mutant is made."""
    (tmp_path / "calc.py").write_text(FIXED)

    def executed(*args: Any) -> tuple[dict[str, set[int]], float, None, dict[str, set[int]], None]:
        return {"calc.py": {1, 2}}, 0.5, None, {}, None  # add ran, scale did not

    monkeypatch.setattr(strength, "_executed", executed)
    got = strength.measure(None, _Git(DIFF), "b", "h", tmp_path, ["t"], QUIET)  # type: ignore[arg-type]
    assert got is None


def test_module_level_lines_are_kept_and_function_bodies_known() -> None:
    text = "X = 1\n\n\ndef f():\n    '''Doc.'''\n    return X\n\n\nY = f()\n"
    assert strength.function_lines(text) == {5, 6}
    assert strength.function_lines("def (:\n") == set()
