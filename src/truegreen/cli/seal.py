"""``truegreen seal``: seal a failing test for a bug before anyone fixes it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from truegreen.cli._app import (
    DbOpt,
    JsonOpt,
    PythonOpt,
    RepoOpt,
    SandboxOpt,
    app,
    emit_json,
    err,
    out,
)


@app.command("seal")
def seal_command(
    test_id: Annotated[
        str | None, typer.Argument(help="The failing test's pytest node id.")
    ] = None,
    repo: RepoOpt = Path("."),
    python: PythonOpt = None,
    sandbox: SandboxOpt = None,
    rev: Annotated[str, typer.Option("--rev", help="The revision the test must fail at.")] = "HEAD",
    test_file: Annotated[
        Path | None,
        typer.Option("--test-file", help="The exam's content, placed at the path TEST_ID names."),
    ] = None,
    issue: Annotated[str | None, typer.Option("--issue", help="The issue the exam is for.")] = None,
    issue_file: Annotated[
        Path | None, typer.Option("--issue-file", help="A bug report to write the exam from.")
    ] = None,
    runs: Annotated[int, typer.Option("--runs", min=1, help="How many times it must fail.")] = 3,
    hidden: Annotated[
        bool, typer.Option("--hidden", help="Hide the exam's content from fixers.")
    ] = False,
    export: Annotated[
        Path | None, typer.Option("--export", help="Also write a bundle to DIR.")
    ] = None,
    db: DbOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run the test N times at REV; store it, hashed, in the ledger when it fails every time the same way."""
    from truegreen.api import seal_exam
    from truegreen.project import open_project
    from truegreen.seal import SealRefused

    if test_id is None:
        if issue_file is not None:
            raise typer.BadParameter(
                "writing an exam from a bug report is not available in this version; "
                "write the failing test and pass TEST_ID --test-file FILE",
                param_hint="--issue-file",
            )
        raise typer.BadParameter(
            "pass the failing test's node id (e.g. tests/test_x.py::test_y)", param_hint="TEST_ID"
        )
    project = open_project(
        repo, python, sandbox, need_git=True, notify=lambda m: err.print(m, markup=False)
    )
    err.print(f"sealing {test_id}: {runs} run(s) at {rev} in a disposable worktree", markup=False)
    try:
        sealed = seal_exam(
            project,
            test_id,
            rev=rev,
            test_file=test_file,
            runs=runs,
            hidden=hidden,
            issue=issue,
            db_url=db,
            export_dir=export,
        )
    except SealRefused as exc:
        err.print(f"truegreen: error: {exc}", markup=False)
        for line in exc.evidence:
            err.print(f"  | {line}", markup=False)
        raise typer.Exit(2) from None
    exam = sealed.exam
    if json_out:
        emit_json(exam.to_json())
        return
    verb = "sealed" if sealed.created else "already sealed"
    out.print(f"[green]{verb}[/] {exam.id}", end="  ")
    out.print(f"{exam.test}", markup=False)
    out.print(
        f"  fails at {exam.rev[:12]} in {len(exam.runs)} of {len(exam.runs)} runs as", markup=False
    )
    out.print(f"  {exam.signature}", markup=False)
    out.print(f"  files: {', '.join(f.path for f in exam.files)}", markup=False)
    out.print(f"  ledger entry #{sealed.seq}  {sealed.entry_hash[:16]}", markup=False)
    if sealed.bundle_path is not None:
        out.print(f"  bundle: {sealed.bundle_path}", markup=False)
    out.print(
        f"next: truegreen verify --base {exam.rev[:12]} --head <fix> --exam {exam.id}", markup=False
    )
