"""What each operation of the engine API is asked: one request model per operation.

A request is what a queue job carries: JSON in and out (``from_json`` / ``to_json``, bytes
as base64), validated when it is made, with the command line's defaults. An invalid one
raises :class:`~truegreen.errors.UsageError` naming the field (``error.field``), never a
pydantic error, so every adapter reports it the way it reports any other bad input.

    SealRequest(repo="proj", test_id="tests/test_x.py::test_y", runs=3)
    VerifyRequest(repo="proj", base="main", head="fix", exams=("ex-1a2b...",))
    VerifyRequest(repo="proj", patch=b"diff --git ...")        # base: HEAD

Paths are taken as they are given (relative to the process's working directory).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from truegreen.errors import UsageError
from truegreen.testpaths import check_test_ids

#: what to read for the fields of every request
REQUESTS_DOC = "docs/api.md"


def validation_problem(exc: ValidationError) -> tuple[str | None, str]:
    """The first problem pydantic found: the field it is about and one line saying what
    is wrong, without pydantic's wording of the whole error (an adapter that validates
    its own arguments with pydantic, the MCP server's tools, says it the same way)."""
    error = exc.errors()[0]
    loc = [str(part) for part in error["loc"]]
    field = loc[0] if loc else None
    kind = error["type"]
    ctx = error.get("ctx") or {}
    given = error.get("input")
    if kind == "missing":
        message = "is required"
    elif kind == "extra_forbidden":
        message = f"is not a field of {exc.title}"
    elif kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        word = "at least" if kind == "greater_than_equal" else "more than"
        message = f"must be {word} {bound}, not {given!r}"
    elif kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        word = "at most" if kind == "less_than_equal" else "less than"
        message = f"must be {word} {bound}, not {given!r}"
    elif kind == "too_short":
        message = f"needs at least {ctx.get('min_length', 1)} item(s)"
    else:
        text = str(error["msg"])
        message = f"{text[:1].lower()}{text[1:]} (given: {given!r})"
    if len(loc) > 1:
        message = f"[{']['.join(loc[1:])}] {message}"
    return field, message


def invalid_request(model: type[BaseModel], exc: ValidationError) -> UsageError:
    """The first problem pydantic found, as a :class:`UsageError` about its field."""
    field, message = validation_problem(exc)
    return UsageError(
        message, hint=f"see the fields of {model.__name__} in {REQUESTS_DOC}", field=field
    )


class Request(BaseModel):
    """The base of every request: frozen, no unknown fields, JSON-serialisable."""

    # defer_build: a model's validator is built when first used, not when a command that
    # uses one request imports them all (start-up time: hooks call truegreen often)
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        ser_json_bytes="base64",
        val_json_bytes="base64",
        defer_build=True,
    )

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise invalid_request(type(self), exc) from None

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> Self:
        """The request a JSON document (text, or the parsed object) describes; bytes fields
        are base64 there."""
        try:
            text = data if isinstance(data, str | bytes) else json.dumps(dict(data))
            return cls.model_validate_json(text)
        except ValidationError as exc:
            raise invalid_request(cls, exc) from None
        except (TypeError, ValueError) as exc:
            raise UsageError(f"not a JSON object: {exc}", hint="give the request as JSON") from None

    def to_json(self) -> dict[str, Any]:
        """The request as JSON (bytes as base64): ``from_json(to_json())`` gives it back."""
        data: dict[str, Any] = self.model_dump(mode="json")
        return data


class ProjectRequest(Request):
    """Where the project is and how its tests run (every operation that runs tests)."""

    #: the project's git repository (or a directory in it)
    repo: Path = Path(".")
    #: the project's interpreter (default: REPO/.venv/bin/python when present, else this one)
    python: str | None = None
    #: none | bwrap | docker (default: bwrap where it works, else none)
    sandbox: str | None = None


class LedgerRequest(Request):
    """Which ledger: a database URL (default: ``$TRUEGREEN_DB``, else SQLite in the data
    directory). Ignored when the caller passes an open ledger."""

    db: str | None = None


class SealRequest(ProjectRequest, LedgerRequest):
    """``seal``: run a failing test N times at a revision and seal it as an exam."""

    test_id: str
    rev: str = "HEAD"
    #: the exam's content, placed at the path ``test_id`` names (a test not committed)
    test_file: Path | None = None
    runs: int = Field(default=3, ge=1)
    #: keep the exam's content from fixers (no command prints it)
    hidden: bool = False
    issue: str | None = None
    #: the bug report the exam is for: its sha256 and title are recorded with the exam
    issue_file: Path | None = None
    #: also write a bundle of the exam into this directory
    export: Path | None = None


class VerifyRequest(ProjectRequest, LedgerRequest):
    """``verify``: grade a claimed fix (a head revision, or a patch) against sealed exams."""

    #: the revision the exam fails on (default with a patch: HEAD; required with a head)
    base: str | None = None
    head: str | None = None
    #: a unified diff (``git diff``) instead of a head revision; base64 in JSON
    patch: bytes | None = None
    #: the working tree's changes against the base (tracked and untracked files, as
    #: ``git add -A`` would take them; neither the index nor the tree is touched) instead
    #: of a head revision or a patch: what a coding agent changed
    working_tree: bool = False
    #: exam ids (default: all of this repository's)
    exams: tuple[str, ...] = ()
    runs: int = Field(default=3, ge=1)
    #: mutate the changed lines (exam strength)
    strength: bool = True
    #: the regression layer: "selected" runs on the head the tests the change can affect,
    #: picked from the base's per-test record (made by the first verification of a base,
    #: which runs the whole suite); "full" runs the whole suite on both sides
    regression: Literal["selected", "full"] = "selected"
    #: write verification.json, report.md and receipt.json here
    report_dir: Path | None = None
    #: no exam is linked (``truegreen ci`` on a pull request that names no sealed issue):
    #: grade the tamper and regression layers only; the decision is at best escalate
    without_exams: bool = False

    @model_validator(mode="after")
    def _one_change(self) -> Self:
        if self.without_exams and self.exams:
            raise UsageError(
                "names exams, and asks to verify without exams",
                hint="drop one of them",
                field="without_exams",
            )
        if self.working_tree and (self.head is not None or self.patch is not None):
            raise UsageError(
                "give the working tree, a head revision or a patch: one of them",
                hint="drop the head revision or the patch",
                field="working_tree",
            )
        if self.working_tree:
            return self
        if self.head is not None and self.patch is not None:
            raise UsageError(
                "give either a head revision or a patch, not both",
                hint="drop one of them",
                field="patch",
            )
        if self.head is None and self.patch is None:
            raise UsageError(
                "give the revision with the fix, or a patch", hint="the fix to verify", field="head"
            )
        if self.patch is None and self.base is None:
            raise UsageError(
                "is required with a head revision",
                hint="give the revision the exam fails on, e.g. main",
                field="base",
            )
        return self

    @property
    def base_rev(self) -> str:
        return self.base if self.base is not None else "HEAD"


class CiRequest(ProjectRequest, LedgerRequest):
    """``ci``: inside a GitHub Actions job, verify the pull request of the event (or, with
    ``diagnose``, diagnose the failed jobs of a run)."""

    #: the event's payload (``$GITHUB_EVENT_PATH``)
    event_path: Path
    #: ``$GITHUB_EVENT_NAME``: pull_request, pull_request_target, push, workflow_run...
    event_name: str
    #: OWNER/REPO (``$GITHUB_REPOSITORY``; default: the event's repository)
    repository: str | None = None
    diagnose: bool = False
    #: the run to diagnose when the event is not a workflow_run (``$GITHUB_RUN_ID``)
    run_id: int | None = Field(default=None, ge=1)
    #: shadow (log what would be written), live, or off (not even logged); default: what
    #: the repository was set to, else shadow
    writes: Literal["shadow", "live", "off"] | None = None
    #: where the base keeps the exam bundles
    exams_dir: str = ".truegreen/exams"
    runs: int = Field(default=3, ge=1)
    strength: bool = True
    #: the regression layer: "selected" runs on the head the tests the change can affect,
    #: picked from the base's per-test record (made by the first verification of a base,
    #: which runs the whole suite); "full" runs the whole suite on both sides
    #: (default full here: a CI job starts on a fresh runner, with no record of the base to
    #: reuse, and the recording run costs more than a plain one; "selected" pays off where
    #: the cache directory is kept between jobs)
    regression: Literal["selected", "full"] = "full"
    report_dir: Path | None = None
    #: the REST API's URL (default: ``$GITHUB_API_URL``, else api.github.com)
    api_url: str | None = None


class PullVerifyRequest(LedgerRequest):
    """``verify OWNER/REPO#N``: a pull request fetched (a clone made or reused in the cache)
    and verified locally, exactly as ``ci`` verifies it in the pull request's workflow."""

    #: OWNER/REPO#N
    target: str
    python: str | None = None
    sandbox: str | None = None
    #: write the report (comment, check run, label) through the write gate
    post: bool = False
    exams_dir: str = ".truegreen/exams"
    runs: int = Field(default=3, ge=1)
    strength: bool = True
    #: the regression layer: "selected" runs on the head the tests the change can affect,
    #: picked from the base's per-test record (made by the first verification of a base,
    #: which runs the whole suite); "full" runs the whole suite on both sides
    regression: Literal["selected", "full"] = "selected"
    report_dir: Path | None = None
    api_url: str | None = None
    #: where the repository is cloned from: ``{repo}`` is OWNER/REPO (default:
    #: ``$TRUEGREEN_CLONE_URL``, else https://github.com/{repo}.git)
    clone_url: str | None = None
    #: where clones are kept (default: ``clones/`` in the data directory)
    cache: Path | None = None

    @model_validator(mode="after")
    def _target(self) -> Self:
        repo, sep, number = self.target.partition("#")
        if not sep or not number.isdigit() or repo.count("/") != 1 or not all(repo.split("/")):
            raise UsageError(
                f"{self.target!r} is not OWNER/REPO#N",
                hint="name the pull request, e.g. pallets/flask#5000",
                field="target",
            )
        return self

    @property
    def repository(self) -> str:
        return self.target.partition("#")[0]

    @property
    def number(self) -> int:
        return int(self.target.partition("#")[2])

    @property
    def writes(self) -> str:
        return "live" if self.post else "off"

    @property
    def event_name(self) -> str:
        return "verify"


class StrengthRequest(ProjectRequest, LedgerRequest):
    """``strength``: mutate the lines a fix changed; count the mutants the exams kill."""

    exams: tuple[str, ...] = Field(min_length=1)
    base: str
    head: str


class LocalizeRequest(ProjectRequest):
    """``localize``: rank suspect lines of a failing test, show the values that differ."""

    test_ids: tuple[str, ...] = Field(min_length=1)
    #: where passing tests come from: ("suite",) or test files/dirs (default: the failing
    #: tests' files and the files importing the same modules)
    scope: tuple[str, ...] | None = None
    budget_tokens: int = Field(default=1500, ge=50)
    #: seconds the whole call should take: passing tests that an earlier run of the same
    #: revision measured too slow are left out, and the runs stop starting passing tests
    #: at their deadline (the document's ``budget`` says what was left out); None: no budget
    budget_seconds: float | None = Field(default=120.0, gt=0)
    #: the deadline stops the passing tests of the failing tests' own files too (only the
    #: failing tests always run)
    strict_budget: bool = False
    #: ochiai | dstar | tarantula
    formula: str = "ochiai"
    #: seconds for one run (default: the suite-timeout)
    timeout: float | None = Field(default=None, gt=0)
    #: ranking entries in the document
    limit: int = Field(default=30, ge=1)
    mutants: bool = True
    history: bool = True
    #: False, with ``mutants`` off: the selection runs once, under the tracer (no bare run:
    #: no measurement or order check), for a caller that has the bare outcomes already
    check_measurement: bool = True
    #: with ``check_measurement`` off and a budget: the mutants' run starts after the
    #: traced run, and only when that left half the budget (an answer in time first)
    spare_mutants: bool = False

    @model_validator(mode="after")
    def _test_ids(self) -> Self:
        check_test_ids(self.test_ids)
        if self.scope is not None and list(self.scope) != ["suite"]:
            check_test_ids(self.scope, "scope")
        return self


class FixTaskRequest(ProjectRequest, LedgerRequest):
    """``fix_task``: a self-contained task for a fixer (a person, an agent, a provider):
    the exam as a fixer may see it, the failure's context, the rules."""

    #: an exam id or a unique prefix of one
    exam: str
    #: the context's size (see :class:`LocalizeRequest`)
    budget_tokens: int = Field(default=1500, ge=50)
    #: seconds the context may take to make
    budget_seconds: float | None = Field(default=30.0, gt=0)


class ExamStatusRequest(LedgerRequest):
    """``exam_status``: the exams of a repository and what their verifications said."""

    repo: Path = Path(".")
    #: one exam (an id or a unique prefix of one); default: all of the repository's
    exam: str | None = None


class RunRequest(ProjectRequest):
    """``run``: reproduce tests in the project's own interpreter, N times."""

    test_ids: tuple[str, ...] = Field(min_length=1)
    repeat: int = Field(default=1, ge=1)
    #: seconds for one run (default: the suite-timeout)
    timeout: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _test_ids(self) -> Self:
        check_test_ids(self.test_ids)
        return self


class FlakyRequest(ProjectRequest):
    """``flaky``: tests whose outcome flips across repeats, or depends on what runs with
    them (none given: the suite, as verify's regression layer runs it)."""

    test_ids: tuple[str, ...] = ()
    repeat: int = Field(default=5, ge=2)
    #: seconds for one run (default: the suite-timeout)
    timeout: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _test_ids(self) -> Self:
        check_test_ids(self.test_ids)
        return self


class DiagnoseRequest(Request):
    """``diagnose``: one log, given as a file (``-``: this process's standard input), as
    text, or as a GitHub Actions run (``github`` OWNER/REPO, ``run_id``, ``job_id``)."""

    log: str | None = None
    text: str | None = None
    github: str | None = None
    run_id: int | None = Field(default=None, ge=1)
    job_id: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _one_log(self) -> Self:
        if self.github is None and (self.run_id is not None or self.job_id is not None):
            field = "run_id" if self.run_id is not None else "job_id"
            raise UsageError(
                "needs a GitHub repository (OWNER/REPO)", hint="or give a log file", field=field
            )
        given = [name for name in ("log", "text", "github") if getattr(self, name) is not None]
        if len(given) > 1:
            raise UsageError(
                f"give one log: {' and '.join(given)} were both given",
                hint="drop one of them",
                field=given[-1],
            )
        if not given:
            raise UsageError(
                "no log given",
                hint="give a log file (or - for standard input), its text, or a GitHub "
                "repository and run",
                field="log",
            )
        if self.log is not None and not self.log.strip():
            # Path("") is ".": the error would say the current directory is not a log
            raise UsageError(
                "the path is empty", hint="give the path of a CI log, or - for stdin", field="log"
            )
        if self.text == "":
            raise UsageError("is empty", hint="give the log of a failed job", field="text")
        return self


class ExamsListRequest(LedgerRequest):
    """``exams list``: the sealed exams (all, or one repository's)."""

    #: a repository identity (as ``exams show`` prints it)
    repo_id: str | None = None
    #: a repository (or monorepo package) by its path
    repo: Path | None = None

    @model_validator(mode="after")
    def _one_repo(self) -> Self:
        if self.repo is not None and self.repo_id is not None:
            raise UsageError(
                "give the repository's path or its identity, not both",
                hint="the path names the repository by where it is",
                field="repo_id",
            )
        return self


class ExamShowRequest(LedgerRequest):
    """``exams show``: one exam, its hashes re-checked."""

    #: an exam id or a unique prefix of one
    exam: str


class ExamsExportRequest(ExamsListRequest):
    """``exams export``: a bundle of exams (default: all, or all of a repository's)."""

    exams: tuple[str, ...] = ()


class ExamsImportRequest(LedgerRequest):
    """``exams import``: a bundle from a file, or its text."""

    file: Path | None = None
    text: str | None = None
    #: what messages call the text (e.g. "stdin")
    source: str = "the bundle"

    @model_validator(mode="after")
    def _one_bundle(self) -> Self:
        if (self.file is None) == (self.text is None):
            raise UsageError(
                "give the bundle as a file or as text (one of them)",
                hint="a bundle is what exams export writes",
                field="file",
            )
        return self


class LedgerVerifyRequest(LedgerRequest):
    """``ledger verify``: recompute the hash chain."""

    #: re-create the append-only triggers if they were dropped, then verify
    restore_guards: bool = False
    #: ``SEQ:HASH`` as an earlier ``ledger verify`` printed it
    expect_head: str | None = None

    @model_validator(mode="after")
    def _head(self) -> Self:
        if self.expect_head is not None:
            seq, _, head = self.expect_head.partition(":")
            if not seq.isdigit() or len(head) != 64:
                raise UsageError(
                    f"{self.expect_head!r} is not SEQ:HASH",
                    hint="give it as printed by `truegreen ledger verify`, e.g. 12:3f2a...",
                    field="expect_head",
                )
        return self

    @property
    def expected(self) -> tuple[int, str] | None:
        if self.expect_head is None:
            return None
        seq, _, head = self.expect_head.partition(":")
        return int(seq), head


class ReceiptVerifyRequest(Request):
    """``receipt verify``: re-hash one receipt.json."""

    file: Path


class PolicyRequest(Request):
    """``policy explain`` / ``policy check``: the effective policy of a repository."""

    #: the project (a directory in a git repository)
    repo: Path = Path(".")
    #: read the configuration at this revision (as verify reads the base's); default: the
    #: files on disk
    rev: str | None = None
    #: check this file instead (a pyproject.toml or a truegreen.toml, by its name)
    file: Path | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if self.rev is not None and self.file is not None:
            raise UsageError(
                "give a revision or a file, not both", hint="drop one of them", field="file"
            )
        return self


class ReportRequest(Request):
    """``report``: render a stored verification again (a verification.json or a receipt)."""

    #: a verification.json, or a receipt.json (its hash is checked first)
    file: Path
    #: html | md | json
    format: str = "html"

    @model_validator(mode="after")
    def _known_format(self) -> Self:
        if self.format not in ("html", "md", "json"):
            raise UsageError(
                f"unknown report format {self.format!r}",
                hint="use html, md or json",
                field="format",
            )
        return self

    #: the repository it was verified in: adds the diff and the exam's code when given
    repo: Path | None = None
    #: the ledger the exams are read from (their code, for the report)
    db: str | None = None


class StatsRequest(LedgerRequest):
    """``stats``: the verifications the ledger recorded, by decision and reason."""

    #: only those recorded since: a duration before now (``30d``, ``12h``, ``2w``) or an
    #: ISO date or time
    since: str | None = None
    #: only this repository's (an identity, ``api.repo_identity``)
    repo_id: str | None = None


class DoctorRequest(Request):
    """``doctor``: what is installed and configured, what is missing."""

    repo: Path = Path(".")
    python: str | None = None


class EnvBuildRequest(Request):
    """``env build``: create or update the project's virtualenv (the one phase with network)."""

    repo: Path = Path(".")
    #: the base interpreter for a new virtualenv
    python: str | None = None
    #: where the virtualenv goes (default: REPO/.venv)
    venv: Path | None = None
    #: extras to install (default: test/tests/testing/dev if declared)
    extras: tuple[str, ...] = ()
    #: seconds for each step
    timeout: float = Field(default=1800.0, gt=0)


class DemoRequest(Request):
    """``demo``: seal the bundled example's exam and verify every candidate fix."""

    sandbox: str | None = None
    #: build the demo here (kept) instead of a temporary directory
    workdir: Path | None = None
    #: keep the temporary directory
    keep: bool = False
    db: str | None = None


class VerificationsQuery(LedgerRequest):
    """``list_verifications``: the verifications the ledger recorded."""

    #: a repository identity: only the verifications of its exams
    repo: str | None = None
    #: only those recorded at or after this time (an aware datetime; naive means UTC)
    since: datetime | None = None
    #: only the most recent N
    limit: int | None = Field(default=None, ge=1)
