from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from truegreen.demo.scenario import build

PY = sys.executable


def seal_exam(capsys: pytest.CaptureFixture[str], root: Path, exam: Path, text: str) -> str:
    """Seal ``text`` (written to ``exam``) as ``tests/test_issue.py::test_add`` on the
    project's current revision, run once; the exam's id."""
    import json

    from tests.conftest import cli

    exam.write_text(text)
    code, out, err = cli(
        capsys, "seal", "tests/test_issue.py::test_add", "--repo", str(root), "--python", PY,
        "--sandbox", "none", "--test-file", str(exam), "--runs", "1", "--json",
    )  # fmt: skip
    assert code == 0, err
    return str(json.loads(out)["id"])


@pytest.fixture(scope="session")
def _demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo-template") / "invoicekit"
    build(root)
    return root


@pytest.fixture
def demo_repo(tmp_path: Path, _demo_template: Path) -> Path:
    """The demo repository (base on main, one branch per candidate), fresh per test."""
    dest = tmp_path / "invoicekit"
    shutil.copytree(_demo_template, dest, symlinks=True)
    return dest
