"""The one function that turns collected evidence into a verdict and a decision.

``decide(evidence, policy) -> Verdict`` is pure: no I/O, no clock, no randomness. It is
tested as a table, one labelled row per rule (tests/verify/test_verdict.py,
tests/policy/test_rules.py), and with property tests (tests/policy/test_properties.py).

Rules, in order:

1. Every finding is a :class:`~truegreen.model.reasons.Reason` whose severity, ``refute``,
   ``inconclusive`` or ``info``, follows from its code (:data:`truegreen.model.reasons.SEVERITY`,
   the one table of codes).
2. Evidence that was not collected never counts as a pass: no exam evidence, a
   missing tamper analysis, or an incomplete regression run make the result
   inconclusive (``policy.missing_evidence``, ``regression.incomplete``).
3. Any refuting finding -> ``refuted``. A cheat is a cheat, even when another layer
   could not conclude.
4. Else any inconclusive finding -> ``inconclusive``.
5. Else ``verified``: the sealed exam failed on the base with its sealed signature and
   passed on the head in every run, no tampering was found, no test that passed on the
   base fails on the head. "Verified" never means "correct".

The exam's strength (the share of mutants of the changed lines the exams kill) gets its
label here too (:func:`strength_label`: ``strong`` from :data:`STRONG_FROM`, ``medium``
from :data:`MEDIUM_FROM`, else ``weak``); a weak exam adds ``strength.weak``, which is
``info``: it annotates and never flips a verdict.

The decision comes from the policy (:mod:`truegreen.policy.rules`): refuted -> reject
whatever the policy says; inconclusive -> escalate (or reject where the policy's
``reject`` names a finding); verified -> approve only when no policy rule has a finding
(``policy.<rule>`` reasons, severity ``escalate``: the verdict stands, the decision
escalates). Under the default policy (:data:`truegreen.policy.settings.DEFAULT`) a change
that touches sensitive paths, is broad, or touches files other than source, tests and docs
escalates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.policy import rules as policy_rules
from truegreen.policy.rules import ChangeEvidence, PolicyInput
from truegreen.policy.settings import DEFAULT as DEFAULT_POLICY
from truegreen.policy.settings import Policy

#: What a verdict means, shown wherever one is (terminal, reports, documents).
VERIFIED_MEANS = (
    '"verified" means: passes the sealed exam, no tampering found, no new failures. '
    'It never means "correct".'
)

VerdictName = Literal["verified", "refuted", "inconclusive"]
Decision = Literal["approve", "reject", "escalate"]
LayerStatus = Literal["pass", "fail", "error", "skipped"]
StrengthLabel = Literal["weak", "medium", "strong"]

#: the share of mutants the exams must kill for a ``strong`` exam (exact: 4 of 5 is strong)
STRONG_FROM = Fraction(4, 5)
#: the share for ``medium``; below it the exam is ``weak`` (``strength.weak``)
MEDIUM_FROM = Fraction(1, 2)


@dataclass(frozen=True)
class Observation:
    """One run of one exam on one side."""

    outcome: str
    signature: str | None = None
    #: for an error in collection: what could not be collected and why, in one line
    #: (``tests/test_x.py could not be collected: ModuleNotFoundError: ...``)
    detail: str | None = None


def _why(obs: Sequence[Observation]) -> str:
    """``: <detail>`` of the first run that says why the test could not run, else ``""``."""
    detail = next((o.detail for o in obs if o.detail), None)
    return f": {detail}" if detail else ""


@dataclass(frozen=True)
class ExamEvidence:
    exam_id: str
    test: str
    path: str
    sealed_signature: str
    base: tuple[Observation, ...]
    head: tuple[Observation, ...]
    #: findings raised by the sandbox for this exam's runs (sandbox.blocked_network, ...)
    sandbox: tuple[Reason, ...] = ()
    #: a hidden exam: a fixer never saw its content (the policy's require-hidden-exam)
    hidden: bool = False


@dataclass(frozen=True)
class RegressionEvidence:
    complete: bool
    new_failures: tuple[str, ...] = ()
    flaky: tuple[str, ...] = ()
    collection_errors: tuple[str, ...] = ()
    #: tests failing on both sides: reported, not counted
    failing_on_both: tuple[str, ...] = ()
    detail: str = ""
    #: tests (the exams left out) that ran on both sides and were compared
    compared: int = 0
    #: the head's outcome of a new failure, where it is not plainly "failed" (error,
    #: xfailed, no_report...): (test id, outcome) pairs
    head_outcomes: tuple[tuple[str, str], ...] = ()
    #: a flaky test's runs, where they were recorded: (test id, "on the base: passed,
    #: failed, passed; on the head: failed, failed, failed")
    flaky_outcomes: tuple[tuple[str, str], ...] = ()
    #: the configured always-run entries (run on both sides apart from the suite)
    always_run: tuple[str, ...] = ()
    #: how many tests they selected that ran on both sides (the exams left out)
    always_run_tests: int = 0


@dataclass(frozen=True)
class Survivor:
    """A mutant of a changed line that every exam passed against."""

    file: str
    line: int
    mutation: str


@dataclass(frozen=True)
class StrengthEvidence:
    """How many of the mutants of the changed lines the exams killed (at least one mutant:
    when none could be made there is no strength evidence)."""

    killed: int
    mutants: int
    survivors: tuple[Survivor, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.killed <= self.mutants or self.mutants < 1:
            raise ValueError(f"strength of {self.killed} killed of {self.mutants} mutants")


@dataclass(frozen=True)
class Evidence:
    exams: tuple[ExamEvidence, ...]
    #: None when the tamper analysis did not run
    tamper: tuple[Reason, ...] | None
    #: None when the regression layer did not run
    regression: RegressionEvidence | None
    #: None when no gate is configured
    gates: tuple[Reason, ...] | None = None
    #: None when the strength was not measured (or no mutant could be made)
    strength: StrengthEvidence | None = None
    #: the files the change touches; None when they were not listed (missing evidence)
    change: ChangeEvidence | None = None


@dataclass(frozen=True)
class Verdict:
    verdict: VerdictName
    decision: Decision
    layers: dict[str, LayerStatus]
    reasons: tuple[Reason, ...] = field(default_factory=tuple)
    #: the exam's strength label, None without strength evidence
    strength: StrengthLabel | None = None


def strength_label(strength: StrengthEvidence) -> StrengthLabel:
    """``strong``, ``medium`` or ``weak``, from the exact share of mutants killed."""
    share = Fraction(strength.killed, strength.mutants)
    if share >= STRONG_FROM:
        return "strong"
    return "medium" if share >= MEDIUM_FROM else "weak"


def strength_findings(strength: StrengthEvidence | None) -> list[Reason]:
    """``strength.weak`` for a weak exam (``info``: never flips a verdict)."""
    if strength is None or strength_label(strength) != "weak":
        return []
    return [
        Reason(
            R.STRENGTH_WEAK,
            None,
            None,
            f"the exam killed {strength.killed} of {strength.mutants} mutants of the changed lines",
        )
    ]


def _distinct(obs: Sequence[Observation]) -> set[str]:
    return {o.outcome for o in obs}


def exam_findings(ev: ExamEvidence) -> list[Reason]:
    """What one exam's runs say (pure)."""

    def on_exam(code: str, detail: str) -> Reason:
        return Reason(code, ev.path, None, detail)

    found: list[Reason] = list(ev.sandbox)
    base, head = ev.base, ev.head
    if not base or not head:
        found.append(
            on_exam(R.POLICY_MISSING_EVIDENCE, f"{ev.test}: the exam did not run on both sides")
        )
        return found
    b = _distinct(base)
    if "no_report" in b:
        found.append(
            on_exam(
                R.EXAM_NO_REPORT,
                f"{ev.test} on the base: the test process ended without reporting",
            )
        )
    elif len(b) > 1:
        found.append(
            on_exam(
                R.EXAM_FLAKY,
                f"{ev.test} on the base: outcomes {', '.join(o.outcome for o in base)}",
            )
        )
    elif b <= {"passed", "skipped", "xfailed", "xpassed"}:
        found.append(
            on_exam(
                R.EXAM_NOT_FAILING_AT_BASE,
                f"{ev.test} is {base[0].outcome} on the base: the exam is invalid there",
            )
        )
    else:
        sigs = {o.signature for o in base}
        if sigs != {ev.sealed_signature}:
            got = ", ".join(sorted(s or "none" for s in sigs))
            found.append(
                on_exam(
                    R.EXAM_SIGNATURE_MISMATCH,
                    f"{ev.test} fails on the base as {got}, sealed as "
                    f"{ev.sealed_signature}{_why(base)}",
                )
            )
    h = _distinct(head)
    if ev.sandbox and h != {"passed"}:
        # The head failed only because the sandbox blocked something: say so, and do
        # not refute (the sandbox never weakens the verdict).
        return found
    outcomes = ", ".join(o.outcome for o in head)
    if h == {"passed"}:
        pass
    elif "no_report" in h:
        found.append(
            on_exam(
                R.EXAM_NO_REPORT,
                f"{ev.test} on the head: the test process ended without reporting ({outcomes})",
            )
        )
    elif "passed" in h:
        found.append(on_exam(R.EXAM_FLAKY, f"{ev.test} on the head: outcomes {outcomes}"))
    elif h == {"error"}:
        found.append(
            on_exam(
                R.EXAM_ERROR_AT_HEAD,
                f"{ev.test} cannot be collected or set up on the head{_why(head)}",
            )
        )
    else:
        kinds = sorted(h)
        note = "" if kinds == ["failed"] else f" ({'/'.join(kinds)} is not a pass)"
        found.append(on_exam(R.EXAM_STILL_FAILING, f"{ev.test} does not pass on the head{note}"))
    return found


#: how a new failure's outcome on the head reads
_ON_HEAD = {
    "error": "errors",
    "xfailed": "is xfailed",
    "xpassed": "is xpassed",
    "no_report": "did not report",
}


def regression_findings(reg: RegressionEvidence) -> list[Reason]:
    seen = dict(reg.head_outcomes)
    found = [
        Reason(
            R.REGRESSION_NEW_FAILURE,
            t.split("::")[0],
            None,
            f"{t} passed on the base and {_ON_HEAD.get(seen.get(t, ''), 'fails')} on the head",
        )
        for t in reg.new_failures
    ]
    runs = dict(reg.flaky_outcomes)
    found += [
        Reason(
            R.REGRESSION_FLAKY,
            t.split("::")[0],
            None,
            (
                f"{t} failed once on the head and passed when rerun"
                if "on the base" not in runs.get(t, "")
                else f"{t} fails on the head, and flips on the base too: not the change's doing"
            )
            + (f" ({runs[t]})" if t in runs else ""),
        )
        for t in reg.flaky
    ]
    found += [
        Reason(
            R.REGRESSION_COLLECTION_ERROR,
            n.split("::")[0] or None,
            None,
            f"{n or 'the session'} cannot be collected on the head",
        )
        for n in reg.collection_errors
    ]
    if not reg.complete:
        found.append(
            Reason(
                R.REGRESSION_INCOMPLETE,
                None,
                None,
                reg.detail or "the regression run did not finish",
            )
        )
    return found


def _layer(findings: Sequence[Reason], ran: bool) -> LayerStatus:
    if not ran:
        return "skipped"
    if any(f.severity == "refute" for f in findings):
        return "fail"
    return "pass"


def decide(evidence: Evidence, policy: Policy = DEFAULT_POLICY) -> Verdict:
    """Evidence and policy -> verdict and decision (see the module docstring for the rules)."""
    exam_f = [f for ev in evidence.exams for f in exam_findings(ev)]
    if not evidence.exams:
        exam_f.append(Reason(R.POLICY_MISSING_EVIDENCE, None, None, "no exam was run"))
    tamper_f = list(evidence.tamper or ())
    if evidence.tamper is None:
        tamper_f.append(
            Reason(R.POLICY_MISSING_EVIDENCE, None, None, "the tamper analysis did not run")
        )
    reg_f = (
        regression_findings(evidence.regression)
        if evidence.regression
        else [Reason(R.POLICY_MISSING_EVIDENCE, None, None, "the regression layer did not run")]
    )
    gate_f = list(evidence.gates or ())
    strength_f = strength_findings(evidence.strength)
    label = None if evidence.strength is None else strength_label(evidence.strength)
    policy_f = policy_rules.findings(
        policy,
        PolicyInput(
            change=evidence.change,
            hidden=tuple(e.hidden for e in evidence.exams),
            strength=label,
        ),
    )
    everything = sorted(
        {*exam_f, *tamper_f, *reg_f, *gate_f, *strength_f, *policy_f}, key=Reason.sort_key
    )

    exam_status: LayerStatus
    if any(f.severity == "refute" for f in exam_f):
        exam_status = "fail"
    elif any(f.severity == "inconclusive" for f in exam_f):
        exam_status = "error"
    else:
        exam_status = "pass"
    reg_status: LayerStatus
    if evidence.regression is None or not evidence.regression.complete:
        reg_status = "fail" if any(f.severity == "refute" for f in reg_f) else "skipped"
    else:
        reg_status = _layer(reg_f, True)
    layers: dict[str, LayerStatus] = {
        "exam": exam_status,
        "tamper": "fail"
        if any(f.severity != "info" for f in tamper_f if f.code.startswith("tamper."))
        else ("pass" if evidence.tamper is not None else "skipped"),
        "regression": reg_status,
        "gates": "skipped" if evidence.gates is None else ("fail" if gate_f else "pass"),
    }
    if any(f.severity == "refute" for f in everything):
        verdict: VerdictName = "refuted"
    elif any(f.severity == "inconclusive" for f in everything):
        verdict = "inconclusive"
    else:
        verdict = "verified"
    return Verdict(
        verdict=verdict,
        decision=policy_rules.decision(verdict, everything, policy),
        layers=layers,
        reasons=tuple(everything),
        strength=label,
    )
