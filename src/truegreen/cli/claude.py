"""``truegreen install-claude``: Claude Code hooks, a skill and .mcp.json in a project."""

from __future__ import annotations

from pathlib import Path

import click

from truegreen.cli._app import app, emit_json, fail, json_option, out, repo_option


@app.command("install-claude")
@repo_option
@click.option(
    "--uninstall", is_flag=True, help="Remove exactly what install-claude added, nothing else."
)
@json_option
def install_claude(repo: Path, uninstall: bool, json_out: bool) -> None:
    """Write the project's Claude Code hooks (.claude/settings.json, merged into what is
    there), the truegreen skill (.claude/skills/truegreen/SKILL.md) and the MCP server
    (.mcp.json). See docs/agents.md.

    The hooks run on Bash commands that ran pytest (PostToolUse, PostToolUseFailure) and
    on Stop, with this interpreter; they answer within 10 s or say nothing."""
    from truegreen.claude.install import install
    from truegreen.claude.install import uninstall as remove

    if not repo.is_dir():
        fail(f"--repo: {str(repo)!r} is not a directory", "give the project's directory")
    report = remove(repo) if uninstall else install(repo)
    if json_out:
        emit_json(report.to_json())
        return
    for rel in report.written:
        out.print(f"wrote {rel}", markup=False)
    for rel in report.removed:
        out.print(f"removed {rel}", markup=False)
    for rel in report.unchanged:
        out.print(f"unchanged {rel}", markup=False)
