"""Reasons: the one record for a finding, every reason code, and what each does to a verdict.

A reason is one line of ``reasons`` in ``truegreen.verification/1``:
``{code, file, line, detail}`` (DESIGN.md, "Reason codes": stable strings). The same
:class:`Reason` is what the tamper layer returns, what :func:`truegreen.verify.verdict.decide`
judges, and what the document's model (:mod:`truegreen.model.documents`) validates.

Its severity is not part of the JSON shape: it follows from the code alone, through
:data:`SEVERITY`, the one table of codes, written in the verdict's words:

- ``refute``: the verdict is ``refuted`` (default decision: reject);
- ``inconclusive``: the verdict is at best ``inconclusive`` (default decision: escalate);
  DESIGN.md says "escalates" of the two tamper codes that are hints, not proof;
- ``escalate``: a policy rule (:mod:`truegreen.policy`) or a quality gate's new violation:
  the verdict stands, the decision is at best escalate (reject where the policy's
  ``reject`` names the code);
- ``info``: reported, never changes a verdict.

docs/verify.md lists the table (tests/verify/test_reasons.py keeps the two equal). A code
not in the table is ``inconclusive``: a finding nobody classified never counts as a pass,
and never refutes on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

Severity = Literal["refute", "inconclusive", "escalate", "info"]

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
#: an existing test's expected values rewritten in the same change as the code it checks
TAMPER_EXPECTATION_CHANGED = "tamper.expectation_changed"
#: an existing test no longer calls the unit it exercised on the base
TAMPER_TEST_WEAKENED = "tamper.test_weakened"

# -- regression layer -------------------------------------------------------------------
REGRESSION_NEW_FAILURE = "regression.new_failure"
REGRESSION_COLLECTION_ERROR = "regression.collection_error"
REGRESSION_FLAKY = "regression.flaky"
#: the suite did not finish on a side (a timeout, a crash): its evidence is missing
REGRESSION_INCOMPLETE = "regression.incomplete"

# -- gates and hints --------------------------------------------------------------------
GATE_LINT_WORSE = "gate.lint_worse"
GATE_TYPE_WORSE = "gate.type_worse"
GATE_COVERAGE_WORSE = "gate.coverage_worse"
STRENGTH_WEAK = "strength.weak"

# -- the sandbox (truegreen.sandbox.blocked): a failure the confinement caused ----------
SANDBOX_BLOCKED_NETWORK = "sandbox.blocked_network"
SANDBOX_BLOCKED_WRITE = "sandbox.blocked_write"
SANDBOX_RESOURCE_LIMIT = "sandbox.resource_limit"

# -- policy -----------------------------------------------------------------------------
POLICY_SENSITIVE_PATH = "policy.sensitive_path"
POLICY_BROAD_DIFF = "policy.broad_diff"
#: evidence a layer should have collected is missing (never a pass)
POLICY_MISSING_EVIDENCE = "policy.missing_evidence"
#: the change touches a file whose category the policy's auto-approve does not list
POLICY_FILE_CATEGORY = "policy.file_category"
#: the exam's strength is below the policy's min-strength
POLICY_MIN_STRENGTH = "policy.min_strength"
#: the policy requires a hidden exam and none was among the exams
POLICY_HIDDEN_EXAM = "policy.hidden_exam"
#: a policy rule could not be evaluated: an error inside the policy escalates
POLICY_ERROR = "policy.error"

# -- the quality gates ([tool.truegreen.gates]): a new violation on a changed line ------
GATE_RUFF = "gate.ruff"
GATE_FLAKE8 = "gate.flake8"
GATE_MYPY = "gate.mypy"
GATE_PYRIGHT = "gate.pyright"

#: Every code and its severity: DESIGN.md's list in its order, then the codes it does not
#: list that truegreen emits (regression.incomplete, sandbox.*, the policy's other rules,
#: the tamper codes of issue #38). docs/verify.md shows it.
SEVERITY: dict[str, Severity] = {
    EXAM_NOT_FAILING_AT_BASE: "inconclusive",
    EXAM_SIGNATURE_MISMATCH: "inconclusive",
    EXAM_STILL_FAILING: "refute",
    EXAM_ERROR_AT_HEAD: "refute",
    EXAM_FLAKY: "inconclusive",
    EXAM_NO_REPORT: "inconclusive",
    TAMPER_EXAM_EDITED: "refute",
    TAMPER_TEST_DELETED: "refute",
    TAMPER_TEST_RENAMED: "refute",
    TAMPER_SKIP_ADDED: "refute",
    TAMPER_XFAIL_ADDED: "refute",
    TAMPER_ASSERT_WEAKENED: "refute",
    TAMPER_TEST_DATA_CHANGED: "inconclusive",
    TAMPER_CONFTEST_CHANGED: "refute",
    TAMPER_PYTEST_CONFIG_CHANGED: "refute",
    TAMPER_COVERAGE_THRESHOLD_LOWERED: "refute",
    TAMPER_CI_STEP_REMOVED: "refute",
    TAMPER_TEST_ENV_DETECTION: "refute",
    TAMPER_EXAM_LITERAL_SPECIAL_CASE: "inconclusive",
    TAMPER_EXIT_CALL: "refute",
    REGRESSION_NEW_FAILURE: "refute",
    REGRESSION_COLLECTION_ERROR: "refute",
    REGRESSION_FLAKY: "info",
    GATE_LINT_WORSE: "inconclusive",
    GATE_TYPE_WORSE: "inconclusive",
    GATE_COVERAGE_WORSE: "inconclusive",
    STRENGTH_WEAK: "info",
    POLICY_SENSITIVE_PATH: "escalate",
    POLICY_BROAD_DIFF: "escalate",
    POLICY_MISSING_EVIDENCE: "inconclusive",
    REGRESSION_INCOMPLETE: "inconclusive",
    SANDBOX_BLOCKED_NETWORK: "inconclusive",
    SANDBOX_BLOCKED_WRITE: "inconclusive",
    SANDBOX_RESOURCE_LIMIT: "inconclusive",
    POLICY_FILE_CATEGORY: "escalate",
    POLICY_MIN_STRENGTH: "escalate",
    POLICY_HIDDEN_EXAM: "escalate",
    POLICY_ERROR: "escalate",
    GATE_RUFF: "escalate",
    GATE_FLAKE8: "escalate",
    GATE_MYPY: "escalate",
    GATE_PYRIGHT: "escalate",
    TAMPER_EXPECTATION_CHANGED: "inconclusive",
    TAMPER_TEST_WEAKENED: "inconclusive",
}

#: every tamper code, in DESIGN.md's order
TAMPER_CODES = tuple(code for code in SEVERITY if code.startswith("tamper."))

#: what a code the table does not know does to a verdict (see the module docstring)
UNKNOWN_SEVERITY: Severity = "inconclusive"


def severity_of(code: str) -> Severity:
    """What ``code`` does to a verdict: :data:`SEVERITY`, else :data:`UNKNOWN_SEVERITY`."""
    return SEVERITY.get(code, UNKNOWN_SEVERITY)


@dataclass(frozen=True)
class Reason:
    """One reason: a stable code, where (a file relative to the repository root, a 1-based
    line; null where none applies) and why, in one line."""

    # a document may carry more than its contract: extra keys of a reason are kept when
    # a document is validated (truegreen.model.documents)
    __pydantic_config__ = ConfigDict(extra="allow")

    code: Annotated[str, Field(description="a stable reason code, e.g. tamper.skip_added")]
    file: Annotated[
        str | None, Field(description="path relative to the repository root, forward slashes")
    ]
    line: Annotated[int | None, Field(description="1-based line", ge=1)]
    detail: str

    @property
    def severity(self) -> Severity:
        return severity_of(self.code)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "file": self.file, "line": self.line, "detail": self.detail}

    def sort_key(self) -> tuple[str, str, int, str]:
        """The order of ``reasons`` in a document: by code, then where, then why."""
        return (self.code, self.file or "", self.line or 0, self.detail)
