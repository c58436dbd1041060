"""``truegreen install-claude``: merged into what is there, never clobbering; uninstall
removes exactly what it added; bad input is one line and exit 2 with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli
from truegreen.claude.install import HOOK_MODULE, SKILL_MARK

THEIRS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier -w"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./log-bash.sh"}]},
        ],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
    },
}
THEIR_MCP = {"mcpServers": {"db": {"command": "db-mcp", "args": []}}}


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _ours(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        h
        for group in settings["hooks"].get(event, [])
        for h in group["hooks"]
        if HOOK_MODULE in h["command"]
    ]


def test_install_merges_and_uninstall_removes_exactly_what_it_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".claude").mkdir()
    settings_path = tmp_path / ".claude" / "settings.json"
    settings_path.write_text(json.dumps(THEIRS, indent=4), encoding="utf-8")
    (tmp_path / ".mcp.json").write_text(json.dumps(THEIR_MCP), encoding="utf-8")

    code, out, err = cli(capsys, "install-claude", "--repo", str(tmp_path))
    assert code == 0, err
    assert "wrote .claude/settings.json" in out and "wrote .mcp.json" in out
    settings = _read(settings_path)
    assert settings["permissions"] == THEIRS["permissions"]
    for event in ("PostToolUse", "PostToolUseFailure", "Stop"):
        (hook,) = _ours(settings, event)
        assert hook["timeout"] == 15 and hook["command"].endswith(f"-m {HOOK_MODULE}")
    # theirs kept, in their order, ours after them
    assert settings["hooks"]["PostToolUse"][:2] == THEIRS["hooks"]["PostToolUse"]
    assert settings["hooks"]["PostToolUse"][2]["matcher"] == "Bash"
    assert "matcher" not in settings["hooks"]["Stop"][0]
    assert settings["hooks"]["SessionStart"] == THEIRS["hooks"]["SessionStart"]
    servers = _read(tmp_path / ".mcp.json")["mcpServers"]
    assert servers["db"] == THEIR_MCP["mcpServers"]["db"]
    assert servers["truegreen"]["args"] == ["-m", "truegreen", "mcp", "--repo", str(tmp_path)]
    skill = (tmp_path / ".claude" / "skills" / "truegreen" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: truegreen\ndescription: ") and SKILL_MARK in skill

    # a second install changes nothing
    code, out, _ = cli(capsys, "install-claude", "--repo", str(tmp_path), "--json")
    assert json.loads(out)["written"] == [] and len(_ours(_read(settings_path), "Stop")) == 1

    code, out, err = cli(capsys, "install-claude", "--repo", str(tmp_path), "--uninstall")
    assert code == 0, err
    assert _read(settings_path) == THEIRS and _read(tmp_path / ".mcp.json") == THEIR_MCP
    assert not (tmp_path / ".claude" / "skills").exists()


def test_in_a_project_without_claude_files_uninstall_leaves_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, "install-claude", "--repo", str(tmp_path))[0] == 0
    assert (tmp_path / ".claude" / "settings.json").is_file()
    assert cli(capsys, "install-claude", "--repo", str(tmp_path), "--uninstall")[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("where", "text", "says"),
    [
        (".claude/settings.json", "{not json", ".claude/settings.json is not valid JSON"),
        (".claude/settings.json", "[]", ".claude/settings.json is not a JSON object"),
        (".claude/settings.json", '{"hooks": []}', "'hooks' is not an object"),
        (".claude/settings.json", '{"hooks": {"Stop": {}}}', "hooks.Stop is not a list"),
        (".mcp.json", '{"mcpServers": []}', "'mcpServers' is not an object"),
        (
            ".mcp.json",
            '{"mcpServers": {"truegreen": {"command": "other"}}}',
            "already has an MCP server named truegreen",
        ),
        (".claude/skills/truegreen/SKILL.md", "mine\n", "truegreen did not write it"),
    ],
)
def test_what_it_cannot_merge_stops_it_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, text: str, says: str
) -> None:
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    code, out, err = cli(capsys, "install-claude", "--repo", str(tmp_path))
    assert code == 2 and out == ""
    assert says in err and "nothing was written" in err
    assert len(err.strip().splitlines()) == 1
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert files == [where]


def test_a_repo_that_is_not_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "install-claude", "--repo", str(tmp_path / "nope"))
    assert code == 2 and "--repo" in err and "not a directory" in err
