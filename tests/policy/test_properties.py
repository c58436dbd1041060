"""Property tests of the one verdict function under any policy (hypothesis):

- adding evidence of tampering never moves a decision toward approve;
- tightening any setting of the policy never does either;
- no policy approves a refuted verification, and none approves without every rule met.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.policy.paths import CATEGORIES
from truegreen.policy.rules import ChangeEvidence, FileChange
from truegreen.policy.settings import REJECTABLE, STRENGTH_FLOORS, Policy
from truegreen.verify.verdict import (
    Evidence,
    ExamEvidence,
    Observation,
    RegressionEvidence,
    StrengthEvidence,
    decide,
)

#: how far a decision is from approve
RANK = {"approve": 0, "escalate": 1, "reject": 2}

SIG = "AssertionError@src/m.py:f#abc"
PATHS = [
    "src/m.py",
    "src/pkg/auth/login.py",
    "tests/test_m.py",
    "docs/index.md",
    "pyproject.toml",
    ".github/workflows/ci.yml",
    "data/x.csv",
    "app/migrations/0001.py",
    "setup.cfg",
    "src/a/b/c.py",
]
OUTCOMES = st.sampled_from(["passed", "failed", "error", "skipped", "no_report"])


@st.composite
def evidences(draw: st.DrawFn) -> Evidence:
    n = draw(st.integers(1, 3))
    base = tuple(Observation("failed", SIG) for _ in range(n))
    head = tuple(Observation(o) for o in draw(st.lists(OUTCOMES, min_size=n, max_size=n)))
    if draw(st.booleans()):
        head = tuple(Observation("passed") for _ in range(n))  # the common case: it passes
    exams = (
        ExamEvidence("ex-1", "tests/test_m.py::t", "tests/test_m.py", SIG, base, head,
                     hidden=draw(st.booleans())),
    )  # fmt: skip
    files = draw(st.lists(st.sampled_from(PATHS), unique=True, max_size=6))
    lines = draw(st.integers(0, 400))
    change = draw(
        st.one_of(st.none(), st.just(ChangeEvidence(tuple(FileChange(p, lines, 0) for p in files))))
    )
    mutants = draw(st.integers(1, 6))
    strength = draw(
        st.one_of(st.none(), st.integers(0, mutants).map(lambda k: StrengthEvidence(k, mutants)))
    )
    tamper = tuple(
        Reason(code, "tests/test_m.py", None, "x")
        for code in draw(st.lists(st.sampled_from(R.TAMPER_CODES), max_size=2, unique=True))
    )
    regression = draw(
        st.sampled_from(
            [
                RegressionEvidence(complete=True, compared=3),
                RegressionEvidence(complete=True, compared=3, new_failures=("tests/test_a.py::t",)),
                RegressionEvidence(complete=False, detail="timeout"),
            ]
        )
    )
    return Evidence(
        exams=exams, tamper=tamper, regression=regression, strength=strength, change=change
    )


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    return Policy(
        sensitive_paths=tuple(
            draw(
                st.lists(st.sampled_from(["auth/", "*.toml", "src/a/", "migrations/"]), unique=True)
            )
        ),
        extend_sensitive_paths=tuple(
            draw(st.lists(st.sampled_from(["*.csv", "docs/"]), unique=True))
        ),
        broad_files=draw(st.integers(1, 8)),
        broad_directories=draw(st.integers(1, 8)),
        broad_lines=draw(st.integers(1, 2000)),
        auto_approve=tuple(draw(st.lists(st.sampled_from(CATEGORIES), unique=True))),
        min_strength=draw(st.sampled_from(STRENGTH_FLOORS)),
        require_hidden_exam=draw(st.booleans()),
        reject=tuple(sorted(draw(st.lists(st.sampled_from(REJECTABLE), unique=True, max_size=3)))),
    )


def tighten(policy: Policy, how: int, extra: str) -> Policy:
    """One setting made stricter (or kept where it is already strictest)."""
    p = policy
    changes = [
        {"broad_files": max(1, p.broad_files - 1)},
        {"broad_directories": max(1, p.broad_directories - 1)},
        {"broad_lines": max(1, p.broad_lines // 2)},
        {"extend_sensitive_paths": (*p.extend_sensitive_paths, "src/")},
        {"auto_approve": tuple(c for c in p.auto_approve if c != extra)},
        {"min_strength": STRENGTH_FLOORS[min(3, STRENGTH_FLOORS.index(p.min_strength) + 1)]},
        {"require_hidden_exam": True},
        {"reject": tuple(sorted({*p.reject, R.POLICY_SENSITIVE_PATH, R.POLICY_MISSING_EVIDENCE}))},
    ]
    return dataclasses.replace(p, **changes[how % len(changes)])


@settings(max_examples=80, deadline=None, database=None)
@given(evidences(), policies(), st.sampled_from(R.TAMPER_CODES))
def test_adding_evidence_of_tampering_never_moves_toward_approve(ev, policy, code) -> None:
    before = decide(ev, policy).decision
    more = dataclasses.replace(ev, tamper=(*(ev.tamper or ()), Reason(code, "src/m.py", 2, "t")))
    after = decide(more, policy).decision
    assert RANK[after] >= RANK[before]
    if R.SEVERITY[code] == "refute":
        assert after == "reject"


@settings(max_examples=80, deadline=None, database=None)
@given(evidences(), policies(), st.integers(0, 7), st.sampled_from(CATEGORIES))
def test_tightening_any_setting_never_moves_toward_approve(ev, policy, how, category) -> None:
    before = decide(ev, policy).decision
    after = decide(ev, tighten(policy, how, category)).decision
    assert RANK[after] >= RANK[before]


@settings(max_examples=80, deadline=None, database=None)
@given(evidences(), policies())
def test_no_policy_approves_a_refuted_verification_or_a_rule_unmet(ev, policy) -> None:
    verdict = decide(ev, policy)
    if verdict.verdict == "refuted":
        assert verdict.decision == "reject"
    if verdict.decision == "approve":
        assert verdict.verdict == "verified"
        assert all(r.severity == "info" for r in verdict.reasons)
        assert all(o.outcome == "passed" for e in ev.exams for o in e.head)
        assert ev.change is not None
