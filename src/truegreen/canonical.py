"""Canonical JSON: the same value always gives the same bytes, and so the same hash.

Used for everything that is hashed (exams, ledger entries, receipts) and for every
``--json`` document, so that the same inputs give byte-identical output.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def dumps(value: Any) -> str:
    """Serialize ``value`` canonically: sorted keys, no insignificant whitespace, UTF-8 text."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def pretty(value: Any) -> str:
    """Serialize ``value`` for people: sorted keys and indented, still deterministic."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def digest(value: Any) -> str:
    """The sha256 of ``value``'s canonical JSON."""
    return sha256_text(dumps(value))
