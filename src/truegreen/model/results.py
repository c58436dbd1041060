"""What the engine API returns that is not one of the JSON documents alone: a sealed exam
with its ledger entry, an exam as a fixer may see it, a recorded verification.

The documents themselves (verification, run, strength, localization...) are in
:mod:`truegreen.model.documents`; the exam in :mod:`truegreen.model.exam`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from truegreen.model.documents import ExamList, Run, Verification
from truegreen.model.exam import Exam


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SealResult(_Result):
    """What ``seal`` did: the exam, and where the ledger holds it."""

    exam: Exam
    #: False when the ledger already held this exam (sealed before, the same content)
    created: bool
    #: whether it is in the ledger: False for a trial seal (``record=False``)
    recorded: bool
    #: the ledger entry that holds it (None when not recorded)
    seq: int | None = None
    entry_hash: str | None = None
    #: the bundle written with ``export``
    bundle_path: Path | None = None
    #: git-ignored files the worktree got from the checkout (truegreen.carry)
    carried: tuple[str, ...] = ()
    #: the configuration's carry entries that matched no git-ignored file
    carry_unmatched: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """What ``seal --json`` prints: the exam's document (a hidden exam's files without
        their content)."""
        return self.exam.public_json()


class RunResult(_Result):
    """``run``: the ``truegreen.run/1`` document, and what it means for an exit status."""

    run: Run
    #: the seconds each run had (the request's timeout, else the suite-timeout)
    timeout: float
    #: a run passed its deadline: the outcomes are incomplete, not a reproduction
    cut_short: bool
    #: the tests that failed, errored or did not report in some run, and the collection
    #: errors' node ids (what makes pytest exit 1)
    not_passed: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """What ``run --json`` prints."""
        return self.run.to_json()


class ExamListing(_Result):
    """``exams list``: the ``truegreen.exam-list/1`` document, from which ledger, for which
    repository."""

    exams: ExamList
    #: the ledger's URL (without a password)
    ledger: str
    #: the repository identity the list is for (None: every repository's)
    repo_id: str | None

    def to_json(self) -> dict[str, Any]:
        """What ``exams list --json`` prints."""
        return self.exams.to_json()


class ShownExam(_Result):
    """``exams show``: an exam, its hashes re-checked, and its ledger entry."""

    exam: Exam
    seq: int

    def to_json(self) -> dict[str, Any]:
        """What ``exams show --json`` prints (a hidden exam's files without their content)."""
        return self.exam.public_json()


class FixerFile(_Result):
    path: str
    sha256: str
    #: the file's text; None for a hidden exam's files, always
    content: str | None


class FixerExam(_Result):
    """An exam as anything facing a fixer sees it (an MCP tool, a fix task, a pull request
    comment): a hidden exam's files never carry their content, only their paths and
    hashes, so an adapter cannot leak it by mistake (the model refuses one that would)."""

    schema_: Literal["truegreen.fixer-exam/1"] = Field(
        default="truegreen.fixer-exam/1", alias="schema"
    )
    id: str
    test: str
    path: str
    sha256: str
    signature: str | None
    rev: str
    hidden: bool
    files: tuple[FixerFile, ...]

    model_config = ConfigDict(populate_by_name=True)

    @model_validator(mode="after")
    def _nothing_hidden(self) -> Self:
        if self.hidden and any(f.content is not None for f in self.files):
            raise ValueError("a hidden exam's files carry no content in a fixer's view")
        return self

    @classmethod
    def of(cls, exam: Exam) -> FixerExam:
        """The fixer's view of ``exam``, from the document commands print
        (:meth:`~truegreen.model.exam.Exam.public_json`: a hidden exam without content)."""
        doc = exam.public_json()
        return cls(
            id=doc["id"],
            test=doc["test"],
            path=doc["path"],
            sha256=doc["sha256"],
            signature=doc["signature"],
            rev=doc["rev"],
            hidden=doc["hidden"],
            files=tuple(
                FixerFile(path=f["path"], sha256=f["sha256"], content=f.get("content"))
                for f in doc["files"]
            ),
        )

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return doc


class RecordedVerification(_Result):
    """A verification the ledger holds: its entry, when it was appended, the document."""

    seq: int
    entry_hash: str
    #: UTC, ISO 8601 (informational: not covered by any hash)
    recorded_at: str | None
    verification: Verification

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "entry_hash": self.entry_hash,
            "recorded_at": self.recorded_at,
            "verification": self.verification.to_json(),
        }


class PolicySetting(_Result):
    """One key of the effective policy: its value and where it came from."""

    key: str
    value: Any
    #: "default", or the file (and table) that set it
    source: str


class PolicyRule(_Result):
    """One rule of the policy: its id (the reason code), what it checks, what it does."""

    id: str
    what: str
    #: what a finding of it does to the decision under this policy: escalate or reject
    decision: Literal["escalate", "reject"]


class PolicyExplanation(_Result):
    """``policy explain`` / ``policy check``: the effective policy and where each value
    came from (the ``truegreen.policy/1`` document)."""

    repo: str
    #: the revision the configuration was read at (a full sha), None for the files on disk
    rev: str | None
    #: the files read, in the order they apply (the later wins), e.g. "pyproject.toml"
    files: tuple[str, ...]
    settings: tuple[PolicySetting, ...]
    rules: tuple[PolicyRule, ...]
    #: what no setting can change
    fixed: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "truegreen.policy/1",
            "repo": self.repo,
            "rev": self.rev,
            "files": list(self.files),
            "settings": [s.model_dump(mode="json") for s in self.settings],
            "rules": [r.model_dump(mode="json") for r in self.rules],
            "fixed": list(self.fixed),
        }


class RenderedReport(_Result):
    """``report``: a stored verification rendered again."""

    #: html | md | json
    format: Literal["html", "md", "json"]
    text: str
    #: what the file was: a receipt (its hash checked) or a verification.json
    source: Literal["receipt", "verification"]
    decision: Literal["approve", "reject", "escalate"]
    #: the receipt's sha256 the verification carries
    receipt: str

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "truegreen.report/1",
            "format": self.format,
            "source": self.source,
            "decision": self.decision,
            "receipt": self.receipt,
            "text": self.text,
        }


class Stats(_Result):
    """``stats``: the recorded verifications by decision and reason (``truegreen.stats/1``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True, populate_by_name=True)

    schema_: Literal["truegreen.stats/1"] = Field(alias="schema")
    #: UTC, ISO 8601; None: every verification
    since: str | None
    verifications: int
    by_decision: dict[str, int]
    by_verdict: dict[str, int]
    #: reason code -> how many verifications have it, most frequent first
    by_reason: dict[str, int]
    #: candidates whose head's own suite passed where the base's did (what CI shows)
    tests_green: int
    verified: int
    #: green but not verified: what CI alone would have let through
    green_not_verified: int
    tests_green_rate: float | None
    verified_rate: float | None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return doc


class Evidence(_Result):
    """``expand_evidence``: what a context's handle names, in full (``truegreen.evidence/1``)."""

    schema_: Literal["truegreen.evidence/1"] = Field(default="truegreen.evidence/1", alias="schema")
    handle: str
    #: suspect (a ranked line and the function around it), values (a variable's values
    #: failing and passing), origin (where a bad value came from), function (the source of
    #: the function around FILE:LINE), file (the lines around FILE:LINE), excerpt (pytest's
    #: whole failure text)
    kind: Literal["suspect", "values", "origin", "function", "file", "excerpt"]
    file: str | None = None
    line: int | None = None
    text: str
    #: the ranking entry or the value records the handle names, as in the document
    data: list[dict[str, Any]] = Field(default_factory=list)

    model_config = ConfigDict(populate_by_name=True)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return doc


class CiResult(_Result):
    """``ci``: what a GitHub Actions job shows and how it ends.

    ``summary`` is the Markdown for ``$GITHUB_STEP_SUMMARY``; ``commands`` the workflow
    commands (``::error file=...``) for the job's standard output; ``exit_code`` the
    decision's (0 approve, 1 reject, 3 escalate; 0 for a diagnosis); ``writes`` what the
    write gate did with each write (shadow, created, updated, duplicate, refused, failed).
    """

    event: str
    exit_code: int
    #: approve | reject | escalate (None for a diagnosis)
    decision: str | None
    summary: str
    commands: tuple[str, ...]
    #: OWNER/REPO#N of each issue the pull request says it fixes
    linked_issues: tuple[str, ...]
    #: the ids of the exams sealed for them (read from the base)
    exams: tuple[str, ...]
    writes: tuple[dict[str, Any], ...]
    verification: Verification | None
    #: the truegreen.diagnosis/1 document of ``ci --diagnose``
    diagnosis: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The ``truegreen.ci/1`` document ``ci --json`` prints."""
        return {
            "schema": "truegreen.ci/1",
            "event": self.event,
            "decision": self.decision,
            "exit_code": self.exit_code,
            "linked_issues": list(self.linked_issues),
            "exams": list(self.exams),
            "writes": [dict(w) for w in self.writes],
            "verification": None if self.verification is None else self.verification.to_json(),
            "diagnosis": self.diagnosis,
        }


class FixTask(_Result):
    """``fix_task``: everything a fixer needs, and nothing a hidden exam would leak
    (``truegreen.fix-task/1``)."""

    schema_: Literal["truegreen.fix-task/1"] = Field(default="truegreen.fix-task/1", alias="schema")
    exam: FixerExam
    #: the failure the exam was sealed with (its signature)
    failure: str | None
    #: the localized context of the failure (None for a hidden exam, or when the test does
    #: not fail in the working tree: ``context_note`` says which)
    context: str | None
    context_note: str | None
    rules: tuple[str, ...]
    #: how the fix is graded
    verify: str

    model_config = ConfigDict(populate_by_name=True)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return doc


class ExamState(_Result):
    """One exam in :class:`ExamStatus`."""

    id: str
    test: str
    hidden: bool
    signature: str | None
    #: no recorded verification has found a fix for it yet (verdict ``verified``)
    open: bool
    #: the latest recorded verification that graded it: seq, verdict, decision, head
    last: dict[str, Any] | None


class ExamStatus(_Result):
    """``exam_status``: a repository's exams and what their verifications said
    (``truegreen.exam-status/1``)."""

    schema_: Literal["truegreen.exam-status/1"] = Field(
        default="truegreen.exam-status/1", alias="schema"
    )
    repo: str
    exams: tuple[ExamState, ...]
    #: what "verified" means (never "correct")
    verified_means: str

    model_config = ConfigDict(populate_by_name=True)

    @property
    def open(self) -> tuple[ExamState, ...]:
        return tuple(e for e in self.exams if e.open)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return doc
