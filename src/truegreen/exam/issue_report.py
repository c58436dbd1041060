"""The bug report an exam is sealed for (``seal TEST_ID --issue-file F``).

The exam records the report's sha256 and title (:class:`truegreen.model.exam.IssueReport`),
so anyone holding the report can tell it is the one the exam was sealed for, and the issue
number when the title names one. The report itself stays where it is: an exam holds tests,
not prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from truegreen import canonical
from truegreen.errors import UsageError
from truegreen.model.exam import IssueReport

#: the longest title kept (a longer first line is cut, with "...")
MAX_TITLE = 200

#: an issue number in the title: "#123" (not "&#123;" nor "C#1"), or an issue URL
_ISSUE_NUMBER = re.compile(r"(?<![\w&])#(\d+)\b|/issues/(\d+)\b")

_HEADING = re.compile(r"^#{1,6}\s+")

_HINT = "pass the bug report as a UTF-8 text file (Markdown or plain text)"


@dataclass(frozen=True)
class BugReport:
    """What is recorded of a bug report."""

    sha256: str
    title: str
    #: the issue number the title names, if any
    issue: int | None

    def record(self) -> IssueReport:
        return IssueReport(sha256=self.sha256, title=self.title)


def parse_report(data: bytes, name: str, *, field: str | None = None) -> BugReport:
    """The report's record from its bytes; ``name`` is how messages call the file, ``field``
    the request's input it came from."""
    if b"\0" in data:
        raise UsageError(f"{name} is not a text file (it holds NUL bytes)", hint=_HINT, field=field)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})", hint=_HINT, field=field
        ) from None
    first = next((line for line in text.splitlines() if line.strip()), None)
    if first is None:
        raise UsageError(
            f"{name} is empty: a bug report needs at least a title line",
            hint="write what goes wrong (a title line, then how to reproduce it)",
            field=field,
        )
    printable = "".join(ch if ch.isprintable() else " " for ch in first)
    title = " ".join(_HEADING.sub("", printable.strip()).split()) or printable.strip()
    if len(title) > MAX_TITLE:
        title = title[: MAX_TITLE - 3].rstrip() + "..."
    m = _ISSUE_NUMBER.search(first)
    issue = int(m.group(1) or m.group(2)) if m else None
    return BugReport(sha256=canonical.sha256_bytes(data), title=title, issue=issue)


def read_report(path: Path) -> BugReport:
    """Read the bug report at ``path`` (the request's ``issue_file``); a missing, unreadable,
    binary or empty file is a UsageError about that field."""
    name = repr(str(path))
    if not path.exists():
        raise UsageError(
            f"{name} does not exist", hint="give the path of the bug report", field="issue_file"
        )
    if not path.is_file():
        raise UsageError(
            f"{name} is not a file", hint="give the path of the bug report", field="issue_file"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(
            f"cannot read {name}: {exc.strerror}",
            hint="check the file's permissions",
            field="issue_file",
        ) from None
    return parse_report(data, name, field="issue_file")
