"""``truegreen install-claude``: merged into what is there, never clobbering; uninstall
removes exactly what it added; bad input is one line and exit 2 with nothing written."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli, git
from truegreen import api
from truegreen.claude.install import HOOK_MODULE, SKILL_MARK, changed_only_by_install
from truegreen.repo.git import GitRepo

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


def _hooks_commands(root: Path) -> set[str]:
    settings = _read(root / ".claude" / "settings.json")
    return {
        h["command"]
        for e in ("PostToolUse", "PostToolUseFailure", "Stop")
        for h in _ours(settings, e)
    }


def test_python_is_recorded_in_the_hooks_and_the_mcp_server(
    venv_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(venv_project)
    python = str(venv_project / "venv" / "bin" / "python")
    # without --python: the project has no .venv; install-claude says which one runs the
    # tests, and that venv/ is there
    code, out, err = cli(capsys, "install-claude")
    assert code == 0, err
    assert "truegreen's own" in out and "--python venv/bin/python" in out
    assert all("--python" not in c for c in _hooks_commands(venv_project))
    # given relative to the current directory: recorded as an absolute path
    code, out, err = cli(capsys, "install-claude", "--python", "venv/bin/python")
    assert code == 0, err
    assert f"the tests run with {python} (--python)" in out
    (command,) = _hooks_commands(venv_project)  # updated in place, not added
    assert command.endswith(f"-m {HOOK_MODULE} --python {python}")
    server = _read(venv_project / ".mcp.json")["mcpServers"]["truegreen"]
    assert server["args"][-2:] == ["--python", python]
    assert server["args"][:3] == ["-m", "truegreen", "mcp"]
    code, out, err = cli(capsys, "install-claude", "--python", "nope/bin/python")
    assert code == 2 and "--python: 'nope/bin/python' is not an executable file" in err
    assert len(err.strip().splitlines()) == 1
    assert cli(capsys, "install-claude", "--uninstall")[0] == 0
    assert not (venv_project / ".mcp.json").exists()


def test_a_project_venv_at_dot_venv_is_recorded_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    code, out, _ = cli(capsys, "install-claude", "--repo", str(tmp_path))
    assert code == 0 and "(the project's .venv)" in out
    (command,) = _hooks_commands(tmp_path)
    assert command.endswith(f"--python {tmp_path / '.venv' / 'bin' / 'python'}")


@pytest.mark.parametrize("where", ["top", "worktree", "subproject"])
def test_the_files_it_creates_are_not_the_agents_change(
    make_project: Callable[..., Path], capsys: pytest.CaptureFixture[str], where: str
) -> None:
    top = make_project({"pyproject.toml": "[project]\nname = 'p'\n", "libs/calc/setup.cfg": ""})
    root = {"top": top, "subproject": top / "libs" / "calc"}.get(where)
    if root is None:  # a linked worktree: the exclude file is the repository's
        root = top.parent / "linked"
        git(top, "worktree", "add", "-q", str(root))
    exclude = top / ".git" / "info" / "exclude"
    before = exclude.read_bytes() if exclude.exists() else b""
    code, out, err = cli(capsys, "install-claude", "--repo", str(root))
    assert code == 0, err
    assert "added to .git/info/exclude: .mcp.json" in out
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    assert api.working_tree_changes(root) == ()
    # verify_fix's view of the working tree (git add -A into a temporary index)
    assert GitRepo.discover(root).working_tree_patch("HEAD") == b""
    prefix = "" if where != "subproject" else "libs/calc/"
    lines = exclude.read_text(encoding="utf-8").splitlines()
    assert sorted(line for line in lines if not line.startswith("#"))[-3:] == sorted(
        f"/{prefix}{rel}"
        for rel in (".claude/settings.json", ".claude/skills/truegreen/SKILL.md", ".mcp.json")
    )
    # installing again adds nothing; a change of the agent's still shows
    assert cli(capsys, "install-claude", "--repo", str(root))[0] == 0
    assert exclude.read_text(encoding="utf-8").splitlines() == lines
    (root / "new.py").write_text("X = 1\n", encoding="utf-8")
    assert api.working_tree_changes(root) == ("new.py",)
    code, out, _ = cli(capsys, "install-claude", "--repo", str(root), "--uninstall")
    assert code == 0 and "took out of .git/info/exclude: .mcp.json" in out
    assert (exclude.read_bytes() if exclude.exists() else b"") == before


def test_a_merge_into_a_committed_settings_file_is_said_and_is_not_the_agents_change(
    make_project: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(
        {
            "pyproject.toml": "",
            ".claude/settings.json": json.dumps(THEIRS),
            ".mcp.json": json.dumps(THEIR_MCP),
        }
    )
    code, out, err = cli(capsys, "install-claude", "--repo", str(root))
    assert code == 0, err
    assert "note: .claude/settings.json is committed: commit install-claude's change" in out
    assert "note: .mcp.json is committed" in out
    assert api.working_tree_changes(root) == (".claude/settings.json", ".mcp.json")
    assert changed_only_by_install(root, ".claude/settings.json")
    assert changed_only_by_install(root, ".mcp.json")
    # a change of the agent's to it is its change
    settings = _read(root / ".claude" / "settings.json")
    settings["permissions"]["allow"].append("Bash(rm -rf tests)")
    (root / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    assert not changed_only_by_install(root, ".claude/settings.json")
    assert not changed_only_by_install(root, "pyproject.toml")
