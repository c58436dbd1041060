"""Recorded Claude Code hook payloads, and the demo project they were recorded on."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
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


#: a test that imports a package installed only in the project's venv at ``venv/``
DEP_TEST = "tests/test_zz_dep.py::test_discount_from_the_dependency"


@pytest.fixture
def venv_project(invoicekit: Path) -> Path:
    """invoicekit with its virtualenv at ``venv/`` (not ``.venv``: truegreen does not find
    it by itself), in which alone the package ``pretend`` is installed, and a failing test
    that imports it (``tests/test_zz_dep.py``, committed; the venv is not)."""
    (invoicekit / ".gitignore").write_text("venv/\n", encoding="utf-8")
    # the venv reaches pytest through a .pth to this interpreter's site-packages, which a
    # sandbox would not mount
    pyproject = invoicekit / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text + '\n[tool.truegreen]\nsandbox = "none"\n', encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(invoicekit / "venv")], check=True
    )
    site = next((invoicekit / "venv" / "lib").glob("python3*")) / "site-packages"
    # pytest and the rest from this interpreter's site-packages
    outer = sysconfig.get_paths()["purelib"]
    (site / "outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    (site / "pretend.py").write_text("TEN = 10\n", encoding="utf-8")
    (invoicekit / "tests" / "test_zz_dep.py").write_text(
        "import pretend\nfrom invoicekit.discounts import bulk_discount_percent\n\n\n"
        "def test_discount_from_the_dependency():\n"
        "    assert bulk_discount_percent(pretend.TEN) == 5\n",
        encoding="utf-8",
    )
    git(invoicekit, "add", "-A")
    git(invoicekit, "commit", "-qm", "a test of the dependency")
    return invoicekit


@pytest.fixture
def new_session() -> Callable[[], str]:
    """A session id no test used before (the hooks remember what they explained)."""
    count = iter(range(1_000_000))
    return lambda: f"session-{next(count)}"


__all__ = ["calc_project"]
