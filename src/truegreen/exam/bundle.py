"""Export and import: a portable JSON bundle of exams, to verify on another machine or in CI.

    {"schema": "truegreen.exam-bundle/1", "exams": [<truegreen.exam/1>, ...]}

Exams are sorted by id, so the same exams give the same bytes. Import re-checks every
exam's hashes and id first: one bad exam and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truegreen.errors import IntegrityError, UsageError
from truegreen.exam.store import KIND_IMPORTED, Ledger
from truegreen.model.exam import Exam

SCHEMA = "truegreen.exam-bundle/1"


@dataclass(frozen=True)
class Imported:
    """One exam of an import: ``created`` False when the ledger already held it."""

    id: str
    test: str
    seq: int
    created: bool

    @property
    def status(self) -> str:
        return "imported" if self.created else "already present"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "test": self.test, "seq": self.seq, "status": self.status}


def export_bundle(
    ledger: Ledger, refs: Sequence[str] = (), repo: str | None = None
) -> dict[str, Any]:
    """A bundle of the exams ``refs`` name (default: all, or all of ``repo``'s), re-checked."""
    ids = [ledger.resolve_id(r) for r in refs] or [s.id for s in ledger.list_exams(repo)]
    exams = [ledger.get_exam(i).to_json() for i in sorted(set(ids))]
    return {"schema": SCHEMA, "exams": exams}


def parse_bundle(doc: Any, source: str = "the bundle") -> list[Exam]:
    """The exams of a bundle document, each checked (IntegrityError names the first bad one)."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise UsageError(
            f"{source} is not a {SCHEMA} document (schema: {found!r})",
            hint="make one with `truegreen exams export -o FILE`",
        )
    items = doc.get("exams")
    if not isinstance(items, list):
        raise UsageError(
            f"{source} has no list of exams", hint="make one with `truegreen exams export`"
        )
    exams: dict[str, Exam] = {}
    for n, item in enumerate(items, 1):
        try:
            exam = Exam.from_json(item)
        except IntegrityError as exc:
            raise IntegrityError(
                f"{source}, exam {n} of {len(items)}: {exc.message}; nothing was imported",
                hint="export the exam again from a ledger you trust",
            ) from None
        exams[exam.id] = exam
    return [exams[i] for i in sorted(exams)]


def read_bundle(path: Path | str) -> list[Exam]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise UsageError(
            f"cannot read {p}: {reason}", hint="give the path of an exam bundle"
        ) from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise UsageError(
            f"{p} is not JSON ({exc})", hint="give a file `truegreen exams export` wrote"
        ) from None
    return parse_bundle(doc, str(p))


def import_bundle(ledger: Ledger, exams: Sequence[Exam]) -> list[Imported]:
    """Append the exams the ledger does not hold yet, all in one transaction."""
    stored = ledger.add_exams(list(exams), kind=KIND_IMPORTED)
    return [Imported(s.exam.id, s.exam.test, s.entry.seq, s.created) for s in stored]
