"""One pass over a log in bounded memory: steps, failing exits, evidence candidates, test
outcomes and failure blocks.

Speed comes from reading most of a log only for markers (``bytes.find`` over each chunk,
in C). Lines are analysed in full (cleaned, every rule tried) only where failures are
explained: the lines of a step before its failing exit code, pytest's FAILURES and ERRORS
sections and tracebacks, and the end of the log. A ring of recent chunks keeps those lines
available, so memory is bounded by the ring and the capped lists below, not by the log.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from truegreen.diagnose import pytest_parse as pp
from truegreen.diagnose.reader import GH_CLI_PREFIX_B, Chunk, clean
from truegreen.diagnose.rules import Rule, match_line

#: Lines analysed before a failing exit code (bounded further by the step's start).
LOOKBACK = 2500
#: Lines analysed at the end of the log, where a failure without markers usually is.
TAIL = 2500
#: Lines analysed after a traceback or a pytest failure section begins.
SECTION_SPAN = 20000
TRACEBACK_SPAN = 200
#: Lines analysed after an error line found by its marker alone, and how many times.
DETAIL_SPAN = 12
DETAIL_BUDGET = 2000
#: Bytes of recent chunks kept for look-back.
RING_BYTES = 8 << 20
MAX_CANDIDATES = 20000
MAX_TESTS = 50000
MAX_BLOCKS = 200
MAX_BLOCK_LINES = 400
MAX_STEPS = 5000
#: Python traceback frames remembered (where an uncaught exception was raised)
MAX_FRAMES = 5000
#: Failing tests whose passing runs are looked for (flaky suspicion).
MAX_WATCHED = 20

# Weights of the evidence candidates the scanner makes itself (the rules' lines carry
# their own, in rules.py). classify.py ranks a line by its weight times its nearness to
# the failing exit, so these are on the rules' scale: under 1 a line that only stands
# somewhere (before the exit, at the end), 2 to 3 a line of a known shape that says a
# test failed or an error happened, 4 and more a line that also says why.
#: pytest's short summary line (``FAILED path::test - Error: msg``): the test and why
SUMMARY_LINE_WEIGHT = 4
#: a verbose outcome line (``path::test FAILED``): which test, not why
OUTCOME_LINE_WEIGHT = 2.5
#: the line above a stack trace's frames or a `` --> file:line:col`` pointer, when it has
#: the shape of an error (the thrown exception, the linter's or compiler's diagnostic)
ABOVE_TRACE_WEIGHT = 3
#: a failing exit's own line: that the step failed, never why
EXIT_LINE_WEIGHT = 0.5
#: the line after a failing test's header that names no cause: why, in words no rule knows
DETAIL_WEIGHT = 0.5
#: the last block of unexplained lines before a failing exit (what the step said as it
#: failed): its first line weighs most, each later one a step less, since people read an
#: error block from its top; an unexplained line before it weighs the least
BEFORE_EXIT_WEIGHT = 0.9
BEFORE_EXIT_STEP = 0.04
BEFORE_EXIT_OTHER_WEIGHT = 0.5
#: the last lines of a log that has no failing exit (where it stopped): the last one
#: first, each earlier one a step less
LOG_END_WEIGHT = 0.7
LOG_END_STEP = 0.1
#: a rule's error of at least this weight, found by its marker outside the windows read
#: in full, opens a window of DETAIL_SPAN lines after it (its test's name, its message)
DETAIL_WINDOW_WEIGHT = 3
#: how much a line counts toward its step's tool (the step's tool is the one with the
#: most): a pytest header or rootdir line outweighs a rule's single hit (1) of another tool
PYTEST_SIGN = 3
UNITTEST_SIGN = 2

# Few needles, each one fast C scan per chunk: exit codes ("exit", "Error 2", "npm ERR!"),
# GitHub groups and annotations, Travis commands, pytest sections, failures, reruns, nox
# and tox steps. Everything else is read only inside the windows around them.
_MARKERS: tuple[bytes, ...] = (
    b"rror", b"RROR", b"ERR!", b"exit", b"##[", b"$ ", b"== ", b"FAIL", b"RERUN",
    b"nox > ", b"commands[", b"ailed", b"imed out",
)  # fmt: skip
_OUTCOME_ONLY = re.compile(rb"(?:PASSED|FAILED|RERUN|ERROR)")
_ANSI_B = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")

_INJECTION = re.compile(
    r"ignore (?:all |any |the )?(?:previous|prior|above|earlier) (?:instructions|prompts?)|"
    r"disregard (?:all |any |the )?(?:previous |prior |above )?instructions|"
    r"you are (?:now )?(?:an? |the )?(?:ai|assistant|language model|llm)\b|system prompt|"
    r"(?:classify|mark|report) (?:this|the) (?:build|log|job|failure) as",
    re.IGNORECASE,
)
_INJECTION_NEEDLES = ("nstruction", "prompt", "ssistant", "lassify", "anguage model", "LLM")


@dataclass
class Step:
    index: int
    name: str
    command: str | None
    start: int
    tools: dict[str, float] = field(default_factory=dict)
    exit_code: int | None = None
    exit_line: int | None = None
    exit_text: str | None = None
    #: the script a runner echoed last inside the step (npm/yarn "> pkg@1.0 lint", "> eslint .")
    sub_command: str | None = None
    #: the first line of what the step printed: after the runner's `##[group]Run` header
    #: (the script, `shell:`, `env:`), which is the runner's, not the step's
    output: int = 0


@dataclass
class Candidate:
    line: int
    text: str
    rule: str
    cls: str | None
    weight: float
    kind: str
    step: int
    exit_distance: int | None = None  #: lines before the failing exit of its step


@dataclass
class ScanResult:
    name: str
    lines: int
    bytes: int
    formats: list[str]
    steps: list[Step]
    candidates: list[Candidate]
    outcomes: dict[str, list[str]]
    failing: dict[str, int]  #: node id -> line where it was reported failing
    summary_messages: dict[str, str]
    blocks: list[pp.FailureBlock]
    root: str | None
    injection_lines: list[int]
    non_utf8: bool
    analysed_lines: int
    #: a failing test's header line -> the line that says why (its first detail)
    details: dict[int, int] = field(default_factory=dict)
    #: failing tests that were running when the process ended (no report of their own)
    unfinished: set[str] = field(default_factory=set)
    #: the frames of Python tracebacks, (line, file), in log order (the last MAX_FRAMES)
    py_frames: list[tuple[int, str]] = field(default_factory=list)
    #: a frame's line -> the source line Python printed under it (the last MAX_FRAMES)
    frame_source: dict[int, str] = field(default_factory=dict)


@dataclass
class _RingEntry:
    first: int
    data: bytes
    starts: list[int] | None = None
    nlines: int = 0

    def __post_init__(self) -> None:
        self.nlines = self.data.count(b"\n") + (0 if self.data.endswith(b"\n") else 1)


class Scanner:
    """Feed chunks in order, then :meth:`finish`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ring: deque[_RingEntry] = deque()
        self.ring_bytes = 0
        self.analysed = 0  # last line analysed in full
        self.done: set[int] = set()  # lines analysed (recent ones; pruned)
        self.prune_at = 4 * LOOKBACK + SECTION_SPAN
        self.analysed_count = 0
        self.full_until = 0  # analyse every line up to here
        self.last_line = 0
        self.total_bytes = 0
        self.formats: dict[str, None] = {}
        self.steps: list[Step] = [Step(0, "(log)", None, 1)]
        self.step_starts: list[int] = [1]
        self.candidates: list[Candidate] = []
        self.outcomes: dict[str, list[str]] = {}
        self.passed_at: dict[str, set[int]] = {}
        self.failing: dict[str, int] = {}
        self.summary_messages: dict[str, str] = {}
        self.blocks: list[pp.FailureBlock] = []
        self.block: pp.FailureBlock | None = None
        #: the current failure block still shows source (no "Captured ..." part yet)
        self.block_source = False
        self.section: str | None = None
        self.root: str | None = None
        self.recent: deque[tuple[int, str, bool]] = deque(maxlen=12)
        self.in_run_group = 0
        self.injection: list[int] = []
        self.non_utf8 = False
        self.details_budget = DETAIL_BUDGET
        self.script_name: tuple[int, str] | None = None
        #: a failing test's header that said nothing of why: (line, step), its detail next
        self.await_detail: tuple[int, int] | None = None
        self.details: dict[int, int] = {}
        self.last_frame = 0
        #: the last `path::test` a verbose pytest started (its id, no outcome yet): (line, id)
        self.running: tuple[int, str] | None = None
        self.session_end = 0  # the last pytest counts line ("1 failed, 7 passed in 0.1s")
        self.unfinished: set[str] = set()
        self.py_frames: deque[tuple[int, str]] = deque(maxlen=MAX_FRAMES)
        self.frame_source: dict[int, str] = {}
        self.frame_at = -1
        #: ``gh run view --log``: the ``JOB<TAB>STEP<TAB>`` prefix of the current step
        self.gh_prefix: bytes | None = None
        self.gh_other: re.Pattern[bytes] | None = None
        self.column_step_at = 0

    # -- chunks --------------------------------------------------------------------------

    def feed(self, chunk: Chunk) -> None:
        entry = _RingEntry(chunk.first_line, chunk.data)
        self.ring.append(entry)
        self.ring_bytes += len(chunk.data)
        while self.ring_bytes > RING_BYTES and len(self.ring) > 1:
            self.ring_bytes -= len(self.ring.popleft().data)
        self.total_bytes += len(chunk.data)
        data = chunk.data
        chunk_last = chunk.first_line + entry.nlines - 1
        self.last_line = max(self.last_line, chunk_last)
        if not self.non_utf8 and not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                # a cut at the chunk's end is not an encoding error
                self.non_utf8 = exc.start < len(data) - 4
        starts: set[int] = set()
        for needle in _MARKERS:
            i = data.find(needle)
            while i >= 0:
                s = data.rfind(b"\n", 0, i) + 1
                starts.add(s)
                e = data.find(b"\n", i)
                if e < 0:
                    break
                i = data.find(needle, e)
        if chunk.first_line == 1 and GH_CLI_PREFIX_B.match(data):
            self.gh_other = re.compile(rb"\n")
        column_steps = self._column_steps(data) if self.gh_other is not None else {}
        starts.update(column_steps)
        line = chunk.first_line
        prev = 0
        for s in sorted(starts):
            line += data.count(b"\n", prev, s)
            prev = s
            e = data.find(b"\n", s)
            raw = data[s : e if e >= 0 else len(data)]
            if s in column_steps:
                self._new_step(line, column_steps[s], None)
                self.column_step_at = line
            self._marker(line, raw)
        if self.full_until > self.analysed:
            self._analyse(self.analysed + 1, min(self.full_until, chunk_last))
        # Passing runs of tests that failed (reruns, second attempts), in this chunk.
        # Passing tests in general are not parsed: most lines of a verbose log are those.
        if b"PASSED" in data:
            for test in list(self.failing)[:MAX_WATCHED]:
                self._passes_of(test, entry)

    def _column_steps(self, data: bytes) -> dict[int, str]:
        """``gh run view --log``: offsets of ``data`` where the JOB/STEP columns change, with
        the step's name. One C scan per chunk for a line not starting with the current
        prefix; a new step is a new prefix."""
        found: dict[int, str] = {}
        s = 0
        while s < len(data):
            head = GH_CLI_PREFIX_B.match(data, s)
            if head is not None and head.group(0) != self.gh_prefix and len(found) < MAX_STEPS:
                found[s] = head.group(2).decode("utf-8", "replace").strip() or "(step)"
                self.gh_prefix = head.group(0)
                self.gh_other = re.compile(rb"\n(?!" + re.escape(self.gh_prefix) + rb")")
            m = self.gh_other.search(data, s) if self.gh_other is not None else None
            if m is None:
                break
            s = m.end()
        return found

    def _passes_of(self, test: str, entry: _RingEntry) -> None:
        """Lines of ``entry`` where ``test`` passed (a verbose or xdist outcome line)."""
        needle = test.encode("utf-8", "replace")
        data = entry.data
        i = data.find(needle)
        while i >= 0:
            s = data.rfind(b"\n", 0, i) + 1
            e = data.find(b"\n", i)
            line = data[s : e if e >= 0 else len(data)]
            if b"PASSED" in line:
                n = entry.first + data.count(b"\n", 0, s)
                seen = self.passed_at.setdefault(test, set())
                if n not in seen and len(seen) < 20:
                    for seg in clean(line):
                        out = pp.outcome_of(seg)
                        if out and out.test == test and out.outcome == "passed":
                            seen.add(n)
                            self.outcomes.setdefault(test, []).append("passed")
            if e < 0:
                break
            i = data.find(needle, e)

    def _marker(self, n: int, raw: bytes) -> None:
        if n in self.done:
            return
        if self.full_until > self.analysed:
            self._analyse(self.analysed + 1, min(n - 1, self.full_until))
        # Outcome lines of a verbose run are many; record them without full analysis.
        if n > self.full_until and _OUTCOME_ONLY.search(raw) and b"::" in raw:
            for seg in clean(raw):
                out = pp.outcome_of(seg)
                if out:
                    self._outcome(n, out.test, out.outcome)
                    return
        segments = clean(raw)
        if any(_is_exit(seg) for seg in segments):
            step = self.steps[-1]
            self._analyse(max(step.start, n - LOOKBACK), n - 1)
        self._process(n, segments)
        self.analysed = max(self.analysed, n)

    def _analyse(self, a: int, b: int) -> None:
        if b < a:
            return
        for n, raw in self._lines(a, b):
            if n not in self.done:
                self._process(n, clean(raw))
                self.analysed = max(self.analysed, n)

    def _lines(self, a: int, b: int) -> Iterator[tuple[int, bytes]]:
        for entry in list(self.ring):
            last = entry.first + entry.nlines - 1
            if last < a or entry.first > b:
                continue
            if entry.starts is None:
                data = entry.data
                st = [0]
                i = data.find(b"\n")
                while i >= 0:
                    st.append(i + 1)
                    i = data.find(b"\n", i + 1)
                entry.starts = st
            starts = entry.starts
            lo = max(a, entry.first)
            hi = min(b, last)
            for n in range(lo, hi + 1):
                k = n - entry.first
                s = starts[k]
                e = starts[k + 1] - 1 if k + 1 < len(starts) else len(entry.data)
                yield n, entry.data[s:e]

    def finish(self) -> ScanResult:
        if self.full_until > self.analysed:
            self._analyse(self.analysed + 1, min(self.full_until, self.last_line))
        self._analyse(self.last_line - TAIL + 1, self.last_line)
        self._close_block()
        self._unfinished()
        # The last lines of a log without a failing exit marker are where it stopped.
        if self.recent and not any(s.exit_code is not None for s in self.steps):
            last_exit = 0
            k = 0
            for n, text, had in reversed(self.recent):
                if n <= last_exit or k >= 4:
                    break
                if not had and not text.startswith(("Done. Your build exited", "##[")):
                    k += 1
                    self._add(
                        Candidate(
                            n,
                            text,
                            "log-end",
                            None,
                            LOG_END_WEIGHT - LOG_END_STEP * k,
                            "context",
                            self.steps[-1].index,
                        )
                    )
        return ScanResult(
            name=self.name,
            lines=self.last_line,
            bytes=self.total_bytes,
            formats=list(self.formats),
            steps=self.steps,
            candidates=self.candidates,
            outcomes=self.outcomes,
            failing=self.failing,
            summary_messages=self.summary_messages,
            blocks=self.blocks,
            root=self.root,
            injection_lines=self.injection,
            details=self.details,
            non_utf8=self.non_utf8,
            analysed_lines=self.analysed_count,
            unfinished=self.unfinished,
            py_frames=sorted(self.py_frames),
            frame_source=self.frame_source,
        )

    def _unfinished(self) -> None:
        """A verbose pytest prints a test's id before it runs it and the outcome after: a
        test started and never reported, in a session that printed no counts after it and
        whose step failed, is the test that was running when the process was ended (a
        timeout's thread dump, a SIGKILL, a crash)."""
        if self.running is None:
            return
        n, test = self.running
        ended = self._step_at(n).exit_code is not None
        if ended and n > self.session_end and test not in self.outcomes:
            self._outcome(n, test, "failed")
            self.unfinished.add(test)

    # -- one line ------------------------------------------------------------------------

    def _process(self, n: int, segments: list[str]) -> None:
        self.analysed_count += 1
        self.done.add(n)
        if len(self.done) > self.prune_at:
            floor = n - 2 * LOOKBACK - SECTION_SPAN
            self.done = {x for x in self.done if x >= floor}
            self.prune_at = len(self.done) + 4 * LOOKBACK + SECTION_SPAN
        for text in segments:
            if "\ufffd" in text:
                self.non_utf8 = True
            self._line(n, text)

    def _line(self, n: int, text: str) -> None:
        """Read one line (a segment of it, once cleaned), in these steps: what it says of
        the job's steps (a GitHub group, a Travis command, a nox session, a tox command),
        of pytest's structure (its sections, a failure block, its rootdir), of a Python
        traceback; whether it is a test's outcome; then the rules, whose hits become
        evidence candidates; last, what the lines around it are (a stack trace's
        exception above it, a header's detail after it)."""
        step = self.steps[-1]
        if n < step.start:
            # a line read late (the end of the log, a window opened after it): it belongs
            # to the step it was printed in
            step = self._step_at(n)
        stripped = text.strip()
        self._watch_injection(n, text)
        if self._step_line(n, text, stripped, step):
            return
        step = self._session_line(n, text, step)
        self._pytest_structure(n, text, stripped, step)
        self._python_frames(n, text, stripped)
        rule_text = self._test_line(n, text, stripped, step)
        hits = self._rule_hits(n, text, rule_text)
        had = self._record_hits(n, text, hits, step)
        if self.await_detail is not None and not had:
            self._detail(n, text, stripped)
        self._around(n, text, stripped, step)
        if had and _names_no_cause(hits, stripped):
            # a header that names no cause: a failing test's ("name: FAIL"), npm's error
            # code ("npm error code EUSAGE"); the line after it says why
            self.await_detail = (n, step.index)
        self.recent.append((n, text, had))

    def _watch_injection(self, n: int, text: str) -> None:
        """A line that addresses a reader with instructions is noted (it stays data)."""
        if (
            len(self.injection) < 50
            and any(k in text for k in _INJECTION_NEEDLES)
            and _INJECTION.search(text)
        ):
            self.injection.append(n)

    def _step_line(self, n: int, text: str, stripped: str, step: Step) -> bool:
        """A line of the CI system's own that opens a step or belongs to its header (a
        GitHub Actions group, the script of a `run:` step, a Travis command): True when
        that is all it is."""
        if text.startswith("##["):
            self.formats["github-actions"] = None
            if text.startswith("##[group]"):
                name = text[9:].strip()
                if name.startswith("Run "):
                    self._new_step(n, name, name[4:].strip())
                    self.in_run_group = n + 12
                return True
            if text.startswith("##[endgroup]"):
                self.in_run_group = 0
                if step.name.startswith("Run ") and not step.output and n > step.start:
                    step.output = n + 1
                return True
        elif self.in_run_group >= n:
            # the rest of a multi-line `run:` script, shown inside the step's group
            if stripped.startswith(("shell:", "env:", "with:")):
                self.in_run_group = 0
                return True
            cmd = step.command or ""
            if len(cmd) < 400 and stripped and stripped not in cmd.split("\n"):
                step.command = (cmd + "\n" + stripped).strip()
            return True
        if text.startswith("$ ") and len(text) > 2:
            self.formats["travis"] = None
            self._new_step(n, text, text[2:].strip())
            return True
        return False

    def _session_line(self, n: int, text: str, step: Step) -> Step:
        """A nox session or a tox command starts a step (its lines go on being read);
        the step the line belongs to after it."""
        if text.startswith("nox > "):
            self.formats["nox"] = None
            if text.startswith("nox > Running session "):
                self._new_step(n, text, None)
                step = self.steps[-1]
                step.tools["nox"] = 1
            elif not text.startswith(("nox > Command", "nox > Session", "nox > Ran ")) and (
                step.command is None or step.name.startswith("nox > Running")
            ):
                step.command = text[6:].strip()
        if ": commands[" in text or " run-test: commands[" in text:
            self.formats["tox"] = None
            parts = re.split(r"commands\[\d+\][^>|]*[>|] ?", text, maxsplit=1)
            self._new_step(n, text, parts[-1].strip() if len(parts) > 1 else None)
            self.steps[-1].tools["tox"] = 1
            step = self.steps[-1]
        return step

    def _pytest_structure(self, n: int, text: str, stripped: str, step: Step) -> None:
        """pytest's sections (``=== FAILURES ===``), the failure blocks inside them, and
        its ``rootdir:`` line."""
        sec = pp.section_of(stripped) if stripped.startswith("=") else None
        if sec is not None:
            self._open_section(n, sec, step)
        elif self.section in ("FAILURES", "ERRORS"):
            self._block_line(n, text, stripped, self.section)
        if text.startswith("rootdir: "):
            self.root = text[9:].split(",", 1)[0].strip() or None
            self.formats["pytest"] = None
            step.tools["pytest"] = step.tools.get("pytest", 0) + PYTEST_SIGN

    def _open_section(self, n: int, sec: str, step: Step) -> None:
        self._close_block()
        if "TEST SESSION STARTS" in sec:
            self.full_until = max(self.full_until, n + 8)
            self.formats["pytest"] = None
            step.tools["pytest"] = step.tools.get("pytest", 0) + PYTEST_SIGN
        if sec in ("FAILURES", "ERRORS"):
            self.full_until = max(self.full_until, n + SECTION_SPAN)
        self.section = sec

    def _block_line(self, n: int, text: str, stripped: str, section: str) -> None:
        """A line of a FAILURES or ERRORS section: a block's header opens a block, the
        other lines belong to the open one."""
        header = pp.block_header(stripped)
        if header is not None:
            self._close_block()
            if len(self.blocks) < MAX_BLOCKS:
                self.block = pp.FailureBlock(header, section, n, text)
                self.block_source = True
        elif self.block is not None and len(self.block.lines) < MAX_BLOCK_LINES:
            self.block.lines.append((n, text))
            if stripped.startswith("-") and _CAPTURED.match(stripped):
                self.block_source = False

    def _python_frames(self, n: int, text: str, stripped: str) -> None:
        """A Python traceback: its start opens a window, its frames (and the source line
        under each) are remembered, for where an uncaught exception was raised."""
        if (
            self.frame_at == n - 1
            and text.startswith("    ")
            and len(self.frame_source) < MAX_FRAMES
        ):
            # the source line Python prints under a frame (what the failing line does)
            self.frame_source[n - 1] = stripped[:300]
        if text.startswith("Traceback (most recent"):
            self.full_until = max(self.full_until, n + TRACEBACK_SPAN)
        elif 'File "' in text:
            frame = pp.NATIVE_FRAME.match(text)
            if frame:
                self.py_frames.append((n, frame["path"]))
                self.frame_at = n

    def _test_line(self, n: int, text: str, stripped: str, step: Step) -> str:
        """A test's outcome (pytest's summary or verbose lines, unittest's), a test that
        started, a command a script runner echoed; the text the rules are to read of the
        line: the tool's words, not test ids (a parametrized id such as
        ``test_x[got: command not found]`` says nothing about this failure)."""
        rule_text = text
        if text.startswith(("> ", "+ ")):
            # a command echoed by npm scripts or `set -x`: it names a tool, it is no error
            rule_text = ""
            if text.startswith("> "):
                self._script_echo(step, n, text[2:].strip())
        if "::" in text or text.startswith(("FAILED", "ERROR")):
            rule_text = self._pytest_result(n, text, stripped, step, rule_text)
        if text.startswith(("FAIL:", "ERROR:")):
            ut = pp.unittest_of(text)
            if ut:
                self.formats["unittest"] = None
                step.tools["unittest"] = step.tools.get("unittest", 0) + UNITTEST_SIGN
                self._outcome(n, ut[0], ut[1])
        return rule_text

    def _pytest_result(self, n: int, text: str, stripped: str, step: Step, rule_text: str) -> str:
        """pytest's short summary line (its message is what the rules read), a verbose
        outcome line (nothing for the rules), or a test a verbose run started."""
        summ = pp.summary_of(stripped)
        if summ:
            test, out, msg = summ
            self._outcome(n, test, out)
            if msg and test not in self.summary_messages:
                self.summary_messages[test] = msg
            self._add(
                Candidate(
                    n, text, "pytest-summary-line", "test", SUMMARY_LINE_WEIGHT, "error", step.index
                )
            )
            return msg or ""
        outcome = pp.outcome_of(stripped)
        if outcome:
            self._outcome(n, outcome.test, outcome.outcome)
            if outcome.outcome in ("failed", "error"):
                self._add(
                    Candidate(
                        n, text, "pytest-outcome", "test", OUTCOME_LINE_WEIGHT, "error", step.index
                    )
                )
            return ""
        started = _STARTED.match(text)
        if started and (self.running is None or n > self.running[0]):
            test = started["id"]
            if test.count("[") == test.count("]"):
                self.running = (n, test)
        return rule_text

    def _rule_hits(self, n: int, text: str, rule_text: str) -> list[tuple[Rule, re.Match[str]]]:
        """The rules that match the line: none on source code a traceback or a failure
        block shows, the message of a workflow annotation too, and a line with a class
        (or a failing exit) is not also a generic error line."""
        hits = match_line(rule_text) if rule_text else []
        if hits and text.startswith("    ") and self._shows_source(n, text):
            hits = []
        if text.startswith(("::error", "::warning", "##[error]", "##[warning]")):
            # a workflow annotation: the message after the command is the tool's own line
            inner = text.split("::", 2)[-1] if text.startswith("::") else text.split("]", 1)[-1]
            hits += [h for h in match_line(inner) if h[0].kind != "exit"]
        if hits and any(r.cls or r.kind == "exit" for r, _ in hits):
            hits = [(r, m) for r, m in hits if r.cls or r.kind == "exit"]
        return hits

    def _shows_source(self, n: int, text: str) -> bool:
        """The (indented) line is source code: under a traceback's `File "...", line N`
        frame, or in the listing of a pytest failure block; code, not what went wrong
        (`raise ConnectionError(...)`, a library's docstring)."""
        return (self.block is not None and self.block_source) or self._under_py_frame(n, text)

    def _record_hits(
        self, n: int, text: str, hits: list[tuple[Rule, re.Match[str]]], step: Step
    ) -> bool:
        """Each hit: a failing exit, or an evidence candidate (and a sign of its tool).
        Whether there was any."""
        for rule, m in hits:
            if rule.name == "pytest-counts":
                self.session_end = max(self.session_end, n)
            if rule.tool:
                step.tools[rule.tool] = step.tools.get(rule.tool, 0) + 1
            if rule.kind == "exit":
                self._exit(n, text, rule, m)
                continue
            self._add(Candidate(n, text, rule.name, rule.cls, rule.weight, rule.kind, step.index))
            if (
                rule.cls
                and rule.weight >= DETAIL_WINDOW_WEIGHT
                and n >= self.full_until
                and self.details_budget > 0
                and rule.kind != "summary"
            ):
                # an error found by its marker outside the analysed windows: the lines
                # after it are its details (the test's name, the message), read them too
                self.details_budget -= 1
                self.full_until = n + DETAIL_SPAN
        return bool(hits)

    def _around(self, n: int, text: str, stripped: str, step: Step) -> None:
        """A stack frame (JavaScript, JVM) or a ``--> file:line:col`` pointer: the line
        above it may be what went wrong."""
        if stripped.startswith("at ") and text[0] in " \t" and _STACK_FRAME.match(stripped):
            if self.last_frame != n - 1:
                self._above(n - 1, step.index, _STACK_EXCEPTION, "stack-exception")
            self.last_frame = n
        elif stripped.startswith("--> ") and _POINTER.match(stripped):
            self._above(n - 1, step.index, _POINTED, "pointed-diagnostic")

    def _under_py_frame(self, n: int, text: str) -> bool:
        """Line n is the source line under a `File "...", line N` frame: indented deeper
        than the frame (the exception after a frame without source, `File "<string>"`,
        is not)."""
        indent = len(text) - len(text.lstrip(" "))
        return any(
            pp.NATIVE_FRAME.match(above) and indent > len(above) - len(above.lstrip(" "))
            for _, raw in self._lines(n - 1, n - 1)
            for above in clean(raw)
        )

    def _above(self, n: int, step: int, shape: re.Pattern[str], name: str) -> None:
        """Line n, the line above a trace or a location, if it has the shape of what went
        wrong: the exception above a JavaScript or JVM stack trace (`TypeError: ...` over
        its `at ...` frames), the diagnostic above a ` --> file:line:col` pointer (ruff's
        `F401 [*] ...`, rustc's `error[E0425]: ...`)."""
        for _, raw in self._lines(n, n):
            for text in clean(raw):
                if shape.match(text):
                    self._add(Candidate(n, text, name, None, ABOVE_TRACE_WEIGHT, "error", step))
                    return

    def _detail(self, n: int, text: str, stripped: str) -> None:
        """The first line after a failing test's header that names no cause (tasty's
        "name: FAIL", vim's "Found errors in Test_x():") is why it failed."""
        assert self.await_detail is not None
        header, step = self.await_detail
        if n - header > 4 or n <= header:
            self.await_detail = None
            return
        if not stripped or _SEPARATOR.match(stripped) or _NPM_PREFIX.fullmatch(stripped):
            return
        self.await_detail = None
        self.details[header] = n
        self._add(Candidate(n, text, "test-detail", None, DETAIL_WEIGHT, "context", step))

    def _script_echo(self, step: Step, n: int, text: str) -> None:
        """npm and yarn echo the script they run: "> pkg@1.2.0 docs-build /path", then
        "> hugo --minify". The last one before a failing exit is what failed."""
        m = _NPM_SCRIPT.match(text)
        if m:
            self.script_name = (n, m[1])
        elif self.script_name is not None and self.script_name[0] == n - 1:
            step.sub_command = f"{self.script_name[1]}\n{text}"[:400]

    def _step_at(self, n: int) -> Step:
        k = bisect.bisect_right(self.step_starts, n) - 1
        return self.steps[max(k, 0)]

    def _exit(self, n: int, text: str, rule: Rule, m: re.Match[str]) -> None:
        step = self.steps[-1]
        code = 1
        for g in m.groups():
            if g and g.isdigit():
                code = int(g)
        if rule.name == "travis-exit" and m.group(1):
            # Travis names the command; find the step that ran it
            for s in reversed(self.steps):
                if s.command == m.group(1).strip():
                    step = s
                    break
        if step.exit_code is None:
            step.exit_code, step.exit_line, step.exit_text = code, n, text
        self._add(Candidate(n, text, rule.name, None, EXIT_LINE_WEIGHT, "exit", step.index, 0))
        # the unexplained lines right before the exit are the error block's context; the
        # last block (lines with no blank between them) is what the step said as it failed,
        # and people read it from its first line
        # (marker lines are read before the lines around them: order by line first)
        first = max(step.start, step.output)
        inside = sorted((rn, t, h) for rn, t, h in self.recent if first <= rn < n)
        block = _last_block(inside)
        for rn, rtext, had in reversed(self.recent):
            if not had and rn < n and rn >= first:
                weight = (
                    BEFORE_EXIT_WEIGHT - BEFORE_EXIT_STEP * block.index(rn)
                    if rn in block
                    else BEFORE_EXIT_OTHER_WEIGHT
                )
                self._add(Candidate(rn, rtext, "before-exit", None, weight, "context", step.index))
        for c in reversed(self.candidates[-400:]):
            if c.step == step.index and c.exit_distance is None:
                c.exit_distance = n - c.line

    def _new_step(self, n: int, name: str, command: str | None) -> None:
        last = self.steps[-1]
        if n == self.column_step_at == last.start and last.exit_code is None:
            # a `##[group]Run` on the first line of a step opened by gh's STEP column
            last.name, last.command = name[:300], command[:400] if command else None
            return
        if len(self.steps) >= MAX_STEPS or n < last.start:
            return  # steps are in log order (a line read late opens none)
        self.steps.append(Step(len(self.steps), name[:300], command[:400] if command else None, n))
        self.step_starts.append(n)

    def _outcome(self, n: int, test: str, outcome: str) -> None:
        if outcome in ("failed", "error") and test not in self.failing and len(self.failing) < 1000:
            self.failing[test] = n
            if len(self.failing) <= MAX_WATCHED:
                # did it pass earlier? (as far back as the ring reaches)
                for entry in list(self.ring)[:-1]:
                    if b"PASSED" in entry.data:
                        self._passes_of(test, entry)
        seen = self.outcomes.get(test)
        if seen is None:
            if len(self.outcomes) >= MAX_TESTS:
                return
            seen = self.outcomes[test] = []
        if len(seen) < 20 and not (outcome == "passed" and seen and seen[-1] == "passed"):
            seen.append(outcome)

    def _close_block(self) -> None:
        if self.block is not None:
            self.blocks.append(self.block)
            self.block = None

    def _add(self, cand: Candidate) -> None:
        self.candidates.append(cand)
        if len(self.candidates) > MAX_CANDIDATES:
            keep = sorted(self.candidates[:-5000], key=lambda c: -c.weight)[:5000]
            keep.sort(key=lambda c: c.line)
            self.candidates = keep + self.candidates[-5000:]


def _names_no_cause(hits: list[tuple[Rule, re.Match[str]]], stripped: str) -> bool:
    """The line is a header whose cause is on a line after it: a failing test's header
    that ends without a message, or npm's error code."""
    return (
        any(r.cls == "test" and r.kind == "error" for r, _ in hits)
        and _SAYS_NOTHING.search(stripped) is not None
    ) or any(r.name.startswith("npm-code") for r, _ in hits)


def _last_block(recent: list[tuple[int, str, bool]]) -> list[int]:
    """Line numbers of the last run of consecutive lines, in order (a blank line, which
    cleaning drops, ends a run)."""
    block: list[int] = []
    for rn, _, _ in reversed(recent):
        if block and rn == block[0]:
            continue  # another segment of the same line (a terminal's CR)
        if block and rn != block[0] - 1:
            break
        block.insert(0, rn)
    return block


#: a test's failure header that carries no message: the message is on the lines after it
_SAYS_NOTHING = re.compile(r"(?:\bFAIL(?:ED)?(?: \([\d.]+m?s\))?|:)$")
_STARTED = re.compile(r"^(?P<id>[\w./\\-]+\.py::\S+)(?: |$)")
_POINTER = re.compile(r"^--> [^\s:]+:\d+:\d+$")
_POINTED = re.compile(r"^(?:[A-Z]{1,4}\d{2,4}(?: \[\*\])?|(?:error|warning)(?:\[[\w-]+\])?:) \S")
_CAPTURED = re.compile(r"^-+ Captured .* -+$")
_SEPARATOR = re.compile(r"^[-=_*~+#.:| ]+$")
#: a frame of a JavaScript or JVM stack trace
_STACK_FRAME = re.compile(r"^at (?:.+ \()?\S+:\d+(?::\d+)?\)?$|^at [\w$.<>]+\([\w$. ]*(?::\d+)?\)$")
#: what such a trace starts with: the thrown error and its message
_STACK_EXCEPTION = re.compile(
    r"^\s*(?:Uncaught )?(?:[\w$]+\.)*(?:[A-Z]\w*(?:Error|Exception)|Error)(?:: .*|:?)$"
)

_NPM_PREFIX = re.compile(r"npm (?:ERR!|error)")
_NPM_SCRIPT = re.compile(r"^(?:@[\w.-]+/)?[\w.-]+@[\w.+-]+ ([\w:.-]+)(?: |$)")

_EXIT_NEEDLES = (
    "exit code", "exited with", "InvocationError", ": exit ", "failed with exit code",
    "***", "ELIFECYCLE", "non-zero", "exit status",
)  # fmt: skip


def _is_exit(text: str) -> bool:
    if not any(k in text for k in _EXIT_NEEDLES):
        return False
    return any(r.kind == "exit" for r, _ in match_line(text))
