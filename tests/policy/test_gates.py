"""The quality gates: [tool.truegreen.gates] validated; each tool's output read; a new
violation on a changed line is gate.<tool> and escalates (or rejects where the policy
says); a tool the interpreter lacks is said once; a real ruff run on a real change."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import git
from truegreen import config
from truegreen.errors import ConfigError
from truegreen.model.reasons import Reason
from truegreen.policy.gates import Gates
from truegreen.policy.rules import ChangeEvidence, FileChange
from truegreen.policy.settings import Policy
from truegreen.project import open_project
from truegreen.verify.gates import Violation, gate_layer, new_violations, parse
from truegreen.verify.mutate import changed_lines
from truegreen.verify.verdict import (
    Evidence,
    ExamEvidence,
    Observation,
    RegressionEvidence,
    decide,
)


def gates_of(text: str) -> Gates:
    return config.parse(text, None)[1].get("gates", Gates())


def test_gates_are_off_unless_turned_on_and_keep_their_order() -> None:
    assert gates_of("[tool.truegreen]\n") == Gates()
    text = "[tool.truegreen.gates]\nmypy = true\nruff = true\nflake8 = false\n"
    assert gates_of(text).tools == ("ruff", "mypy")
    assert not gates_of("[tool.truegreen]\n").on
    coverage = gates_of("[tool.truegreen.gates]\ncoverage-min = 75.5\n")
    assert (coverage.tools, coverage.coverage_min, coverage.on) == ((), 75.5, True)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("pylint = true", "pyproject.toml [tool.truegreen.gates]: unknown key 'pylint'"),
        ('ruff = "yes"', "ruff must be true or false, not 'yes'"),
        ("coverage-min = 180", "coverage-min must be a percentage from 0 to 100, not 180"),
        ("coverage-min = true", "coverage-min must be a percentage from 0 to 100, not True"),
        ('coverage-min = "80%"', "coverage-min must be a percentage from 0 to 100, not '80%'"),
    ],
)
def test_a_malformed_gates_table_names_the_key(body: str, said: str) -> None:
    with pytest.raises(ConfigError) as exc:
        gates_of(f"[tool.truegreen.gates]\n{body}\n")
    assert said in exc.value.message


TREE = Path("/w/head")


def test_each_tools_output_is_read() -> None:
    ruff = '[{"filename": "/w/head/src/m.py", "location": {"row": 3, "column": 8}, "code": "F401", "message": "`os` imported but unused"}]'
    assert parse("ruff", ruff, TREE) == [
        Violation("src/m.py", 3, "F401", "`os` imported but unused")
    ]
    flake8 = "./src/m.py:3:1: F401 'os' imported but unused\nnoise\n"
    assert parse("flake8", flake8, TREE) == [
        Violation("src/m.py", 3, "F401", "'os' imported but unused")
    ]
    mypy = 'src/m.py:7: error: Incompatible return value type (got "str", expected "int")  [return-value]\nsrc/m.py:9: note: x\n'
    assert parse("mypy", mypy, TREE) == [
        Violation(
            "src/m.py",
            7,
            "return-value",
            'Incompatible return value type (got "str", expected "int")',
        )
    ]
    pyright = '{"generalDiagnostics": [{"file": "/w/head/src/m.py", "severity": "error", "message": "bad", "rule": "reportGeneralTypeIssues", "range": {"start": {"line": 4, "character": 0}}}, {"file": "/w/head/src/m.py", "severity": "warning", "message": "meh", "range": {"start": {"line": 1, "character": 0}}}]}'
    assert parse("pyright", pyright, TREE) == [
        Violation("src/m.py", 5, "reportGeneralTypeIssues", "bad")
    ]


def test_only_new_violations_on_changed_lines_count() -> None:
    old = Violation("m.py", 10, "E501", "line too long")
    base = [old]
    head = [
        Violation("m.py", 12, "E501", "line too long"),  # the same one, moved: not new
        Violation("m.py", 3, "F401", "unused"),  # new, on a changed line
        Violation("m.py", 40, "F841", "unused variable"),  # new, but on a line not changed
    ]
    assert new_violations(base, head, {"m.py": {3, 12}}) == [Violation("m.py", 3, "F401", "unused")]


def _evidence(gates):
    sig = "E@x#1"
    exam = ExamEvidence("ex-1", "tests/test_m.py::t", "tests/test_m.py", sig,
                        (Observation("failed", sig),), (Observation("passed"),))  # fmt: skip
    return Evidence(
        exams=(exam,),
        tamper=(),
        regression=RegressionEvidence(complete=True, compared=2),
        gates=gates,
        change=ChangeEvidence((FileChange("src/m.py", 1, 0),)),
    )


def test_a_gate_finding_escalates_and_the_policy_may_make_it_reject() -> None:
    finding = (Reason("gate.ruff", "src/m.py", 3, "F401 unused (new on a changed line)"),)
    assert decide(_evidence(())).decision == "approve"
    verdict = decide(_evidence(finding))
    assert (verdict.verdict, verdict.decision, verdict.layers["gates"]) == (
        "verified",
        "escalate",
        "fail",
    )
    assert decide(_evidence(finding), Policy(reject=("gate.ruff",))).decision == "reject"
    assert decide(_evidence(None)).layers["gates"] == "skipped"


def test_a_real_ruff_run_finds_the_new_violation_and_a_missing_tool_is_said_once(
    make_project, tmp_path
) -> None:
    root = make_project({"src/m.py": "import os\n\n\ndef f():\n    return os.sep\n"})
    base = git(root, "rev-parse", "HEAD")
    (root / "src/m.py").write_text(
        "import os\nimport sys\n\n\ndef f():\n    return os.sep\n", encoding="utf-8"
    )
    git(root, "commit", "-qam", "head")
    project = open_project(root, sys.executable, "none", need_git=True)
    repo = project.need_git()
    changed = changed_lines(repo.diff(base, "HEAD", context=0))
    notes: set[str] = set()
    with (
        repo.worktree(base, prefix="truegreen-base-") as wb,
        repo.worktree("HEAD", prefix="truegreen-head-") as wh,
    ):
        found = gate_layer(project, ("ruff", "flake8"), wb.path, wh.path, changed, notes)
    assert [(r.code, r.file, r.line) for r in found] == [("gate.ruff", "src/m.py", 2)]
    assert found[0].detail == "F401 `sys` imported but unused (new on a changed line)"
    assert notes == {
        "gates: flake8 is not installed in the project's interpreter: the flake8 gate did not run"
    }
