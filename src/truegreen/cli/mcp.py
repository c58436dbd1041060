"""``truegreen mcp``: the MCP server for coding agents, on stdio (the ``mcp`` extra)."""

from __future__ import annotations

from pathlib import Path

from truegreen.cli._app import app, db_option, fail, project_options


@app.command("mcp")
@project_options
@db_option
def mcp(repo: Path, python: str | None, sandbox: str | None, db: str | None) -> None:
    """Serve truegreen's tools to a coding agent over MCP on stdio (see docs/agents.md).

    Its tools work on the one repository --repo names; nothing but the protocol is written
    on stdout, logs go to stderr."""
    try:
        from truegreen.mcp.server import Settings, serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "anyio", "mcp_types"):
            raise
        fail(
            "the MCP server needs the MCP SDK, which is not installed",
            "install truegreen with its mcp extra: pip install 'truegreen[mcp]'",
        )
    if not repo.is_dir():
        fail(f"--repo: {str(repo)!r} is not a directory", "give the path of a git repository")
    serve(Settings(repo=repo.resolve(), python=python, sandbox=sandbox, db=db))
