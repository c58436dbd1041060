"""``truegreen demo``: seal an exam and verify seven candidate fixes, offline."""

from __future__ import annotations

import time
from pathlib import Path

import click

from truegreen.cli._app import app, call, err, out, sandbox_option


@app.command("demo")
@sandbox_option
@click.option("--keep", is_flag=True, help="Keep the demo repository and ledger.")
@click.option(
    "--workdir",
    type=click.Path(path_type=Path),
    default=None,
    help="Build the demo here instead of a temp dir.",
)
def demo(sandbox: str | None, keep: bool, workdir: Path | None) -> None:
    """The whole loop on a bundled example project: seal the exam, verify every candidate fix."""
    from rich.table import Table

    from truegreen.api import VERIFIED_MEANS, DemoRequest, Event
    from truegreen.api import demo as run_demo

    def said(event: Event) -> None:
        # the demo's own steps (the seal's and verifications' progress stays quiet)
        if event.operation == "demo" and event.message is not None:
            err.print(f"  {event.message}", markup=False)

    start = time.monotonic()
    out.print("[bold]invoicekit, bug #42:[/] ordering exactly 10 units gives no bulk discount.")
    request = DemoRequest(sandbox=sandbox, keep=keep, workdir=workdir)
    result = run_demo(request, **call(said))
    out.print(f"sealed exam {result.exam_id}: fails on the base as", markup=False)
    out.print(f"  {result.signature}", markup=False)
    table = Table(title="candidate fixes, verified against the sealed exam", show_lines=False)
    table.add_column("candidate (what it does)", ratio=1)
    table.add_column("verdict", no_wrap=True)
    table.add_column("decision", no_wrap=True)
    table.add_column("why", no_wrap=True)
    for row in result.rows:
        doc = row.doc
        codes = sorted({r["code"] for r in doc["reasons"] if not r["code"].startswith("strength.")})
        s = doc.get("strength")
        why = "\n".join(codes) or (
            f"exam strength {s['label']} ({s['killed']}/{s['mutants']})" if s else "all layers pass"
        )
        color = {"approve": "green", "reject": "red", "escalate": "yellow"}[doc["decision"]]
        table.add_row(
            f"{row.branch}\n[dim]{row.title}[/]",
            doc["verdict"],
            f"[{color}]{doc['decision']}[/]",
            why,
        )
    out.print(table)
    unexpected = [r.branch for r in result.rows if not r.as_expected]
    out.print(f"({VERIFIED_MEANS})", markup=False)
    out.print(f"done in {time.monotonic() - start:.0f} s", markup=False)
    if keep:
        out.print(f"kept: {result.repo}", markup=False)
    if unexpected:
        err.print(
            f"truegreen: the demo did not go as designed for: {', '.join(unexpected)}", markup=False
        )
        raise SystemExit(1)
