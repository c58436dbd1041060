"""A test that fails on the head but also flips on the base is regression.flaky, not a
regression (issue #38)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli, git
from tests.verify.conftest import PY, seal_exam
from truegreen.model.documents import validate

FILES = {
    ".gitignore": "count.txt\n",
    "calc.py": """
        LIMIT = 100


        def add(a, b):
            return a - b
        """,
    # flips in every worktree (a counter next to it, git-ignored): passed, failed, passed,
    # ... and with the head's LIMIT = 0 it fails every time there
    "tests/test_flip.py": """
        from pathlib import Path

        import calc

        COUNTER = Path(__file__).parent / "count.txt"


        def test_flips():
            n = int(COUNTER.read_text()) if COUNTER.exists() else 0
            COUNTER.write_text(str(n + 1))
            assert n % 2 == 0 and n < calc.LIMIT
        """,
}
EXAM = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.mark.slow
def test_a_failure_that_flips_on_the_base_is_flaky_not_a_regression(
    capsys, tmp_path: Path, make_project
):
    root = make_project(FILES)
    git(root, "checkout", "-q", "-b", "fix")
    calc = (root / "calc.py").read_text()
    (root / "calc.py").write_text(calc.replace("a - b", "a + b").replace("= 100", "= 0"))
    git(root, "commit", "-q", "-am", "fix add")
    git(root, "checkout", "-q", "main")
    common = ["--repo", str(root), "--python", PY, "--sandbox", "none"]
    seal_exam(capsys, root, tmp_path / "exam.py", EXAM)
    code, out, err = cli(
        capsys, "verify", *common, "--base", "main", "--head", "fix",
        "--runs", "1", "--no-strength", "--json",
    )  # fmt: skip
    doc = json.loads(out)
    validate(doc)
    assert (doc["verdict"], code) == ("verified", 0), doc["reasons"]
    assert doc["regression"]["new_failures"] == []
    assert doc["regression"]["flaky"] == ["tests/test_flip.py::test_flips"]
    (reason,) = [r for r in doc["reasons"] if r["code"] == "regression.flaky"]
    assert reason["detail"] == (
        "tests/test_flip.py::test_flips fails on the head, and flips on the base too: not the "
        "change's doing (on the base: passed, failed, passed; on the head: failed, failed, failed)"
    )
    assert "regression: rerunning 1 new failure(s) on the head and the base" in err
