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
import dataclasses
import importlib
import io
from collections.abc import Callable, Iterator, Sequence
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
    Flaky,
    Localization,
    Run,
    StrengthReport,
    Verification,
)
from truegreen.model.exam import Exam
from truegreen.model.requests import (
    CiRequest,
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
    FlakyRequest,
    LedgerVerifyRequest,
    LocalizeRequest,
    PolicyRequest,
    ProjectRequest,
    PullVerifyRequest,
    ReceiptVerifyRequest,
    ReportRequest,
    Request,
    RunRequest,
    SealRequest,
    StatsRequest,
    StrengthRequest,
    VerificationsQuery,
    VerifyRequest,
)
from truegreen.model.results import (
    CiResult,
    Evidence,
    ExamListing,
    ExamState,
    ExamStatus,
    FixerExam,
    FixTask,
    PolicyExplanation,
    RecordedVerification,
    RenderedReport,
    RunResult,
    SealResult,
    ShownExam,
    Stats,
)
from truegreen.run.executor import Cancellation, Executor, FakeExecutor

if TYPE_CHECKING:
    from truegreen.demo.run import DemoResult, DemoRow
    from truegreen.diagnose.model import Diagnosis
    from truegreen.exam.bundle import HIDDEN_CONTENT
    from truegreen.exam.chain import ChainReport
    from truegreen.exam.receipt import ReceiptCheck
    from truegreen.exam.store import Ledger
    from truegreen.localize.engine import Related
    from truegreen.project import Project
    from truegreen.repo.git import GitRepo
    from truegreen.report.markdown import compared_tests, shown_layers
    from truegreen.report.model import ReportContext, selection_text
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
    "selection_text": "truegreen.report.model",
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
    "CiRequest",
    "CiResult",
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
    "Flaky",
    "FlakyRequest",
    "IntegrityError",
    "Ledger",
    "LedgerChecked",
    "LedgerVerifyRequest",
    "Listener",
    "Localization",
    "LocalizeRequest",
    "PolicyExplanation",
    "PolicyRequest",
    "PullVerifyRequest",
    "ReceiptCheck",
    "ReceiptVerifyRequest",
    "RecordedVerification",
    "RenderedReport",
    "RepoError",
    "ReportRequest",
    "Request",
    "Run",
    "RunRequest",
    "RunResult",
    "SealRefused",
    "SealRequest",
    "SealResult",
    "ShownExam",
    "Stats",
    "StatsRequest",
    "StoreError",
    "StrengthReport",
    "StrengthRequest",
    "TruegreenError",
    "UsageError",
    "Verification",
    "VerificationsQuery",
    "VerifyRequest",
    "build_env",
    "child_ender",
    "ci",
    "compared_tests",
    "demo",
    "diagnose",
    "diagnose_stream",
    "doctor",
    "exam_for_fixer",
    "exam_status",
    "exclude_file",
    "exit_meaning",
    "expand_evidence",
    "export_exams",
    "file_at",
    "fix_task",
    "flaky",
    "give_up",
    "import_exams",
    "list_exams",
    "list_verifications",
    "localize",
    "open_ledger",
    "policy_explain",
    "project_root",
    "render_report",
    "repo_identity",
    "reproduce",
    "seal",
    "selection_text",
    "show_exam",
    "shown_layers",
    "stats",
    "strength",
    "verify",
    "verify_ledger",
    "verify_pull",
    "verify_receipt",
    "working_tree_changes",
    "write_text",
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


@contextlib.contextmanager
def _about(field: str) -> Iterator[None]:
    """A :class:`UsageError` raised inside that names no input is about ``field`` (an
    unknown or ambiguous exam id: the store does not know which input gave it)."""
    try:
        yield
    except UsageError as error:
        if error.field is None:
            error.field = field
        raise


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
        with _about("exams"):
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
        exams = [] if request.without_exams else load_exams(lg, git, request.exams)
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
            without_exams=request.without_exams,
            regression_mode=request.regression,
        )
        doc = pipeline.verify(project, exams, opts, events=events)
        inputs = {
            "repo": git.identity(),
            "base": doc["base"],
            "head": doc["head"],
            "patch_sha256": doc["patch_sha256"],
            "exams": [{"id": e.id, "sha256": canonical.digest(e.to_json())} for e in exams],
            "runs": request.runs,
            "regression": request.regression,
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
        from truegreen.report.context import collect

        write_report(request.report_dir, doc, receipt, collect(git, doc, exams))
    return Verification.model_validate(doc)


def _settings_json(git: GitRepo, base: str) -> dict[str, Any]:
    from truegreen.verify import pipeline

    s, policy, gates = pipeline.graded_config(git, base)
    return {
        # the policy the decision was made under (the receipt's reader re-checks it)
        "policy": policy.values(),
        "gates": list(gates.tools),
        **({"coverage-min": gates.coverage_min} if gates.coverage_min is not None else {}),
        "tests": list(s.tests),
        "ignore": list(s.ignore),
        "pytest-args": list(s.pytest_args),
        "always-run": list(s.always_run),
        "suite-timeout": s.suite_timeout,
        "carry": list(s.carry),
    }


def write_report(
    report_dir: Path,
    doc: dict[str, Any],
    receipt: dict[str, Any],
    context: ReportContext | None = None,
) -> None:
    """verification.json, report.md, report.html and receipt.json in ``report_dir``; each
    file appears whole or not at all (written beside, then renamed)."""
    from truegreen.exam.receipt import write_receipt
    from truegreen.report import html, markdown
    from truegreen.report.model import build

    report = build(doc, context)
    files = {
        "verification.json": canonical.pretty(doc),
        "report.md": markdown.render_report(report),
        "report.html": html.render_report(report),
    }
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            _write_whole(report_dir / name, text)
    except OSError as exc:
        raise UsageError(
            f"cannot write the report to {report_dir}: {exc.strerror}",
            hint="choose a writable directory",
            field="report_dir",
        ) from None
    write_receipt(report_dir / "receipt.json", receipt)


def write_text(target: Path, text: str) -> None:
    """``text`` into ``target`` (a file an adapter was asked to write): whole or not at
    all; a directory that cannot be written is a UsageError naming it."""
    try:
        _write_whole(target, text)
    except OSError as exc:
        raise UsageError(
            f"cannot write {target}: {exc.strerror}", hint="choose a writable path", field="output"
        ) from None


def _write_whole(target: Path, text: str) -> None:
    """``text`` into ``target``: a reader sees the old file or the new one, never half."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _stored_verification(path: Path) -> tuple[dict[str, Any], str]:
    """The verification document in ``path`` (a verification.json, or a receipt whose hash
    is checked first) and what it was ("receipt" or "verification")."""
    import json

    from truegreen.exam.receipt import check_receipt

    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror}", hint="give a receipt.json or verification.json",
            field="file",
        ) from None  # fmt: skip
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(
            f"{path} is not JSON ({exc})",
            hint="give the receipt.json or verification.json a verification wrote",
            field="file",
        ) from None
    kind = "verification"
    if isinstance(data, dict) and data.get("schema") == "truegreen.receipt/1":
        check = check_receipt(data, str(path))
        if not check.ok:
            raise IntegrityError(check.message, hint="render a receipt that verifies", field="file")
        outputs = data["outputs"]
        if not isinstance(outputs, dict):
            raise UsageError(f"{path}: the receipt holds no verification", field="file")
        data = {**outputs, "receipt": {"sha256": check.recorded}}
        kind = "receipt"
    if not isinstance(data, dict) or data.get("schema") != "truegreen.verification/1":
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise UsageError(
            f"{path} is not a verification (schema: {found!r})",
            hint="give the receipt.json or verification.json that verify --report wrote",
            field="file",
        )
    try:
        Verification.model_validate(data)
    except ValueError as exc:
        first = str(exc).splitlines()[1:3]
        raise UsageError(
            f"{path} is not a well-formed truegreen.verification/1 ({' '.join(first).strip()})",
            hint="give the receipt.json or verification.json that verify --report wrote",
            field="file",
        ) from None
    return data, kind


def render_report(request: ReportRequest, *, ledger: Ledger | None = None) -> RenderedReport:
    """A stored verification rendered again (``truegreen report``): from a receipt (its
    hash checked: one that does not match raises :class:`IntegrityError`) or a
    verification.json. With ``request.repo`` the page gets the diff and the exams' code
    (from the ledger; a hidden exam's never)."""
    from truegreen.repo.git import GitRepo
    from truegreen.report import html, markdown
    from truegreen.report.context import collect
    from truegreen.report.model import build

    doc, kind = _stored_verification(request.file)
    context = None
    if request.repo is not None:
        git = GitRepo.discover(request.repo)
        with _ledger(ledger, request.db) as lg:
            exams = []
            for e in doc["exams"]:
                with contextlib.suppress(TruegreenError):
                    exams.append(lg.get_exam(e["id"]))
        context = collect(git, doc, exams)
    if request.format == "json":
        text = canonical.pretty(doc)
    else:
        report = build(doc, context)
        text = (
            html.render_report(report)
            if request.format == "html"
            else markdown.render_report(report)
        )
    return RenderedReport.model_validate(
        {
            "format": request.format,
            "text": text,
            "source": kind,
            "decision": doc["decision"],
            "receipt": doc["receipt"]["sha256"],
        }
    )


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
    from truegreen.localize.engine import check_options

    opts = LocalizeOptions(
        scope=list(request.scope) if request.scope is not None else None,
        budget_tokens=request.budget_tokens,
        budget_seconds=request.budget_seconds,
        strict_budget=request.strict_budget,
        check_measurement=request.check_measurement,
        formula=cast(Any, request.formula),
        timeout=request.timeout,
        limit=request.limit,
        mutants=request.mutants,
        spare_mutants=request.spare_mutants,
        history=request.history,
    )
    check_options(request.test_ids, opts)  # said before anything is opened or run
    events = Events("localize", listener)
    project = _project(request, events, cancel, executor, need_git=False)
    _check_scope(project, opts.scope)
    if opts.scope is None:
        opts = dataclasses.replace(opts, related=_related(project, request.test_ids, events))
    doc = run_localize(project, list(request.test_ids), opts, events=events)
    return Localization.model_validate(doc)


def _check_scope(project: Project, scope: Sequence[str] | None) -> None:
    """Refuse a scope entry whose path is not in the project (pytest would say "not
    found" about a test id, and the error would not name the scope)."""
    for entry in scope or ():
        path = entry.partition("::")[0]
        if entry != "suite" and not (project.root / path).exists():
            raise UsageError(
                f"{entry!r} does not exist in {project.root}",
                hint="give test files or directories relative to the repository root, or suite",
                field="scope",
            )


def _related(project: Project, test_ids: Sequence[str], events: Events) -> Related | None:
    """What a verification's per-test record of the checkout's commit says about the
    failing tests (a :class:`truegreen.localize.engine.Related`), or None: no record of
    that commit here, or none of the tests in it."""
    from truegreen.localize.budget import revision
    from truegreen.localize.engine import Related
    from truegreen.verify import selection

    rev = revision(project)
    record = selection.for_revision(rev) if rev is not None else None
    found = selection.related_test_files(record, test_ids) if record is not None else None
    if rev is None or found is None:
        return None
    files, known = found
    events.note(
        "trace",
        f"localize: passing tests from {len(files)} test file(s) the per-test record of "
        f"{rev[:12]} relates to the failing tests (a verification of that commit made it)",
    )
    return Related(files=tuple(files), known=known, revision=rev)


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


def flaky(
    request: FlakyRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
) -> Flaky:
    """Tests whose outcome flips across repeats (flaky), or depends on what runs with them
    (order-dependent): the ``truegreen.flaky/1`` document (``truegreen flaky``)."""
    from truegreen.flaky import check
    from truegreen.seal import refuse_another_checkouts_code

    events = Events("flaky", listener)
    project = _project(request, events, cancel, executor, need_git=False)
    refuse_another_checkouts_code(project)
    doc = check(
        project, list(request.test_ids), repeat=request.repeat, timeout=request.timeout,
        events=events,
    )  # fmt: skip
    return Flaky.model_validate(doc)


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


# -- GitHub ------------------------------------------------------------------------------


def ci(
    request: CiRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
    log: Callable[[str], None] | None = None,
) -> CiResult:
    """Inside a GitHub Actions job: verify the event's pull request against the exams
    sealed for the issues it says it fixes (read from the base), or with
    ``request.diagnose`` diagnose a run's failed jobs. The result carries the step
    summary, the annotations and the exit code; the comment, check run and label go
    through the write gate (``log`` gets a line per write)."""
    from truegreen.github.ci import run_ci

    return run_ci(
        request,
        listener=listener,
        cancel=cancel,
        executor=executor,
        ledger=ledger,
        log=log or (lambda line: None),
    )


def verify_pull(
    request: PullVerifyRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
    log: Callable[[str], None] | None = None,
) -> CiResult:
    """``verify OWNER/REPO#N``: the pull request read from the API, its repository cloned
    (or the cached clone fetched), verified as :func:`ci` verifies it; with
    ``request.post`` the report is written through the write gate."""
    from truegreen.github.pull import verify_pull_request

    return verify_pull_request(
        request,
        listener=listener,
        cancel=cancel,
        executor=executor,
        ledger=ledger,
        log=log or (lambda line: None),
    )


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
    with _ledger(ledger, request.db) as lg, _about("exam"):
        stored = lg.find_exam(request.exam)
    return ShownExam(exam=stored.exam, seq=stored.entry.seq)


def exam_for_fixer(exam: str, *, db: str | None = None, ledger: Ledger | None = None) -> FixerExam:
    """The exam ``exam`` names as a fixer may see it: a hidden exam without its content."""
    with _ledger(ledger, db) as lg, _about("exam"):
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


# -- the policy ---------------------------------------------------------------------------


def policy_explain(request: PolicyRequest) -> PolicyExplanation:
    """The effective policy of a repository and where each value came from: read at
    ``request.rev`` (as verify reads the base's), from ``request.file``, or from the files
    on disk. A malformed policy raises :class:`ConfigError` naming the key (what ``policy
    check`` reports)."""
    from truegreen.policy import explain as ex
    from truegreen.repo.git import GitRepo

    if request.file is not None:
        texts = ex.texts_of_file(request.file)
        return PolicyExplanation.model_validate(
            ex.explain(
                ex.policy_of(texts), repo=str(request.file.parent), rev=None,
                files=tuple(texts),
            )
        )  # fmt: skip
    git = GitRepo.discover(request.repo)
    rev = None
    if request.rev is not None:
        rev = git.resolve(request.rev, field="rev")
        texts = {name: git.show_text(rev, name) for name in ex.CONFIG_FILES}
    else:
        texts = ex.texts_on_disk(git.root)
    files = tuple(name for name, text in texts.items() if text is not None)
    doc = ex.explain(ex.policy_of(texts), repo=git.display_name(), rev=rev, files=files)
    return PolicyExplanation.model_validate(doc)


def stats(request: StatsRequest, *, ledger: Ledger | None = None) -> Stats:
    """The verifications the ledger recorded (since ``request.since``: ``30d``, ``12h``,
    ``2w`` or an ISO date), by decision and reason, with the verified repair rate beside
    the "tests green" rate of the same candidates (the ``truegreen.stats/1`` document)."""
    from truegreen.report.stats import parse_since
    from truegreen.report.stats import stats as count

    since = parse_since(request.since, datetime.now(UTC)) if request.since else None
    recorded = list_verifications(request.repo_id, since, db=request.db, ledger=ledger)
    doc = count([r.verification.to_json() for r in recorded], since)
    return Stats.model_validate(doc)


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

    with _ledger(ledger, request.db) as lg, _about("exam"):
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
            with _about("exam"):
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


def project_root(path: Path | str) -> Path:
    """The directory of the project that contains ``path`` (a directory): the nearest one
    from ``path`` up to the git top level that holds a ``pyproject.toml``, ``setup.py``,
    ``setup.cfg``, ``pytest.ini`` or ``tox.ini``, else the top level. What a request's
    ``repo`` given ``path`` stands for (a UsageError when ``path`` is in no repository)."""
    from truegreen.repo.git import GitRepo

    return GitRepo.discover(path).root


def file_at(repo: Path | str, rev: str, path: str) -> bytes | None:
    """The content of the file ``path`` (relative to the project's directory) at ``rev``
    of the project at ``repo``; None when it is not there."""
    from truegreen.repo.git import GitRepo

    return GitRepo.discover(repo).show(rev, path)


def exclude_file(repo: Path | str) -> tuple[Path, str]:
    """The repository's own ignore file (``info/exclude`` in its git directory: local,
    never committed, shared by its linked worktrees) and the project's directory from the
    top level (``""``, or ``"libs/calc/"``: the file's patterns are from the top level)."""
    from truegreen.repo.git import GitRepo

    git = GitRepo.discover(repo)
    where = Path(git.git("rev-parse", "--git-path", "info/exclude", cwd=git.top).stdout.strip())
    return (where if where.is_absolute() else git.top / where), (
        f"{git.prefix}/" if git.prefix else ""
    )


def give_up(cancel: Cancellation) -> None:
    """Give up at once the work of the calls ``cancel`` was handed to, in a process about
    to end without waiting for them (the Claude Code hook at its deadline): their process
    trees are killed and refused from now on (``cancel.cancel()``), and this process's
    temporary directories, whose ``finally`` clauses will not run, are removed. Only for a
    process that runs nothing else: another call's directories go too. What a process
    started after the kill would leave, the reaper (its process trees) and the next
    truegreen process's sweep (its directories) remove."""
    import sys

    from truegreen import tempdirs

    # the abandoned threads are busy in Python (an analysis has no cancellation point):
    # with the default switch interval each of the many system calls of the kill and the
    # removal waits up to 5 ms for the interpreter's lock (measured: seconds on sqlglot)
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        cancel.cancel()
        tempdirs.remove_own()
    finally:
        sys.setswitchinterval(before)


def child_ender() -> Callable[[int], None]:
    """What ends this process's child ``pid``, a fork doing a call's work, at once (taken
    before the fork: nothing is imported when it is used): it and every process it
    started are killed (its reaper kills what escaped both its process group and its
    tree), it is reaped, and the temporary directories of the processes that are gone,
    its own included, are removed (:func:`truegreen.tempdirs.sweep`). The Claude Code
    hook at its deadline: nothing there waits for the child's interpreter."""
    from truegreen import tempdirs
    from truegreen.run.executor import kill_child

    def end(pid: int) -> None:
        kill_child(pid)
        tempdirs.sweep()

    return end
