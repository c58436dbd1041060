"""An exam sealed before the signature's normalisation changed carries the legacy
signature; verification still reads a base run that fails that way as failing the sealed
way, and still tells a different failure apart."""

from __future__ import annotations

import pytest

from tests.conftest import TARGET_PYTHON
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PytestRequest, run_pytest
from truegreen.verify.pipeline import _observations
from truegreen.verify.verdict import ExamEvidence, Observation, exam_findings

TEST = "tests/test_cart.py::test_items"


def _codes(sealed: str, base: tuple[Observation, ...]) -> set[str]:
    ev = ExamEvidence(
        "ex-1", TEST, "tests/test_cart.py", sealed, base, (Observation("passed"),) * 2
    )
    return {f.code for f in exam_findings(ev)}


@pytest.mark.slow
def test_an_exam_sealed_with_the_legacy_signature_still_verifies(make_project):
    root = make_project(
        {
            "src/cart.py": "def items():\n    return [3, 2, 3]\n",
            "tests/test_cart.py": """
                from src.cart import items

                def test_items():
                    assert items() == [2, 2, 3]
            """,
        }
    )
    interp = resolve(str(TARGET_PYTHON), root)
    runs = [
        run_pytest(PytestRequest(repo=root, interpreter=interp, test_ids=(TEST,))) for _ in range(2)
    ]
    result = runs[0].by_id()[TEST]
    # pytest's explanation of the comparison was in the legacy signature's message
    assert result.outcome == "failed" and result.legacy_signature is not None
    assert result.legacy_signature != result.signature
    assert result.signature is not None

    # sealed now: the signature as it is
    assert _codes(result.signature, _observations(runs, TEST, root, result.signature)) == set()
    # sealed before: the legacy one, read as the sealed signature
    legacy = result.legacy_signature
    base = _observations(runs, TEST, root, legacy)
    assert {o.signature for o in base} == {legacy}
    assert _codes(legacy, base) == set()
    # a signature neither computation gives is still another failure
    other = "AssertionError@tests/test_cart.py:test_items#000000000000"
    assert _codes(other, _observations(runs, TEST, root, other)) == {"exam.signature_mismatch"}
