"""The changed-line coverage gate, ``coverage-min`` (issue #35)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli, git, write_files
from tests.verify.conftest import PY, seal_exam
from truegreen.model.documents import validate
from truegreen.verify import coverage_gate
from truegreen.verify.coverage_gate import Coverage, changed_executable, executable_lines

MODULE = '''\
"""A module."""

LIMIT = 3


def pick(x):
    """Docstring."""
    # a comment
    if x > LIMIT:
        return "big"
    return "small"
'''


def test_only_lines_with_bytecode_count():
    assert executable_lines(MODULE) == {1, 3, 6, 9, 10, 11}
    assert executable_lines("def broken(:\n") == set()


def test_changed_lines_of_test_code_and_of_removed_files_do_not_count(tmp_path):
    write_files(tmp_path, {"pkg/m.py": MODULE, "tests/test_m.py": "def test_x():\n    pass\n"})
    changed = {"pkg/m.py": {7, 8, 9, 10}, "tests/test_m.py": {1, 2}, "gone.py": {1}}
    assert changed_executable(tmp_path, changed) == {"pkg/m.py": {9, 10}}


def _measure(tmp_path: Path, seen: list[int], wanted: set[int]) -> Coverage:
    write_files(tmp_path, {"pkg/m.py": MODULE})
    name = str((tmp_path / "pkg/m.py").resolve())
    (tmp_path / "lines.json").write_text(json.dumps({name: seen, "__duration__": 0.1}))
    return coverage_gate.measure(80, tmp_path, {"pkg/m.py": wanted}, tmp_path)


def test_below_the_minimum_names_the_lines_not_run(tmp_path):
    cov = _measure(tmp_path, [3, 9, 11], {3, 9, 10, 11})
    assert (cov.total, cov.covered, cov.percent) == (4, 3, 75.0)
    reason = cov.reason()
    assert reason is not None
    assert (reason.code, reason.file, reason.line) == ("gate.coverage_worse", "pkg/m.py", 10)
    assert "runs 3 of 4 changed lines" in reason.detail and "not run: pkg/m.py:10" in reason.detail


def test_top_level_lines_count_as_run_when_the_module_was_imported(tmp_path):
    # the recorder started after the import: it saw a function's lines, not line 3
    cov = _measure(tmp_path, [9, 11], {3, 9, 11})
    assert (cov.covered, cov.reason()) == (3, None)
    never_imported = _measure(tmp_path, [], {3, 9})
    assert never_imported.covered == 0


def test_nothing_recorded_is_not_a_pass(tmp_path):
    cov = coverage_gate.measure(50, tmp_path, {"pkg/m.py": {9}}, tmp_path / "nowhere")
    assert not cov.measured
    reason = cov.reason()
    assert reason is not None and "was not measured" in reason.detail
    assert cov.to_json()["percent"] is None


def test_spans_read_as_ranges():
    assert coverage_gate._spans((3, 4, 5, 9, 11, 12)) == "3-5,9,11-12"


FILES = {
    "pyproject.toml": "[tool.truegreen.gates]\ncoverage-min = 90\n",
    "calc.py": """
        def add(a, b):
            return a - b
        """,
    "tests/test_calc.py": """
        from calc import add


        def test_add_zero():
            assert add(0, 0) == 0
        """,
}
EXAM = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.mark.slow
def test_a_fix_whose_new_branch_no_test_runs_escalates(capsys, tmp_path, make_project):
    root = make_project(FILES)
    git(root, "checkout", "-q", "-b", "fix")
    write_files(
        root,
        {
            "calc.py": """
                def add(a, b):
                    if isinstance(a, str):
                        raise TypeError("numbers only")
                    return a + b
                """
        },
    )
    git(root, "commit", "-q", "-am", "fix")
    git(root, "checkout", "-q", "main")
    seal_exam(capsys, root, tmp_path / "exam.py", EXAM)
    code, out, err = cli(
        capsys, "verify", "--repo", str(root), "--python", PY, "--sandbox", "none",
        "--base", "main", "--head", "fix", "--runs", "1", "--no-strength",
        "--regression", "full", "--json",
    )  # fmt: skip
    doc = json.loads(out)
    validate(doc)
    assert doc["coverage"] == {
        "min": 90.0,
        "measured": True,
        "changed_lines": 3,
        "run": 2,
        "percent": 66.7,
        "not_run": {"calc.py": [3]},
    }
    assert doc["layers"]["gates"] == "fail"
    assert (doc["decision"], code) == ("escalate", 3)
    (reason,) = [r for r in doc["reasons"] if r["code"] == "gate.coverage_worse"]
    assert (reason["file"], reason["line"]) == ("calc.py", 3)
