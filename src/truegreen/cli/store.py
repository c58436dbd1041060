"""``truegreen exams ...``, ``truegreen ledger verify`` and ``truegreen receipt verify``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from truegreen import canonical
from truegreen.cli._app import app, db_option, emit_json, err, fail, json_option, out


@app.group("exams", no_args_is_help=True)
def exams_app() -> None:
    """Sealed exams: list, show, export and import them."""


@app.group("ledger", no_args_is_help=True)
def ledger_app() -> None:
    """The append-only, hash-chained ledger."""


@app.group("receipt", no_args_is_help=True)
def receipt_app() -> None:
    """Receipts of verifications."""


repo_id_option = click.option(
    "--repo-id", default=None, help="Only the exams of this repository identity (see `exams show`)."
)


repo_path_option = click.option(
    "--repo",
    type=click.Path(path_type=Path),
    default=None,
    help="Only the exams of the repository (or monorepo package) at this path; "
    "`--repo .` for the one here.",
)


@exams_app.command("list")
@repo_id_option
@repo_path_option
@db_option
@json_option
def exams_list(repo_id: str | None, repo: Path | None, db: str | None, json_out: bool) -> None:
    """The sealed exams in the ledger, oldest first (all of them unless filtered)."""
    from truegreen.api import ExamsListRequest, UsageError, list_exams, repo_identity

    listing = list_exams(ExamsListRequest(repo_id=repo_id, repo=repo, db=db))
    if json_out:
        emit_json(listing.to_json())
        return
    exams = listing.exams.exams
    repo_id = listing.repo_id
    if not exams:
        which = f"for {repo} " if repo is not None else f"for {repo_id} " if repo_id else ""
        err.print(
            f"no exams {which}in {listing.ledger}; seal one with `truegreen seal TEST_ID`",
            markup=False,
        )
        return
    for e in exams:
        flags = " (hidden)" if e.hidden else ""
        issue = f"  issue {e.issue}" if e.issue else ""
        out.print(f"{e.id}  {e.test}  {e.repo}@{e.rev[:12]}{issue}{flags}", markup=False)
    if repo_id is None and len({e.repo for e in exams}) > 1:
        # all repositories' exams: say how many are this one's, and how to see only those
        try:
            here = repo_identity(Path.cwd())
        except (UsageError, OSError):
            return
        mine = sum(e.repo == here for e in exams)
        if mine:
            err.print(
                f"{mine} of these {len(exams)} exams belong to the repository here; "
                "`truegreen exams list --repo .` lists only those",
                markup=False,
            )


#: how a hidden exam's content can be checked without being shown
HIDDEN_CHECK = "to check a copy of a file, compare its sha256 (sha256sum FILE) with the exam's"


def hidden_bundle_note(bundle: dict[str, Any], where: str) -> None:
    """Say on stderr that a bundle holds hidden exams, and in what form."""
    hidden = bundle.get("hidden_exams") or []
    if hidden:
        err.print(
            f"note: {where} holds {len(hidden)} hidden exam(s) ({', '.join(hidden)}): their "
            "files are base64-encoded under hidden_content_base64, not encrypted; keep it "
            "from whoever writes the fix",
            markup=False,
        )


@exams_app.command("show")
@click.argument("exam_id", metavar="ID")
@click.option(
    "--content", is_flag=True, help="Print the files' content too (never a hidden exam's)."
)
@db_option
@json_option
def exams_show(exam_id: str, content: bool, db: str | None, json_out: bool) -> None:
    """One exam, its hashes re-checked (prints the truegreen.exam/1 document with --json;
    a hidden exam's files without their content).

    ID is an exam id or a unique prefix of one."""
    from truegreen.api import ExamShowRequest, show_exam

    stored = show_exam(ExamShowRequest(exam=exam_id, db=db))
    exam = stored.exam
    if content and exam.hidden:
        fail(
            f"exam {exam.id} is hidden (sealed with --hidden): its content is never shown",
            f"{HIDDEN_CHECK} (`truegreen exams show {exam.id}` lists them)",
        )
    if json_out:
        emit_json(stored.to_json())
        return
    env = exam.environment
    lines = [
        f"exam {exam.id}  (ledger entry {stored.seq}, hashes checked)",
        f"  test:        {exam.test}",
        f"  repo:        {exam.repo}",
        f"  rev:         {exam.rev}",
        f"  signature:   {exam.signature}",
        f"  runs:        {', '.join(r.outcome for r in exam.runs)}",
        f"  hidden:      {'yes' if exam.hidden else 'no'}",
        f"  issue:       {exam.issue if exam.issue is not None else '-'}",
        *(
            [f"  report:      {exam.issue_report.title} (sha256 {exam.issue_report.sha256})"]
            if exam.issue_report is not None
            else []
        ),
        f"  command:     {shlex.join(exam.command)}",
        f"  environment: Python {env.python}, pytest {env.pytest}, {env.interpreter}, "
        f"distributions {env.distributions_sha256[:12]}",
        "  files:",
    ]
    if exam.hidden:  # the whole hash: what a copy of the content is checked against
        lines += [f"    {f.sha256}  {f.path}" for f in exam.files]
        lines.append(f"  content:     hidden, never shown; {HIDDEN_CHECK} above")
    else:
        lines += [f"    {f.sha256[:12]}  {f.path}" for f in exam.files]
    for line in lines:
        out.print(line, markup=False)
    if content:
        for f in exam.files:
            out.print(f"\n--- {f.path} (sha256 {f.sha256})", markup=False)
            out.print(f.content, markup=False, end="" if f.content.endswith("\n") else "\n")


@exams_app.command("export")
@click.argument("exam_ids", nargs=-1, metavar="[ID]...")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the bundle here (default: stdout).",
)
@repo_id_option
@repo_path_option
@db_option
def exams_export(
    exam_ids: tuple[str, ...],
    output: Path | None,
    repo_id: str | None,
    repo: Path | None,
    db: str | None,
) -> None:
    """A portable JSON bundle of exams (truegreen.exam-bundle/1), to import elsewhere.

    ID... are the exams to export (default: all, or all of --repo / --repo-id)."""
    from truegreen.api import ExamsExportRequest, export_exams

    request = ExamsExportRequest(exams=exam_ids, repo_id=repo_id, repo=repo, db=db)
    bundle = export_exams(request).to_json()
    text = canonical.pretty(bundle)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        hidden_bundle_note(bundle, "the bundle")
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror}", "choose a writable path")
    err.print(f"exported {len(bundle['exams'])} exam(s) to {output}", markup=False)
    hidden_bundle_note(bundle, str(output))


@exams_app.command("import")
@click.argument("file", metavar="FILE")
@db_option
@json_option
def exams_import(file: str, db: str | None, json_out: bool) -> None:
    """Import a bundle: every exam re-checked first; a tampered bundle imports nothing.

    FILE is a bundle from `exams export` (- for stdin)."""
    from truegreen.api import ExamsImportRequest, import_exams

    if file == "-":
        request = ExamsImportRequest(text=sys.stdin.read(), source="stdin", db=db)
    else:
        request = ExamsImportRequest(file=Path(file), db=db)
    imported = import_exams(request)
    if json_out:
        emit_json(imported.to_json())
        return
    if not imported.exams:
        err.print("the bundle holds no exams; nothing imported", markup=False)
    for r in imported.exams:
        created = r.status == "imported"
        where = f"ledger entry {r.seq}" if created else f"already in ledger entry {r.seq}"
        out.print(f"{r.status:15}  {r.id}  {r.test}  ({where})", markup=False)


@ledger_app.command("verify")
@click.option(
    "--restore-guards",
    is_flag=True,
    help="Re-create the append-only triggers if they were dropped, then verify.",
)
@click.option(
    "--expect-head",
    default=None,
    metavar="SEQ:HASH",
    help="A head printed by an earlier `ledger verify`: catches a cut-off or rewritten end.",
)
@db_option
@json_option
def ledger_verify(
    restore_guards: bool, expect_head: str | None, db: str | None, json_out: bool
) -> None:
    """Recompute the hash chain; exit 0 when intact, 2 naming the first bad entry."""
    from truegreen.api import LedgerVerifyRequest, verify_ledger

    request = LedgerVerifyRequest(restore_guards=restore_guards, expect_head=expect_head, db=db)
    checked = verify_ledger(request)
    report = checked.report
    if json_out:
        emit_json(report.to_json())
    if report.ok:
        if not json_out:
            out.print(report.message, markup=False)
        return
    if report.first_bad is not None:
        fail(
            f"{report.message} (in {checked.ledger})",
            "do not trust exams or verifications from that entry on; "
            "restore the database from a backup, or re-import exams from a bundle you trust",
        )
    fail(
        f"{report.message} (in {checked.ledger})",
        "find out who removed them; `truegreen ledger verify --restore-guards` puts them back",
    )


@receipt_app.command("verify")
@click.argument("file", type=click.Path(path_type=Path), metavar="FILE")
@json_option
def receipt_verify(file: Path, json_out: bool) -> None:
    """Re-hash one receipt: exit 0 when it matches its sha256, 2 when it does not.

    FILE is a receipt.json."""
    from truegreen.api import ReceiptVerifyRequest, verify_receipt

    check = verify_receipt(ReceiptVerifyRequest(file=file))
    if json_out:
        emit_json(check.to_json())
    if not check.ok:
        fail(check.message, "the receipt was changed after it was written: do not trust it")
    if not json_out:
        out.print(check.message, markup=False)
