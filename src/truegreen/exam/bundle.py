"""Export and import: a portable JSON bundle of exams, to verify on another machine or in CI.

    {"schema": "truegreen.exam-bundle/1", "exams": [<truegreen.exam/1>, ...]}

Exams are sorted by id, so the same exams give the same bytes. Import re-checks every
exam's hashes and id first: one bad exam and nothing is written.

A hidden exam's files never travel as plain text. Each of its files carries, in place of
``content``, ``hidden_content_base64`` (the UTF-8 bytes of the content, base64), and the
bundle lists the hidden exams' ids under ``hidden_exams``. Import decodes them and checks
every hash and the id as for any exam. Base64 is not encryption: it keeps the exam from
being read at a glance (``cat``, a diff, a pull request), not from someone who decodes it.
Both keys were added to version 1 (a bundle without hidden exams is as it was); a
truegreen that predates them refuses such a bundle (the exam is incomplete to it), it
never imports a part of it.
"""

from __future__ import annotations

import base64
import binascii
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


#: the key that stands for ``content`` in a hidden exam's files in a bundle
HIDDEN_CONTENT = "hidden_content_base64"


def _bundled(exam: Exam) -> dict[str, Any]:
    """The exam as a bundle carries it: a hidden exam's contents base64-encoded."""
    doc = exam.to_json()
    if exam.hidden:
        for f in doc["files"]:
            f[HIDDEN_CONTENT] = base64.b64encode(f.pop("content").encode("utf-8")).decode()
    return doc


def _unbundled(item: Any) -> Any:
    """The exam document back from its bundle form (files' hidden content decoded)."""
    if not isinstance(item, dict) or not isinstance(item.get("files"), list):
        return item  # Exam.from_json says what is wrong with it
    files = []
    for f in item["files"]:
        if isinstance(f, dict) and HIDDEN_CONTENT in f:
            if "content" in f:
                raise IntegrityError(f"{f.get('path')!r} carries both content and {HIDDEN_CONTENT}")
            try:
                text = base64.b64decode(f[HIDDEN_CONTENT], validate=True).decode("utf-8")
            except (binascii.Error, TypeError, ValueError):
                raise IntegrityError(
                    f"{f.get('path')!r}: {HIDDEN_CONTENT} is not base64 of UTF-8 text"
                ) from None
            f = {k: v for k, v in f.items() if k != HIDDEN_CONTENT} | {"content": text}
        files.append(f)
    return {**item, "files": files}


def export_bundle(
    ledger: Ledger, refs: Sequence[str] = (), repo: str | None = None
) -> dict[str, Any]:
    """A bundle of the exams ``refs`` name (default: all, or all of ``repo``'s), re-checked;
    hidden exams' contents encoded and their ids listed under ``hidden_exams``."""
    ids = [ledger.resolve_id(r) for r in refs] or [s.id for s in ledger.list_exams(repo)]
    exams = [ledger.get_exam(i) for i in sorted(set(ids))]
    bundle: dict[str, Any] = {"schema": SCHEMA, "exams": [_bundled(e) for e in exams]}
    hidden = [e.id for e in exams if e.hidden]
    if hidden:
        bundle["hidden_exams"] = hidden
    return bundle


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
            exam = Exam.from_json(_unbundled(item))
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
