"""The hash chain: how an entry's hash is made and how a chain is checked.

Pure functions over rows; no database here. Entry ``n`` commits to its own content
(``payload_sha256``, ``kind``, ``seq``) and to entry ``n-1`` (``prev_hash``), so an
entry that is edited, removed or moved breaks the chain at a point we can name.

What a chain cannot show on its own: entries cut off its *end* (the new last entry is
still consistent), and an end rewritten together with all of its hashes. Compare
``head`` with a value recorded elsewhere (a receipt, a CI log) to catch those.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from truegreen import canonical

#: prev_hash of the first entry.
GENESIS = "0" * 64

Problem = Literal["edited", "removed", "reordered"]


def entry_hash(seq: int, kind: str, payload_sha256: str, prev_hash: str) -> str:
    """The hash entry ``seq`` is known by (and that entry ``seq + 1`` records)."""
    return canonical.digest(
        {"seq": seq, "kind": kind, "payload_sha256": payload_sha256, "prev_hash": prev_hash}
    )


class RowLike(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> str: ...
    @property
    def payload_sha256(self) -> str: ...
    @property
    def prev_hash(self) -> str: ...
    @property
    def entry_hash(self) -> str: ...


@dataclass(frozen=True)
class Entry:
    """One ledger entry, its payload parsed."""

    seq: int
    kind: str
    payload: dict[str, Any]
    payload_sha256: str
    prev_hash: str
    entry_hash: str
    #: when it was appended (UTC); informational, not covered by any hash
    recorded_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry without its payload (the hashes that stand for it)."""
        return {
            "seq": self.seq,
            "kind": self.kind,
            "payload_sha256": self.payload_sha256,
            "prev_hash": self.prev_hash,
            "entry_hash": self.entry_hash,
        }

    @classmethod
    def from_row(cls, row: RowLike, recorded_at: str | None = None) -> Entry:
        payload = json.loads(row.payload)
        return cls(
            seq=row.seq,
            kind=row.kind,
            payload=payload if isinstance(payload, dict) else {"value": payload},
            payload_sha256=row.payload_sha256,
            prev_hash=row.prev_hash,
            entry_hash=row.entry_hash,
            recorded_at=recorded_at,
        )


@dataclass(frozen=True)
class ChainProblem:
    """The first entry that is not what the chain says it should be."""

    seq: int
    problem: Problem
    detail: str

    @property
    def message(self) -> str:
        return f"entry {self.seq} was {self.problem}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "problem": self.problem, "detail": self.detail}


@dataclass(frozen=True)
class ChainReport:
    """What ``ledger verify`` found. ``ok`` only when the chain, the index and the guards are."""

    entries: int
    #: seq and entry_hash of the last entry (0 and GENESIS when the ledger is empty)
    head_seq: int
    head: str
    first_bad: ChainProblem | None = None
    #: append-only triggers that are missing from the database
    missing_guards: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.first_bad is None and not self.missing_guards

    @property
    def message(self) -> str:
        if self.first_bad is not None:
            return f"the ledger is broken: {self.first_bad.message}"
        if self.missing_guards:
            return (
                "the ledger's append-only triggers were removed "
                f"({', '.join(self.missing_guards)}); its {self.entries} entries still chain"
            )
        return f"the ledger is intact: {self.entries} entries, head {self.head_seq}:{self.head}"

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "truegreen.ledger-check/1",
            "ok": self.ok,
            "entries": self.entries,
            "head": {"seq": self.head_seq, "entry_hash": self.head},
            "first_bad": None if self.first_bad is None else self.first_bad.to_json(),
            "missing_guards": list(self.missing_guards),
        }


def check_chain(
    rows: Iterable[RowLike], hashes: Mapping[str, int]
) -> tuple[ChainProblem | None, int, int, str]:
    """Walk ``rows`` in seq order; return (first problem, count, head seq, head hash).

    ``hashes`` maps every stored entry_hash to its seq, so an entry that points at an
    entry other than its predecessor can be named as moved rather than edited.
    """
    prev: RowLike | None = None
    count = 0
    for row in rows:
        count += 1
        problem = _check_one(row, prev, hashes)
        if problem is not None:
            return problem, count, row.seq, row.entry_hash
        prev = row
    if prev is None:
        return None, 0, 0, GENESIS
    return None, count, prev.seq, prev.entry_hash


def _check_one(
    row: RowLike, prev: RowLike | None, hashes: Mapping[str, int]
) -> ChainProblem | None:
    expected_seq = prev.seq + 1 if prev else 1
    expected_prev = prev.entry_hash if prev else GENESIS
    if canonical.sha256_text(row.payload) != row.payload_sha256:
        return ChainProblem(row.seq, "edited", "its payload does not match its payload_sha256")
    if row.prev_hash != expected_prev:
        follows = hashes.get(row.prev_hash)
        if follows is not None and (prev is None or follows != prev.seq):
            now = f"entry {prev.seq}" if prev else "the start of the ledger"
            return ChainProblem(
                row.seq,
                "reordered",
                f"it was appended after the entry now at seq {follows}, but now follows {now}",
            )
        if row.seq != expected_seq:
            return _removed(expected_seq, row.seq - expected_seq)
        shift = _renumbered_by(row, limit=len(hashes) + 1)
        if shift:
            more = "" if shift == 1 else f" (and the next {_entries(shift - 1)})"
            return ChainProblem(
                expected_seq,
                "removed",
                f"it{more} is missing, and the entries after it were renumbered to hide the gap",
            )
        if prev is None:
            return ChainProblem(row.seq, "edited", "it does not start the chain (its prev_hash)")
        return ChainProblem(
            prev.seq,
            "edited",
            f"it no longer matches the hash that entry {row.seq} recorded for it "
            "(it was rewritten, hashes and all)",
        )
    if row.seq != expected_seq:
        return ChainProblem(
            row.seq, "edited", f"its seq was changed (it follows entry {expected_seq - 1})"
        )
    if entry_hash(row.seq, row.kind, row.payload_sha256, row.prev_hash) != row.entry_hash:
        return ChainProblem(row.seq, "edited", "its entry_hash does not match its content")
    return None


def _renumbered_by(row: RowLike, limit: int) -> int:
    """How far ``row`` was moved down by renumbering (0: it was not)."""
    if entry_hash(row.seq, row.kind, row.payload_sha256, row.prev_hash) == row.entry_hash:
        return 0
    for shift in range(1, limit + 1):
        if (
            entry_hash(row.seq + shift, row.kind, row.payload_sha256, row.prev_hash)
            == row.entry_hash
        ):
            return shift
    return 0


def _removed(seq: int, n: int) -> ChainProblem:
    if n == 1:
        return ChainProblem(seq, "removed", "it is missing from the ledger")
    return ChainProblem(seq, "removed", f"it and the next {_entries(n - 1)} are missing")


def _entries(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"
