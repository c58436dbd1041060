"""``truegreen flaky [TEST_ID...]``: a quick check a maintainer can run for flaky and
order-dependent tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from truegreen.cli._app import app, call, emit_json, json_option, out, project_options


@app.command("flaky")
@click.argument("test_ids", nargs=-1, metavar="[TEST_ID...]")
@project_options
@click.option(
    "--repeat",
    type=click.IntRange(min=2),
    default=5,
    show_default=True,
    help="Run the tests N times.",
)
@click.option("--timeout", type=float, default=None, help="Seconds for one run.")
@json_option
def flaky(
    test_ids: tuple[str, ...],
    repo: Path,
    python: str | None,
    sandbox: str | None,
    repeat: int,
    timeout: float | None,
    json_out: bool,
) -> None:
    """Find tests whose outcome flips across repeats, or depends on what runs with them.

    TEST_ID... are pytest node ids or paths (default: the suite, as verify runs it). The
    tests run N times, then once in the reverse order; a test that kept its outcome but
    changed it in reverse, or that always failed, runs alone and with its module too.

    \b
    Exit status:
      0  no flaky or order-dependent test found
      1  some found (listed, with their outcomes)
      2  an error: bad input, or no test ran"""
    from truegreen.api import FlakyRequest
    from truegreen.api import flaky as check

    request = FlakyRequest(
        repo=repo, python=python, sandbox=sandbox, test_ids=test_ids, repeat=repeat, timeout=timeout
    )
    doc = check(request, **call()).to_json()
    if json_out:
        emit_json(doc)
    else:
        show(doc)
    if doc["flaky"] or doc["order_dependent"]:
        raise SystemExit(1)


def show(doc: dict[str, Any]) -> None:
    for t in doc["tests"]:
        label = "FLAKY" if t["kind"] == "flaky" else "ORDER"
        out.print(f"[yellow]{label:6}[/] ", end="")
        out.print(f"{t['id']}: {t['detail']}", markup=False)
    for c in doc["collection_errors"]:
        out.print(f"[red]collection error[/] in {c['nodeid'] or 'the session'}", markup=True)
    out.print(
        f"{doc['tests_run']} tests, {doc['repeat']} runs and one in reverse order: "
        f"{len(doc['flaky'])} flaky, {len(doc['order_dependent'])} order-dependent, "
        f"{doc['stable']} stable",
        markup=False,
    )
    if doc["unchecked"]:
        out.print(
            f"not run alone (beyond the limit): {len(doc['unchecked'])} test(s) that failed "
            "every time or changed in reverse order; name them to check them",
            markup=False,
        )
    if not doc["complete"]:
        out.print("a run did not finish: the outcomes are incomplete", markup=False)
