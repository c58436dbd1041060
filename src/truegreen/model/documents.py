"""Pydantic models of the JSON documents truegreen prints, for their JSON Schemas.

The engine builds the documents as plain dicts (canonical JSON); these models describe
them (what every consumer may rely on: the contract in DESIGN.md) and are used to
validate documents in the tests and to generate ``truegreen/schemas/*.schema.json``
(``python -m truegreen.model.documents --write``). Extra fields are allowed: a document
may carry more than its contract.
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
    model_config = ConfigDict(extra="allow", populate_by_name=True)


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


DOCUMENTS: dict[str, type[BaseModel]] = {
    "truegreen.verification-1": Verification,
    "truegreen.run-1": Run,
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
