"""Typed results of a pytest run, and the ``truegreen.run/1`` document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "no_report"]

EXIT_MEANINGS: dict[int, str] = {
    0: "all selected tests passed",
    1: "some tests failed",
    2: "the run was interrupted (or collection errors stopped it)",
    3: "pytest had an internal error",
    4: "pytest was called wrongly (an unknown option, or a test id that does not exist)",
    5: "no tests were collected",
}


def exit_meaning(code: int, timed_out: bool = False) -> str:
    if timed_out:
        return "the run passed its deadline and was killed"
    if code < 0:
        return f"pytest was killed by signal {-code}"
    return EXIT_MEANINGS.get(code, f"pytest exited with an unexpected status {code}")


@dataclass(frozen=True)
class TestResult:
    """One test's outcome in one run."""

    id: str
    outcome: Outcome
    signature: str | None = None
    #: the signature as truegreen made it before its normalisation changed, where it
    #: differs (an exam sealed then carries it); not part of the document
    legacy_signature: str | None = None
    duration: float = 0.0
    excerpt: str = ""
    #: the phase that decided the outcome: setup, call or teardown
    phase: str | None = None
    exc_type: str | None = None
    message: str | None = None
    crash: dict[str, Any] | None = None
    #: for no_report: what the probe saw before the run died, if anything
    observed: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "id": self.id,
            "outcome": self.outcome,
            "signature": self.signature,
            "duration": round(self.duration, 3),
            "excerpt": self.excerpt,
        }
        if self.phase:
            doc["phase"] = self.phase
        if self.exc_type:
            doc["exc_type"] = self.exc_type
        if self.crash:
            doc["crash"] = self.crash
        if self.observed:
            doc["observed"] = self.observed
        if self.reason:
            doc["reason"] = self.reason
        return doc


@dataclass(frozen=True)
class CollectionError:
    nodeid: str
    excerpt: str

    def to_json(self) -> dict[str, Any]:
        return {"nodeid": self.nodeid, "excerpt": self.excerpt}


@dataclass(frozen=True)
class PytestRun:
    """Everything one pytest process told us."""

    command: tuple[str, ...]
    cwd: str
    exit_code: int
    timed_out: bool
    #: the probe wrote its finish record: the run ended normally
    complete: bool
    tests: tuple[TestResult, ...]
    collected: tuple[str, ...]
    collection_errors: tuple[CollectionError, ...]
    duration: float
    stdout_tail: str = ""
    stderr_tail: str = ""
    pytest_version: str | None = None
    python_version: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def meaning(self) -> str:
        if (
            not self.complete
            and not self.timed_out
            and self.exit_code >= 0
            and self.exit_code in (0, 1)
        ):
            return "the test process ended without reporting the end of the session"
        return exit_meaning(self.exit_code, self.timed_out)

    def outcome_of(self, test_id: str) -> TestResult | None:
        for t in self.tests:
            if t.id == test_id:
                return t
        return None

    def by_id(self) -> dict[str, TestResult]:
        return {t.id: t for t in self.tests}
