"""The ``truegreen.diagnosis/1`` document (typed; its JSON Schema comes from this model)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA = "truegreen.diagnosis/1"

DiagnosisClass = Literal[
    "test",
    "lint",
    "type",
    "build",
    "dependency",
    "network",
    "timeout",
    "configuration",
    "environment",
    "infrastructure",
    "unknown",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class EvidenceLine(_Model):
    #: 1-based line number in the log as given (LF only, before any cleaning)
    line: int
    #: the line as analysed (timestamp and colours removed); untrusted text, quoted as data
    text: str
    #: error | summary | exit | context
    kind: str
    #: the job log it comes from, where the input held several
    source: str | None = None


class Signature(_Model):
    test: str
    signature: str
    exception: str
    message: str


class FailedStep(_Model):
    name: str
    command: str | None
    tool: str | None
    exit_code: int | None
    line: int | None


class Flaky(_Model):
    suspected: bool
    tests: list[str]
    evidence: list[str]
    note: str


class Source(_Model):
    name: str
    lines: int
    bytes: int
    formats: list[str]
    non_utf8: bool
    jobs: list[str]


class Untrusted(_Model):
    note: str
    #: lines whose text addresses a reader or a model (instructions); quoted, never followed
    lines: list[int]


class Diagnosis(_Model):
    schema_: Literal["truegreen.diagnosis/1"] = Field(
        default="truegreen.diagnosis/1", alias="schema"
    )
    class_: DiagnosisClass = Field(alias="class")
    confidence: float
    reasons: list[str]
    step: FailedStep | None
    evidence: list[EvidenceLine]
    failing_tests: list[str]
    signatures: list[Signature]
    flaky: Flaky
    next_step: str
    source: Source
    untrusted: Untrusted

    def document(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, mode="json")

    def to_json(self) -> dict[str, Any]:
        """The ``truegreen.diagnosis/1`` document (as every engine API result names it)."""
        return self.document()


def json_schema() -> dict[str, Any]:
    return Diagnosis.model_json_schema(by_alias=True)
