"""Failure signatures: the same failure gives the same signature across runs and machines,
a different failure gives a different one.

A signature is ``<exception type>@<frame>#<message digest>``, for example
``ZeroDivisionError@src/calc/ops.py:divide#5c1f0e9a2b7d``:

* the exception type, fully qualified where known (``builtins.`` dropped);
* the deepest frame in project code: not a library (site-packages, the standard library)
  and, where there is one, not test code; else the deepest test frame. A frame is
  ``path:function`` (no line number, so an unrelated edit above it does not change it);
* a digest of the message with volatile parts normalized: memory addresses, numbers,
  temporary paths, timestamps, UUIDs and the worktree's own absolute path.

pytest-timeout's failure (``Failed: Timeout (>5.0s) from pytest-timeout.``) is raised
wherever the test happened to be when its time ran out, so its frame is the outermost test
frame (the test function), not the deepest project frame: a hang gives the same signature
run after run.

The message digested is :func:`signature_message`: one normalisation for every place that
makes a signature (``run``/``seal``/``verify`` from the probe's record, ``diagnose`` from a
log's traceback), of what every report of a failure shows whatever pytest's flags:

* an assertion pytest rewrote keeps the lines it always prints -- the assertion's own
  message, the ``assert ...`` line and its `` +  where ...`` lines -- and drops the
  comparison's explanation (``At index 2 diff``, ``Full diff``, ``Use -v to get more
  diff``), which depends on ``-v``/``-vv``, on ``CI`` (pytest cuts a long one outside CI)
  and on the terminal;
* an exception's notes (``add_note``, Python 3.11+) are part of the message, as every
  traceback prints them;
* paths under a CI checkout (``/home/runner/work/<repo>/<repo>/``, Travis, GitLab) are
  made relative, as paths under the root are.

:func:`legacy_signature` is the signature as it was before that normalisation (the whole
message, no notes, hidden frames counted): verification reads an exam sealed then with it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from truegreen.testpaths import is_test_code

_VOLATILE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"0x[0-9a-fA-F]{4,}"), "<addr>"),
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (
        re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"),
        "<time>",
    ),
    (
        re.compile(
            r"(/private)?(/tmp|/var/tmp|/var/folders|/dev/shm|[A-Za-z]:\\[^\s]*\\Temp)[^\s'\",:)\]]*"
        ),
        "<tmp>",
    ),
    (re.compile(r"pytest-of-[^\s/]+/pytest-\d+[^\s'\",:)\]]*"), "<tmp>"),
    (re.compile(r"\b[0-9a-f]{32,64}\b"), "<hex>"),
    (re.compile(r"(?<![A-Za-z_])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?"), "<n>"),
]

_LIB_MARKERS = (
    "site-packages",
    "dist-packages",
    "/lib/python",
    "\\lib\\python",
    "<frozen",
    "<string>",
)


#: The checkouts of hosted CI runners: GitHub Actions, Travis, GitLab, a container action.
CI_CHECKOUT = re.compile(
    r"(?:/home/runner/work/[^/\s]+/[^/\s]+|/home/travis/build/[^/\s]+/[^/\s]+"
    r"|/builds/[^/\s]+/[^/\s]+|[A-Za-z]:/a/[^/\s]+/[^/\s]+|/github/workspace)/"
)

#: pytest's `` +  where 3 = f()`` and `` +    and ...`` lines under a rewritten assertion
_WHERE = re.compile(r"^\s*\+\s+(?:where|and)\s")


def normalize_message(message: str, root: str | None = None, *, legacy: bool = False) -> str:
    """The message with volatile parts replaced by placeholders, whitespace collapsed."""
    text = message
    if root:
        text = text.replace(root.rstrip("/") + "/", "").replace(root, "<root>")
    if not legacy and "/" in text:
        text = CI_CHECKOUT.sub("", text)
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return " ".join(text.split())[:2000]


def signature_message(exc_type: str, message: str) -> str:
    """What of a failure's message its signature digests (see the module docstring): of an
    assertion pytest rewrote, the lines up to its ``assert ...`` line and the ``+ where``
    lines after it; of anything else, the whole message."""
    if exc_type.removeprefix("builtins.") != "AssertionError" or "assert " not in message:
        return message
    lines = message.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("assert "):
            return "\n".join(lines[: i + 1] + [x for x in lines[i + 1 :] if _WHERE.match(x)])
    return message


def is_library_path(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(m in p for m in _LIB_MARKERS) or not p.endswith(".py")


@dataclass(frozen=True)
class Frame:
    """One traceback entry. ``path`` is relative to the repository root where it is inside it.
    ``hidden``: the function asked pytest to leave it out of tracebacks
    (``__tracebackhide__``), so no log shows it and no signature names it."""

    path: str
    line: int
    function: str
    hidden: bool = False


def pick_frame(frames: Sequence[Frame]) -> Frame | None:
    """The deepest project (non-test, non-library) frame; else the deepest test frame;
    else the deepest frame at all."""
    project = [f for f in frames if not is_library_path(f.path) and not is_test_code(f.path)]
    if project:
        return project[-1]
    tests = [f for f in frames if not is_library_path(f.path)]
    if tests:
        return tests[-1]
    return frames[-1] if frames else None


#: pytest-timeout's message ("Timeout (>5.0s) from pytest-timeout.", "Timeout >5.0s" before 2.0)
_TIMED_OUT = re.compile(r"Timeout \(?>[\d.]+s\)?")


def timed_out(exc_type: str, message: str) -> bool:
    """Whether a failure is pytest-timeout stopping the test."""
    return exc_type.rsplit(".", 1)[-1] == "Failed" and bool(_TIMED_OUT.match(message.strip()))


def make_signature(
    exc_type: str, message: str, frames: Sequence[Frame], root: str | None = None
) -> str:
    """The signature of one failure (see the module docstring). ``message`` holds the
    exception's notes, if any, on lines after its own."""
    return _signature(exc_type, message, frames, root, legacy=False)


def legacy_signature(
    exc_type: str, message: str, frames: Sequence[Frame], root: str | None = None
) -> str:
    """The signature of one failure as truegreen made it before :func:`signature_message`
    (``message`` without the notes): an exam sealed then carries this one."""
    return _signature(exc_type, message, frames, root, legacy=True)


def _signature(
    exc_type: str, message: str, frames: Sequence[Frame], root: str | None, *, legacy: bool
) -> str:
    etype = exc_type.removeprefix("builtins.") or "Unknown"
    if not legacy:
        frames = [f for f in frames if not f.hidden] or frames
    tests = [f for f in frames if not is_library_path(f.path) and is_test_code(f.path)]
    frame = tests[0] if tests and timed_out(etype, message) else pick_frame(frames)
    where = f"{frame.path}:{frame.function}" if frame else "?"
    text = message if legacy else signature_message(etype, message)
    norm = normalize_message(text, root, legacy=legacy)
    digest = hashlib.sha256(f"{etype}\n{where}\n{norm}".encode()).hexdigest()[:12]
    return f"{etype}@{where}#{digest}"
