"""The policy's rules over the collected evidence, as pure functions.

:func:`findings` gives the ``policy.<rule>`` reasons a change gets under a
:class:`~truegreen.policy.settings.Policy`, each with the evidence that triggered it (the
path and the glob, the count and the threshold); :func:`decision` turns a verdict and
every reason into ``approve | reject | escalate``. Both are called by the one verdict
function, :func:`truegreen.verify.verdict.decide`; neither does I/O.

The decision, in order:

1. a refuted verdict rejects (a tampered change, a failing exam, a new failure): no
   setting can change that;
2. a finding that escalates by default and that the policy's ``reject`` names rejects;
3. an inconclusive verdict, or any policy rule's finding, escalates;
4. else approve: the default is escalate, and approve is what is left when every rule
   is satisfied.

An error inside a rule escalates (``policy.error``, naming the rule and the error).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.policy.paths import category, matching
from truegreen.policy.settings import STRENGTH_FLOORS, Policy

Decision = Literal["approve", "reject", "escalate"]


@dataclass(frozen=True)
class FileChange:
    """One file the change touches: lines added and removed (0 and 0 for a binary file)."""

    path: str
    added: int = 0
    removed: int = 0


@dataclass(frozen=True)
class ChangeEvidence:
    """Every file the change touches, base -> head (paths relative to the project's root)."""

    files: tuple[FileChange, ...]

    @property
    def lines(self) -> int:
        return sum(f.added + f.removed for f in self.files)

    @property
    def directories(self) -> tuple[str, ...]:
        return tuple(sorted({f.path.rpartition("/")[0] or "." for f in self.files}))


@dataclass(frozen=True)
class PolicyInput:
    """What the rules read besides the change: the exams' hidden flags and the strength."""

    change: ChangeEvidence | None
    #: one entry per exam run: whether it is hidden
    hidden: tuple[bool, ...] = ()
    #: the exam's strength label, None when it was not measured
    strength: str | None = None


def _sensitive(policy: Policy, seen: PolicyInput) -> list[Reason]:
    found = []
    for f in seen.change.files if seen.change else ():
        globs = matching(f.path, policy.sensitive)
        if globs:
            key = (
                "extend-sensitive-paths"
                if globs[0] not in policy.sensitive_paths
                else "sensitive-paths"
            )
            found.append(
                Reason(
                    R.POLICY_SENSITIVE_PATH,
                    f.path,
                    None,
                    f"{f.path} matches {globs[0]!r} ({key}, {policy.source(key)}): "
                    "a person looks at changes here",
                )
            )
    return found


def _broad(policy: Policy, seen: PolicyInput) -> list[Reason]:
    change = seen.change
    if change is None:
        return []
    over = []
    for what, n, key, limit in (
        ("files", len(change.files), "broad-files", policy.broad_files),
        ("directories", len(change.directories), "broad-directories", policy.broad_directories),
        ("lines", change.lines, "broad-lines", policy.broad_lines),
    ):
        if n > limit:
            over.append(f"{n} {what} (more than {key} = {limit})")
    if not over:
        return []
    return [Reason(R.POLICY_BROAD_DIFF, None, None, "a broad change: " + ", ".join(over))]


def _category(policy: Policy, seen: PolicyInput) -> list[Reason]:
    found = []
    allowed = ", ".join(policy.auto_approve) or "nothing"
    for f in seen.change.files if seen.change else ():
        kind = category(f.path)
        if kind not in policy.auto_approve:
            found.append(
                Reason(
                    R.POLICY_FILE_CATEGORY,
                    f.path,
                    None,
                    f"{f.path} is {kind}; auto-approve lists {allowed}",
                )
            )
    return found


def _strength(policy: Policy, seen: PolicyInput) -> list[Reason]:
    floor = policy.min_strength
    if floor == "none":
        return []
    if seen.strength is None:
        why = f"the exam's strength was not measured; min-strength = {floor!r} asks for it"
    elif STRENGTH_FLOORS.index(seen.strength) < STRENGTH_FLOORS.index(floor):
        why = f"the exam is {seen.strength}; min-strength = {floor!r}"
    else:
        return []
    return [Reason(R.POLICY_MIN_STRENGTH, None, None, why)]


def _hidden(policy: Policy, seen: PolicyInput) -> list[Reason]:
    if not policy.require_hidden_exam or any(seen.hidden):
        return []
    n = len(seen.hidden)
    return [
        Reason(
            R.POLICY_HIDDEN_EXAM,
            None,
            None,
            f"require-hidden-exam = true, and none of the {n} exam(s) is hidden",
        )
    ]


#: every rule, by id (README.md "Policy rules" lists them with
#: :data:`truegreen.policy.settings.RULES`)
RULE_FUNCTIONS: dict[str, Callable[[Policy, PolicyInput], list[Reason]]] = {
    R.POLICY_SENSITIVE_PATH: _sensitive,
    R.POLICY_BROAD_DIFF: _broad,
    R.POLICY_FILE_CATEGORY: _category,
    R.POLICY_MIN_STRENGTH: _strength,
    R.POLICY_HIDDEN_EXAM: _hidden,
}


def findings(policy: Policy, seen: PolicyInput) -> list[Reason]:
    """Every ``policy.<rule>`` finding (a change not listed is ``policy.missing_evidence``;
    a rule that raises is ``policy.error``: both escalate, neither approves)."""
    found: list[Reason] = []
    if seen.change is None:
        found.append(
            Reason(
                R.POLICY_MISSING_EVIDENCE,
                None,
                None,
                "the files the change touches were not listed",
            )
        )
    for rule, check in RULE_FUNCTIONS.items():
        try:
            found += check(policy, seen)
        except Exception as exc:  # an error inside the policy escalates, never approves
            found.append(
                Reason(R.POLICY_ERROR, None, None, f"{rule} failed: {type(exc).__name__}: {exc}")
            )
    return found


def decision(verdict: str, reasons: Sequence[Reason], policy: Policy) -> Decision:
    """``approve | reject | escalate`` from the verdict and every reason (module docstring)."""
    if verdict == "refuted":
        return "reject"
    rejects = set(policy.reject)
    if any(r.code in rejects and r.severity in ("inconclusive", "escalate") for r in reasons):
        return "reject"
    if verdict != "verified" or any(r.severity != "info" for r in reasons):
        return "escalate"
    return "approve"
