"""What a report shows beyond the verification document, gathered from the repository
and the sealed exams: the diff base -> head, the exams' test files as sealed (a hidden
exam's never), and each surviving mutant's line before and after (the mutants are made
again, deterministically, from the head's file)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from truegreen.errors import TruegreenError
from truegreen.model.exam import Exam
from truegreen.repo.git import GitRepo
from truegreen.report.model import ExamCode, ReportContext, SurvivorDiff
from truegreen.verify.mutate import mutants_for


def exam_code(exams: Sequence[Exam]) -> tuple[ExamCode, ...]:
    """Each exam's test file as sealed; a hidden exam's without its text."""
    out = []
    for e in exams:
        text = None
        if not e.hidden:
            text = next((f.content for f in e.files if f.path == e.path), None)
        out.append(ExamCode(e.id, e.test, e.path, e.hidden, text))
    return tuple(out)


def _line(text: str, number: int) -> str | None:
    lines = text.splitlines()
    return lines[number - 1] if 0 < number <= len(lines) else None


def survivors(git: GitRepo, head: str, doc: Mapping[str, Any]) -> tuple[SurvivorDiff, ...]:
    """The survivors of ``doc`` with the head's line and the mutated one (when the mutant
    can be made again; else without them)."""
    out = []
    for s in (doc.get("strength") or {}).get("survivors", []):
        text = git.show_text(head, s["file"])
        before = after = None
        if text is not None:
            for m in mutants_for(s["file"], text, [s["line"]], per_line=100):
                if m.description == s["mutation"] and m.line == s["line"]:
                    before, after = _line(text, s["line"]), _line(m.source, s["line"])
                    break
        out.append(SurvivorDiff(s["file"], s["line"], s["mutation"], before, after))
    return tuple(out)


def collect(git: GitRepo | None, doc: Mapping[str, Any], exams: Sequence[Exam]) -> ReportContext:
    """The context of a report: from the repository when there is one (the revisions must
    be in it), and from the exams."""
    missing = []
    diff = None
    found: tuple[SurvivorDiff, ...] = ()
    if git is None:
        missing.append("the diff is not included (no repository given)")
    else:
        try:
            diff = git.diff(doc["base"], doc["head"])
            found = survivors(git, doc["head"], doc)
        except TruegreenError:
            missing.append(f"the diff is not included: {doc['head'][:12]} is not in {git.root}")
    if not exams:
        missing.append("the exam's code is not included (its exam is not in the ledger)")
    return ReportContext(
        diff=diff,
        exams=exam_code(exams),
        survivors=found,
        missing="; ".join(missing) or None,
    )
