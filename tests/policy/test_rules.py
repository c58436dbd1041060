"""Each policy rule as a table: a fixture that triggers it and one that does not, under
the default policy and under a configured one; and the decision each gets."""

from __future__ import annotations

import pytest

from truegreen.model.reasons import Reason
from truegreen.policy import rules
from truegreen.policy.rules import ChangeEvidence, FileChange, PolicyInput
from truegreen.policy.settings import DEFAULT, Policy
from truegreen.verify.verdict import (
    Evidence,
    ExamEvidence,
    Observation,
    RegressionEvidence,
    StrengthEvidence,
    decide,
)

SIG = "AssertionError@src/m.py:f#abc"
F3 = (Observation("failed", SIG),) * 3
P3 = (Observation("passed"),) * 3


def change(*paths: str, lines: int = 2) -> ChangeEvidence:
    return ChangeEvidence(tuple(FileChange(p, lines, 0) for p in paths))


FIX = change("src/m.py", "tests/test_m.py")


def exam(hidden: bool = False, head=P3) -> ExamEvidence:
    return ExamEvidence(
        "ex-1", "tests/test_m.py::test_f", "tests/test_m.py", SIG, F3, head, hidden=hidden
    )


def evidence(
    changed: ChangeEvidence | None = FIX,
    *,
    hidden: bool = False,
    strength: StrengthEvidence | None = None,
    tamper: tuple[Reason, ...] = (),
    head=P3,
) -> Evidence:
    return Evidence(
        exams=(exam(hidden, head),),
        tamper=tamper,
        regression=RegressionEvidence(complete=True, compared=5),
        strength=strength,
        change=changed,
    )


WIDE = ChangeEvidence(tuple(FileChange(f"src/d{i}/m{i}.py", 1, 0) for i in range(12)))

# (label, evidence, policy, the policy codes found, decision)
ROWS = [
    # -- nothing triggers: the one way to approve
    ("a source fix with its test", evidence(), DEFAULT, set(), "approve"),
    (
        "a docs change with the fix",
        evidence(change("src/m.py", "docs/usage.md")),
        DEFAULT,
        set(),
        "approve",
    ),
    # -- policy.missing_evidence: the change's files were not listed
    ("change not listed", evidence(None), DEFAULT, {"policy.missing_evidence"}, "escalate"),
    # -- policy.sensitive_path (defaults: auth, CI, dependencies, migrations, infrastructure)
    (
        "auth code",
        evidence(change("src/app/auth/login.py")),
        DEFAULT,
        {"policy.sensitive_path"},
        "escalate",
    ),
    (
        "a secrets file",
        evidence(change("src/settings_secret.py")),
        DEFAULT,
        {"policy.sensitive_path"},
        "escalate",
    ),
    (
        "a migration",
        evidence(change("app/migrations/0002_x.py")),
        DEFAULT,
        {"policy.sensitive_path"},
        "escalate",
    ),
    (
        "a CI workflow",
        evidence(change("src/m.py", ".github/workflows/ci.yml")),
        DEFAULT,
        {"policy.sensitive_path", "policy.file_category"},
        "escalate",
    ),
    (
        "a lock file",
        evidence(change("src/m.py", "uv.lock")),
        DEFAULT,
        {"policy.sensitive_path", "policy.file_category"},
        "escalate",
    ),
    (
        "a Dockerfile",
        evidence(change("Dockerfile")),
        DEFAULT,
        {"policy.sensitive_path", "policy.file_category"},
        "escalate",
    ),
    (
        "an author list is not auth code",
        evidence(change("src/authors.py")),
        DEFAULT,
        set(),
        "approve",
    ),
    (
        "extend-sensitive-paths adds to the defaults",
        evidence(change("src/billing/charge.py")),
        Policy(extend_sensitive_paths=("src/billing/",)),
        {"policy.sensitive_path"},
        "escalate",
    ),
    (
        "sensitive-paths replaces the defaults",
        evidence(change("src/app/auth/login.py")),
        Policy(sensitive_paths=("src/billing/",)),
        set(),
        "approve",
    ),
    # -- policy.broad_diff
    ("12 files in 12 directories", evidence(WIDE), DEFAULT, {"policy.broad_diff"}, "escalate"),
    (
        "12 files under broad-directories = 12",
        evidence(WIDE),
        Policy(broad_directories=12),
        set(),
        "approve",
    ),
    (
        "3 files over broad-files = 2",
        evidence(change("a.py", "b.py", "c.py")),
        Policy(broad_files=2),
        {"policy.broad_diff"},
        "escalate",
    ),
    (
        "900 lines",
        evidence(change("src/m.py", lines=900)),
        DEFAULT,
        {"policy.broad_diff"},
        "escalate",
    ),
    (
        "800 lines is not more than 800",
        evidence(change("src/m.py", lines=800)),
        DEFAULT,
        set(),
        "approve",
    ),
    # -- policy.file_category
    (
        "a data file",
        evidence(change("src/m.py", "data/rates.csv")),
        DEFAULT,
        {"policy.file_category"},
        "escalate",
    ),
    (
        "a config file",
        evidence(change("src/m.py", "setup.toml")),
        DEFAULT,
        {"policy.file_category"},
        "escalate",
    ),
    (
        "auto-approve without docs",
        evidence(change("src/m.py", "README.md")),
        Policy(auto_approve=("source", "tests")),
        {"policy.file_category"},
        "escalate",
    ),
    (
        "auto-approve with other",
        evidence(change("src/m.py", "data/rates.csv")),
        Policy(auto_approve=("source", "other")),
        set(),
        "approve",
    ),
    # -- policy.min_strength
    (
        "a weak exam under min-strength medium",
        evidence(strength=StrengthEvidence(1, 4)),
        Policy(min_strength="medium"),
        {"policy.min_strength"},
        "escalate",
    ),
    (
        "a medium exam under min-strength medium",
        evidence(strength=StrengthEvidence(2, 4)),
        Policy(min_strength="medium"),
        set(),
        "approve",
    ),
    (
        "no strength under min-strength weak",
        evidence(),
        Policy(min_strength="weak"),
        {"policy.min_strength"},
        "escalate",
    ),
    (
        "a weak exam under the default (none)",
        evidence(strength=StrengthEvidence(1, 4)),
        DEFAULT,
        set(),
        "approve",
    ),
    # -- policy.hidden_exam
    (
        "no hidden exam, one required",
        evidence(),
        Policy(require_hidden_exam=True),
        {"policy.hidden_exam"},
        "escalate",
    ),
    (
        "a hidden exam, one required",
        evidence(hidden=True),
        Policy(require_hidden_exam=True),
        set(),
        "approve",
    ),
    # -- reject: a finding that escalates by default rejects instead
    (
        "reject names policy.sensitive_path",
        evidence(change("src/app/auth/login.py")),
        Policy(reject=("policy.sensitive_path",)),
        {"policy.sensitive_path"},
        "reject",
    ),
    (
        "reject names a rule that has no finding",
        evidence(),
        Policy(reject=("policy.sensitive_path",)),
        set(),
        "approve",
    ),
    # -- what no setting changes
    (
        "a tampered change is rejected under the most lenient policy",
        evidence(tamper=(Reason("tamper.skip_added", "tests/test_m.py", 3, "skip"),)),
        Policy(
            sensitive_paths=(),
            auto_approve=("tests", "source", "docs", "config", "ci", "dependencies", "other"),
        ),
        set(),
        "reject",
    ),
    ("a failing exam is rejected", evidence(head=F3), DEFAULT, set(), "reject"),
]


@pytest.mark.parametrize(
    ("label", "ev", "policy", "codes", "decision"), ROWS, ids=[r[0] for r in ROWS]
)
def test_rule(label: str, ev: Evidence, policy: Policy, codes: set[str], decision: str) -> None:
    verdict = decide(ev, policy)
    found = {r.code for r in verdict.reasons if r.code.startswith("policy.")}
    assert found == codes, label
    assert verdict.decision == decision, label


def test_every_rule_has_a_row_that_triggers_it_and_one_that_does_not() -> None:
    from truegreen.policy.settings import RULES

    triggered = {c for r in ROWS for c in r[3]}
    assert set(RULES) - {"policy.error"} <= triggered
    assert any(not r[3] and r[4] == "approve" for r in ROWS)


def test_a_verified_change_that_escalates_stays_verified() -> None:
    # the verdict describes the evidence; the policy decides what happens to it
    verdict = decide(evidence(change("src/app/auth/login.py")))
    assert (verdict.verdict, verdict.decision) == ("verified", "escalate")


def test_the_evidence_that_triggered_a_rule_is_in_its_reason() -> None:
    found = decide(evidence(change("src/m.py", ".github/workflows/ci.yml"))).reasons
    sensitive = next(r for r in found if r.code == "policy.sensitive_path")
    assert sensitive.file == ".github/workflows/ci.yml"
    assert "'.github/workflows/**' (sensitive-paths, default)" in sensitive.detail
    category = next(r for r in found if r.code == "policy.file_category")
    assert (
        category.detail == ".github/workflows/ci.yml is ci; auto-approve lists source, tests, docs"
    )
    broad = decide(evidence(WIDE)).reasons
    assert [r.detail for r in broad if r.code == "policy.broad_diff"] == [
        "a broad change: 12 directories (more than broad-directories = 10)"
    ]


def test_an_error_inside_a_rule_escalates_and_names_the_rule(monkeypatch) -> None:
    def broken(policy: Policy, seen: PolicyInput) -> list[Reason]:
        raise KeyError("boom")

    monkeypatch.setitem(rules.RULE_FUNCTIONS, "policy.broad_diff", broken)
    verdict = decide(evidence())
    assert verdict.decision == "escalate"
    assert [r.detail for r in verdict.reasons if r.code == "policy.error"] == [
        "policy.broad_diff failed: KeyError: 'boom'"
    ]


def test_decide_is_deterministic_and_sorts_its_reasons() -> None:
    ev = evidence(change("uv.lock", "src/auth.py", ".github/workflows/x.yml"))
    first = decide(ev, DEFAULT)
    assert first == decide(ev, DEFAULT)
    assert list(first.reasons) == sorted(first.reasons, key=Reason.sort_key)
    assert [r.file for r in first.reasons if r.code == "policy.sensitive_path"] == [
        ".github/workflows/x.yml",
        "src/auth.py",
        "uv.lock",
    ]
