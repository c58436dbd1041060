"""Reason codes (DESIGN.md, "Reason codes": stable strings) and the :class:`Reason` record.

A reason is one line of ``reasons`` in ``truegreen.verification/1``:
``{code, file, line, detail}``. Its severity says what it does to the verdict; it is
not part of the JSON shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["refute", "escalate", "info"]

# -- exam layer -------------------------------------------------------------------------
EXAM_NOT_FAILING_AT_BASE = "exam.not_failing_at_base"
EXAM_SIGNATURE_MISMATCH = "exam.signature_mismatch"
EXAM_STILL_FAILING = "exam.still_failing"
EXAM_ERROR_AT_HEAD = "exam.error_at_head"
EXAM_FLAKY = "exam.flaky"
EXAM_NO_REPORT = "exam.no_report"

# -- tamper layer -----------------------------------------------------------------------
TAMPER_EXAM_EDITED = "tamper.exam_edited"
TAMPER_TEST_DELETED = "tamper.test_deleted"
TAMPER_TEST_RENAMED = "tamper.test_renamed"
TAMPER_SKIP_ADDED = "tamper.skip_added"
TAMPER_XFAIL_ADDED = "tamper.xfail_added"
TAMPER_ASSERT_WEAKENED = "tamper.assert_weakened"
TAMPER_TEST_DATA_CHANGED = "tamper.test_data_changed"
TAMPER_CONFTEST_CHANGED = "tamper.conftest_changed"
TAMPER_PYTEST_CONFIG_CHANGED = "tamper.pytest_config_changed"
TAMPER_COVERAGE_THRESHOLD_LOWERED = "tamper.coverage_threshold_lowered"
TAMPER_CI_STEP_REMOVED = "tamper.ci_step_removed"
TAMPER_TEST_ENV_DETECTION = "tamper.test_env_detection"
TAMPER_EXAM_LITERAL_SPECIAL_CASE = "tamper.exam_literal_special_case"
TAMPER_EXIT_CALL = "tamper.exit_call"

#: every tamper code, in DESIGN.md's order
TAMPER_CODES = (
    TAMPER_EXAM_EDITED,
    TAMPER_TEST_DELETED,
    TAMPER_TEST_RENAMED,
    TAMPER_SKIP_ADDED,
    TAMPER_XFAIL_ADDED,
    TAMPER_ASSERT_WEAKENED,
    TAMPER_TEST_DATA_CHANGED,
    TAMPER_CONFTEST_CHANGED,
    TAMPER_PYTEST_CONFIG_CHANGED,
    TAMPER_COVERAGE_THRESHOLD_LOWERED,
    TAMPER_CI_STEP_REMOVED,
    TAMPER_TEST_ENV_DETECTION,
    TAMPER_EXAM_LITERAL_SPECIAL_CASE,
    TAMPER_EXIT_CALL,
)

# -- regression layer -------------------------------------------------------------------
REGRESSION_NEW_FAILURE = "regression.new_failure"
REGRESSION_COLLECTION_ERROR = "regression.collection_error"
REGRESSION_FLAKY = "regression.flaky"

# -- gates and hints --------------------------------------------------------------------
GATE_LINT_WORSE = "gate.lint_worse"
GATE_TYPE_WORSE = "gate.type_worse"
GATE_COVERAGE_WORSE = "gate.coverage_worse"
STRENGTH_WEAK = "strength.weak"

# -- policy -----------------------------------------------------------------------------
POLICY_SENSITIVE_PATH = "policy.sensitive_path"
POLICY_BROAD_DIFF = "policy.broad_diff"
POLICY_MISSING_EVIDENCE = "policy.missing_evidence"

#: the default severity of codes that differ from "tamper codes refute"
DEFAULT_SEVERITY: dict[str, Severity] = {
    EXAM_NOT_FAILING_AT_BASE: "escalate",
    EXAM_SIGNATURE_MISMATCH: "escalate",
    EXAM_STILL_FAILING: "refute",
    EXAM_ERROR_AT_HEAD: "refute",
    EXAM_FLAKY: "escalate",
    EXAM_NO_REPORT: "escalate",
    TAMPER_TEST_DATA_CHANGED: "escalate",
    TAMPER_EXAM_LITERAL_SPECIAL_CASE: "escalate",
    REGRESSION_NEW_FAILURE: "refute",
    REGRESSION_COLLECTION_ERROR: "refute",
    REGRESSION_FLAKY: "info",
    GATE_LINT_WORSE: "escalate",
    GATE_TYPE_WORSE: "escalate",
    GATE_COVERAGE_WORSE: "escalate",
    STRENGTH_WEAK: "info",
    POLICY_MISSING_EVIDENCE: "escalate",
}


def default_severity(code: str) -> Severity:
    """What ``code`` does to a verdict unless the policy says otherwise: tamper codes
    refute (but two escalate), the rest as :data:`DEFAULT_SEVERITY` says, else escalate."""
    if code in DEFAULT_SEVERITY:
        return DEFAULT_SEVERITY[code]
    if code.startswith("tamper."):
        return "refute"
    return "escalate"


@dataclass(frozen=True, order=True)
class Reason:
    """One reason: a stable code, where (repository-relative file, 1-based line) and why."""

    code: str
    file: str | None
    line: int | None
    detail: str
    severity: Severity = field(default="refute", compare=False)

    @classmethod
    def of(cls, code: str, file: str | None, line: int | None, detail: str) -> Reason:
        """A reason with the code's default severity."""
        return cls(code, file, line, detail, default_severity(code))

    def to_json(self) -> dict[str, str | int | None]:
        return {"code": self.code, "file": self.file, "line": self.line, "detail": self.detail}
