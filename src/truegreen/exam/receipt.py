"""Receipts: every input and output of a verification, hashed so anyone can re-check it.

    {"schema": "truegreen.receipt/1", "inputs": {...}, "outputs": {...}, "sha256": "..."}

``sha256`` is the sha256 of the canonical JSON (:mod:`truegreen.canonical`) of the
receipt without ``sha256``. The hash is over the content, not the file's bytes: the same
receipt re-indented still verifies, one changed value does not. Keep timestamps out of
``inputs`` and ``outputs``: the same verification must give the same receipt.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truegreen import canonical
from truegreen.errors import StoreError, UsageError

SCHEMA = "truegreen.receipt/1"


def make_receipt(inputs: dict[str, Any], outputs: dict[str, Any]) -> dict[str, Any]:
    """A receipt for ``inputs`` -> ``outputs`` (both JSON objects), its sha256 included."""
    body = {"schema": SCHEMA, "inputs": inputs, "outputs": outputs}
    try:
        digest = canonical.digest(body)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"a receipt holds JSON only: {exc}") from None
    return {**body, "sha256": digest}


def write_receipt(path: Path | str, receipt: dict[str, Any]) -> Path:
    """Write ``receipt`` to ``path`` atomically (a reader never sees half a receipt)."""
    check = check_receipt(receipt)
    if not check.ok:
        raise UsageError(f"refusing to write a receipt that does not verify: {check.message}")
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".receipt-", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(canonical.pretty(receipt))
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise StoreError(
            f"cannot write the receipt {target}: {exc.strerror}",
            hint="choose a writable directory",
        ) from None
    return target


@dataclass(frozen=True)
class ReceiptCheck:
    """The result of re-hashing a receipt."""

    ok: bool
    #: the sha256 the receipt records
    recorded: str
    #: the sha256 of its content now
    actual: str
    path: str | None = None

    @property
    def message(self) -> str:
        name = self.path or "the receipt"
        if self.ok:
            return f"{name}: ok, sha256 {self.actual}"
        return (
            f"{name} does not match its sha256: it records {self.recorded}, "
            f"its content hashes to {self.actual} (it was edited after it was written)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "truegreen.receipt-check/1",
            "ok": self.ok,
            "path": self.path,
            "recorded": self.recorded,
            "actual": self.actual,
        }


def check_receipt(receipt: Any, path: str | None = None) -> ReceiptCheck:
    """Re-hash a parsed receipt. Something that is not a receipt raises UsageError."""
    name = path or "the document"
    if not isinstance(receipt, dict) or receipt.get("schema") != SCHEMA:
        found = receipt.get("schema") if isinstance(receipt, dict) else type(receipt).__name__
        raise UsageError(
            f"{name} is not a {SCHEMA} receipt (schema: {found!r})",
            hint="give the receipt.json a verification wrote",
        )
    keys = set(receipt)
    if keys != {"schema", "inputs", "outputs", "sha256"}:
        extra = sorted(keys - {"schema", "inputs", "outputs", "sha256"})
        missing = sorted({"schema", "inputs", "outputs", "sha256"} - keys)
        raise UsageError(
            f"{name} is not a well-formed receipt (missing {missing}, unexpected {extra})",
            hint="give the receipt.json a verification wrote",
        )
    recorded = receipt["sha256"]
    if not isinstance(recorded, str):
        raise UsageError(f"{name}: sha256 is not a string", hint="give a receipt truegreen wrote")
    body = {k: v for k, v in receipt.items() if k != "sha256"}
    actual = canonical.digest(body)
    return ReceiptCheck(ok=actual == recorded, recorded=recorded, actual=actual, path=path)


def verify_receipt(path: Path | str) -> ReceiptCheck:
    """Re-hash the receipt in ``path``. A file that is not a JSON receipt raises UsageError."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UsageError(
            f"cannot read {p}: {exc.strerror}", hint="give the path of a receipt"
        ) from None
    try:
        doc = json.loads(
            data.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_constant=_no_constant
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(
            f"{p} is not a JSON receipt ({exc})", hint="give the receipt.json a verification wrote"
        ) from None
    return check_receipt(doc, str(p))


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A key given twice means different things to different JSON readers: refuse it.
    doc: dict[str, Any] = {}
    for key, value in pairs:
        if key in doc:
            raise ValueError(f"the key {key!r} appears twice")
        doc[key] = value
    return doc


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
