"""The one report model: what every renderer (Markdown, HTML; JSON is the document itself)
shows of a ``truegreen.verification/1`` document, built once by :func:`build`.

The document alone gives the decision, the layers, the reasons, the exams' runs, the
regression and strength figures and the receipt's hash. A :class:`ReportContext` adds
what the document does not hold: the diff of the change (with the lines that matter
marked: tampered lines, the exam's lines, surviving mutants' lines), the exams' code (a
hidden exam's never: it carries no text) and the head's files the survivors are on.
:func:`build` is pure: the same document and context give the same report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from truegreen.model.reasons import severity_of
from truegreen.verify.verdict import VERIFIED_MEANS

LineKind = Literal["add", "del", "ctx", "hunk", "meta"]
#: what a marked line is: named by a tamper finding or a gate's new violation, a changed
#: line of the exam's file, a surviving mutant's line; a whole file: named by a policy rule
Mark = Literal["tamper", "gate", "exam", "survivor", "policy"]

VERDICT_WORDS = {"verified": "VERIFIED", "refuted": "REFUTED", "inconclusive": "INCONCLUSIVE"}

#: The layers of a verification, in the order they are shown.
LAYERS = ("exam", "tamper", "regression", "gates")

#: Layers that exist only when configured. The JSON document always carries them
#: (``"skipped"``), but a person is shown one only when it ran: "gates skipped" on every
#: verdict reads as if gates had been set up and passed over. A core layer (exam, tamper,
#: regression) that did not run is always shown: its evidence is missing.
OPTIONAL_LAYERS = ("gates",)

#: the order a reason is picked for the one-line reason (the strongest first)
_WEIGHT = {"refute": 0, "inconclusive": 1, "escalate": 2, "info": 3}


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str
    #: the line's number on the head side (None for a removed line or a header)
    new: int | None = None
    old: int | None = None
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class DiffFile:
    path: str
    lines: tuple[DiffLine, ...]
    #: marks of the whole file (a finding about the file without a line)
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class ExamCode:
    """An exam's test file as sealed; ``text`` is None for a hidden exam (never shown)."""

    id: str
    test: str
    path: str
    hidden: bool
    text: str | None = None


@dataclass(frozen=True)
class SurvivorDiff:
    """A mutant every exam passed against: the head's line and the mutated one."""

    file: str
    line: int
    mutation: str
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class ReportContext:
    """What the document does not hold (each part optional)."""

    #: the unified diff base -> head
    diff: str | None = None
    #: the exams' sealed test files
    exams: tuple[ExamCode, ...] = ()
    #: survivors with their lines before and after the mutation
    survivors: tuple[SurvivorDiff, ...] = ()
    #: why a part is missing (shown instead of it), e.g. "no repository given"
    missing: str | None = None


@dataclass(frozen=True)
class Layer:
    name: str
    status: str
    #: the evidence, one line each
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Report:
    doc: Mapping[str, Any]
    decision: str
    verdict: str
    #: the one-line reason shown first
    headline: str
    meaning: str
    layers: tuple[Layer, ...]
    reasons: tuple[Mapping[str, Any], ...]
    diff: tuple[DiffFile, ...] | None
    exams: tuple[ExamCode, ...]
    survivors: tuple[SurvivorDiff, ...]
    receipt: str | None
    missing: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def shown_layers(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(layer, status) pairs a person reads: every core layer, an optional one that ran."""
    layers = doc["layers"]
    return [
        (name, layers.get(name, "skipped"))
        for name in LAYERS
        if name not in OPTIONAL_LAYERS or layers.get(name, "skipped") != "skipped"
    ]


def where(reason: Mapping[str, Any]) -> str:
    """``file:line``, ``file`` or ``""``."""
    if not reason.get("file"):
        return ""
    return str(reason["file"]) + (f":{reason['line']}" if reason.get("line") else "")


def headline(doc: Mapping[str, Any]) -> str:
    """The one-line reason shown first: the strongest reason, or what approve means."""
    reasons = sorted(
        doc["reasons"], key=lambda r: (_WEIGHT.get(severity_of(r["code"]), 1), r["code"])
    )
    strong = [r for r in reasons if severity_of(r["code"]) != "info"]
    if not strong:
        if doc["decision"] == "approve":
            return (
                "passes the sealed exam, no tampering found, no new failures, "
                "and every policy rule is satisfied"
            )
        return "the evidence does not settle it"
    first = strong[0]
    at = where(first)
    more = f" (and {len(strong) - 1} more)" if len(strong) > 1 else ""
    return f"{first['code']}{f' {at}' if at else ''}: {first['detail']}{more}"


def compared_tests(reg: Mapping[str, Any]) -> str:
    """What the regression layer compared, in a sentence (a layer that compared nothing
    must not read as a pass that means something)."""
    n = reg.get("compared", 0)
    if not reg.get("complete", True):
        return "incomplete: a suite run did not finish, so nothing was compared (not a pass)"
    if not n:
        return "no test besides the exams ran on both sides: nothing was compared"
    new, flaky = len(reg.get("new_failures") or []), len(reg.get("flaky") or [])
    counts = [f"{new} new failure{'' if new == 1 else 's'}", f"{flaky} flaky"]
    if reg.get("failing_on_both"):
        counts.append(f"{len(reg['failing_on_both'])} failing on both sides (not counted)")
    text = f"{n} test{' ran' if n == 1 else 's ran'} on both sides: " + ", ".join(counts)
    always = reg.get("always_run")
    if always:
        k = always["tests"]
        text += (
            f"; always-run ({', '.join(always['entries'])}): "
            + (f"{k} test{'' if k == 1 else 's'} among them" if k else "no test")
            + ", run whatever tests / ignore leave out"
        )
    return text


def selection_text(reg: Mapping[str, Any]) -> str | None:
    """Which tests the regression layer ran on the head, and why, in a sentence (None for a
    document without ``selection``)."""
    sel = reg.get("selection")
    if not sel:
        return None
    if sel["mode"] == "selected":
        why = ", ".join(f"{n} {what}" for what, n in sorted((sel.get("why") or {}).items()))
        return (
            f"selected: the head ran {sel['tests']} of the base's {sel['of']} tests, those the "
            f"change can affect ({why or 'none'}), picked from the base's per-test record; "
            "the base's outcomes are the record's"
        )
    return "the whole suite ran on the head: " + (sel.get("reason") or "full")


def regression_lines(reg: Mapping[str, Any], test: Callable[[str], str]) -> list[str]:
    """What the regression layer compared, then its lists of tests (each through ``test``)."""
    lines = [compared_tests(reg)]
    selected = selection_text(reg)
    if selected:
        lines.append(selected)
    for key, label in (
        ("new_failures", "new failures"),
        ("flaky", "flaky (passed on rerun)"),
        ("failing_on_both", "failing on both sides (not counted)"),
        ("collection_errors", "new collection errors"),
    ):
        if reg.get(key):
            lines.append(f"{label}: " + ", ".join(test(t) for t in reg[key]))
    return lines


def _reason_lines(doc: Mapping[str, Any], prefix: str) -> list[str]:
    out = []
    for r in doc["reasons"]:
        if r["code"].startswith(prefix):
            at = where(r)
            out.append(f"{r['code']}{f' {at}' if at else ''}: {r['detail']}")
    return out


def _layers(doc: Mapping[str, Any]) -> tuple[Layer, ...]:
    evidence: dict[str, list[str]] = {
        "exam": [
            f"{e['test']}: base {e['base']['outcome']} x{e['base']['runs']}, "
            f"head {e['head']['outcome']} x{e['head']['runs']}"
            for e in doc["exams"]
        ]
        + _reason_lines(doc, "exam."),
        "tamper": _reason_lines(doc, "tamper.") or ["no tampering found"],
        "regression": (
            [compared_tests(doc["regression"]), *filter(None, [selection_text(doc["regression"])])]
            if doc.get("regression")
            else []
        )
        + _reason_lines(doc, "regression."),
        "gates": _reason_lines(doc, "gate."),
    }
    layers = [Layer(n, s, tuple(evidence[n])) for n, s in shown_layers(doc)]
    policy = _reason_lines(doc, "policy.")
    layers.append(
        Layer(
            "policy",
            doc["decision"] if policy else "pass",
            tuple(policy or ["every rule of the policy is satisfied"]),
        )
    )
    strength = doc.get("strength")
    if strength is not None:
        layers.append(
            Layer(
                "strength",
                strength["label"],
                (
                    f"the exam killed {strength['killed']} of {strength['mutants']} mutants "
                    "of the changed lines",
                ),
            )
        )
    return tuple(layers)


def parse_diff(text: str) -> list[tuple[str, list[DiffLine]]]:
    """A unified diff as (head path, lines) per file (a deleted file: its base path)."""
    files: list[tuple[str, list[DiffLine]]] = []
    lines: list[DiffLine] = []
    old = new = 0
    path = ""
    for raw in text.splitlines():
        if raw.startswith("diff --git "):
            lines = []
            path = raw.split(" b/", 1)[-1] if " b/" in raw else raw[11:]
            files.append((path, lines))
            continue
        if not files:
            continue
        if raw.startswith("+++ ") or raw.startswith("--- "):
            target = raw[4:].strip()
            if raw.startswith("+++ ") and target.startswith("b/"):
                files[-1] = (target[2:], lines)
            continue
        if raw.startswith("@@"):
            try:
                minus, plus = raw.split(" ")[1:3]
                old = int(minus[1:].split(",")[0])
                new = int(plus[1:].split(",")[0])
            except (ValueError, IndexError):
                old = new = 0
            lines.append(DiffLine("hunk", raw))
        elif raw.startswith("+"):
            lines.append(DiffLine("add", raw[1:], new=new))
            new += 1
        elif raw.startswith("-"):
            lines.append(DiffLine("del", raw[1:], old=old))
            old += 1
        elif raw.startswith(" "):
            lines.append(DiffLine("ctx", raw[1:], new=new, old=old))
            old += 1
            new += 1
        elif not raw.startswith(("\\", "index ")):
            lines.append(DiffLine("meta", raw))
    return files


def _marked_diff(
    text: str, doc: Mapping[str, Any], exam_paths: Sequence[str], survivors: Sequence[SurvivorDiff]
) -> tuple[DiffFile, ...]:
    named: dict[tuple[str, Mark], set[int]] = {}
    file_marks: dict[str, set[Mark]] = {}
    for r in doc["reasons"]:
        kind: Mark | None = (
            "tamper"
            if r["code"].startswith("tamper.")
            else "gate"
            if r["code"].startswith("gate.")
            else "policy"
            if r["code"].startswith("policy.")
            else None
        )
        if kind is None or not r.get("file"):
            continue
        if r.get("line") and kind != "policy":
            named.setdefault((r["file"], kind), set()).add(r["line"])
        else:
            file_marks.setdefault(r["file"], set()).add(kind)
    survivor_lines: dict[str, set[int]] = {}
    for s in survivors:
        survivor_lines.setdefault(s.file, set()).add(s.line)
    out = []
    for path, lines in parse_diff(text):
        marked = []
        for line in lines:
            marks: list[Mark] = []
            if line.kind in ("add", "del", "ctx"):
                number = line.new if line.kind != "del" else line.old
                for mark in ("tamper", "gate"):
                    if line.kind != "ctx" and number in named.get((path, mark), ()):
                        marks.append(mark)
                if line.kind != "ctx" and path in exam_paths:
                    marks.append("exam")
                if line.kind != "del" and line.new in survivor_lines.get(path, ()):
                    marks.append("survivor")
            marked.append(DiffLine(line.kind, line.text, line.new, line.old, tuple(marks)))
        out.append(DiffFile(path, tuple(marked), tuple(sorted(file_marks.get(path, ())))))
    return tuple(out)


def build(doc: Mapping[str, Any], context: ReportContext | None = None) -> Report:
    """The report of a verification document (and what the context adds)."""
    ctx = context or ReportContext(missing="the diff and the exam's code are not included")
    survivors = ctx.survivors or tuple(
        SurvivorDiff(s["file"], s["line"], s["mutation"])
        for s in (doc.get("strength") or {}).get("survivors", [])
    )
    exam_paths = [e["test"].split("::", 1)[0] for e in doc["exams"]]
    exams = ctx.exams or tuple(
        ExamCode(e["id"], e["test"], e["test"].split("::", 1)[0], hidden=False)
        for e in doc["exams"]
    )
    receipt = doc.get("receipt")
    return Report(
        doc=doc,
        decision=doc["decision"],
        verdict=doc["verdict"],
        headline=headline(doc),
        meaning=doc.get("meaning") or VERIFIED_MEANS,
        layers=_layers(doc),
        reasons=tuple(doc["reasons"]),
        diff=None if ctx.diff is None else _marked_diff(ctx.diff, doc, exam_paths, survivors),
        exams=exams,
        survivors=survivors,
        receipt=receipt["sha256"] if receipt else None,
        missing=ctx.missing,
        notes=tuple(doc.get("notes") or ()),
    )
