"""``truegreen mcp`` on the command line: without the MCP SDK, and with a bad --repo."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import cli


def test_without_the_sdk_it_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "truegreen.mcp"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp: ModuleNotFoundError
    code, out, err = cli(capsys, "mcp")
    assert code == 2 and out == ""
    assert "pip install 'truegreen[mcp]'" in err and len(err.strip().splitlines()) == 1


def test_a_repo_that_is_not_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "mcp", "--repo", str(tmp_path / "nope"))
    assert code == 2 and out == "" and "--repo" in err and "not a directory" in err
