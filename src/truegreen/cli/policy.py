"""``truegreen policy explain`` and ``truegreen policy check``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import click

from truegreen.cli._app import app, emit_json, json_option, out, repo_option

rev_option = click.option(
    "--rev",
    default=None,
    help="Read the configuration at this revision, as verify reads the base's "
    "(default: the files on disk).",
)


@app.group("policy", no_args_is_help=True)
def policy_app() -> None:
    """The policy that decides approve / reject / escalate ([tool.truegreen.policy])."""


def _where(doc: dict[str, Any]) -> str:
    files = ", ".join(doc["files"]) or "no configuration file"
    at = f"at {doc['rev'][:12]}" if doc["rev"] else "on disk"
    return f"{doc['repo']}: {files} {at}"


@policy_app.command("explain")
@repo_option
@rev_option
@json_option
def explain_command(repo: Path, rev: str | None, json_out: bool) -> None:
    """The effective policy, where each value came from, and every rule."""
    from truegreen.api import PolicyRequest, policy_explain

    doc = policy_explain(PolicyRequest(repo=repo, rev=rev)).to_json()
    if json_out:
        emit_json(doc)
        return
    out.print(f"policy of {_where(doc)}", markup=False)
    width = max(len(s["key"]) for s in doc["settings"])
    for s in doc["settings"]:
        value = json.dumps(s["value"])
        if len(value) <= 60:
            out.print(f"  {s['key']:<{width}} = {value}  ({s['source']})", markup=False)
            continue
        # a long list: its items wrapped below the key, every one shown
        out.print(f"  {s['key']:<{width}} =  ({s['source']})", markup=False)
        for line in textwrap.wrap(", ".join(s["value"]), 88, break_on_hyphens=False):
            out.print(f"      {line}", markup=False)
    out.print("rules (each appears in reasons as its id):", markup=False)
    for r in doc["rules"]:
        out.print(f"  {r['id']} -> {r['decision']}: {r['what']}", markup=False)
    out.print("fixed (no setting changes these):", markup=False)
    for line in doc["fixed"]:
        out.print(f"  - {line}", markup=False)


@policy_app.command("check")
@repo_option
@rev_option
@click.option(
    "--file",
    type=click.Path(path_type=Path),
    default=None,
    help="Check this pyproject.toml or truegreen.toml instead of the repository's.",
)
@json_option
def check_command(repo: Path, rev: str | None, file: Path | None, json_out: bool) -> None:
    """Validate the policy configuration (exit 0 when valid, 2 with the problem when not)."""
    from truegreen.api import PolicyRequest, policy_explain

    doc = policy_explain(PolicyRequest(repo=repo, rev=rev, file=file)).to_json()
    if json_out:
        emit_json(doc)
        return
    configured = [s["key"] for s in doc["settings"] if s["source"] != "default"]
    what = ", ".join(configured) if configured else "nothing configured: the default policy"
    where = str(file) if file is not None else _where(doc)
    out.print(f"ok: {where}: {what}", markup=False)
