"""The standalone HTML evidence report of a ``truegreen.verification/1`` document.

One file, no network: the CSS is inline, there is no script, no font, no image to fetch.
The decision and the one-line reason come first, then each layer with its evidence, the
diff of the change with the lines that matter marked (tampered lines, the exam's lines,
surviving mutants' lines), the exams' code (never a hidden exam's), strength with the
surviving mutants as diffs, the regression runs, and the receipt's hash with how to
re-check it. Light and dark follow ``prefers-color-scheme``; it prints on paper (black on
white, the parts that matter open). Everything from the document is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from truegreen.report.model import (
    VERDICT_WORDS,
    DiffFile,
    Report,
    ReportContext,
    build,
    regression_lines,
    where,
)

CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e;
  --line: #d1d9e0; --panel: #f6f8fa; --add: #dafbe1; --del: #ffebe9;
  --approve: #1a7f37; --reject: #cf222e; --escalate: #9a6700;
  --tamper: #cf222e; --exam: #0969da; --survivor: #8250df; --gate: #bc4c00; --policy: #9a6700; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d;
    --panel: #151b23; --add: #12361f; --del: #3c1618;
    --approve: #3fb950; --reject: #f85149; --escalate: #d29922;
    --tamper: #f85149; --exam: #4493f8; --survivor: #ab7df8; --gate: #db6d28;
    --policy: #d29922; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 28px; margin: 0; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
code, pre { font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.decision { border: 2px solid var(--c); border-left-width: 10px; border-radius: 8px;
  padding: 14px 18px; margin: 8px 0 16px; }
.decision h1 { color: var(--c); text-transform: uppercase; letter-spacing: .02em; }
.decision .reason { font-size: 17px; margin: 6px 0 4px; overflow-wrap: break-word; }
.decision .meaning { color: var(--muted); margin: 0; }
.approve { --c: var(--approve); } .reject { --c: var(--reject); } .escalate { --c: var(--escalate); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; overflow-wrap: break-word; min-width: 0; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
td:first-child, th:first-child, td.nowrap { white-space: nowrap; }
th { background: var(--panel); }
.status { font-weight: 600; }
.s-pass, .s-approve, .s-strong { color: var(--approve); }
.s-fail, .s-error, .s-reject, .s-weak { color: var(--reject); }
.s-skipped, .s-escalate, .s-medium { color: var(--escalate); }
ul.evidence { margin: 0; padding-left: 18px; }
details { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
summary { cursor: pointer; padding: 6px 10px; background: var(--panel); }
pre { margin: 0; padding: 8px 0; overflow-x: auto; }
.diff > span { display: block; padding: 0 10px; white-space: pre; }
.diff .tag { float: right; }
.diff .add { background: var(--add); } .diff .del { background: var(--del); }
.diff .hunk, .diff .meta { color: var(--muted); }
.diff .n { display: inline-block; min-width: 4.5em; color: var(--muted); user-select: none; }
.diff .m-tamper { box-shadow: inset 4px 0 var(--tamper); }
.diff .m-exam { box-shadow: inset 4px 0 var(--exam); }
.diff .m-survivor { box-shadow: inset 4px 0 var(--survivor); }
.diff .m-gate { box-shadow: inset 4px 0 var(--gate); }
.tag { font-size: 12px; border-radius: 10px; padding: 0 7px; margin-left: 6px; color: #fff;
  font-family: system-ui, sans-serif; }
.tag.tamper { background: var(--tamper); } .tag.exam { background: var(--exam); }
.tag.survivor { background: var(--survivor); }
.tag.gate { background: var(--gate); } .tag.policy { background: var(--policy); }
pre.code { padding: 8px 12px; }
.legend .tag { margin: 0 6px 0 0; }
.muted { color: var(--muted); }
@media print {
  :root { --bg: #fff; --fg: #000; --panel: #fff; }
  main { max-width: none; padding: 0; }
  details > summary { list-style: none; }
  details { break-inside: avoid; }
  .diff > span { white-space: pre-wrap; }
}
"""


def _e(text: Any) -> str:
    return escape(str(text), quote=True)


def _status(value: str) -> str:
    return f'<span class="status s-{_e(value)}">{_e(value)}</span>'


#: a diff of at most this many lines is shown open, file by file; a longer one opens only
#: the files with marked lines
OPEN_DIFF_LINES = 300


#: an exam file of at most this many lines is shown open
OPEN_EXAM_LINES = 60


def _diff_file(f: DiffFile, small: bool) -> str:
    rows = []
    for line in f.lines:
        sign = {"add": "+", "del": "-", "ctx": " "}.get(line.kind, "")
        number = line.new if line.kind != "del" else line.old
        classes = [line.kind, *(f"m-{m}" for m in line.marks)]
        tags = "".join(f'<span class="tag {m}">{m}</span>' for m in line.marks)
        n = f'<span class="n">{number if number else ""}</span>' if line.kind != "hunk" else ""
        rows.append(f'<span class="{" ".join(classes)}">{n}{_e(sign + line.text)}{tags}</span>')
    marked = sum(1 for line in f.lines if line.marks)
    tags = "".join(f'<span class="tag {m}">{m}</span>' for m in f.marks)
    note = f' <span class="muted">({marked} marked)</span>' if marked else ""
    is_open = " open" if marked or f.marks or small else ""
    return (
        f"<details{is_open}><summary><code>{_e(f.path)}</code>{tags}{note}</summary>"
        f'<pre class="diff">{"".join(rows)}</pre></details>'
    )


def render_report(report: Report) -> str:
    """The HTML page of a report (deterministic)."""
    doc = report.doc
    verdict_word = VERDICT_WORDS.get(report.verdict, report.verdict)
    out: list[str] = []
    out.append(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>truegreen: {_e(report.decision)} ({_e(verdict_word)}) {_e(doc['repo'])}</title>"
        f"<style>{CSS}</style></head><body><main>"
    )
    out.append(
        f'<section class="decision {_e(report.decision)}" id="decision">'
        f"<h1>{_e(report.decision)}</h1>"
        f'<p class="reason">{_e(report.headline)}</p>'
        f'<p class="meaning">Verdict: <strong>{_e(verdict_word)}</strong>. {_e(report.meaning)}</p>'
        "</section>"
    )
    facts = [("repository", doc["repo"]), ("base", doc["base"]), ("head", doc["head"])]
    if doc.get("patch_sha256"):
        facts.append(("patch sha256", doc["patch_sha256"]))
    if report.receipt:
        facts.append(("receipt sha256", report.receipt))
    out.append(
        '<dl class="facts">'
        + "".join(f"<dt>{_e(k)}</dt><dd><code>{_e(v)}</code></dd>" for k, v in facts)
        + "</dl>"
    )
    out.append(
        '<h2 id="layers">Layers</h2><table><tr><th>layer</th><th>result</th><th>evidence</th></tr>'
    )
    for layer in report.layers:
        items = "".join(f"<li>{_e(line)}</li>" for line in layer.evidence)
        out.append(
            f'<tr><td>{_e(layer.name)}</td><td class="nowrap">{_status(layer.status)}</td>'
            f'<td><ul class="evidence">{items}</ul></td></tr>'
        )
    out.append("</table>")
    out.append('<h2 id="reasons">Reasons</h2>')
    if report.reasons:
        out.append("<table><tr><th>code</th><th>where</th><th>detail</th></tr>")
        for r in report.reasons:
            out.append(
                f"<tr><td><code>{_e(r['code'])}</code></td><td><code>{_e(where(r))}</code></td>"
                f"<td>{_e(r.get('detail', ''))}</td></tr>"
            )
        out.append("</table>")
    else:
        out.append("<p>None: every layer passed.</p>")
    out.append('<h2 id="change">The change</h2>')
    if report.diff is None:
        out.append(f'<p class="muted">{_e(report.missing or "the diff is not included")}</p>')
    else:
        out.append(
            '<p class="legend muted"><span class="tag tamper">tamper</span>a line a tamper '
            'finding names <span class="tag gate">gate</span>a new violation '
            '<span class="tag exam">exam</span>a changed line of the exam\'s file '
            '<span class="tag survivor">survivor</span>a line a surviving mutant changes '
            '<span class="tag policy">policy</span>a file a policy rule names</p>'
        )
        small = sum(len(f.lines) for f in report.diff) <= OPEN_DIFF_LINES
        out.extend(_diff_file(f, small) for f in report.diff)
    out.append('<h2 id="exam">The exam</h2>')
    out.append("<table><tr><th>exam</th><th>test</th><th>base</th><th>head</th></tr>")
    for e in doc["exams"]:
        out.append(
            f"<tr><td><code>{_e(e['id'])}</code></td><td><code>{_e(e['test'])}</code></td>"
            f"<td>{_e(e['base']['outcome'])} x{_e(e['base']['runs'])}</td>"
            f"<td>{_e(e['head']['outcome'])} x{_e(e['head']['runs'])}</td></tr>"
        )
    out.append("</table>")
    for code in report.exams:
        if code.hidden:
            out.append(
                f"<p><code>{_e(code.path)}</code>: a hidden exam; its code is not shown.</p>"
            )
        elif code.text is not None:
            is_open = " open" if code.text.count("\n") <= OPEN_EXAM_LINES else ""
            out.append(
                f"<details{is_open}><summary><code>{_e(code.path)}</code> as sealed "
                f'(<code>{_e(code.id)}</code>)</summary><pre class="code"><code>{_e(code.text)}'
                "</code></pre></details>"
            )
    out.append('<h2 id="strength">Exam strength</h2>')
    strength = doc.get("strength")
    if strength is None:
        out.append(
            "<p>Not measured: no mutant of a changed line of non-test code could be made, "
            "or the exam did not pass on the head.</p>"
        )
    else:
        out.append(
            f"<p>The exam killed {_e(strength['killed'])} of {_e(strength['mutants'])} mutants "
            f"of the changed lines: {_status(strength['label'])}.</p>"
        )
        for s in report.survivors:
            body = ""
            if s.before is not None and s.after is not None:
                body = (
                    f'<pre class="diff"><span class="del"><span class="n">{s.line}</span>-{_e(s.before)}</span>'
                    f'<span class="add m-survivor"><span class="n">{s.line}</span>+{_e(s.after)}</span></pre>'
                )
            out.append(
                f"<details open><summary>survived: <code>{_e(s.file)}:{s.line}</code> "
                f"{_e(s.mutation)}</summary>{body}</details>"
            )
    reg = doc.get("regression")
    out.append('<h2 id="regression">Regression</h2>')
    if reg:
        out.append(
            "<ul>"
            + "".join(f"<li>{_e(line)}</li>" for line in regression_lines(reg, str))
            + "</ul>"
        )
    else:
        out.append("<p>The regression layer did not run: its evidence is missing.</p>")
    if report.notes:
        out.append('<h2 id="notes">Notes</h2><ul>')
        out.extend(f"<li>{_e(n)}</li>" for n in report.notes)
        out.append("</ul>")
    out.append('<h2 id="receipt">Receipt</h2>')
    if report.receipt:
        out.append(
            f"<p>sha256 <code>{_e(report.receipt)}</code>. Re-check it: "
            "<code>truegreen receipt verify receipt.json</code> re-hashes the receipt written "
            "beside this page; <code>truegreen report receipt.json --format html</code> renders "
            "this page again from it.</p>"
        )
    else:
        out.append("<p>No receipt.</p>")
    out.append("</main></body></html>\n")
    return "\n".join(out)


def render(doc: Mapping[str, Any], context: ReportContext | None = None) -> str:
    """The standalone HTML page of a verification document."""
    return render_report(build(doc, context))
