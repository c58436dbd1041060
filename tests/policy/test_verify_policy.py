"""End to end: verify grades a real change under the base's policy and gates (the head's
own edit of them is not obeyed), escalates a verified fix that touches a sensitive file
and adds a lint violation, says which file, glob and violation, and --report writes the
three renderings whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli, git, write_files
from tests.verify.conftest import PY

BASE_CONFIG = """\
[project]
name = "calc"

[tool.truegreen.gates]
ruff = true

[tool.truegreen.policy]
extend-sensitive-paths = ["calc/money.py"]
"""

EXAM = "from calc.core import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.mark.slow
def test_verify_escalates_under_the_base_policy_and_reports_it(capsys, tmp_path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    write_files(
        root,
        {
            "pyproject.toml": BASE_CONFIG,
            "calc/__init__.py": "",
            "calc/core.py": "def add(a, b):\n    return a - b\n",
            "calc/money.py": "RATE = 1\n",
            "tests/test_other.py": "def test_one():\n    assert 1 == 1\n",
        },
    )
    git(root, "init", "-q", "-b", "main")
    _commit(root, "base")
    git(root, "checkout", "-q", "-b", "fix")
    # the fix, an unused import on a changed line, a sensitive file touched, and the
    # head's attempt to switch its own policy and gates off
    (root / "calc/core.py").write_text("import os\n\n\ndef add(a, b):\n    return a + b\n")
    (root / "calc/money.py").write_text("RATE = 2\n")
    (root / "truegreen.toml").write_text("[policy]\nsensitive-paths = []\n[gates]\n")
    _commit(root, "fix")
    git(root, "checkout", "-q", "main")
    common = ["--repo", str(root), "--python", PY, "--sandbox", "none"]
    exam = tmp_path / "exam.py"
    exam.write_text(EXAM)
    code, _, err = cli(capsys, "seal", "tests/test_issue.py::test_add", *common,
                       "--test-file", str(exam), "--runs", "1")  # fmt: skip
    assert code == 0, err
    report = tmp_path / "report"
    code, out, err = cli(capsys, "verify", *common, "--base", "main", "--head", "fix",
                         "--runs", "1", "--no-strength", "--json", "--report", str(report))  # fmt: skip
    doc = json.loads(out)
    assert (doc["verdict"], doc["decision"], code) == ("verified", "escalate", 3), doc["reasons"]
    found = {(r["code"], r["file"], r["line"]) for r in doc["reasons"]}
    assert ("policy.sensitive_path", "calc/money.py", None) in found
    assert ("gate.ruff", "calc/core.py", 1) in found
    # truegreen.toml is config, which the default auto-approve does not list
    assert ("policy.file_category", "truegreen.toml", None) in found
    assert doc["layers"]["gates"] == "fail"
    assert sorted(p.name for p in report.iterdir()) == [
        "receipt.json", "report.html", "report.md", "verification.json",
    ]  # fmt: skip
    page = (report / "report.html").read_text()
    assert "escalate" in page and "gate.ruff" in page and doc["receipt"]["sha256"] in page
    assert "+import os" in (report / "report.md").read_text()
    receipt = json.loads((report / "receipt.json").read_text())
    assert receipt["inputs"]["settings"]["gates"] == ["ruff"]
    assert receipt["inputs"]["settings"]["policy"]["extend-sensitive-paths"] == ["calc/money.py"]
    # rendered again from the receipt, with the repository for the diff
    code, again, _ = cli(capsys, "report", str(report / "receipt.json"), "--format", "md",
                         "--repo", str(root))  # fmt: skip
    assert code == 0 and "policy.sensitive_path" in again
    assert "+import os" in again and "def test_add():" in again  # the diff, the exam's code
