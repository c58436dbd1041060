"""truegreen's engine API: the one door every adapter goes through (the CLI, an MCP server,
Claude Code hooks, a GitHub Action, a service's workers).

Every operation takes its request (:mod:`truegreen.model.requests`: JSON in and out,
validated, the command line's defaults) and returns a typed result whose ``to_json()`` is
the operation's JSON document, byte for byte what ``--json`` prints through
:func:`truegreen.canonical.pretty`. None of them prints, reads arguments or exits.

The parts an operation uses can be passed in, keyword-only:

``listener``
    receives the operation's progress as :class:`Event` objects (operation, layer, phase,
    n of total, subject, and the line a person reads), one at a time.
``cancel``
    a :class:`Cancellation` token: ``cancel()`` (from a listener, another thread, a
    signal handler) kills the processes this call started, and only those; the call then
    raises :class:`ExecutionCancelled`. Another call, with its own token, goes on.
``executor``
    what starts processes (:class:`FakeExecutor` in tests); bound to the call's token.
``ledger``
    an open :class:`Ledger` (:func:`open_ledger`); without one the call opens the
    request's ``db`` once, and closes it.
``record``
    ``False`` for a trial (seal, verify): nothing enters the ledger (a fixer's attempts).

Errors the caller can fix are :class:`TruegreenError` s: ``field`` names the request's input
(``"head"``, ``"patch"``, ``"repo"``...), ``message`` says what is wrong without naming a
command-line option, ``hint`` what to do. A rejected fix is a verdict, never an exception.

Anything facing a fixer (an MCP tool, a fix task, a pull request comment) shows exams
through :func:`exam_for_fixer` / :class:`FixerExam`: a hidden exam's content never appears.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from truegreen import __version__, canonical
from truegreen.errors import (
    ConfigError,
    ExecutionCancelled,
    ExecutionError,
    IntegrityError,
    RepoError,
    StoreError,
    TruegreenError,
    UsageError,
)
from truegreen.events import Event, Events, Listener
from truegreen.model.documents import (
    DoctorReport,
    ExamBundle,
    ExamImport,
    ExamList,
    Localization,
    Run,
    StrengthReport,
    Verification,
)
from truegreen.model.exam import Exam
from truegreen.model.requests import (
    DemoRequest,
    DiagnoseRequest,
    DoctorRequest,
    EnvBuildRequest,
    ExamsExportRequest,
    ExamShowRequest,
    ExamsImportRequest,
    ExamsListRequest,
    ExamStatusRequest,
    FixTaskRequest,
    LedgerVerifyRequest,
    LocalizeRequest,
    ProjectRequest,
    ReceiptVerifyRequest,
    Request,
    RunRequest,
    SealRequest,
    StrengthRequest,
    VerificationsQuery,
    VerifyRequest,
)
from truegreen.model.results import (
    Evidence,
    ExamListing,
    ExamState,
    ExamStatus,
    FixerExam,
    FixTask,
    RecordedVerification,
    RunResult,
    SealResult,
    ShownExam,
)
from truegreen.run.executor import Cancellation, Executor, FakeExecutor

if TYPE_CHECKING:
    from truegreen.demo.run import DemoResult, DemoRow
    from truegreen.diagnose.model import Diagnosis
    from truegreen.exam.bundle import HIDDEN_CONTENT
    from truegreen.exam.chain import ChainReport
    from truegreen.exam.receipt import ReceiptCheck
    from truegreen.exam.store import Ledger
    from truegreen.project import Project
    from truegreen.repo.git import GitRepo
    from truegreen.report.markdown import compared_tests, shown_layers
    from truegreen.run.results import exit_meaning
    from truegreen.sandbox.install import EnvBuild
    from truegreen.seal import SealRefused
    from truegreen.verify.verdict import VERIFIED_MEANS

#: re-exported names whose modules are imported when first used: an adapter that only
#: diagnoses a log never loads the ledger's database layer or the verify pipeline
_LAZY = {
    "DemoResult": "truegreen.demo.run",
    "DemoRow": "truegreen.demo.run",
    "Diagnosis": "truegreen.diagnose.model",
    "HIDDEN_CONTENT": "truegreen.exam.bundle",
    "ChainReport": "truegreen.exam.chain",
    "ReceiptCheck": "truegreen.exam.receipt",
    "Ledger": "truegreen.exam.store",
    "compared_tests": "truegreen.report.markdown",
    "shown_layers": "truegreen.report.markdown",
    "exit_meaning": "truegreen.run.results",
    "EnvBuild": "truegreen.sandbox.install",
    "SealRefused": "truegreen.seal",
    "VERIFIED_MEANS": "truegreen.verify.verdict",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "HIDDEN_CONTENT",
    "VERIFIED_MEANS",
    "Cancellation",
    "ChainReport",
    "ConfigError",
    "DemoRequest",
    "DemoResult",
    "DemoRow",
    "DiagnoseRequest",
    "Diagnosis",
    "DoctorReport",
    "DoctorRequest",
    "EnvBuild",
    "EnvBuildRequest",
    "Event",
    "Events",
    "Evidence",
    "Exam",
    "ExamBundle",
    "ExamImport",
    "ExamList",
    "ExamListing",
    "ExamShowRequest",
    "ExamState",
    "ExamStatus",
    "ExamStatusRequest",
    "ExamsExportRequest",
    "ExamsImportRequest",
    "ExamsListRequest",
    "ExecutionCancelled",
    "ExecutionError",
    "Executor",
    "FakeExecutor",
    "FixTask",
    "FixTaskRequest",
    "FixerExam",
    "IntegrityError",
    "Ledger",
    "LedgerChecked",
    "LedgerVerifyRequest",
    "Listener",
    "Localization",
    "LocalizeRequest",
    "ReceiptCheck",
    "ReceiptVerifyRequest",
    "RecordedVerification",
    "RepoError",
    "Request",
    "Run",
    "RunRequest",
    "RunResult",
    "SealRefused",
    "SealRequest",
    "SealResult",
    "ShownExam",
    "StoreError",
    "StrengthReport",
    "StrengthRequest",
    "TruegreenError",
    "UsageError",
    "Verification",
    "VerificationsQuery",
    "VerifyRequest",
    "build_env",
    "compared_tests",
    "demo",
    "diagnose",
    "diagnose_stream",
    "doctor",
    "exam_for_fixer",
    "exam_status",
    "exit_meaning",
    "expand_evidence",
    "export_exams",
    "fix_task",
    "import_exams",
    "list_exams",
    "list_verifications",
    "localize",
    "open_ledger",
    "repo_identity",
    "reproduce",
    "seal",
    "show_exam",
    "shown_layers",
    "strength",
    "verify",
    "verify_ledger",
    "verify_receipt",
    "working_tree_changes",
]


# -- the parts a call uses ------------------------------------------------------------


def open_ledger(db: str | None = None) -> Ledger:
    """The ledger at ``db`` (default: ``$TRUEGREEN_DB``, else SQLite in the data directory),
    to pass as ``ledger=`` to several calls; close it (or use it as a context manager)."""
    from truegreen.exam.store import Ledger

    return Ledger(db)


@contextlib.contextmanager
def _ledger(given: Ledger | None, db: str | None) -> Iterator[Ledger]:
    """The caller's ledger, or one opened for this call (once) and closed after it."""
    if given is not None:
        yield given
        return
    with open_ledger(db) as ledger:
        yield ledger


def _project(
    request: ProjectRequest,
    events: Events,
    cancel: Cancellation | None,
    executor: Executor | None,
    *,
    need_git: bool,
) -> Project:
    from truegreen.project import open_project

    return open_project(
        request.repo,
        request.python,
        request.sandbox,
        need_git=need_git,
        executor=executor,
        cancel=cancel,
        events=events,
    )


def repo_identity(path: Path | str) -> str:
    """The identity of the repository at ``path`` (what exams and ``repo_id`` name it by)."""
    from truegreen.repo.git import GitRepo

    return GitRepo.discover(path).identity()


# -- seal, verify, strength -------------------------------------------------------------


def seal(
    request: SealRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
    record: bool = True,
) -> SealResult:
    """Run ``request.test_id`` N times at a revision (:mod:`truegreen.seal`); when it fails
    every time the same way, seal it as an exam and store it in the ledger (unless
    ``record`` is False: a trial). A test that cannot be an exam raises
    :class:`SealRefused` (its ``evidence``: the runs' lines)."""
    if not record and request.export is not None:
        raise UsageError(
            "a trial seal is not recorded, so there is no exam in the ledger to export",
            hint="seal it for good (record it), or leave out the export",
            field="export",
        )
    from truegreen.exam.bundle import export_bundle
    from truegreen.exam.issue_report import read_report
    from truegreen.seal import seal as seal_runs

    events = Events("seal", listener)
    # the report is read first: a bad file is said before anything runs
    report = read_report(request.issue_file) if request.issue_file is not None else None
    issue = request.issue
    if issue is None and report is not None and report.issue is not None:
        issue = str(report.issue)
    project = _project(request, events, cancel, executor, need_git=True)
    fields = seal_runs(
        project,
        request.test_id,
        rev=request.rev,
        test_file=request.test_file,
        runs=request.runs,
        hidden=request.hidden,
        issue=issue,
        events=events,
    )
    carried, unmatched = tuple(fields.pop("carried")), tuple(fields.pop("carry_unmatched"))
    exam = Exam.create(**fields, issue_report=report.record() if report else None)
    if not record:
        return SealResult(
            exam=exam, created=False, recorded=False, carried=carried, carry_unmatched=unmatched
        )
    with _ledger(ledger, request.db) as lg:
        stored = lg.add_exam(exam)
        bundle_path = None
        if request.export is not None:
            bundle = export_bundle(lg, [exam.id])
            request.export.mkdir(parents=True, exist_ok=True)
            bundle_path = request.export / f"{exam.id}.json"
            bundle_path.write_text(canonical.pretty(bundle), encoding="utf-8")
    return SealResult(
        exam=stored.exam,
        created=stored.created,
        recorded=True,
        seq=stored.entry.seq,
        entry_hash=stored.entry.entry_hash,
        bundle_path=bundle_path,
        carried=carried,
        carry_unmatched=unmatched,
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
                    field="exams",
                )
        return exams
    summaries = ledger.list_exams(repo=identity)
    if not summaries:
        raise UsageError(
            "no exam is sealed for this repository",
            hint="seal one first: truegreen seal TEST_ID (or import a bundle with truegreen exams import)",
            field="exams",
        )
    return [ledger.get_exam(s.id) for s in summaries]


def verify(
    request: VerifyRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
    record: bool = True,
) -> Verification:
    """Grade a claimed fix against the sealed exams: the ``truegreen.verification/1``
    document with its receipt. It is recorded in the ledger (unless ``record`` is False:
    a trial); ``request.report_dir`` gets verification.json, report.md and receipt.json."""
    from truegreen.exam.receipt import make_receipt
    from truegreen.verify import pipeline

    events = Events("verify", listener)
    project = _project(request, events, cancel, executor, need_git=True)
    git = project.need_git()
    with _ledger(ledger, request.db) as lg:
        exams = load_exams(lg, git, request.exams)
        patch = request.patch
        if request.working_tree:
            patch = git.working_tree_patch(request.base_rev)
            if not patch.strip():
                raise UsageError(
                    f"the working tree has no changes against {request.base_rev}",
                    hint="change the code first, or give the revision the exam fails on",
                    field="base",
                )
        opts = pipeline.VerifyOptions(
            base=request.base_rev,
            head=request.head,
            patch=patch,
            runs=request.runs,
            strength=request.strength,
        )
        doc = pipeline.verify(project, exams, opts, events=events)
        inputs = {
            "repo": git.identity(),
            "base": doc["base"],
            "head": doc["head"],
            "patch_sha256": doc["patch_sha256"],
            "exams": [{"id": e.id, "sha256": canonical.digest(e.to_json())} for e in exams],
            "runs": request.runs,
            "settings": _settings_json(git, doc["base"]),
            "environment": project.interpreter.fingerprint(),
            "sandbox": project.sandbox,
            "truegreen": __version__,
        }
        # a copy: the document gets the receipt's hash below, the receipt holds it as it was
        receipt = make_receipt(inputs, copy.deepcopy(doc))
        doc["receipt"] = {"sha256": receipt["sha256"]}
        if record:
            lg.record_verification(doc)
    if request.report_dir is not None:
        write_report(request.report_dir, doc, receipt)
    return Verification.model_validate(doc)


def _settings_json(git: GitRepo, base: str) -> dict[str, Any]:
    from truegreen.verify import pipeline

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
    """verification.json, report.md and receipt.json in ``report_dir``."""
    from truegreen.exam.receipt import write_receipt
    from truegreen.report.markdown import render as render_markdown

    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "verification.json").write_text(canonical.pretty(doc), encoding="utf-8")
    (report_dir / "report.md").write_text(render_markdown(doc), encoding="utf-8")
    write_receipt(report_dir / "receipt.json", receipt)


def strength(
    request: StrengthRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
) -> StrengthReport:
    """Mutants of the lines base -> head changed, and how many the exams kill (the
    ``truegreen.strength/1`` document)."""
    from truegreen.verify import pipeline

    events = Events("strength", listener)
    project = _project(request, events, cancel, executor, need_git=True)
    git = project.need_git()
    with _ledger(ledger, request.db) as lg:
        exams = load_exams(lg, git, request.exams)
    doc = pipeline.measure_strength(project, exams, request.base, request.head, events=events)
    return StrengthReport.model_validate(doc)


# -- localize, run, diagnose ------------------------------------------------------------


def localize(
    request: LocalizeRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
) -> Localization:
    """Rank the suspect lines of a failing test and compare its values with passing
    tests' (the ``truegreen.localization/1`` document)."""
    from truegreen.localize import LocalizeOptions
    from truegreen.localize import localize as run_localize
    from truegreen.localize.ranking import FORMULAS

    if request.formula not in FORMULAS:  # said before anything is opened or run
        raise UsageError(
            f"unknown formula {request.formula!r}",
            hint=f"use one of {', '.join(FORMULAS)}",
            field="formula",
        )
    events = Events("localize", listener)
    project = _project(request, events, cancel, executor, need_git=False)
    opts = LocalizeOptions(
        scope=list(request.scope) if request.scope is not None else None,
        budget_tokens=request.budget_tokens,
        budget_seconds=request.budget_seconds,
        formula=cast(Any, request.formula),
        timeout=request.timeout,
        limit=request.limit,
        mutants=request.mutants,
        history=request.history,
    )
    doc = run_localize(project, list(request.test_ids), opts, events=events)
    return Localization.model_validate(doc)


def reproduce(
    request: RunRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run tests N times in the project's own interpreter (``truegreen run``): the
    ``truegreen.run/1`` document, and what it means for an exit status."""
    from truegreen.reproduce import not_passed
    from truegreen.reproduce import reproduce as run_tests
    from truegreen.run.results import exit_meaning
    from truegreen.seal import refuse_another_checkouts_code

    events = Events("run", listener)
    project = _project(request, events, cancel, executor, need_git=False)
    refuse_another_checkouts_code(project)
    doc = run_tests(
        project, list(request.test_ids), repeat=request.repeat, timeout=request.timeout,
        events=events,
    )  # fmt: skip
    return RunResult(
        run=Run.model_validate(doc),
        timeout=request.timeout or project.settings.suite_timeout,
        cut_short=doc["meaning"] == exit_meaning(0, timed_out=True),
        not_passed=tuple(not_passed(doc)),
    )


def diagnose(request: DiagnoseRequest) -> Diagnosis:
    """Classify a failed CI log: its class, the evidence lines, the failing tests and their
    signatures, the next step (the ``truegreen.diagnosis/1`` document)."""
    from truegreen import diagnose as engine

    if request.github is not None:
        from truegreen.diagnose.github import fetch

        fetched = fetch(request.github, request.run_id, request.job_id)
        try:
            return engine.diagnose_inputs(
                fetched.inputs,
                failed_step=fetched.failed_steps[0] if fetched.failed_steps else None,
            )
        finally:
            fetched.close()
    if request.text is not None:
        return engine.diagnose_text(request.text, "<text>")
    assert request.log is not None  # the request holds one of the three
    return engine.diagnose(request.log)


def diagnose_stream(stream: BinaryIO | io.BytesIO, *, name: str = "<stream>") -> Diagnosis:
    """:func:`diagnose` of a log read from ``stream`` (bytes; compressed ones are opened)."""
    from truegreen import diagnose as engine

    return engine.diagnose(stream, name=name)


# -- exams, the ledger, receipts --------------------------------------------------------


def _repo_filter(request: ExamsListRequest) -> str | None:
    if request.repo is not None:
        return repo_identity(request.repo)
    return request.repo_id


def list_exams(request: ExamsListRequest, *, ledger: Ledger | None = None) -> ExamListing:
    """The sealed exams, oldest first (all of them, or one repository's)."""
    repo_id = _repo_filter(request)
    with _ledger(ledger, request.db) as lg:
        exams = lg.list_exams(repo_id)
        where = lg.url
    doc = {"schema": "truegreen.exam-list/1", "exams": [e.to_json() for e in exams]}
    return ExamListing(exams=ExamList.model_validate(doc), ledger=where, repo_id=repo_id)


def show_exam(request: ExamShowRequest, *, ledger: Ledger | None = None) -> ShownExam:
    """One exam (an id or a unique prefix), every hash re-checked."""
    with _ledger(ledger, request.db) as lg:
        stored = lg.find_exam(request.exam)
    return ShownExam(exam=stored.exam, seq=stored.entry.seq)


def exam_for_fixer(exam: str, *, db: str | None = None, ledger: Ledger | None = None) -> FixerExam:
    """The exam ``exam`` names as a fixer may see it: a hidden exam without its content."""
    with _ledger(ledger, db) as lg:
        return FixerExam.of(lg.get_exam(exam))


def export_exams(request: ExamsExportRequest, *, ledger: Ledger | None = None) -> ExamBundle:
    """A ``truegreen.exam-bundle/1`` of exams (default: all, or all of a repository's);
    a hidden exam's files travel base64-encoded (:data:`HIDDEN_CONTENT`)."""
    from truegreen.exam.bundle import export_bundle

    repo_id = _repo_filter(request)
    with _ledger(ledger, request.db) as lg:
        bundle = export_bundle(lg, request.exams, repo_id)
    return ExamBundle.model_validate(bundle)


def import_exams(request: ExamsImportRequest, *, ledger: Ledger | None = None) -> ExamImport:
    """Import a bundle: every exam re-checked first; a tampered bundle imports nothing."""
    import json

    from truegreen.exam.bundle import import_bundle, parse_bundle, read_bundle

    if request.file is not None:
        exams = read_bundle(request.file)
    else:
        try:
            parsed = json.loads(request.text or "")
        except ValueError as exc:
            raise UsageError(
                f"{request.source} is not JSON ({exc})",
                hint="give a bundle `truegreen exams export` wrote",
                field="text",
            ) from None
        exams = parse_bundle(parsed, request.source)
    with _ledger(ledger, request.db) as lg:
        results = import_bundle(lg, exams)
    doc = {"schema": "truegreen.exam-import/1", "exams": [r.to_json() for r in results]}
    return ExamImport.model_validate(doc)


@dataclass(frozen=True)
class LedgerChecked:
    """What ``ledger verify`` found (``report``), in which ledger (``ledger``: its URL,
    without a password)."""

    report: ChainReport
    ledger: str

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()


def verify_ledger(request: LedgerVerifyRequest, *, ledger: Ledger | None = None) -> LedgerChecked:
    """Recompute the ledger's hash chain (and put its append-only triggers back first,
    with ``restore_guards``)."""
    with _ledger(ledger, request.db) as lg:
        if request.restore_guards:
            lg.restore_guards()
        report = lg.verify_chain(request.expected)
        where = lg.url
    return LedgerChecked(report=report, ledger=where)


def verify_receipt(request: ReceiptVerifyRequest) -> ReceiptCheck:
    """Re-hash one receipt: whether it matches the sha256 it records."""
    from truegreen.exam.receipt import verify_receipt as check

    return check(request.file)


def list_verifications(
    repo: str | None = None,
    since: datetime | None = None,
    limit: int | None = None,
    *,
    db: str | None = None,
    ledger: Ledger | None = None,
) -> list[RecordedVerification]:
    """The verifications the ledger recorded, oldest first: of ``repo`` (a repository
    identity, :func:`repo_identity`) only, recorded at or after ``since`` only, the most
    recent ``limit`` only. Every entry is checked against its hashes (fails closed)."""
    query = VerificationsQuery(repo=repo, since=since, limit=limit, db=db)
    when = None
    if query.since is not None:
        aware = query.since if query.since.tzinfo else query.since.replace(tzinfo=UTC)
        when = aware.astimezone(UTC).isoformat(timespec="seconds")
    with _ledger(ledger, query.db) as lg:
        entries = lg.verifications(repo=query.repo, since=when, limit=query.limit)
    return [
        RecordedVerification(
            seq=e.seq,
            entry_hash=e.entry_hash,
            recorded_at=e.recorded_at,
            verification=Verification.model_validate(e.payload),
        )
        for e in entries
    ]


# -- the environment, the doctor, the demo ------------------------------------------------


def doctor(request: DoctorRequest) -> DoctorReport:
    """What is installed and configured, what is missing, and what to do about each."""
    from truegreen.doctor import checks

    doc = {
        "schema": "truegreen.doctor/1",
        "version": __version__,
        "checks": checks(request.repo, request.python),
    }
    return DoctorReport.model_validate(doc)


def build_env(
    request: EnvBuildRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
) -> EnvBuild:
    """Create or update the project's virtualenv: ``pip install -e .[test extras] pytest``
    (the one phase with network access; the project's build code runs unconfined)."""
    from truegreen.run.executor import bound, default_executor
    from truegreen.sandbox.install import build_env as build

    ex = bound(executor or default_executor(), cancel or Cancellation())
    return build(
        request.repo,
        venv=request.venv,
        python=request.python,
        extras=list(request.extras) or None,
        timeout=request.timeout,
        executor=ex,
        events=Events("env", listener),
    )


def demo(
    request: DemoRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
) -> DemoResult:
    """The whole loop on the bundled example project, offline: build its repository, seal
    the exam, verify every candidate fix (operation ``demo``; the seal and the
    verifications report as ``seal`` and ``verify``)."""
    from truegreen.demo.run import run_demo

    return run_demo(request, listener=listener, cancel=cancel, executor=executor)


# -- for coding agents: a context's handles, a fix task, the exams' status ----------------


def expand_evidence(
    localization: Localization, handle: str, *, repo: Path | None = None
) -> Evidence:
    """What ``handle`` (a handle a localization's context named, or ``function:FILE:LINE``,
    ``file:FILE:LINE``, ``excerpt``) names, in full; source read from ``repo`` (default:
    the checkout the localization was made in). An unknown handle is a :class:`UsageError`
    about the field ``handle``."""
    from truegreen.localize.expand import expand

    return Evidence.model_validate(expand(localization.to_json(), handle, repo))


#: what every fixer is told, whoever it is
FIX_RULES = (
    "Tests are read-only: do not edit, delete, rename, skip or xfail any test, conftest.py, "
    "test data, pytest or CI configuration; change the code under test.",
    "Do not special-case the exam's inputs, detect the test runner, or exit early.",
    "The fix is graded by truegreen verify: the sealed exam must fail on the base and pass "
    "with your change, with no tampering found and no new failures in existing tests.",
)


def fix_task(
    request: FixTaskRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
) -> FixTask:
    """A self-contained task for a fixer: the exam as a fixer may see it (a hidden exam
    without its content), the localized context of its failure in the working tree (none
    for a hidden exam: its failure would show its content), the rules."""
    from truegreen.verify.verdict import VERIFIED_MEANS

    with _ledger(ledger, request.db) as lg:
        exam = FixerExam.of(lg.find_exam(request.exam).exam)
    context: str | None = None
    if exam.hidden:
        note = "the exam is hidden: its content and its failure are not shown to fixers"
    else:
        try:
            found = localize(
                LocalizeRequest(
                    repo=request.repo,
                    python=request.python,
                    sandbox=request.sandbox,
                    test_ids=(exam.test,),
                    budget_tokens=request.budget_tokens,
                    budget_seconds=request.budget_seconds,
                ),
                listener=listener,
                cancel=cancel,
                executor=executor,
            )
            context, note = found.text, None
        except ExecutionCancelled:
            raise
        except TruegreenError as error:
            note = f"no context: {error.message}"
    return FixTask(
        exam=exam,
        failure=exam.signature,
        context=context,
        context_note=note,
        rules=FIX_RULES,
        verify=f"verify_fix grades the working tree's changes: {VERIFIED_MEANS}",
    )


def exam_status(request: ExamStatusRequest, *, ledger: Ledger | None = None) -> ExamStatus:
    """The exams sealed for ``request.repo`` (or the one ``request.exam`` names) and the
    latest recorded verification of each: an exam is open until one found it fixed
    (verdict ``verified``)."""
    from truegreen.verify.verdict import VERIFIED_MEANS

    identity = repo_identity(request.repo)
    with _ledger(ledger, request.db) as lg:
        if request.exam is not None:
            exams = [lg.find_exam(request.exam).exam]
        else:
            exams = [lg.get_exam(e.id) for e in lg.list_exams(repo=identity)]
        recorded = lg.verifications(repo=identity, since=None, limit=None)
    states = []
    for exam in exams:
        last: dict[str, Any] | None = None
        fixed = False
        for entry in recorded:
            doc = entry.payload
            if any(e.get("id") == exam.id for e in doc.get("exams") or ()):
                last = {
                    "seq": entry.seq,
                    "verdict": doc.get("verdict"),
                    "decision": doc.get("decision"),
                    "head": doc.get("head"),
                }
                fixed = fixed or doc.get("verdict") == "verified"
        view = FixerExam.of(exam)
        states.append(
            ExamState(
                id=view.id,
                test=view.test,
                hidden=view.hidden,
                signature=view.signature,
                open=not fixed,
                last=last,
            )
        )
    return ExamStatus(repo=identity, exams=tuple(states), verified_means=VERIFIED_MEANS)


def working_tree_changes(repo: Path | str) -> tuple[str, ...]:
    """The files of the project at ``repo`` that its working tree changed against HEAD
    (untracked files not ignored included), relative to the project's directory."""
    from truegreen.repo.git import GitRepo

    return tuple(GitRepo.discover(repo).changed_paths())
