"""Fixture verifications for the report tests: an approved, a rejected and an escalated
one, as verify writes them, with the context (diff, exam code, survivors) a report adds."""

from __future__ import annotations

import copy
from typing import Any

from truegreen.report.model import ExamCode, ReportContext, SurvivorDiff

BASE = "1" * 40
HEAD = "2" * 40
MEANS = (
    '"verified" means: passes the sealed exam, no tampering found, no new failures. '
    'It never means "correct".'
)
EXAM_TEXT = (
    "from invoicekit.discounts import bulk_discount_percent\n\n\n"
    "def test_bulk_discount_starts_at_exactly_ten():\n"
    "    assert bulk_discount_percent(10) == 5\n"
)
DIFF = """\
diff --git a/invoicekit/discounts.py b/invoicekit/discounts.py
index 1111111..2222222 100644
--- a/invoicekit/discounts.py
+++ b/invoicekit/discounts.py
@@ -10,6 +10,6 @@ BULK_TIERS = ((100, 15), (50, 10), (10, 5))
 def bulk_discount_percent(quantity):
     for minimum, percent in BULK_TIERS:
-        if quantity > minimum:
+        if quantity >= minimum:
             return percent
     return 0
diff --git a/tests/test_issue_42.py b/tests/test_issue_42.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_issue_42.py
@@ -0,0 +1,5 @@
+from invoicekit.discounts import bulk_discount_percent
+
+
+def test_bulk_discount_starts_at_exactly_ten():
+    assert bulk_discount_percent(10) == 5
"""


def _doc(
    decision: str, verdict: str, reasons: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    doc = {
        "schema": "truegreen.verification/1",
        "repo": "invoicekit",
        "base": BASE,
        "head": HEAD,
        "patch_sha256": None,
        "exams": [
            {
                "id": "ex-50b98724d884b54e",
                "test": "tests/test_issue_42.py::test_bulk_discount_starts_at_exactly_ten",
                "sha256": "a" * 64,
                "sealed_signature": "AssertionError@tests/test_issue_42.py:test_bulk#6b37ff65723a",
                "base": {"outcome": "failed", "runs": 3, "signature": "AssertionError@x#1"},
                "head": {"outcome": "passed", "runs": 3},
            }
        ],
        "layers": {"exam": "pass", "tamper": "pass", "regression": "pass", "gates": "skipped"},
        "regression": {
            "complete": True,
            "compared": 15,
            "new_failures": [],
            "flaky": [],
            "failing_on_both": [],
            "collection_errors": [],
        },
        "strength": {"killed": 2, "mutants": 2, "label": "strong", "survivors": []},
        "carried": [],
        "verdict": verdict,
        "decision": decision,
        "reasons": reasons,
        "meaning": MEANS,
        "truegreen": "0.1.0",
        "notes": [],
        "receipt": {"sha256": {"approve": "a1", "reject": "b2", "escalate": "c3"}[decision] * 32},
    }
    doc.update(extra)
    return doc


APPROVED = _doc("approve", "verified", [])
REJECTED = _doc(
    "reject",
    "refuted",
    [
        {"code": "exam.still_failing", "file": "tests/test_issue_42.py", "line": None,
         "detail": "tests/test_issue_42.py::test_bulk_discount_starts_at_exactly_ten does not pass on the head"},
        {"code": "tamper.skip_added", "file": "tests/test_issue_42.py", "line": 4,
         "detail": "@pytest.mark.skip added to test_bulk_discount_starts_at_exactly_ten"},
    ],
    layers={"exam": "fail", "tamper": "fail", "regression": "pass", "gates": "skipped"},
    strength=None,
    exams=[
        {
            **APPROVED["exams"][0],
            "head": {"outcome": "failed", "runs": 3, "signature": "AssertionError@x#2"},
        }
    ],
)  # fmt: skip
ESCALATED = _doc(
    "escalate",
    "verified",
    [
        {"code": "policy.sensitive_path", "file": "pyproject.toml", "line": None,
         "detail": "pyproject.toml matches 'pyproject.toml' (sensitive-paths, default): a person looks at changes here"},
        {"code": "strength.weak", "file": None, "line": None,
         "detail": "the exam killed 1 of 3 mutants of the changed lines"},
    ],
    strength={
        "killed": 1, "mutants": 3, "label": "weak",
        "survivors": [
            {"file": "invoicekit/discounts.py", "line": 12, "mutation": "flip >= to >"},
            {"file": "invoicekit/discounts.py", "line": 13, "mutation": "nudge constant"},
        ],
    },
)  # fmt: skip

FIXTURES = {"approved": APPROVED, "rejected": REJECTED, "escalated": ESCALATED}


def context(doc: dict[str, Any], hidden: bool = False) -> ReportContext:
    return ReportContext(
        diff=DIFF,
        exams=(
            ExamCode(
                doc["exams"][0]["id"],
                doc["exams"][0]["test"],
                "tests/test_issue_42.py",
                hidden,
                None if hidden else EXAM_TEXT,
            ),
        ),
        survivors=tuple(
            SurvivorDiff(
                s["file"],
                s["line"],
                s["mutation"],
                "        if quantity >= minimum:",
                "        if quantity > minimum:",
            )
            for s in (doc.get("strength") or {}).get("survivors", [])
        ),
    )


def fixture(name: str) -> dict[str, Any]:
    return copy.deepcopy(FIXTURES[name])
