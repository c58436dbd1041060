"""truegreen's engine API: what every adapter (CLI, MCP, hooks, Action, service) calls.

Each function takes plain values, does the work through the engine's layers, and returns
Python objects or JSON documents. None of them prints, reads arguments or exits.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truegreen import __version__, canonical
from truegreen.errors import UsageError
from truegreen.exam.bundle import export_bundle
from truegreen.exam.issue_report import BugReport
from truegreen.exam.receipt import make_receipt, write_receipt
from truegreen.exam.store import Ledger, StoredExam
from truegreen.model.exam import Exam
from truegreen.project import Project
from truegreen.repo.git import GitRepo
from truegreen.report.markdown import render as render_markdown
from truegreen.seal import seal
from truegreen.verify import pipeline

Notify = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass(frozen=True)
class Sealed:
    exam: Exam
    created: bool
    seq: int
    entry_hash: str
    bundle_path: Path | None = None
    #: git-ignored files the worktree got from the checkout (truegreen.carry)
    carried: tuple[str, ...] = ()
    #: the configuration's carry entries that matched no git-ignored file
    carry_unmatched: tuple[str, ...] = ()


def seal_exam(
    project: Project,
    test_id: str,
    *,
    rev: str = "HEAD",
    test_file: Path | None = None,
    runs: int = 3,
    hidden: bool = False,
    issue: str | None = None,
    report: BugReport | None = None,
    db_url: str | None = None,
    export_dir: Path | None = None,
) -> Sealed:
    """Seal ``test_id`` at ``rev`` and store it in the ledger (see :mod:`truegreen.seal`).

    ``report``: the bug report the exam is for (:func:`truegreen.exam.issue_report.read_report`);
    its sha256 and title are recorded with the exam, and the issue number its title names
    when ``issue`` is not given."""
    if issue is None and report is not None and report.issue is not None:
        issue = str(report.issue)
    fields = seal(
        project, test_id, rev=rev, test_file=test_file, runs=runs, hidden=hidden, issue=issue
    )
    carried, unmatched = fields.pop("carried"), fields.pop("carry_unmatched")
    exam = Exam.create(**fields, issue_report=report.record() if report else None)
    with Ledger(db_url) as ledger:
        stored: StoredExam = ledger.add_exam(exam)
        bundle_path = None
        if export_dir is not None:
            bundle = export_bundle(ledger, [exam.id])
            export_dir.mkdir(parents=True, exist_ok=True)
            bundle_path = export_dir / f"{exam.id}.json"
            bundle_path.write_text(canonical.pretty(bundle), encoding="utf-8")
    return Sealed(
        stored.exam,
        stored.created,
        stored.entry.seq,
        stored.entry.entry_hash,
        bundle_path,
        tuple(carried),
        tuple(unmatched),
    )


def load_exams(ledger: Ledger, git: GitRepo, refs: Sequence[str]) -> list[Exam]:
    """The exams ``refs`` names (every hash re-checked), or every exam of this repository."""
    identity = git.identity()
    if refs:
        exams = [ledger.get_exam(ref) for ref in refs]
        for exam in exams:
            if exam.repo != identity:
                raise UsageError(
                    f"exam {exam.id} was sealed for another repository",
                    hint="verify it in the repository it was sealed in (or import it there)",
                )
        return exams
    summaries = ledger.list_exams(repo=identity)
    if not summaries:
        raise UsageError(
            "no exam is sealed for this repository",
            hint="seal one first: truegreen seal TEST_ID (or import a bundle with truegreen exams import)",
        )
    return [ledger.get_exam(s.id) for s in summaries]


def verify_fix(
    project: Project,
    *,
    base: str,
    head: str | None = None,
    patch: bytes | None = None,
    exam_refs: Sequence[str] = (),
    runs: int = 3,
    strength: bool = True,
    db_url: str | None = None,
    report_dir: Path | None = None,
    notify: Notify = _quiet,
) -> dict[str, Any]:
    """Grade a claimed fix; the ``truegreen.verification/1`` document with its receipt.

    The verification is recorded in the ledger; ``report_dir`` gets verification.json,
    report.md and receipt.json.
    """
    git = project.need_git()
    if head is None and patch is None:
        raise UsageError("pass --head REV or --patch FILE")
    if head is not None and patch is not None:
        raise UsageError("pass either --head or --patch, not both")
    with Ledger(db_url) as ledger:
        exams = load_exams(ledger, git, exam_refs)
    opts = pipeline.VerifyOptions(base=base, head=head, patch=patch, runs=runs, strength=strength)
    doc = pipeline.verify(project, exams, opts, notify=notify)
    inputs = {
        "repo": git.identity(),
        "base": doc["base"],
        "head": doc["head"],
        "patch_sha256": doc["patch_sha256"],
        "exams": [{"id": e.id, "sha256": canonical.digest(e.to_json())} for e in exams],
        "runs": runs,
        "settings": _settings_json(project, git, doc["base"]),
        "environment": project.interpreter.fingerprint(),
        "sandbox": project.sandbox,
        "truegreen": __version__,
    }
    # a copy: the document gets the receipt's hash below, the receipt holds it as it was
    receipt = make_receipt(inputs, copy.deepcopy(doc))
    doc["receipt"] = {"sha256": receipt["sha256"]}
    with Ledger(db_url) as ledger:
        ledger.record_verification(doc)
    if report_dir is not None:
        write_report(report_dir, doc, receipt)
    return doc


def _settings_json(project: Project, git: GitRepo, base: str) -> dict[str, Any]:
    s = pipeline.graded_settings(git, base)
    return {
        "tests": list(s.tests),
        "ignore": list(s.ignore),
        "pytest-args": list(s.pytest_args),
        "always-run": list(s.always_run),
        "suite-timeout": s.suite_timeout,
        "carry": list(s.carry),
    }


def write_report(report_dir: Path, doc: dict[str, Any], receipt: dict[str, Any]) -> None:
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "verification.json").write_text(canonical.pretty(doc), encoding="utf-8")
    (report_dir / "report.md").write_text(render_markdown(doc), encoding="utf-8")
    write_receipt(report_dir / "receipt.json", receipt)


def exam_strength(
    project: Project,
    *,
    base: str,
    head: str,
    exam_refs: Sequence[str],
    db_url: str | None = None,
    notify: Notify = _quiet,
) -> dict[str, Any]:
    """``truegreen strength``: mutants of the changed lines, and how many the exams kill."""
    git = project.need_git()
    with Ledger(db_url) as ledger:
        exams = load_exams(ledger, git, exam_refs)
    return pipeline.measure_strength(project, exams, base, head, notify=notify)
