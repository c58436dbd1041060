"""One reason record, one table of codes -> severity: the table as a table, and the places
that must agree with it (docs/verify.md, the code that emits reasons, the document's model)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from truegreen.model import reasons as R
from truegreen.model.documents import Verification
from truegreen.model.reasons import SEVERITY, Reason, severity_of
from truegreen.verify.tamper import ChangeSnapshot, analyze
from truegreen.verify.verdict import Evidence, RegressionEvidence, decide

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "truegreen"

#: DESIGN.md's "Reason codes" list, in its order, with what each does to the verdict as
#: DESIGN.md says it ("escalates" is inconclusive; policy rules escalate: the verdict
#: stands, the decision escalates), then the codes
#: truegreen emits that the list does not name.
EXPECTED = [
    ("exam.not_failing_at_base", "inconclusive"),
    ("exam.signature_mismatch", "inconclusive"),
    ("exam.still_failing", "refute"),
    ("exam.error_at_head", "refute"),
    ("exam.flaky", "inconclusive"),
    ("exam.no_report", "inconclusive"),
    ("tamper.exam_edited", "refute"),
    ("tamper.test_deleted", "refute"),
    ("tamper.test_renamed", "refute"),
    ("tamper.skip_added", "refute"),
    ("tamper.xfail_added", "refute"),
    ("tamper.assert_weakened", "refute"),
    ("tamper.test_data_changed", "inconclusive"),
    ("tamper.conftest_changed", "refute"),
    ("tamper.pytest_config_changed", "refute"),
    ("tamper.coverage_threshold_lowered", "refute"),
    ("tamper.ci_step_removed", "refute"),
    ("tamper.test_env_detection", "refute"),
    ("tamper.exam_literal_special_case", "inconclusive"),
    ("tamper.exit_call", "refute"),
    ("regression.new_failure", "refute"),
    ("regression.collection_error", "refute"),
    ("regression.flaky", "info"),
    ("gate.lint_worse", "inconclusive"),
    ("gate.type_worse", "inconclusive"),
    ("gate.coverage_worse", "inconclusive"),
    ("strength.weak", "info"),
    ("policy.sensitive_path", "escalate"),
    ("policy.broad_diff", "escalate"),
    ("policy.missing_evidence", "inconclusive"),
    # not in DESIGN.md's list
    ("regression.incomplete", "inconclusive"),
    ("sandbox.blocked_network", "inconclusive"),
    ("sandbox.blocked_write", "inconclusive"),
    ("sandbox.resource_limit", "inconclusive"),
    # the policy's other rules (truegreen.policy): the verdict stands, the decision escalates
    ("policy.file_category", "escalate"),
    ("policy.min_strength", "escalate"),
    ("policy.hidden_exam", "escalate"),
    ("policy.error", "escalate"),
    # the quality gates' new violations: the policy decides (escalate, or reject)
    ("gate.ruff", "escalate"),
    ("gate.flake8", "escalate"),
    ("gate.mypy", "escalate"),
    ("gate.pyright", "escalate"),
    ("tamper.expectation_changed", "inconclusive"),
    ("tamper.test_weakened", "inconclusive"),
]


@pytest.mark.parametrize(("code", "severity"), EXPECTED, ids=[c for c, _ in EXPECTED])
def test_each_code_has_its_severity(code: str, severity: str) -> None:
    assert SEVERITY[code] == severity
    assert severity_of(code) == severity
    assert Reason(code, None, None, "").severity == severity


def test_the_table_has_every_code_once_and_nothing_else_in_designs_order() -> None:
    assert list(SEVERITY.items()) == EXPECTED


def test_every_code_constant_of_the_module_is_in_the_table() -> None:
    constants = {
        name: value
        for name, value in vars(R).items()
        if name.isupper() and isinstance(value, str) and "." in value
    }
    assert set(constants.values()) == set(SEVERITY)
    assert tuple(c for c, _ in EXPECTED if c.startswith("tamper.")) == R.TAMPER_CODES


@pytest.mark.parametrize("code", ["tamper.something_new", "policy.a_rule", "nonsense", ""])
def test_a_code_the_table_does_not_know_is_inconclusive_never_a_pass_nor_a_refutation(
    code: str,
) -> None:
    assert severity_of(code) == "inconclusive"
    verdict = decide(
        Evidence(
            exams=(),
            tamper=(Reason(code, None, None, "?"),),
            regression=RegressionEvidence(complete=True),
        )
    )
    assert verdict.verdict == "inconclusive"


def _docs_table() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8")
    section = text.split("### Reasons and what each does to the verdict", 1)[1]
    return re.findall(r"^\| `([a-z0-9_.]+)` \| (\w+) \|$", section, flags=re.MULTILINE)


def test_docs_verify_md_lists_the_table_as_it_is() -> None:
    assert _docs_table() == list(SEVERITY.items())


#: strings shaped like reason codes that are not reasons: the ledger's entry kinds
NOT_REASONS = {"exam.sealed", "exam.imported"}
_CODE = re.compile(r"^(exam|tamper|regression|gate|strength|policy|sandbox)\.[a-z_]+$")
#: a file worth parsing: one with such a string in quotes
_QUOTED_CODE = re.compile(
    r"[\"'](exam|tamper|regression|gate|strength|policy|sandbox)\.[a-z_]+[\"']"
)


def test_reason_codes_are_spelled_only_in_the_table_module() -> None:
    """Every other module names a code by its constant, so no code escapes the table."""
    spelled: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "model" / "reasons.py":
            continue
        text = path.read_text(encoding="utf-8")
        if not _QUOTED_CODE.search(text):
            continue
        for node in ast.walk(ast.parse(text)):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and _CODE.match(value) and value not in NOT_REASONS:
                spelled.setdefault(value, []).append(path.relative_to(ROOT).as_posix())
    assert spelled == {}


def test_the_check_above_would_see_a_code_spelled_out() -> None:
    tree = ast.parse('Reason("tamper.skip_added", None, None, "")')
    values = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert any(isinstance(v, str) and _CODE.match(v) for v in values)


def test_the_json_shape_is_code_file_line_detail_in_that_order() -> None:
    r = Reason(R.TAMPER_SKIP_ADDED, "tests/test_x.py", 12, "a skip marker")
    assert list(r.to_json().items()) == [
        ("code", "tamper.skip_added"),
        ("file", "tests/test_x.py"),
        ("line", 12),
        ("detail", "a skip marker"),
    ]
    assert "severity" not in r.to_json()


def _document(reasons: list[dict[str, object]]) -> dict[str, object]:
    sha = "a" * 40
    return {
        "schema": "truegreen.verification/1",
        "repo": "r",
        "base": sha,
        "head": sha,
        "exams": [],
        "layers": {"exam": "pass", "tamper": "pass", "regression": "pass", "gates": "skipped"},
        "strength": None,
        "verdict": "verified",
        "decision": "approve",
        "reasons": reasons,
        "receipt": {"sha256": "b" * 64},
    }


def test_the_documents_model_reads_reasons_as_the_same_record() -> None:
    r = Reason(R.TAMPER_CONFTEST_CHANGED, "conftest.py", 3, "a hook")
    doc = Verification.model_validate(_document([r.to_json()]))
    assert doc.reasons == [r]
    assert doc.reasons[0].severity == "refute"


@pytest.mark.parametrize(
    "bad",
    [
        {"code": "tamper.skip_added", "file": None, "line": 0, "detail": ""},  # 1-based
        {"code": "tamper.skip_added", "file": None, "detail": ""},  # line is required
        {"file": None, "line": None, "detail": ""},  # so is the code
        {"code": "tamper.skip_added", "file": 3, "line": None, "detail": ""},
    ],
)
def test_the_documents_model_refuses_a_reason_that_breaks_the_shape(
    bad: dict[str, object],
) -> None:
    with pytest.raises(ValidationError):
        Verification.model_validate(_document([bad]))


def test_the_tamper_layer_and_the_verdict_hand_over_the_same_record() -> None:
    base = {"tests/test_x.py": b"def test_a():\n    assert 1 == 1\n"}
    head = {
        "tests/test_x.py": b"import pytest\n\n@pytest.mark.skip\ndef test_a():\n    assert 1 == 1\n"
    }
    found = analyze(ChangeSnapshot(base, head))
    assert [type(r) for r in found] == [Reason]
    verdict = decide(
        Evidence(exams=(), tamper=tuple(found), regression=RegressionEvidence(complete=True))
    )
    assert found[0] in verdict.reasons
    assert verdict.verdict == "refuted"
