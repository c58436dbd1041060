from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from truegreen.demo.scenario import build

_CACHE: dict[str, Path] = {}


@pytest.fixture
def demo_repo(tmp_path: Path) -> Path:
    """The demo repository (base on main, one branch per candidate), fresh per test."""
    if "root" not in _CACHE:
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="tg-demo-cache-")) / "invoicekit"
        build(root)
        _CACHE["root"] = root
    dest = tmp_path / "invoicekit"
    shutil.copytree(_CACHE["root"], dest, symlinks=True)
    return dest


PY = sys.executable
