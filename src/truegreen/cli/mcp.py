"""``truegreen mcp``: the MCP server for coding agents, on stdio (the ``mcp`` extra)."""

from __future__ import annotations

from pathlib import Path

from truegreen.cli import _app
from truegreen.cli._app import app, db_option, fail, project_options

#: how long a stopped server waits for its cancelled tool calls to clean up
STOP_GRACE = 60.0


@app.command("mcp")
@project_options
@db_option
def mcp(repo: Path, python: str | None, sandbox: str | None, db: str | None) -> None:
    """Serve truegreen's tools to a coding agent over MCP on stdio (see docs/agents.md).

    Its tools work on the one repository --repo names; nothing but the protocol is written
    on stdout, logs go to stderr."""
    try:
        from truegreen.mcp.server import Settings, cancel_running, serve, wait_idle
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "anyio", "mcp_types"):
            raise
        fail(
            "the MCP server needs the MCP SDK, which is not installed",
            "install truegreen with its mcp extra: pip install 'truegreen[mcp]'",
        )
    if not repo.is_dir():
        fail(f"--repo: {str(repo)!r} is not a directory", "give the path of a git repository")
    # Ctrl-C or SIGTERM (a client or service manager stopping the server) cancels the
    # running tool calls: their processes and worktrees are gone before the server ends
    _app.on_cancel(cancel_running)
    try:
        serve(Settings(repo=repo.resolve(), python=python, sandbox=sandbox, db=db))
    except KeyboardInterrupt:
        # the cancelled calls' threads remove their worktrees: let them finish; then end
        # without waiting for the SDK's reader of stdin, a thread blocked in a read that
        # no signal ends (the client may keep stdin open): see truegreen.cli.main
        wait_idle(STOP_GRACE)
        _app.exit_at_once()
        raise
