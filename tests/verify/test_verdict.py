"""decide(evidence) as a table: one labelled row per rule."""

from __future__ import annotations

import pytest

from truegreen.model.reasons import Reason
from truegreen.policy.rules import ChangeEvidence, FileChange
from truegreen.verify.verdict import (
    Evidence,
    ExamEvidence,
    Observation,
    RegressionEvidence,
    StrengthEvidence,
    Survivor,
    decide,
    regression_findings,
    strength_label,
)

SIG = "AssertionError@src/m.py:f#abc"
F3 = (Observation("failed", SIG),) * 3
P3 = (Observation("passed"),) * 3
CLEAN = RegressionEvidence(complete=True)
#: a change the default policy approves: one source file and the exam's test file
FIX = ChangeEvidence((FileChange("src/m.py", 1, 1), FileChange("tests/test_m.py", 4, 0)))


def reason(code: str, file: str | None = None, line: int | None = None) -> Reason:
    return Reason(code, file, line, "")


def exam(base=F3, head=P3, sealed=SIG, sandbox=()):
    return ExamEvidence(
        "ex-1", "tests/test_m.py::test_f", "tests/test_m.py", sealed, base, head, sandbox
    )


def ev(*, exams=None, tamper=(), regression=CLEAN, gates=None):
    return Evidence(
        exams=tuple(exams if exams is not None else [exam()]),
        tamper=tamper,
        regression=regression,
        gates=gates,
        change=FIX,
    )


ROWS = [
    # -- the one way to be verified
    ("all layers pass", ev(), "verified", set()),
    # -- exam layer
    (
        "exam passes on the base: invalid exam",
        ev(exams=[exam(base=P3)]),
        "inconclusive",
        {"exam.not_failing_at_base"},
    ),
    (
        "exam skipped on the base: invalid exam",
        ev(exams=[exam(base=(Observation("skipped"),) * 3)]),
        "inconclusive",
        {"exam.not_failing_at_base"},
    ),
    (
        "fails on the base another way",
        ev(exams=[exam(base=(Observation("failed", "KeyError@x:y#1"),) * 3)]),
        "inconclusive",
        {"exam.signature_mismatch"},
    ),
    (
        "errors on the base",
        ev(exams=[exam(base=(Observation("error", "ImportError@x:y#1"),) * 3)]),
        "inconclusive",
        {"exam.signature_mismatch"},
    ),
    ("still failing on the head", ev(exams=[exam(head=F3)]), "refuted", {"exam.still_failing"}),
    (
        "skipped on the head is not a pass",
        ev(exams=[exam(head=(Observation("skipped"),) * 3)]),
        "refuted",
        {"exam.still_failing"},
    ),
    (
        "xfailed on the head is not a pass",
        ev(exams=[exam(head=(Observation("xfailed"),) * 3)]),
        "refuted",
        {"exam.still_failing"},
    ),
    (
        "xpassed on the head is not a pass",
        ev(exams=[exam(head=(Observation("xpassed"),) * 3)]),
        "refuted",
        {"exam.still_failing"},
    ),
    (
        "cannot be collected on the head",
        ev(exams=[exam(head=(Observation("error", "E"),) * 3)]),
        "refuted",
        {"exam.error_at_head"},
    ),
    (
        "flaky on the head",
        ev(
            exams=[
                exam(
                    head=(Observation("passed"), Observation("failed", SIG), Observation("passed"))
                )
            ]
        ),
        "inconclusive",
        {"exam.flaky"},
    ),
    (
        "flaky on the base",
        ev(
            exams=[
                exam(
                    base=(
                        Observation("failed", SIG),
                        Observation("passed"),
                        Observation("failed", SIG),
                    )
                )
            ]
        ),
        "inconclusive",
        {"exam.flaky"},
    ),
    (
        "no report on the head is never a pass",
        ev(exams=[exam(head=(Observation("no_report"),) * 3)]),
        "inconclusive",
        {"exam.no_report"},
    ),
    (
        "one run without a report among passes",
        ev(
            exams=[
                exam(head=(Observation("passed"), Observation("no_report"), Observation("passed")))
            ]
        ),
        "inconclusive",
        {"exam.no_report"},
    ),
    (
        "no exam at all is missing evidence",
        ev(exams=[]),
        "inconclusive",
        {"policy.missing_evidence"},
    ),
    (
        "an exam that did not run on the head",
        ev(exams=[exam(head=())]),
        "inconclusive",
        {"policy.missing_evidence"},
    ),
    (
        "the sandbox blocked the exam",
        ev(exams=[exam(head=F3, sandbox=(reason("sandbox.blocked_network"),))]),
        "inconclusive",
        {"sandbox.blocked_network"},
    ),
    # -- tamper layer
    (
        "a refuting tamper finding",
        ev(tamper=(reason("tamper.skip_added", "tests/t.py", 3),)),
        "refuted",
        {"tamper.skip_added"},
    ),
    (
        "test data changed escalates",
        ev(tamper=(reason("tamper.test_data_changed", "tests/data/x.json"),)),
        "inconclusive",
        {"tamper.test_data_changed"},
    ),
    (
        "literal special case escalates",
        ev(tamper=(reason("tamper.exam_literal_special_case", "src/m.py", 9),)),
        "inconclusive",
        {"tamper.exam_literal_special_case"},
    ),
    ("tamper analysis missing", ev(tamper=None), "inconclusive", {"policy.missing_evidence"}),
    (
        "a cheat refutes even when the exam is invalid",
        ev(exams=[exam(base=P3)], tamper=(reason("tamper.conftest_changed"),)),
        "refuted",
        {"tamper.conftest_changed", "exam.not_failing_at_base"},
    ),
    # -- regression layer
    (
        "a new failure",
        ev(regression=RegressionEvidence(True, new_failures=("tests/t.py::test_a",))),
        "refuted",
        {"regression.new_failure"},
    ),
    (
        "a collection error on the head",
        ev(regression=RegressionEvidence(True, collection_errors=("tests/t.py",))),
        "refuted",
        {"regression.collection_error"},
    ),
    (
        "a flaky test is reported, not counted",
        ev(regression=RegressionEvidence(True, flaky=("tests/t.py::test_a",))),
        "verified",
        {"regression.flaky"},
    ),
    (
        # it passed in the base's suite, fails in every head run, and flips when rerun
        # on the base: not the change's doing
        "a failure that flips on the base too is flaky, not a regression",
        ev(
            regression=RegressionEvidence(
                True,
                flaky=("tests/t.py::test_a",),
                flaky_outcomes=(
                    (
                        "tests/t.py::test_a",
                        "on the base: passed, failed, passed; on the head: failed, failed, failed",
                    ),
                ),
            )
        ),
        "verified",
        {"regression.flaky"},
    ),
    (
        "failing on both sides is not counted",
        ev(regression=RegressionEvidence(True, failing_on_both=("tests/t.py::test_a",))),
        "verified",
        set(),
    ),
    (
        "the time cap was hit",
        ev(regression=RegressionEvidence(False, detail="cap")),
        "inconclusive",
        {"regression.incomplete"},
    ),
    ("regression layer missing", ev(regression=None), "inconclusive", {"policy.missing_evidence"}),
    # -- gates and hints
    (
        "a gate got worse",
        ev(gates=(reason("gate.lint_worse"),)),
        "inconclusive",
        {"gate.lint_worse"},
    ),
    (
        "a weak exam annotates, never flips",
        Evidence(
            exams=(exam(),),
            tamper=(),
            regression=CLEAN,
            strength=StrengthEvidence(1, 4),
            change=FIX,
        ),
        "verified",
        {"strength.weak"},
    ),
    (
        "a weak exam does not soften a refutation either",
        Evidence(
            exams=(exam(head=F3),),
            tamper=(),
            regression=CLEAN,
            strength=StrengthEvidence(0, 3),
            change=FIX,
        ),
        "refuted",
        {"exam.still_failing", "strength.weak"},
    ),
    (
        "a strong exam adds nothing",
        Evidence(
            exams=(exam(),),
            tamper=(),
            regression=CLEAN,
            strength=StrengthEvidence(2, 2),
            change=FIX,
        ),
        "verified",
        set(),
    ),
]


@pytest.mark.parametrize(
    ("evidence", "verdict", "codes"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_decide(evidence, verdict, codes):
    result = decide(evidence)
    assert result.verdict == verdict
    assert {f.code for f in result.reasons} == codes
    assert (
        result.decision
        == {"verified": "approve", "refuted": "reject", "inconclusive": "escalate"}[verdict]
    )


def test_layers_reflect_the_findings():
    assert decide(ev()).layers == {
        "exam": "pass",
        "tamper": "pass",
        "regression": "pass",
        "gates": "skipped",
    }
    assert decide(ev(exams=[exam(head=F3)])).layers["exam"] == "fail"
    assert decide(ev(exams=[exam(base=P3)])).layers["exam"] == "error"
    assert decide(ev(tamper=(reason("tamper.skip_added"),))).layers["tamper"] == "fail"
    assert decide(ev(regression=RegressionEvidence(False))).layers["regression"] == "skipped"


def test_reasons_are_sorted_and_deterministic():
    a = decide(
        ev(
            tamper=(
                reason("tamper.skip_added", "b.py", 2),
                reason("tamper.conftest_changed", "a.py", 1),
            )
        )
    )
    b = decide(
        ev(
            tamper=(
                reason("tamper.conftest_changed", "a.py", 1),
                reason("tamper.skip_added", "b.py", 2),
            )
        )
    )
    assert a == b
    assert [f.code for f in a.reasons] == ["tamper.conftest_changed", "tamper.skip_added"]


def test_a_new_failure_says_what_the_head_did_when_it_is_not_a_plain_failure() -> None:
    """A test that passed on the base and is xfailed (a marker added) or errors on the
    head is a new failure; the reason says which, not "fails"."""
    reg = RegressionEvidence(
        True,
        new_failures=("tests/t.py::test_a", "tests/t.py::test_b", "tests/t.py::test_c"),
        head_outcomes=(
            ("tests/t.py::test_a", "xfailed"),
            ("tests/t.py::test_b", "failed"),
            ("tests/t.py::test_c", "error"),
        ),
    )
    verdict = decide(ev(regression=reg))
    assert verdict.verdict == "refuted"
    details = sorted(r.detail for r in verdict.reasons)
    assert details == [
        "tests/t.py::test_a passed on the base and is xfailed on the head",
        "tests/t.py::test_b passed on the base and fails on the head",
        "tests/t.py::test_c passed on the base and errors on the head",
    ]


def test_an_exam_that_cannot_be_collected_says_which_file_and_why() -> None:
    """The reason names the module (or conftest.py) that failed to collect and its error,
    on the head (exam.error_at_head) and on the base (exam.signature_mismatch)."""
    why = "tests/test_m.py could not be collected: ModuleNotFoundError: No module named 'm._v'"
    broken = (Observation("error", "ModuleNotFoundError@m/__init__.py:<module>#1", why),) * 3
    head = decide(ev(exams=[exam(head=broken)]))
    assert [(r.code, r.detail) for r in head.reasons] == [
        (
            "exam.error_at_head",
            f"tests/test_m.py::test_f cannot be collected or set up on the head: {why}",
        )
    ]
    base = decide(ev(exams=[exam(base=broken)]))
    assert [r.code for r in base.reasons] == ["exam.signature_mismatch"]
    assert base.reasons[0].detail.endswith(f"sealed as {SIG}: {why}")


#: killed, mutants -> the label (strong from 4/5, medium from 1/2, exact fractions)
STRENGTH_ROWS = [
    (0, 1, "weak"),
    (1, 3, "weak"),
    (5, 12, "weak"),
    (1, 2, "medium"),
    (6, 12, "medium"),
    (3, 4, "medium"),
    (7, 9, "medium"),
    (4, 5, "strong"),
    (8, 10, "strong"),
    (10, 12, "strong"),
    (2, 2, "strong"),
]


@pytest.mark.parametrize(("killed", "mutants", "label"), STRENGTH_ROWS)
def test_the_strength_label_and_its_finding(killed: int, mutants: int, label: str) -> None:
    strength = StrengthEvidence(killed, mutants)
    assert strength_label(strength) == label
    verdict = decide(
        Evidence(exams=(exam(),), tamper=(), regression=CLEAN, strength=strength, change=FIX)
    )
    assert verdict.strength == label
    weak = [r for r in verdict.reasons if r.code == "strength.weak"]
    if label == "weak":
        assert [r.to_json() for r in weak] == [
            {
                "code": "strength.weak",
                "file": None,
                "line": None,
                "detail": f"the exam killed {killed} of {mutants} mutants of the changed lines",
            }
        ]
    else:
        assert weak == []
    assert verdict.verdict == "verified"  # strength never flips a verdict


def test_without_strength_evidence_there_is_no_label_and_no_finding() -> None:
    verdict = decide(ev())
    assert verdict.strength is None
    assert all(r.code != "strength.weak" for r in verdict.reasons)


@pytest.mark.parametrize(("killed", "mutants"), [(0, 0), (3, 2), (-1, 2)])
def test_strength_evidence_that_cannot_be_is_refused(killed: int, mutants: int) -> None:
    with pytest.raises(ValueError, match="mutants"):
        StrengthEvidence(killed, mutants)


def test_the_documents_strength_keeps_its_shape() -> None:
    """``strength`` in truegreen.verification/1 and truegreen.strength/1, as before the
    label moved into the verdict: the survivors listed with ``killed: false``."""
    from truegreen.verify.pipeline import strength_json

    strength = StrengthEvidence(1, 2, (Survivor("src/m.py", 3, "'>' -> '>='"),))
    assert strength_json(strength, strength_label(strength)) == {
        "killed": 1,
        "mutants": 2,
        "label": "medium",
        "survivors": [{"file": "src/m.py", "line": 3, "mutation": "'>' -> '>='", "killed": False}],
    }
    assert strength_json(None, None) is None


def test_a_flaky_regression_is_shown_with_its_runs() -> None:
    runs = "on the base: passed, failed, passed; on the head: failed, failed, failed"
    reg = RegressionEvidence(
        True, flaky=("tests/t.py::test_a",), flaky_outcomes=(("tests/t.py::test_a", runs),)
    )
    (reason,) = regression_findings(reg)
    assert reason.code == "regression.flaky"
    assert reason.detail == (
        f"tests/t.py::test_a fails on the head, and flips on the base too: not the change's doing ({runs})"
    )
    head_only = RegressionEvidence(
        True,
        flaky=("tests/t.py::test_a",),
        flaky_outcomes=(("tests/t.py::test_a", "on the head: failed, passed, failed"),),
    )
    assert regression_findings(head_only)[0].detail == (
        "tests/t.py::test_a failed once on the head and passed when rerun (on the head: failed, passed, failed)"
    )
