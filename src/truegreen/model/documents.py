"""Pydantic models of the JSON documents truegreen prints: the engine API's results, and
the source of their JSON Schemas.

The engine builds the documents as plain dicts (canonical JSON); the engine API
(:mod:`truegreen.api`) hands them to adapters as these models, typed where the contract
(DESIGN.md) says what a consumer may rely on. Extra fields are allowed and kept: a
document may carry more than its contract, and ``to_json()`` gives back exactly the
document the engine built (``canonical.pretty(result.to_json())`` is what ``--json``
prints). The models also validate documents in the tests and generate
``truegreen/schemas/*.schema.json`` (``python -m truegreen.model.documents --write``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from truegreen.model.reasons import Reason

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


class _Doc(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    def to_json(self) -> dict[str, Any]:
        """The document as the engine built it (fields it did not have stay out)."""
        doc: dict[str, Any] = self.model_dump(by_alias=True, mode="json", exclude_unset=True)
        return doc


class Side(_Doc):
    outcome: str = Field(description="the outcome of every run, or 'flaky' when they differ")
    runs: int = Field(ge=0)


class ExamResult(_Doc):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    test: str
    base: Side
    head: Side


class Layers(_Doc):
    exam: Literal["pass", "fail", "error"]
    tamper: Literal["pass", "fail", "skipped"]
    regression: Literal["pass", "fail", "skipped"]
    gates: Literal["pass", "fail", "skipped"]


class Strength(_Doc):
    killed: int = Field(ge=0)
    mutants: int = Field(ge=1)
    label: Literal["weak", "medium", "strong"]


class Receipt(_Doc):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Verification(_Doc):
    """``truegreen.verification/1``."""

    schema_: Literal["truegreen.verification/1"] = Field(alias="schema")
    repo: str
    base: str = Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")
    head: str = Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")
    exams: list[ExamResult]
    layers: Layers
    strength: Strength | None
    verdict: Literal["verified", "refuted", "inconclusive"]
    decision: Literal["approve", "reject", "escalate"]
    #: the same record the tamper layer and the verdict use (truegreen.model.reasons)
    reasons: list[Reason]
    receipt: Receipt
    carried: list[str] = Field(
        default_factory=list,
        description="git-ignored files of the checkout the worktrees got (paths relative to "
        "the repository root, sorted)",
    )
    notes: list[str] = Field(
        default_factory=list,
        description="what the runner did that the outcomes alone do not say (e.g. a test "
        "process ended by truegreen after pytest was done); sorted",
    )


class RunTest(_Doc):
    id: str
    outcome: Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "no_report"]
    signature: str | None
    #: seconds, a float as the runner computes it (round(..., 3))
    duration: float
    excerpt: str


class Run(_Doc):
    """``truegreen.run/1``."""

    schema_: Literal["truegreen.run/1"] = Field(alias="schema")
    command: list[str] = Field(description="the exact argv to rerun it by hand", min_length=1)
    tests: list[RunTest]
    notes: list[str] = Field(
        default_factory=list,
        description="what the runner did that the outcomes alone do not say (e.g. a test "
        "process ended by truegreen after pytest was done)",
    )


class FlakyTest(_Doc):
    id: str
    kind: Literal["flaky", "order_dependent"]
    outcomes: list[str] = Field(description="the test's outcome in each repeat, in order")
    reversed: str = Field(description="its outcome in the run in the reverse order")
    alone: str | None = Field(description="its outcome run by itself (null: not run)")
    module: str | None = Field(description="its outcome with the rest of its module")
    detail: str


class Flaky(_Doc):
    """``truegreen.flaky/1``: what ``flaky --json`` prints."""

    schema_: Literal["truegreen.flaky/1"] = Field(alias="schema")
    command: list[str] = Field(description="the argv of the repeated run", min_length=1)
    repeat: int = Field(ge=2)
    tests_run: int = Field(ge=0)
    stable: int = Field(ge=0)
    flaky: list[str] = Field(description="tests with more than one outcome across the repeats")
    order_dependent: list[str] = Field(
        description="tests whose outcome depends on what runs with them"
    )
    unchecked: list[str] = Field(
        description="candidates for order dependence left unchecked (beyond the limit)"
    )
    tests: list[FlakyTest]
    complete: bool


class Survivor(_Doc):
    file: str
    line: int = Field(ge=1)
    mutation: str


class StrengthResult(Strength):
    survivors: list[Survivor] = Field(description="the mutants the exams did not kill")


class StrengthReport(_Doc):
    """``truegreen.strength/1``: what ``strength --json`` prints."""

    schema_: Literal["truegreen.strength/1"] = Field(alias="schema")
    base: str = Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")
    head: str = Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")
    exams: list[str]
    not_passing_at_head: list[str] = Field(
        description="exams that do not pass on the head: their strength there means nothing"
    )
    strength: StrengthResult | None = Field(
        description="null when no mutant of a changed line of non-test code could be made"
    )


class RankedLine(_Doc):
    file: str
    line: int = Field(ge=1)
    score: str = Field(description="exact: a/b, or sqrt(a/b) for a formula with a root")
    rank: int = Field(ge=1)
    ties: int = Field(ge=1, description="how many lines share this rank")


class Localization(_Doc):
    """``truegreen.localization/1``: what ``localize --json`` prints."""

    schema_: Literal["truegreen.localization/1"] = Field(alias="schema")
    target: list[str]
    formula: str
    ranking: list[RankedLine]
    values: dict[str, Any] = Field(description="failing vs passing values")
    excerpt: str | None
    context: dict[str, Any] = Field(description="the text output, packed to a token budget")

    @property
    def text(self) -> str:
        """The context as ``localize`` prints it without --json."""
        return str(self.context["text"])


class ExamSummary(_Doc):
    id: str
    seq: int = Field(ge=1)
    repo: str
    test: str
    rev: str
    hidden: bool
    signature: str | None
    issue: str | None


class ExamList(_Doc):
    """``truegreen.exam-list/1``: what ``exams list --json`` prints."""

    schema_: Literal["truegreen.exam-list/1"] = Field(alias="schema")
    exams: list[ExamSummary]


class ImportedExam(_Doc):
    id: str
    test: str
    seq: int = Field(ge=1)
    status: Literal["imported", "already present"]


class ExamImport(_Doc):
    """``truegreen.exam-import/1``: what ``exams import --json`` prints."""

    schema_: Literal["truegreen.exam-import/1"] = Field(alias="schema")
    exams: list[ImportedExam]


class ExamBundle(_Doc):
    """``truegreen.exam-bundle/1``: what ``exams export`` writes (see
    :mod:`truegreen.exam.bundle`: a hidden exam's files travel base64-encoded)."""

    schema_: Literal["truegreen.exam-bundle/1"] = Field(alias="schema")
    exams: list[dict[str, Any]] = Field(description="truegreen.exam/1 documents, by id")
    hidden_exams: list[str] = Field(
        default_factory=list, description="the ids of the hidden exams (absent when none)"
    )


class DoctorCheck(_Doc):
    name: str
    status: Literal["ok", "warn", "missing"]
    detail: str
    fix: str | None


class DoctorReport(_Doc):
    """``truegreen.doctor/1``: what ``doctor --json`` prints."""

    schema_: Literal["truegreen.doctor/1"] = Field(alias="schema")
    version: str
    checks: list[DoctorCheck]

    @property
    def missing(self) -> list[str]:
        """The names of what is required and missing (``doctor`` exits 2 for them)."""
        return [c.name for c in self.checks if c.status == "missing"]


class GitHubWrite(_Doc):
    """What the write gate did with one write (docs/github.md)."""

    kind: Literal["comment", "check_run", "labels"]
    key: str
    action: Literal["shadow", "created", "updated", "duplicate", "refused", "failed"]
    detail: str
    url: str | None
    redacted: int


class CiReport(_Doc):
    """``truegreen.ci/1``: what ``ci --json`` and ``verify OWNER/REPO#N --json`` print."""

    schema_: Literal["truegreen.ci/1"] = Field(alias="schema")
    event: str
    decision: Literal["approve", "reject", "escalate"] | None
    exit_code: int
    linked_issues: list[str]
    exams: list[str]
    writes: list[GitHubWrite]
    verification: Verification | None
    #: a truegreen.diagnosis/1 document (``ci --diagnose``)
    diagnosis: dict[str, Any] | None


DOCUMENTS: dict[str, type[BaseModel]] = {
    "truegreen.verification-1": Verification,
    "truegreen.run-1": Run,
    "truegreen.strength-1": StrengthReport,
    "truegreen.localization-1": Localization,
    "truegreen.exam-list-1": ExamList,
    "truegreen.exam-import-1": ExamImport,
    "truegreen.exam-bundle-1": ExamBundle,
    "truegreen.doctor-1": DoctorReport,
    "truegreen.ci-1": CiReport,
    "truegreen.flaky-1": Flaky,
}


def generated() -> dict[str, str]:
    """File name -> JSON Schema text, for every document model here and the exam."""
    from truegreen.model.exam import Exam

    out = {
        f"{name}.schema.json": json.dumps(
            model.model_json_schema(by_alias=True), indent=2, sort_keys=True
        )
        + "\n"
        for name, model in DOCUMENTS.items()
    }
    from truegreen.diagnose.model import Diagnosis

    out["truegreen.diagnosis-1.schema.json"] = (
        json.dumps(Diagnosis.model_json_schema(by_alias=True), indent=2, sort_keys=True) + "\n"
    )
    out["truegreen.exam-1.schema.json"] = (
        json.dumps(Exam.model_json_schema(by_alias=True), indent=2, sort_keys=True) + "\n"
    )
    return out


def validate(doc: dict[str, Any]) -> BaseModel:
    """Validate a document against its model (by its ``schema`` field)."""
    name = str(doc.get("schema", "")).replace("/", "-")
    return DOCUMENTS[name].model_validate(doc)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--write"]:
        SCHEMA_DIR.mkdir(exist_ok=True)
        for name, text in generated().items():
            (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
        return 0
    for name, text in generated().items():
        on_disk = SCHEMA_DIR / name
        if not on_disk.is_file() or on_disk.read_text(encoding="utf-8") != text:
            print(
                f"{on_disk} is out of date: run python -m truegreen.model.documents --write",
                file=sys.stderr,
            )
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
