"""What a GitHub Actions job shows: the step summary (Markdown), workflow-command
annotations on the lines a reason names, and the check run's annotations.

Workflow commands go to the job's standard output, one per line:
``::error file=src/x.py,line=12,title=truegreen tamper.skip_added::detail``; their values
are escaped as the runner reads them (``%``, CR, LF; in properties also ``:`` and ``,``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from truegreen.model.reasons import Severity, severity_of

#: a reason's severity as an annotation's level (workflow command, check run); every
#: severity has one (tests/github checks it against ``Severity``)
COMMAND: dict[Severity, str] = {
    "refute": "error",
    "inconclusive": "warning",
    "escalate": "warning",
    "info": "notice",
}
CHECK_LEVEL: dict[Severity, str] = {
    "refute": "failure",
    "inconclusive": "warning",
    "escalate": "warning",
    "info": "notice",
}
#: a check run's conclusion for each decision
CONCLUSION = {"approve": "success", "reject": "failure", "escalate": "neutral"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_commands(reasons: Sequence[dict[str, Any]]) -> list[str]:
    """One ``::error``/``::warning``/``::notice`` line per reason (a reason about a file
    is shown on that file, and line, in the pull request's diff)."""
    lines = []
    for r in reasons:
        level = COMMAND[severity_of(r["code"])]
        props = [f"title={_prop('truegreen ' + r['code'])}"]
        if r.get("file"):
            props.insert(0, f"file={_prop(r['file'])}")
            if r.get("line"):
                props.insert(1, f"line={int(r['line'])}")
        lines.append(f"::{level} {','.join(props)}::{_data(str(r.get('detail') or r['code']))}")
    return lines


def check_annotations(reasons: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reasons about a file, as a check run's annotations."""
    return [
        {
            "path": r["file"],
            "start_line": int(r.get("line") or 1),
            "end_line": int(r.get("line") or 1),
            "annotation_level": CHECK_LEVEL[severity_of(r["code"])],
            "title": f"truegreen {r['code']}",
            "message": str(r.get("detail") or r["code"]),
        }
        for r in reasons
        if r.get("file")
    ]


def diagnosis_markdown(doc: dict[str, Any], title: str) -> str:
    """A ``truegreen.diagnosis/1`` document for the step summary."""
    out = [f"# truegreen diagnose: {title}", ""]
    out.append(f"- class: **{doc.get('class')}** (confidence {doc.get('confidence')})")
    tests = doc.get("failing_tests") or []
    if tests:
        out.append("- failing tests:")
        out.extend(f"  - `{t}`" for t in tests[:30])
    if doc.get("next_step"):
        out.append(f"- next step: {doc['next_step']}")
    evidence = doc.get("evidence") or []
    if evidence:
        out += ["", "## Evidence", "", "```text"]
        out.extend(f"{e.get('line')}: {e.get('text')}" for e in evidence[:40])
        out.append("```")
    return "\n".join(out) + "\n"
