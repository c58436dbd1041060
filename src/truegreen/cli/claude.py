"""``truegreen install-claude``: Claude Code hooks, a skill and .mcp.json in a project."""

from __future__ import annotations

from pathlib import Path

import click

from truegreen.cli._app import app, emit_json, fail, json_option, out, repo_option


@app.command("install-claude")
@repo_option
@click.option(
    "--python",
    default=None,
    help="The project's interpreter the hooks and the MCP server run its tests with "
    "(recorded in their commands; default: .venv/bin/python in the project when there is "
    "one, else truegreen's own). A pytest command that names its interpreter "
    "(venv/bin/python -m pytest) is rerun with that one.",
)
@click.option(
    "--uninstall", is_flag=True, help="Remove exactly what install-claude added, nothing else."
)
@json_option
def install_claude(repo: Path, python: str | None, uninstall: bool, json_out: bool) -> None:
    """Write the project's Claude Code hooks (.claude/settings.json, merged into what is
    there), the truegreen skill (.claude/skills/truegreen/SKILL.md) and the MCP server
    (.mcp.json). See docs/agents.md.

    The hooks run on Bash commands that ran pytest (PostToolUse, PostToolUseFailure) and
    on Stop, with this interpreter; they answer within 10 s or say nothing. The files it
    creates go into the repository's .git/info/exclude (local, never committed): they are
    not the agent's change; --uninstall takes them out again."""
    from truegreen.claude.install import install
    from truegreen.claude.install import uninstall as remove

    if not repo.is_dir():
        fail(f"--repo: {str(repo)!r} is not a directory", "give the project's directory")
    if uninstall and python is not None:
        fail("--python: not with --uninstall", "leave it out")
    report = remove(repo) if uninstall else install(repo, python)
    if json_out:
        emit_json(report.to_json())
        return
    for rel in report.written:
        out.print(f"wrote {rel}", markup=False)
    for rel in report.removed:
        out.print(f"removed {rel}", markup=False)
    for rel in report.unchanged:
        out.print(f"unchanged {rel}", markup=False)
    where = ".git/info/exclude"
    for rel in report.excluded:
        verb = "took out of" if uninstall else "added to"
        out.print(f"{verb} {where}: {rel}", markup=False)
    if not uninstall:
        out.print(report.python_note, markup=False)
    for rel in report.tracked:
        out.print(
            f"note: {rel} is committed: commit install-claude's change to it (verify_fix "
            "grades every uncommitted change, this one too; the Stop hook does not count it)",
            markup=False,
        )
