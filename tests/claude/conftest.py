"""Recorded Claude Code hook payloads, and the demo project they were recorded on."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import calc_project
from tests.conftest import git

HERE = Path(__file__).resolve().parent
PAYLOADS = HERE / "payloads"
DEMO = HERE.parent.parent / "src" / "truegreen" / "demo"
FAILING = "tests/test_issue_42.py::test_bulk_discount_starts_at_exactly_ten"


def payload(name: str, project: Path, **changes: Any) -> dict[str, Any]:
    """The recorded payload ``name`` (payloads/NAME.json) as if made in ``project``."""
    text = (PAYLOADS / f"{name}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text.replace("$PROJECT", str(project)))
    data.update(changes)
    return data


@pytest.fixture
def invoicekit(tmp_path: Path) -> Path:
    """The demo project (the payloads were recorded on it) as a git repository, with the
    failing test of its issue 42 committed."""
    root = tmp_path / "invoicekit"
    shutil.copytree(DEMO / "project", root)
    shutil.copy(DEMO / "exam_issue_42.py", root / "tests" / "test_issue_42.py")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "invoicekit")
    return root


@pytest.fixture
def new_session() -> Callable[[], str]:
    """A session id no test used before (the hooks remember what they explained)."""
    count = iter(range(1_000_000))
    return lambda: f"session-{next(count)}"


__all__ = ["calc_project"]
