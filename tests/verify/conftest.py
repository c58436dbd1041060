from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from truegreen.demo.scenario import build

PY = sys.executable


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
