"""pytest and unittest output: outcome lines, the short summary, failure sections, and the
tracebacks in them (long, short, native and line formats), turned into node ids, frames,
exceptions and signatures."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from truegreen.run.signature import (
    CI_CHECKOUT,
    Frame,
    is_library_path,
    make_signature,
)
from truegreen.testpaths import is_test_code

_OUTCOMES = "PASSED|FAILED|ERROR|RERUN|XFAIL|XPASS|SKIPPED"
#: ``tests/t.py::test_a PASSED [ 10%]`` (-v) and ``[gw0] [ 10%] PASSED tests/t.py::test_a`` (xdist)
_VERBOSE = re.compile(
    rf"^(?P<id>[\w./\\-]+\.py::\S.*?)(?: <- \S+)? (?P<out>{_OUTCOMES})(?:\s+\[\s*\d+%\])?$"
)
_XDIST = re.compile(
    rf"^\[gw\d+\] (?:\[\s*\d+%\] )?(?P<out>{_OUTCOMES}) (?P<id>[\w./\\-]+\.py::\S.*?)\s*$"
)
#: ``FAILED tests/t.py::test_a - AssertionError: x`` (short test summary, -ra / -rfE)
_SUMMARY = re.compile(
    r"^(?:\[gw\d+\] (?:\[\s*\d+%\] )?)?(?P<out>FAILED|ERROR) (?P<id>[\w./\\-]+\.py(?:::\S.*?)?)(?: - (?P<msg>.*))?$"
)
#: ``FAIL: test_x (pkg.test_mod.TestCase.test_x)`` (unittest, 3.11+ and older)
_UNITTEST = re.compile(r"^(?P<out>FAIL|ERROR): (?P<name>\w+) \((?P<where>[\w.]+)\)")
_SECTION = re.compile(r"^=+ ?(?P<name>[A-Za-z][\w ]*?) ?=+$")
#: a failure block's header: pytest's ``write_sep("_", title)`` pads the title with
#: ``max((width - len(title) - 2) // 2, 1)`` underscores each side (one more may end the
#: line): a name too long for the terminal has ONE each side (``_ Case.test_long_name _``)
_BLOCK = re.compile(r"^_+ (?P<name>.+?) _+$")
_LOC_LONG = re.compile(r"^(?P<path>[\w./\\~:-]+\.py):(?P<line>\d+): ?(?P<exc>[\w.]+)?$")
_LOC_SHORT = re.compile(r"^(?P<path>[\w./\\~:-]+\.py):(?P<line>\d+): in (?P<func>\S+)$")
#: a frame of a native Python traceback (``File "x.py", line 3, in f``)
_CHAINED = (
    "During handling of the above exception, another exception occurred",
    "The above exception was the direct cause of the following exception",
)
NATIVE_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
_DEF = re.compile(r"^\s*(?:>\s*)?(?:async )?def (?P<func>\w+)\(")
_E_LINE = re.compile(r"^E\s+(?P<text>.*)$")
#: an ``E`` line that continues the exception's (the message's next line, or an empty one)
_E_MORE = re.compile(r"^E(?:\s.*)?$")
#: an exception's first line: a type known by its name, or any class qualified by its module
#: (tracebacks qualify all but builtins: ``calc.errors.Boom: it went boom``)
_EXC = re.compile(
    r"^(?P<type>(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Timeout|Warning|Failed)|Failed|KeyError|StopIteration|(?:[a-z_]\w*\.)+[A-Z]\w*|[A-Z]\w*Error)(?::\s?(?P<msg>.*))?$"
)
#: where a native traceback's message ends: a frame, another traceback, a captured section
_NATIVE_END = re.compile(
    r'^(?:\s*File "|Traceback \(most recent call last\)|-+ Captured |={3,}|_{3,} )'
)
_CAPTURED = re.compile(r"^-+ Captured .* -+$")
_LINE_TB = re.compile(r"^(?P<path>[\w./\\~:-]+\.py):(?P<line>\d+): (?P<type>[\w.]+): ?(?P<msg>.*)$")


@dataclass(frozen=True)
class Outcome:
    test: str
    outcome: str


def outcome_of(text: str) -> Outcome | None:
    """The test outcome a -v or xdist line reports, or None."""
    if "::" not in text:
        return None
    m = _VERBOSE.match(text) or _XDIST.match(text)
    if m:
        return Outcome(m["id"], m["out"].lower())
    return None


def summary_of(text: str) -> tuple[str, str, str | None] | None:
    """(node id, 'failed'|'error', message) from a short-summary line, or None."""
    m = _SUMMARY.match(text)
    if not m:
        return None
    return m["id"], m["out"].lower(), m["msg"]


def unittest_id(name: str, where: str) -> str:
    """``test_x`` in ``pkg.test_mod.Case(.test_x)`` -> ``pkg/test_mod.py::Case::test_x``."""
    parts = where.split(".")
    if parts and parts[-1] == name:
        parts = parts[:-1]
    if len(parts) >= 2 and parts[-1][:1].isupper():
        module, cls = parts[:-1], parts[-1]
        return "/".join(module) + ".py::" + cls + "::" + name
    return "/".join(parts) + ".py::" + name


def unittest_of(text: str) -> tuple[str, str] | None:
    m = _UNITTEST.match(text)
    if not m:
        return None
    return unittest_id(m["name"], m["where"]), "failed" if m["out"] == "FAIL" else "error"


def section_of(text: str) -> str | None:
    """The name of a pytest ``=== NAME ===`` section line, upper-cased, or None."""
    if not text.startswith("=") or not text.endswith("="):
        return None
    m = _SECTION.match(text)
    return m["name"].strip().upper() if m else None


def block_header(text: str) -> str | None:
    """The test a failure block's header names, or None; the separator a long traceback
    draws between its entries (``_ _ _ _``, pytest's ``sep("_ ")``) is no header."""
    m = _BLOCK.match(text)
    if m is None or not m["name"].strip("_ "):
        return None
    return m["name"]


def relative(path: str, root: str | None) -> str:
    """``path`` relative to the repository root where it is inside it (forward slashes)."""
    p = path.replace("\\", "/")
    if root:
        r = root.replace("\\", "/").rstrip("/") + "/"
        if p.startswith(r):
            return p[len(r) :]
    # GitHub-hosted and common CI checkouts: /home/runner/work/<repo>/<repo>/...
    m = CI_CHECKOUT.match(p)
    if m and "site-packages" not in p:
        return p[m.end() :]
    return p.removeprefix("./")


@dataclass
class FailureBlock:
    """One ``____ name ____`` entry of a FAILURES or ERRORS section."""

    header: str
    section: str  #: FAILURES or ERRORS
    first_line: int
    header_text: str = ""
    lines: list[tuple[int, str]] = field(default_factory=list)

    def parse(self, root: str | None) -> Parsed:
        """The block's frames and the exception that ended it. Its text is every line the
        traceback prints for it (the ``E`` lines, or a native traceback's lines from
        ``Type: ...`` on), as the exception's ``str`` and notes hold them; what of it a
        signature digests is :func:`truegreen.run.signature.signature_message`'s to say."""
        frames: list[Frame] = []
        last_def: str | None = None
        exc_type: str | None = None
        lines: list[str] = []
        exc_line: int | None = None
        loc_type: str | None = None
        first_path: str | None = None
        causes: list[tuple[str, str]] = []
        #: the message's lines are being read: "E" lines (indented by ``indent``) or native
        more: str | None = None
        indent = 0
        for n, text in self.lines:
            if more == "E":
                if _E_MORE.match(text):
                    rest = text[1:]
                    lines.append(rest[min(indent, len(rest) - len(rest.lstrip())) :])
                    continue
                more = None
            elif more == "native":
                if text.strip() and not _NATIVE_END.match(text) and not text.startswith(_CHAINED):
                    lines.append(text)
                    continue
                more = None
            if text.startswith("-") and _CAPTURED.match(text.strip()):
                break  # what the test printed or logged, not its traceback
            if text.startswith(_CHAINED):
                # a chained exception: the one raised last is the one printed last, with
                # its own frames (the test's outcome and its signature are that one's)
                if exc_type:
                    causes.append((exc_type, lines[0]))
                frames, exc_type, lines, exc_line, loc_type = [], None, [], None, None
                continue
            d = _DEF.match(text)
            if d:
                last_def = d["func"]
                continue
            m = _LOC_SHORT.match(text)
            if m:
                frames.append(Frame(relative(m["path"], root), int(m["line"]), m["func"]))
                first_path = first_path or relative(m["path"], root)
                continue
            m = NATIVE_FRAME.match(text)
            if m:
                frames.append(Frame(relative(m["path"], root), int(m["line"]), m["func"]))
                first_path = first_path or relative(m["path"], root)
                continue
            m = _LOC_LONG.match(text)
            if m:
                path = relative(m["path"], root)
                frames.append(Frame(path, int(m["line"]), last_def or "?"))
                last_def = None  # the next entry's source shows its own def, or none
                first_path = first_path or path
                if m["exc"]:
                    loc_type = m["exc"]
                continue
            e = _E_LINE.match(text)
            if e and exc_type is None:
                body = e["text"].strip()
                x = _EXC.match(body)
                if x:
                    exc_type, lines, exc_line = x["type"], [(x["msg"] or "").strip()], n
                elif body.startswith("assert"):
                    exc_type, lines, exc_line = "AssertionError", [body], n
                if exc_type:
                    more, indent = "E", len(text) - 1 - len(text[1:].lstrip())
                continue
            if exc_type is None and not text.startswith(" "):
                x = _EXC.match(text.strip())
                if x and frames:
                    exc_type, lines, exc_line = x["type"], [(x["msg"] or "").strip()], n
                    more = "native"
        if loc_type and (exc_type is None or exc_type == "AssertionError"):
            exc_type = exc_type if exc_type and loc_type == exc_type else (exc_type or loc_type)
        test_id = self._node_id(first_path, frames, root)
        message = lines[0] if lines else ""
        text = "\n".join(lines).rstrip()
        return Parsed(test_id, exc_type, message, frames, exc_line, root, causes, text)

    def _node_id(self, first_path: str | None, frames: list[Frame], root: str | None) -> str | None:
        name = self.header
        if name.startswith("ERROR collecting "):
            return relative(name.removeprefix("ERROR collecting ").strip(), root)
        for prefix in ("ERROR at setup of ", "ERROR at teardown of "):
            name = name.removeprefix(prefix)
        if " " in name.split("[", 1)[0]:
            return None
        func = name.split("[", 1)[0].rsplit(".", 1)[-1]
        path = next(
            (f.path for f in frames if f.function == func and f.path.endswith(".py")),
            None,
        ) or next(
            (
                f.path
                for f in frames
                if is_test_code(f.path)
                and not f.path.endswith("conftest.py")
                and not is_library_path(f.path)
            ),
            first_path,
        )
        if not path:
            return None
        return path + "::" + name.replace(".", "::", name.split("[", 1)[0].count("."))


@dataclass
class Parsed:
    test: str | None
    exc_type: str | None
    message: str
    frames: list[Frame]
    exc_line: int | None
    root: str | None
    #: the exceptions earlier in a chain ("During handling of the above exception"), first first
    causes: list[tuple[str, str]] = field(default_factory=list)
    #: every line of the message (``message`` is its first), notes included
    text: str = ""

    def signature(self) -> str | None:
        """The failure's signature, as ``truegreen run`` makes it; None without a frame
        (a signature naming no frame would never compare with run's)."""
        if not self.exc_type or not self.frames:
            return None
        return make_signature(self.exc_type, self.text or self.message, self.frames, self.root)


def line_format(text: str) -> tuple[str, str, str, int] | None:
    """``--tb=line``: ``/path/x.py:12: ValueError: msg`` -> (path, type, message, line)."""
    m = _LINE_TB.match(text)
    if not m or not (m["type"][:1].isupper() and m["type"].endswith(("Error", "Exception"))):
        return None
    return m["path"], m["type"], m["msg"], int(m["line"])
