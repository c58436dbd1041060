"""The Markdown evidence report of a ``truegreen.verification/1`` document: one that fits
a pull-request comment.

It is made of blocks (a heading, a paragraph, a whole table, a ``<details>`` element) and
never longer than :data:`LIMIT` characters (GitHub refuses a comment over 65,536): when
the blocks do not fit, a table is cut between rows (never in the middle of one) and the
rest is left out with a line that says so and where to read it (report.html). The long
parts (the diff, the exams' code, surviving mutants) are in collapsed ``<details>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from truegreen.report.model import (
    VERDICT_WORDS,
    Report,
    ReportContext,
    build,
    compared_tests,
    regression_lines,
    shown_layers,
    where,
)

__all__ = ["LIMIT", "compared_tests", "render", "render_report", "shown_layers"]

#: the most characters a report has (a pull-request comment takes 65,536)
LIMIT = 65_000
#: the line that replaces what does not fit
CUT = "_{n} more {what} left out to fit a pull-request comment: see report.html._"
#: the longest line of code shown in a block (longer ones are shortened)
LINE_WIDTH = 300


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> str:
    """A fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = 3
    while "`" * ticks in text:
        ticks += 1
    return "`" * max(ticks, longest + 1)


class _Table:
    """A table: a header and rows, cut only between rows."""

    def __init__(self, header: str, rows: list[str], what: str = "rows") -> None:
        self.header, self.rows, self.what = header, rows, what


Block = str | _Table


def _blocks(report: Report) -> list[Block]:
    doc = report.doc
    out: list[Block] = []
    verdict = report.verdict
    out.append(f"# truegreen: {VERDICT_WORDS.get(verdict, verdict)} -> {report.decision}")
    out.append(f"**{report.decision}**: {_cell(report.headline)}")
    out.append(f"> {report.meaning}")
    facts = [
        f"- repository: `{doc['repo']}`",
        f"- base: `{doc['base']}`",
        f"- head: `{doc['head']}`",
    ]
    if doc.get("patch_sha256"):
        facts.append(f"- patch sha256: `{doc['patch_sha256']}`")
    if doc.get("carried"):
        files = ", ".join(f"`{f}`" for f in doc["carried"])
        facts.append(f"- carried from the checkout (git ignores them): {files}")
    if report.receipt:
        facts.append(
            f"- receipt sha256: `{report.receipt}` (re-check: `truegreen receipt verify receipt.json`)"
        )
    out.append("\n".join(facts))
    out.append("## Layers")
    out.append(
        _Table(
            "| layer | result |\n|---|---|",
            [f"| {name} | {status} |" for name, status in shown_layers(doc)],
        )
    )
    out.append("## Exams")
    out.append(
        _Table(
            "| exam | test | base | head |\n|---|---|---|---|",
            [
                f"| `{e['id']}` | `{_cell(e['test'])}` | {e['base']['outcome']} x{e['base']['runs']}"
                f" | {e['head']['outcome']} x{e['head']['runs']} |"
                for e in doc["exams"]
            ],
            "exams",
        )
    )
    out.append("## Reasons")
    if not report.reasons:
        out.append("None: every layer passed.")
    else:
        out.append(
            _Table(
                "| code | where | detail |\n|---|---|---|",
                [
                    f"| **{r['code']}** | {f'`{_cell(where(r))}`' if where(r) else ''} | "
                    f"{_cell(r.get('detail', ''))} |"
                    for r in report.reasons
                ],
                "reasons",
            )
        )
    reg = doc.get("regression")
    if reg:
        lines = [f"complete: {'yes' if reg['complete'] else 'no'}"]
        lines += regression_lines(reg, lambda t: f"`{_cell(t)}`")
        out.append("## Regression")
        out.append("\n".join(f"- {line}" for line in lines))
    out.append("## Exam strength")
    strength = doc.get("strength")
    if strength is None:
        out.append(
            "Not measured: no mutant of a changed line of non-test code could be made, or the exam did not pass on the head."
        )
    else:
        out.append(
            f"The exam killed {strength['killed']} of {strength['mutants']} mutants of the changed lines: **{strength['label']}**."
        )
        for s in report.survivors:
            body = f"survived: `{s.file}:{s.line}` {_cell(s.mutation)}"
            if s.before is not None and s.after is not None:
                diff = f"-{s.before[:LINE_WIDTH]}\n+{s.after[:LINE_WIDTH]}"
                fence = _fence(diff)
                summary = f"survived: <code>{escape(s.file)}:{s.line}</code> {escape(s.mutation)}"
                body = (
                    f"<details><summary>{summary}</summary>\n\n{fence}diff\n{diff}\n{fence}\n\n"
                    "</details>"
                )
            else:
                body = f"- {body}"
            out.append(body)
    if report.notes:
        out.append("## Notes")
        out.append("\n".join(f"- {_cell(note)}" for note in report.notes))
    out.extend(_long_parts(report))
    return out


def _long_parts(report: Report) -> list[Block]:
    out: list[Block] = []
    if report.diff is not None:
        out.append("## The change")
        for f in report.diff:
            text = "\n".join(
                (
                    {"add": "+", "del": "-", "ctx": " "}.get(line.kind, "")
                    + line.text[:LINE_WIDTH]
                    + (
                        f"  # <- {', '.join(line.marks)}"
                        if line.marks and line.text.strip()
                        else ""
                    )
                )
                for line in f.lines
            )
            fence = _fence(text)
            marked = sum(1 for line in f.lines if line.marks) + (1 if f.marks else 0)
            note = f" ({marked} marked line{'s' if marked != 1 else ''})" if marked else ""
            out.append(
                f"<details><summary><code>{escape(f.path)}</code>{note}</summary>\n\n"
                f"{fence}diff\n{text}\n{fence}\n\n</details>"
            )
    if report.exams and any(e.text is not None or e.hidden for e in report.exams):
        out.append("## The exam's code")
        for e in report.exams:
            if e.hidden:
                out.append(f"`{e.id}` `{e.path}`: a hidden exam; its code is not shown.")
            elif e.text is not None:
                code = e.text.rstrip("\n")  # the fence on the line after the last one
                fence = _fence(code)
                out.append(
                    f"<details><summary><code>{escape(e.id)}</code> <code>{escape(e.path)}</code>"
                    "</summary>\n\n"
                    f"{fence}python\n{code}\n{fence}\n\n</details>"
                )
    if report.missing:
        out.append(f"_{report.missing}_")
    return out


def _fit(blocks: list[Block], limit: int) -> str:
    """The blocks joined by blank lines, at most ``limit`` characters, cut between blocks
    or between a table's rows (with a line that says what was left out)."""
    parts: list[str] = []
    used = 0
    reserve = len(CUT) + 40  # room for the line that says what was left out

    def room(text: str) -> bool:
        return used + len(text) + 2 <= limit - reserve

    for i, block in enumerate(blocks):
        text = block if isinstance(block, str) else "\n".join([block.header, *block.rows])
        if room(text):
            parts.append(text)
            used += len(text) + 2
            continue
        if isinstance(block, _Table):
            rows = []
            size = len(block.header) + 1
            for row in block.rows:
                if not room("x" * (size + len(row) + 1)):
                    break
                rows.append(row)
                size += len(row) + 1
            if rows:
                parts.append("\n".join([block.header, *rows]))
                used += size + 2
            parts.append(CUT.format(n=len(block.rows) - len(rows), what=block.what))
            if i + 1 < len(blocks):
                parts.append(CUT.format(n=len(blocks) - i - 1, what="sections"))
        else:
            parts.append(CUT.format(n=len(blocks) - i, what="sections"))
        break
    return "\n\n".join(parts) + "\n"


def render_report(report: Report, limit: int = LIMIT) -> str:
    """The Markdown of a report (deterministic; at most ``limit`` characters)."""
    return _fit(_blocks(report), limit)


def render(doc: Mapping[str, Any], context: ReportContext | None = None) -> str:
    """A self-contained Markdown report of a verification document."""
    return render_report(build(doc, context))
