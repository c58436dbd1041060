"""``truegreen stats``: the verifications the ledger recorded, by decision and by reason,
and the verified repair rate beside the "tests green" rate of the same candidates, so the
gap between the two stays visible.

A candidate's tests are **green** when the head's own suite passes where the base's did:
the regression layer ran to the end with no new failure and no new collection error
(what a CI run of the head shows; the sealed exam is not counted). It is **verified**
when it passes the sealed exam, no tampering was found and there is no new failure. A
change that is green but not verified is one CI would have let through. Pure functions
over the documents; the clock is passed in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from truegreen.errors import UsageError

_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime) -> datetime:
    """``30d``, ``12h``, ``2w``, ``90m`` (before ``now``), or an ISO date or time (UTC when
    it has no zone)."""
    m = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text)
    if m:
        return now - timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"{text!r} is neither a duration nor a date",
            hint="write it like 30d, 12h, 2w or 2026-11-01",
            field="since",
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def suite_green(doc: Mapping[str, Any]) -> bool:
    """The head's own suite passes where the base's did (the module docstring)."""
    reg = doc.get("regression")
    return bool(
        reg
        and reg.get("complete")
        and not reg.get("new_failures")
        and not reg.get("collection_errors")
    )


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def stats(docs: Sequence[Mapping[str, Any]], since: datetime | None) -> dict[str, Any]:
    """The ``truegreen.stats/1`` document of the verifications ``docs`` (oldest first)."""
    n = len(docs)
    decisions = Counter(d["decision"] for d in docs)
    verdicts = Counter(d["verdict"] for d in docs)
    # a reason counts once per verification that has it
    reasons = Counter(code for d in docs for code in sorted({r["code"] for r in d["reasons"]}))
    green = sum(1 for d in docs if suite_green(d))
    verified = verdicts.get("verified", 0)
    green_not_verified = sum(1 for d in docs if suite_green(d) and d["verdict"] != "verified")
    return {
        "schema": "truegreen.stats/1",
        "since": since.astimezone(UTC).isoformat(timespec="seconds") if since else None,
        "verifications": n,
        "by_decision": {k: decisions.get(k, 0) for k in ("approve", "reject", "escalate")},
        "by_verdict": {k: verdicts.get(k, 0) for k in ("verified", "refuted", "inconclusive")},
        "by_reason": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "tests_green": green,
        "verified": verified,
        "green_not_verified": green_not_verified,
        "tests_green_rate": _rate(green, n),
        "verified_rate": _rate(verified, n),
    }
