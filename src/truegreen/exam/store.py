"""The exam store: an append-only, hash-chained ledger of exams and verifications.

    with Ledger() as ledger:                       # SQLite in the data directory
        stored = ledger.add_exam(exam)              # appends an "exam.sealed" entry
        exam = ledger.get_exam("ex-1a2b")           # re-checks every hash, fails closed
        ledger.record_verification(doc)             # appends a "verification" entry
        report = ledger.verify_chain()              # names the first bad entry

Every append is one transaction holding the ledger's write lock: a crash or Ctrl-C in
the middle leaves no entry, and two appenders never fork the chain. The database itself
refuses UPDATE and DELETE on the ledger (see :mod:`truegreen.exam.db`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from truegreen import canonical
from truegreen.errors import IntegrityError, UsageError
from truegreen.exam import db
from truegreen.exam.chain import (
    GENESIS,
    ChainProblem,
    ChainReport,
    Entry,
    check_chain,
    entry_hash,
)
from truegreen.model.exam import Exam

KIND_SEALED = "exam.sealed"
KIND_IMPORTED = "exam.imported"
KIND_VERIFICATION = "verification"
#: Entries that hold an exam (payload {"exam": <truegreen.exam/1>}), indexed in ``exams``.
EXAM_KINDS = frozenset({KIND_SEALED, KIND_IMPORTED})

_KIND = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")
_REF = re.compile(r"^[a-z0-9-]{1,64}$")
_APPEND_ATTEMPTS = 5

_L = db.ledger_table
_X = db.exams_table

_BROKEN_HINT = "run `truegreen ledger verify` to find the first bad entry"


@dataclass(frozen=True)
class StoredExam:
    """An exam and the ledger entry that holds it. ``created`` is False when it was there."""

    exam: Exam
    entry: Entry
    created: bool


@dataclass(frozen=True)
class ExamSummary:
    """One row of ``exams list`` (from the index; not re-checked until the exam is used)."""

    id: str
    seq: int
    repo: str
    test: str
    rev: str
    hidden: bool
    signature: str | None
    issue: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "repo": self.repo,
            "test": self.test,
            "rev": self.rev,
            "hidden": self.hidden,
            "signature": self.signature,
            "issue": self.issue,
        }


class Ledger:
    """The ledger at ``db_url`` (default: ``$TRUEGREEN_DB``, else SQLite in the data dir).

    Opening it creates or migrates the schema. Use it as a context manager, or ``close()``.
    """

    def __init__(self, db_url: str | None = None) -> None:
        self._url = db.resolve_url(db_url)
        self.url = db.describe(self._url)
        self._engine = db.create_engine(self._url)
        try:
            db.migrate(self._engine, self._url)
        except BaseException:
            self._engine.dispose()
            raise

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- appending ----------------------------------------------------------------------

    def append(self, kind: str, payload: dict[str, Any]) -> Entry:
        """Append one entry; exam entries go through :meth:`add_exam` instead."""
        if kind in EXAM_KINDS:
            raise UsageError(
                f"{kind!r} entries are written by add_exam", hint="call add_exam(exam)"
            )
        return self._append_new(kind, payload)

    def record_verification(self, doc: dict[str, Any]) -> Entry:
        """Append a ``truegreen.verification/1`` document as a "verification" entry."""
        schema = doc.get("schema") if isinstance(doc, dict) else None
        if not isinstance(schema, str) or not schema.startswith("truegreen.verification/"):
            raise UsageError(
                f"not a truegreen.verification document (schema: {schema!r})",
                hint="record the document `truegreen verify --json` prints",
            )
        return self._append_new(KIND_VERIFICATION, doc)

    def add_exam(self, exam: Exam, *, kind: str = KIND_SEALED) -> StoredExam:
        """Check ``exam`` and append it (``exam.sealed`` or ``exam.imported``).

        An exam that is already in the ledger is not appended again: the result holds the
        existing entry and ``created=False``.
        """
        exam.check_integrity()
        with db.translate(self._url):
            for attempt in range(_APPEND_ATTEMPTS):
                try:
                    with db.write(self._engine) as conn:
                        return self._add_exam(conn, exam, kind)
                except sa.exc.IntegrityError:
                    if attempt == _APPEND_ATTEMPTS - 1:
                        raise
        raise AssertionError("unreachable")  # pragma: no cover

    def add_exams(self, exams: Sequence[Exam], *, kind: str = KIND_IMPORTED) -> list[StoredExam]:
        """Add several exams in ONE transaction: all of them are appended, or none."""
        for exam in exams:
            exam.check_integrity()
        with db.translate(self._url), db.write(self._engine) as conn:
            return [self._add_exam(conn, exam, kind) for exam in exams]

    def _append_new(self, kind: str, payload: dict[str, Any]) -> Entry:
        text = _payload_text(kind, payload)
        with db.translate(self._url):
            for attempt in range(_APPEND_ATTEMPTS):
                try:
                    with db.write(self._engine) as conn:
                        return _append(conn, kind, text)
                except sa.exc.IntegrityError:
                    # Another appender won the race for this seq; take the new head.
                    if attempt == _APPEND_ATTEMPTS - 1:
                        raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _add_exam(self, conn: Connection, exam: Exam, kind: str) -> StoredExam:
        if kind not in EXAM_KINDS:
            raise UsageError(
                f"{kind!r} is not an exam entry kind", hint=f"use one of {sorted(EXAM_KINDS)}"
            )
        seq = conn.execute(sa.select(_X.c.seq).where(_X.c.id == exam.id)).scalar()
        if seq is not None:
            return StoredExam(exam, _entry_at(conn, int(seq), exam.id), created=False)
        entry = _append(conn, kind, _payload_text(kind, {"exam": exam.to_json()}))
        conn.execute(
            sa.insert(_X).values(
                id=exam.id,
                seq=entry.seq,
                repo=exam.repo,
                test=exam.test,
                rev=exam.rev,
                hidden=exam.hidden,
                signature=exam.signature,
                issue=None if exam.issue is None else str(exam.issue),
            )
        )
        return StoredExam(exam, entry, created=True)

    # -- reading ------------------------------------------------------------------------

    def resolve_id(self, ref: str) -> str:
        """The id of the one exam whose id is ``ref`` or starts with it."""
        if not _REF.match(ref):
            raise UsageError(
                f"{ref!r} is not an exam id (ids look like ex-1a2b3c4d5e6f7a8b)",
                hint="list them with `truegreen exams list`",
            )
        with db.translate(self._url), db.read(self._engine) as conn:
            ids = list(
                conn.execute(
                    sa.select(_X.c.id).where(_X.c.id.startswith(ref)).order_by(_X.c.id).limit(6)
                ).scalars()
            )
        if ref in ids:
            return ref
        if not ids:
            raise UsageError(
                f"unknown exam id {ref!r}", hint="list them with `truegreen exams list`"
            )
        if len(ids) > 1:
            shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
            raise UsageError(
                f"exam id {ref!r} is ambiguous: it matches {shown}",
                hint="give more of the id",
            )
        return str(ids[0])

    def find_exam(self, ref: str) -> StoredExam:
        """The exam ``ref`` names, with its entry; every hash re-checked (fails closed)."""
        exam_id = self.resolve_id(ref)
        with db.translate(self._url), db.read(self._engine) as conn:
            seq = conn.execute(sa.select(_X.c.seq).where(_X.c.id == exam_id)).scalar_one()
            entry = _entry_at(conn, int(seq), exam_id)
        doc = entry.payload.get("exam")
        try:
            exam = Exam.from_json(doc)
        except IntegrityError as exc:
            raise IntegrityError(
                f"ledger entry {entry.seq}: {exc.message}", hint=_BROKEN_HINT
            ) from None
        if exam.id != exam_id:
            raise IntegrityError(
                f"the exams index says entry {entry.seq} holds exam {exam_id}, "
                f"but it holds {exam.id}",
                hint=_BROKEN_HINT,
            )
        return StoredExam(exam, entry, created=False)

    def get_exam(self, ref: str) -> Exam:
        """The exam whose id is ``ref`` or starts with it; every hash re-checked (fails closed).

        Unknown or ambiguous ids raise UsageError; a stored exam or ledger entry that does
        not match its hashes raises IntegrityError.
        """
        return self.find_exam(ref).exam

    def has_exam(self, exam_id: str) -> bool:
        with db.translate(self._url), db.read(self._engine) as conn:
            return conn.execute(sa.select(_X.c.id).where(_X.c.id == exam_id)).first() is not None

    def list_exams(self, repo: str | None = None) -> list[ExamSummary]:
        """The exams in the ledger, oldest first (``repo``: only that repository's)."""
        query = sa.select(_X).order_by(_X.c.seq)
        if repo is not None:
            query = query.where(_X.c.repo == repo)
        with db.translate(self._url), db.read(self._engine) as conn:
            return [
                ExamSummary(
                    id=r.id,
                    seq=int(r.seq),
                    repo=r.repo,
                    test=r.test,
                    rev=r.rev,
                    hidden=bool(r.hidden),
                    signature=r.signature,
                    issue=r.issue,
                )
                for r in conn.execute(query)
            ]

    def verifications(
        self, *, repo: str | None = None, since: str | None = None, limit: int | None = None
    ) -> list[Entry]:
        """The "verification" entries, oldest first: of ``repo`` (a repository identity:
        the verifications of its exams) only, recorded at or after ``since`` (UTC, ISO 8601
        as ``recorded_at`` holds it) only, the most recent ``limit`` only. Each entry is
        checked against its hashes (fails closed)."""
        query = sa.select(_L).where(_L.c.kind == KIND_VERIFICATION).order_by(_L.c.seq.desc())
        if since is not None:
            query = query.where(_L.c.recorded_at >= since)
        found: list[Entry] = []
        with db.translate(self._url), db.read(self._engine) as conn:
            mine: set[str] | None = None
            if repo is not None:
                mine = set(conn.execute(sa.select(_X.c.id).where(_X.c.repo == repo)).scalars())
            for row in conn.execute(query):
                where = f"verification (ledger entry {row.seq})"
                if canonical.sha256_text(row.payload) != row.payload_sha256:
                    raise IntegrityError(
                        f"{where}: the entry was edited (payload_sha256)", hint=_BROKEN_HINT
                    )
                if entry_hash(row.seq, row.kind, row.payload_sha256, row.prev_hash) != (
                    row.entry_hash
                ):
                    raise IntegrityError(
                        f"{where}: the entry was edited (entry_hash)", hint=_BROKEN_HINT
                    )
                entry = Entry.from_row(row, row.recorded_at)
                if mine is not None and not mine & _exam_ids(entry.payload):
                    continue
                found.append(entry)
                if limit is not None and len(found) >= limit:
                    break
        return found[::-1]

    def entries(self) -> list[Entry]:
        """Every entry, in order (no checks: use :meth:`verify_chain` for those)."""
        with db.translate(self._url), db.read(self._engine) as conn:
            rows = conn.execute(sa.select(_L).order_by(_L.c.seq))
            return [Entry.from_row(row, row.recorded_at) for row in rows]

    # -- checking -----------------------------------------------------------------------

    def verify_chain(self, expect_head: tuple[int, str] | None = None) -> ChainReport:
        """Recompute the whole chain and the exams index; name the first bad entry.

        ``expect_head`` is a (seq, entry_hash) recorded earlier (``ledger verify`` prints
        it): the one check that catches entries cut off the end, or an end rewritten
        with all of its hashes.
        """
        with db.translate(self._url), db.read(self._engine) as conn:
            hashes = {
                r.entry_hash: int(r.seq) for r in conn.execute(sa.select(_L.c.seq, _L.c.entry_hash))
            }
            count = int(conn.execute(sa.select(sa.func.count()).select_from(_L)).scalar_one())
            last = conn.execute(
                sa.select(_L.c.seq, _L.c.entry_hash).order_by(_L.c.seq.desc()).limit(1)
            ).first()
            rows = conn.execute(
                sa.select(
                    _L.c.seq,
                    _L.c.kind,
                    _L.c.payload,
                    _L.c.payload_sha256,
                    _L.c.prev_hash,
                    _L.c.entry_hash,
                ).order_by(_L.c.seq)
            )
            problem, _, _, _ = check_chain(rows, hashes)
            problems = [problem] if problem else []
            problems += _index_problems(conn, set(hashes.values()))
            if expect_head is not None:
                problems += _head_problems(hashes, *expect_head)
            missing = db.missing_guards(conn)
        first = min(problems, key=lambda p: p.seq) if problems else None
        return ChainReport(
            entries=count,
            head_seq=int(last.seq) if last else 0,
            head=last.entry_hash if last else GENESIS,
            first_bad=first,
            missing_guards=tuple(missing),
        )

    def restore_guards(self) -> None:
        """Re-create the append-only triggers if someone dropped them."""
        db.restore_guards(self._engine, self._url)


# -- helpers ----------------------------------------------------------------------------


def _payload_text(kind: str, payload: dict[str, Any]) -> str:
    if not _KIND.match(kind):
        raise UsageError(
            f"{kind!r} is not a ledger entry kind", hint="use lower-case words and dots"
        )
    if not isinstance(payload, dict):
        raise UsageError("a ledger payload must be a JSON object")
    try:
        return canonical.dumps(payload)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"the {kind} payload is not JSON: {exc}") from None


def _append(conn: Connection, kind: str, text: str) -> Entry:
    last = conn.execute(
        sa.select(_L.c.seq, _L.c.entry_hash).order_by(_L.c.seq.desc()).limit(1)
    ).first()
    seq = int(last.seq) + 1 if last else 1
    prev = last.entry_hash if last else GENESIS
    payload_sha256 = canonical.sha256_text(text)
    entry = Entry(
        seq=seq,
        kind=kind,
        payload=json.loads(text),
        payload_sha256=payload_sha256,
        prev_hash=prev,
        entry_hash=entry_hash(seq, kind, payload_sha256, prev),
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    conn.execute(
        sa.insert(_L).values(
            seq=entry.seq,
            kind=entry.kind,
            payload=text,
            payload_sha256=entry.payload_sha256,
            prev_hash=entry.prev_hash,
            entry_hash=entry.entry_hash,
            recorded_at=entry.recorded_at,
        )
    )
    return entry


def _entry_at(conn: Connection, seq: int, exam_id: str) -> Entry:
    """Entry ``seq``, checked against its own hashes and its neighbours' (fails closed)."""
    rows = {
        int(r.seq): r for r in conn.execute(sa.select(_L).where(_L.c.seq.between(seq - 1, seq + 1)))
    }
    row = rows.get(seq)
    where = f"exam {exam_id} (ledger entry {seq})"
    if row is None:
        raise IntegrityError(f"{where}: the entry is missing from the ledger", hint=_BROKEN_HINT)
    if row.kind not in EXAM_KINDS:
        raise IntegrityError(
            f"{where}: the entry is a {row.kind!r}, not an exam", hint=_BROKEN_HINT
        )
    if canonical.sha256_text(row.payload) != row.payload_sha256:
        raise IntegrityError(f"{where}: the entry was edited (payload_sha256)", hint=_BROKEN_HINT)
    if entry_hash(seq, row.kind, row.payload_sha256, row.prev_hash) != row.entry_hash:
        raise IntegrityError(f"{where}: the entry was edited (entry_hash)", hint=_BROKEN_HINT)
    before = rows.get(seq - 1)
    expected_prev = before.entry_hash if before is not None else (GENESIS if seq == 1 else None)
    if row.prev_hash != expected_prev:
        raise IntegrityError(f"{where}: the chain is broken before it", hint=_BROKEN_HINT)
    after = rows.get(seq + 1)
    if after is not None and after.prev_hash != row.entry_hash:
        raise IntegrityError(f"{where}: the chain is broken after it", hint=_BROKEN_HINT)
    try:
        return Entry.from_row(row, row.recorded_at)
    except ValueError:
        raise IntegrityError(f"{where}: the payload is not JSON", hint=_BROKEN_HINT) from None


def _exam_ids(doc: dict[str, Any]) -> set[str]:
    """The ids of the exams a verification document graded against."""
    exams = doc.get("exams")
    if not isinstance(exams, list):
        return set()
    return {e["id"] for e in exams if isinstance(e, dict) and isinstance(e.get("id"), str)}


def _head_problems(hashes: dict[str, int], seq: int, head: str) -> list[ChainProblem]:
    if hashes.get(head) == seq:
        return []
    if seq not in hashes.values():
        return [
            ChainProblem(seq, "removed", "the head recorded earlier is gone: the end was cut off")
        ]
    return [
        ChainProblem(
            seq,
            "edited",
            "it is not the head recorded earlier: the ledger was rewritten here or before",
        )
    ]


def _index_problems(conn: Connection, seqs: set[int]) -> list[ChainProblem]:
    """Disagreements between the exams index and the exam entries of the ledger."""
    problems: list[ChainProblem] = []
    held: dict[int, str | None] = {}
    for r in conn.execute(
        sa.select(_L.c.seq, _L.c.payload).where(_L.c.kind.in_(sorted(EXAM_KINDS)))
    ):
        try:
            exam_id = json.loads(r.payload)["exam"]["id"]
        except (ValueError, KeyError, TypeError):
            exam_id = None
        held[int(r.seq)] = exam_id if isinstance(exam_id, str) else None
    indexed: dict[str, int] = {}
    for r in conn.execute(sa.select(_X.c.id, _X.c.seq)):
        seq = int(r.seq)
        indexed[r.id] = seq
        if seq not in seqs:
            problems.append(
                ChainProblem(
                    seq, "removed", f"it held exam {r.id}; the exams index still points at it"
                )
            )
        elif held.get(seq) != r.id:
            problems.append(
                ChainProblem(
                    seq, "edited", f"the exams index says it holds exam {r.id}, but it does not"
                )
            )
    for seq, exam_id in held.items():
        if exam_id is None or indexed.get(exam_id) != seq:
            problems.append(
                ChainProblem(
                    seq,
                    "edited",
                    f"it holds exam {exam_id}, which the exams index does not list there",
                )
            )
    return problems
