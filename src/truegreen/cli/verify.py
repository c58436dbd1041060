"""``truegreen verify``: grade any claimed fix against the sealed exams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from truegreen.cli._app import (
    app,
    call,
    db_option,
    emit_json,
    err,
    fail,
    given,
    grading_options,
    json_option,
    out,
    project_options,
)

EXIT = {"approve": 0, "reject": 1, "escalate": 3}
COLORS = {"verified": "green", "refuted": "red", "inconclusive": "yellow"}


def print_verification(doc: dict[str, Any]) -> None:
    from truegreen.api import VERIFIED_MEANS, compared_tests, selection_text, shown_layers

    color = COLORS.get(doc["verdict"], "white")
    out.print(f"[bold {color}]{doc['verdict'].upper()}[/] -> {doc['decision']}")
    out.print(f"  base {doc['base'][:12]}  head {doc['head'][:12]}", markup=False)
    for e in doc["exams"]:
        out.print(
            f"  exam {e['id']} {e['test']}: base {e['base']['outcome']} x{e['base']['runs']}, "
            f"head {e['head']['outcome']} x{e['head']['runs']}",
            markup=False,
        )
    out.print("  layers: " + ", ".join(f"{k} {v}" for k, v in shown_layers(doc)), markup=False)
    reg = doc.get("regression")
    if reg:
        out.print(f"  regression: {compared_tests(reg)}", markup=False)
        selected = selection_text(reg)
        if selected:
            out.print(f"    {selected}", markup=False)
    s = doc.get("strength")
    if s:
        out.print(
            f"  strength: {s['label']} ({s['killed']}/{s['mutants']} mutants of the changed lines killed)",
            markup=False,
        )
    else:  # said, not left out: a missing line reads like nothing to worry about
        out.print(
            "  strength: not measured (--no-strength, no mutant of a changed line of non-test "
            "code could be made, or the exam did not pass on the head)",
            markup=False,
        )
    for r in doc["reasons"]:
        where = (
            f" {r['file']}" + (f":{r['line']}" if r.get("line") else "") if r.get("file") else ""
        )
        out.print(f"  - {r['code']}{where}: {r['detail']}", markup=False)
    for note in doc.get("notes", []):
        out.print(f"  note: {note}", markup=False)
    if doc["decision"] == "escalate" and doc["verdict"] == "verified":
        out.print(
            "  escalated by the policy: the evidence passes, and a person reads the reasons "
            "before it is approved (truegreen policy explain)",
            markup=False,
        )
    elif doc["decision"] == "escalate":
        out.print(
            "  escalated: the evidence does not settle it either way; a person reads the reasons",
            markup=False,
        )
    out.print(f"  receipt sha256 {doc['receipt']['sha256']}", markup=False)
    out.print(f"  ({VERIFIED_MEANS})", markup=False)


@app.command("verify")
@click.argument("pull_request", metavar="[OWNER/REPO#N]", required=False)
@click.option(
    "--post",
    is_flag=True,
    help="With OWNER/REPO#N: write the report to the pull request (comment, check run, "
    "label) through the write gate.",
)
@click.option("--base", default=None, help="The revision the exam fails on.")
@click.option("--head", default=None, help="The revision with the claimed fix.")
@click.option(
    "--patch",
    type=click.Path(path_type=Path),
    default=None,
    help="A patch instead of a head revision.",
)
@click.option(
    "--exam",
    multiple=True,
    help="Exam id (repeatable; default: all of this repository's).",
)
@grading_options
@project_options
@db_option
@json_option
def verify_command(
    pull_request: str | None,
    post: bool,
    base: str | None,
    head: str | None,
    patch: Path | None,
    exam: tuple[str, ...],
    runs: int,
    no_strength: bool,
    regression: str | None,
    report: Path | None,
    repo: Path,
    python: str | None,
    sandbox: str | None,
    db: str | None,
    json_out: bool,
) -> None:
    """Grade a claimed fix against the sealed exams (exit 0 approve, 1 reject, 3 escalate, 2 error).

    With OWNER/REPO#N: fetch the pull request (a clone made or reused in the cache) and
    verify it against the exams its base holds for the issues it fixes, as the Action would.
    """
    from truegreen.api import VerifyRequest, verify

    if pull_request is not None:
        named = [n for n, v in (("--base", base), ("--head", head), ("--patch", patch)) if v]
        if named or exam:
            fail(
                f"{', '.join(named + (['--exam'] if exam else []))} cannot be given with a pull request",
                "the pull request names its base, head and exams",
            )
        verify_pull_command(
            pull_request, post, runs, no_strength, regression, report, python, sandbox, db, json_out
        )
    if post:
        fail("--post needs a pull request (OWNER/REPO#N)", "name the pull request to post to")

    patch_bytes: bytes | None = None
    if patch is not None:
        if not patch.is_file():
            fail(
                f"--patch {str(patch)!r} does not exist or is not a file",
                "pass the path of a unified diff",
            )
        patch_bytes = patch.read_bytes()
    request = VerifyRequest(
        repo=repo,
        python=python,
        sandbox=sandbox,
        db=db,
        base=base,
        head=head,
        patch=patch_bytes,
        exams=exam,
        runs=runs,
        strength=not no_strength,
        **given(regression=regression),
        report_dir=report,
    )
    doc = verify(request, **call()).to_json()
    if json_out:
        emit_json(doc)
    else:
        print_verification(doc)
        if report is not None:
            out.print(
                f"  report: {report / 'report.html'} (and report.md, receipt.json)", markup=False
            )
    raise SystemExit(EXIT[doc["decision"]])


@app.command("strength")
@click.option("--exam", multiple=True, required=True, help="Exam id (repeatable).")
@click.option("--base", required=True, help="The base revision.")
@click.option("--head", required=True, help="The revision with the fix.")
@project_options
@db_option
@json_option
def strength_command(
    exam: tuple[str, ...],
    base: str,
    head: str,
    repo: Path,
    python: str | None,
    sandbox: str | None,
    db: str | None,
    json_out: bool,
) -> None:
    """How strong the exam is: mutate the lines the fix changed and count the mutants it kills."""
    from truegreen.api import StrengthRequest
    from truegreen.api import strength as measure

    request = StrengthRequest(
        repo=repo, python=python, sandbox=sandbox, db=db, exams=exam, base=base, head=head
    )
    doc = measure(request, **call()).to_json()
    if json_out:
        emit_json(doc)
        return
    s = doc["strength"]
    if doc["not_passing_at_head"]:
        out.print(
            "the exam does not pass on the head, so its strength there means nothing: "
            + ", ".join(doc["not_passing_at_head"]),
            markup=False,
        )
    elif s is None:
        out.print(
            "no mutant could be made: the change has no mutable line of non-test code", markup=False
        )
    else:
        out.print(
            f"{s['label']}: the exam killed {s['killed']} of {s['mutants']} mutants of the changed lines",
            markup=False,
        )
        for m in s["survivors"]:
            out.print(f"  survived: {m['file']}:{m['line']} {m['mutation']}", markup=False)


def verify_pull_command(
    target: str,
    post: bool,
    runs: int,
    no_strength: bool,
    regression: str | None,
    report: Path | None,
    python: str | None,
    sandbox: str | None,
    db: str | None,
    json_out: bool,
) -> None:
    """``verify OWNER/REPO#N``: the report on stdout (Markdown, or ``--json``), exit with
    the decision."""
    from truegreen.api import PullVerifyRequest, verify_pull

    request = PullVerifyRequest(
        target=target,
        post=post,
        python=python,
        sandbox=sandbox,
        db=db,
        runs=runs,
        strength=not no_strength,
        **given(regression=regression),
        report_dir=report,
    )
    result = verify_pull(request, **call(), log=lambda line: err.print(line, markup=False))
    if json_out:
        emit_json(result.to_json())
    else:
        out.print(result.summary, markup=False, end="")
    raise SystemExit(result.exit_code)
