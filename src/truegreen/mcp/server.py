"""The MCP server: eight tools over :mod:`truegreen.api`, on stdio.

Every tool answers with the engine's own document as its structured content (the models
of :mod:`truegreen.model`, so the output schema is the document's), and with a short text
for the model to read. Expected failures (bad input, a test that cannot run, an unknown
exam) are tool errors whose one line names the tool's own argument and says what to do
(``TruegreenError.render``); anything else is a crash and is logged on stderr.

Tool calls run in a worker thread with their own :class:`~truegreen.api.Cancellation`:
when the client cancels a call, the token is cancelled and the call's processes and
worktrees are gone before the tool answers. Progress comes from the API's events. Nothing
but the protocol goes to stdout (the SDK diverts the standard output's descriptor while
it serves; logs go to stderr).

Hidden exams are never revealed: exams are shown as the fixer's view
(:class:`~truegreen.api.FixerExam`), a fix task of a hidden exam carries no context, and
``run_tests`` / ``failure_context`` refuse a hidden exam's test.
"""

import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from truegreen import __version__, api, canonical
from truegreen.api import (
    Diagnosis,
    Evidence,
    ExamStatus,
    FixerExam,
    FixTask,
    Localization,
    Run,
    Verification,
)
from truegreen.model.requests import validation_problem

log = logging.getLogger("truegreen.mcp")
T = TypeVar("T")

INSTRUCTIONS = (
    "truegreen reproduces, localizes and grades fixes of failing pytest tests in one "
    "repository. Typical loop: run_tests (a clean rerun) -> failure_context (where to look, "
    "packed to a token budget; expand_evidence for a handle it names) -> change the code, "
    "never the tests -> verify_fix (the sealed exam fails on the base and passes with your "
    "change, no tampering found, no new failures). 'Verified' means exactly that: it never "
    "means 'correct'."
)

#: how each tool's errors name a request's field: its own argument, or the server's option
SERVER_FIELDS = {
    "repo": "the server's --repo",
    "python": "the server's --python",
    "sandbox": "the server's --sandbox",
    "db": "the server's --db",
}
TOOL_FIELDS: dict[str, dict[str, str]] = {
    "diagnose_log": {"text": "log_text", "log": "log_text"},
    "run_tests": {"test_id": "test_ids"},
    "failure_context": {"test_id": "test_ids", "handle": "handle"},
    "expand_evidence": {},
    "seal_exam": {"rev": "rev"},
    "verify_fix": {"exams": "exams", "working_tree": "base", "head": "base", "patch": "base"},
    "exam_status": {},
    "get_fix_task": {},
}
#: localizations kept for expand_evidence (the oldest beyond are dropped)
KEEP_CONTEXTS = 16
#: characters of a tool's text at most (about 2,000 tokens): the text is a summary, the
#: whole document is the structured content
TEXT_LIMIT = 8000
#: failures a text shows (with their signature and crash line), and excerpt characters
#: for the first few of them
SHOWN_FAILURES = 10
SHOWN_EXCERPTS = 3
EXCERPT_CHARS = 800
#: characters of the rerun command shown
COMMAND_CHARS = 400


@dataclass
class Settings:
    """What ``truegreen mcp`` was started with: the one repository its tools work on."""

    repo: Path = Path(".")
    python: str | None = None
    sandbox: str | None = None
    db: str | None = None


@dataclass
class _State:
    settings: Settings
    contexts: "OrderedDict[str, Localization]" = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, localization: Localization) -> str:
        key = canonical.digest(localization.to_json())[:12]
        with self.lock:
            self.contexts[key] = localization
            self.contexts.move_to_end(key)
            while len(self.contexts) > KEEP_CONTEXTS:
                self.contexts.popitem(last=False)
        return key

    def context(self, key: str | None) -> tuple[str, Localization]:
        with self.lock:
            if key is None and self.contexts:
                key = next(reversed(self.contexts))
            found = self.contexts.get(key) if key is not None else None
        if key is None or found is None:
            raise ToolError(
                "context_id: no failure context "
                + ("is known by that id" if key else "was made yet")
                + "; call failure_context first (its answer gives the context_id)"
            )
        return key, found


def _naming(tool: str) -> Callable[[str], str]:
    names = {**SERVER_FIELDS, **TOOL_FIELDS.get(tool, {})}
    return lambda f: names.get(f, f)


#: the tokens of the tool calls running now (:func:`cancel_running`)
_running: set[api.Cancellation] = set()
_running_lock = threading.Lock()


def cancel_running() -> None:
    """Cancel every tool call running now: their processes are killed at once and their
    worker threads clean up (the server is being stopped: Ctrl-C, SIGTERM)."""
    with _running_lock:
        tokens = list(_running)
    for token in tokens:
        token.cancel()


def wait_idle(timeout: float) -> bool:
    """Wait until no tool call runs (their clean-up done), at most ``timeout`` seconds;
    whether none does."""
    deadline = time.monotonic() + timeout
    while True:
        with _running_lock:
            if not _running:
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


async def _call(
    tool: str,
    ctx: Context | None,
    work: Callable[[api.Listener, api.Cancellation], T],
) -> T:
    """Run ``work`` in a worker thread with a token of its own; progress from its events;
    a cancelled call cancels the token and waits for its clean-up before it ends."""
    cancel = api.Cancellation()
    finished = threading.Event()
    count = 0

    def listener(event: api.Event) -> None:
        nonlocal count
        if ctx is None:
            return
        count += 1
        message = event.message or f"{event.operation}: {event.layer} {event.phase}"
        # never let a progress notification break the call (the client may be gone)
        with contextlib.suppress(Exception):
            anyio.from_thread.run(ctx.report_progress, count, None, message)

    def run() -> T:
        with _running_lock:
            _running.add(cancel)
        try:
            return work(listener, cancel)
        finally:
            with _running_lock:
                _running.discard(cancel)
            finished.set()

    try:
        return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        cancel.cancel()
        with anyio.CancelScope(shield=True):
            while not finished.is_set():
                await anyio.sleep(0.02)
        raise
    except api.ExecutionCancelled as error:
        raise ToolError(f"{tool} was cancelled: {error.message}") from None
    except api.TruegreenError as error:
        raise ToolError(error.render(_naming(tool))) from None


def _text_result(structured: Mapping[str, Any], text: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=dict(structured)
    )


def _hidden_tests(settings: Settings) -> dict[str, str]:
    """The hidden exams' test ids sealed for the repository -> their exam ids."""
    try:
        listing = api.list_exams(api.ExamsListRequest(repo=settings.repo, db=settings.db))
    except api.TruegreenError:
        return {}
    return {e.test: e.id for e in listing.exams.exams if e.hidden}


def _refuse_hidden(settings: Settings, test_ids: list[str]) -> None:
    hidden = _hidden_tests(settings)
    for test_id in test_ids:
        for test, exam in hidden.items():
            if test_id == test or test.startswith(test_id + "::") or test_id.startswith(test):
                raise api.UsageError(
                    f"{test_id} is the test of the hidden exam {exam}: fixers neither run nor "
                    "see it",
                    hint="change the code, then call verify_fix: it grades your change "
                    "against the exam",
                    field="test_ids",
                )


class _Server(MCPServer):
    """The SDK's server, whose arguments' validation errors are one line naming the
    argument (the SDK's is pydantic's whole dump)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            field, message = validation_problem(cause)
            line = api.UsageError(
                message, hint="the tool's input schema gives each argument's bounds", field=field
            ).render(_naming(name))
            raise ToolError(f"Error executing tool {name}: {line}") from cause


def _cap(text: str, limit: int, whole: str) -> str:
    """``text`` cut at a line end to ``limit`` characters, saying what was left out and
    where ``whole`` it is."""
    if len(text) <= limit:
        return text
    note = f"\n... {{n}} more characters left out: {whole}"
    room = max(0, limit - len(note.format(n=len(text))))
    cut = text.rfind("\n", 0, room)
    kept = text[: cut if cut > 0 else room]
    return kept + note.format(n=len(text) - len(kept))


def _crash_line(test: Mapping[str, Any]) -> str | None:
    """Where a failing test crashed, or its exception's line: one line."""
    crash = test.get("crash")
    if isinstance(crash, Mapping) and crash.get("path"):
        where = f"{crash['path']}:{crash.get('line', '?')}"
        return f"{where} {crash.get('message', '')}".strip().splitlines()[0][:300]
    for line in reversed(str(test.get("excerpt") or "").splitlines()):
        if line.startswith("E "):
            return line[:300]
    return None


def _run_text(run: api.RunResult) -> str:
    """A bounded summary of a ``truegreen.run/1``: the rerun command, counts by outcome,
    the failures (capped) with their signature, crash line and excerpt (the first few)."""
    doc = run.to_json()
    command = " ".join(doc["command"])
    if len(command) > COMMAND_CHARS:
        command = command[:COMMAND_CHARS] + f" ... ({len(doc['command'])} arguments: `command`)"
    counts: dict[str, int] = {}
    for t in doc["tests"]:
        counts[t["outcome"]] = counts.get(t["outcome"], 0) + 1
    tally = ", ".join(f"{n} {o}" for o, n in sorted(counts.items(), key=lambda c: -c[1]))
    lines = [
        f"rerun: {command}",
        f"{len(doc['tests'])} tests, {doc['runs']} run(s): {tally or 'none ran'} ({doc['meaning']})",
    ]
    failing = [t for t in doc["tests"] if t["outcome"] not in ("passed", "skipped", "xfailed")]
    for n, t in enumerate(failing[:SHOWN_FAILURES]):
        lines.append(f"{t['outcome']}: {t['id']}")
        if t.get("signature"):
            lines.append(f"  signature: {t['signature']}")
        crash = _crash_line(t)
        if crash:
            lines.append(f"  crash: {crash}")
        if n < SHOWN_EXCERPTS and t.get("excerpt"):
            lines.append(str(t["excerpt"])[-EXCERPT_CHARS:])
    errors = doc["collection_errors"]
    for c in errors[:SHOWN_FAILURES]:
        last = str(c["excerpt"]).strip().splitlines()[-1:] or [""]
        lines.append(f"collection error: {c['nodeid'] or 'the session'}: {last[0][:300]}")
    left = max(0, len(failing) - SHOWN_FAILURES) + max(0, len(errors) - SHOWN_FAILURES)
    if left:
        lines.append(f"{left} more failures not shown")
    if run.cut_short:
        lines.append(f"the run passed its deadline ({run.timeout:g} s): outcomes incomplete")
    lines.append(
        "every test's outcome, signature and excerpt is in the structured content (truegreen.run/1)"
    )
    return _cap("\n".join(lines), TEXT_LIMIT, "see the structured content")


def _exam_text(exam: FixerExam) -> str:
    """A fixer's exam in a few lines: its files by path and hash, never their content."""
    lines = [
        f"exam {exam.id}{' (hidden)' if exam.hidden else ''}: {exam.test} at {exam.rev[:12]}",
        f"failure: {exam.signature}",
    ]
    for f in exam.files[:SHOWN_FAILURES]:
        lines.append(f"file: {f.path} sha256 {f.sha256[:16]}")
    if len(exam.files) > SHOWN_FAILURES:
        lines.append(f"{len(exam.files) - SHOWN_FAILURES} more files not shown")
    lines.append("the exam's files (their content, unless hidden) are in the structured content")
    return _cap("\n".join(lines), TEXT_LIMIT, "see the structured content")


def _fix_task_text(task: FixTask, budget_tokens: int) -> str:
    """The fix task within ``budget_tokens`` (characters / 4): the exam, its failure,
    the rules, then as much of the context as fits, saying what was left out."""
    limit = budget_tokens * 4
    head = [
        f"exam {task.exam.id}{' (hidden)' if task.exam.hidden else ''}: {task.exam.test}",
        f"failure: {task.failure}",
        *(f"rule: {r}" for r in task.rules),
        task.verify,
    ]
    if task.context_note:
        head.append(task.context_note)
    text = "\n".join(head)
    if task.context:
        text += "\n" + task.context
    return _cap(
        text,
        limit,
        f"the budget of {budget_tokens} tokens; the whole task is the "
        "structured content (its `context`)",
    )


def _verification_text(done: Verification) -> str:
    lines = [f"verdict: {done.verdict}, decision: {done.decision}"]
    for r in done.reasons[: SHOWN_FAILURES * 2]:
        where = f"{r.file}:{r.line}" if r.line is not None else r.file
        lines.append(f"{r.code}: {r.detail}" + (f" ({where})" if where else ""))
    if len(done.reasons) > SHOWN_FAILURES * 2:
        lines.append(f"{len(done.reasons) - SHOWN_FAILURES * 2} more reasons not shown")
    lines.append(api.VERIFIED_MEANS)
    return _cap("\n".join(lines), TEXT_LIMIT, "see the structured content")


def _diagnosis_text(found: Diagnosis) -> str:
    doc = found.to_json()
    lines = [f"class: {doc['class']} (confidence {doc['confidence']:.2f})"]
    lines += [f"because {r}" for r in doc["reasons"][:3]]
    sigs = {s["test"]: s["signature"] for s in doc["signatures"]}
    for test in doc["failing_tests"][:SHOWN_FAILURES]:
        lines.append(f"failing: {test}" + (f"  signature: {sigs[test]}" if test in sigs else ""))
    if len(doc["failing_tests"]) > SHOWN_FAILURES:
        lines.append(f"{len(doc['failing_tests']) - SHOWN_FAILURES} more failing tests not shown")
    for ev in doc["evidence"][:5]:
        lines.append(f"evidence line {ev['line']}: {str(ev['text'])[:240]}")
    lines.append(f"next step: {doc['next_step']}")
    lines.append("the whole diagnosis (every evidence line) is in the structured content")
    return _cap("\n".join(lines), TEXT_LIMIT, "see the structured content")


def _status_text(status: ExamStatus) -> str:
    lines = [f"{len(status.exams)} exam(s), {len(status.open)} open"]
    for e in status.exams[: SHOWN_FAILURES * 3]:
        last = f", last: {e.last.get('verdict')}" if e.last else ""
        lines.append(f"{e.id} {'open' if e.open else 'fixed'}: {e.test}{last}")
    if len(status.exams) > SHOWN_FAILURES * 3:
        lines.append(f"{len(status.exams) - SHOWN_FAILURES * 3} more exams not shown")
    lines.append(status.verified_means)
    return _cap("\n".join(lines), TEXT_LIMIT, "see the structured content")


def build(settings: Settings | None = None) -> MCPServer:
    """The server, its tools bound to ``settings``' repository."""
    state = _State(settings or Settings())
    s = state.settings
    server = _Server("truegreen", version=__version__, instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    runs_tests = ToolAnnotations(read_only_hint=True, open_world_hint=False, idempotent_hint=True)
    project: dict[str, Any] = {"repo": s.repo, "python": s.python, "sandbox": s.sandbox}

    @server.tool(annotations=read_only)
    async def diagnose_log(
        log_text: Annotated[str, Field(description="a failed CI log or pytest's output")],
        ctx: Context,
    ) -> Annotated[CallToolResult, Diagnosis]:
        """Classify a failed CI log or pytest output: its class (test, lint, type, build,
        dependency, network, timeout, ...), the evidence lines, the failing tests' node ids
        and their signatures, and the next step (a truegreen.diagnosis/1)."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            found = api.diagnose(api.DiagnoseRequest(text=log_text))
            return _text_result(found.to_json(), _diagnosis_text(found))

        return await _call("diagnose_log", ctx, work)

    @server.tool(annotations=runs_tests)
    async def run_tests(
        test_ids: Annotated[
            list[str],
            Field(min_length=1, description="pytest node ids relative to the repository root"),
        ],
        ctx: Context,
        repeat: Annotated[int, Field(ge=1, le=20, description="runs of each test")] = 1,
    ) -> Annotated[CallToolResult, Run]:
        """Reproduce tests cleanly in the project's own interpreter (python -m pytest from
        the repository root, a clean environment, the sandbox): each test's outcome,
        signature and excerpt, and the exact command to rerun them (a truegreen.run/1)."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            _refuse_hidden(s, test_ids)
            request = api.RunRequest(**project, test_ids=tuple(test_ids), repeat=repeat)
            result = api.reproduce(request, listener=listener, cancel=cancel)
            return _text_result(result.to_json(), _run_text(result))

        return await _call("run_tests", ctx, work)

    @server.tool(annotations=runs_tests)
    async def failure_context(
        test_ids: Annotated[
            list[str], Field(min_length=1, description="the failing tests' pytest node ids")
        ],
        ctx: Context,
        budget_tokens: Annotated[
            int, Field(ge=50, description="size of the text, in tokens (characters / 4)")
        ] = 1500,
        budget_seconds: Annotated[
            float,
            Field(
                gt=0, description="seconds it may take: passing tests that do not fit are left out"
            ),
        ] = 30.0,
    ) -> Annotated[CallToolResult, Localization]:
        """Where a failing test went wrong: the crash site in project code, where a bad
        value (a None) came from, ranked suspect lines with their evidence, values that
        differ from a passing test, and the rerun command, packed to budget_tokens. What
        did not fit is named by handles (suspect:FILE:LINE, values:FILE:LINE:VAR): pass
        one to expand_evidence. The structured content is the truegreen.localization/1."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            _refuse_hidden(s, test_ids)
            request = api.LocalizeRequest(
                **project,
                test_ids=tuple(test_ids),
                budget_tokens=budget_tokens,
                budget_seconds=budget_seconds,
            )
            found = api.localize(request, listener=listener, cancel=cancel)
            key = state.keep(found)
            doc = found.to_json()
            doc["context_id"] = key
            tail = f"\ncontext_id: {key} (expand_evidence takes a handle and this id)"
            return _text_result(doc, found.text + tail)

        return await _call("failure_context", ctx, work)

    @server.tool(annotations=read_only)
    async def expand_evidence(
        handle: Annotated[
            str,
            Field(
                description="a handle failure_context named (suspect:FILE:LINE, "
                "values:FILE:LINE:VAR, origin:VAR), or function:FILE:LINE, file:FILE:LINE, "
                "excerpt"
            ),
        ],
        ctx: Context,
        context_id: Annotated[
            str | None, Field(description="which failure_context (default: the latest)")
        ] = None,
    ) -> Annotated[CallToolResult, Evidence]:
        """What a handle names, in full: a suspect line with the function around it, a
        variable's values failing and passing, where a bad value came from, a longer
        excerpt of the source or of pytest's failure text (a truegreen.evidence/1)."""
        _key, found = state.context(context_id)

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            evidence = api.expand_evidence(found, handle)
            whole = "the whole of it is the structured content's `text`"
            return _text_result(evidence.to_json(), _cap(evidence.text, TEXT_LIMIT, whole))

        return await _call("expand_evidence", ctx, work)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def seal_exam(
        test_id: Annotated[str, Field(description="the failing test's pytest node id")],
        ctx: Context,
        rev: Annotated[str, Field(description="the revision it fails on")] = "HEAD",
        runs: Annotated[int, Field(ge=1, le=20, description="runs that must all fail")] = 3,
        hidden: Annotated[bool, Field(description="keep its content from fixers")] = False,
        issue: Annotated[str | None, Field(description="the issue it is for")] = None,
    ) -> Annotated[CallToolResult, FixerExam]:
        """Seal a failing test as an exam in the hash-chained ledger, before the fix is
        written: it must fail the same way in every run at rev. Answers with the exam as a
        fixer sees it (a truegreen.fixer-exam/1: a hidden exam without its content)."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            request = api.SealRequest(
                **project, db=s.db, test_id=test_id, rev=rev, runs=runs, hidden=hidden, issue=issue
            )
            sealed = api.seal(request, listener=listener, cancel=cancel)
            exam = FixerExam.of(sealed.exam)
            return _text_result(exam.to_json(), _exam_text(exam))

        return await _call("seal_exam", ctx, work)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def verify_fix(
        ctx: Context,
        base: Annotated[
            str,
            Field(
                description="the revision the exams fail on; the working tree's changes against it are graded"
            ),
        ] = "HEAD",
        exams: Annotated[
            list[str], Field(description="exam ids (default: all of this repository's)")
        ] = [],  # noqa: B006 (pydantic copies the default)
        runs: Annotated[int, Field(ge=1, le=20, description="runs on each side")] = 3,
        strength: Annotated[bool, Field(description="mutate the changed lines")] = True,
    ) -> Annotated[CallToolResult, Verification]:
        """Grade the working tree's changes against base through the whole gate: the sealed
        exams fail on base and pass with the change, no tampering with tests or their
        configuration, no new failures, then the policy decides approve, reject or
        escalate (a truegreen.verification/1, recorded in the ledger). 'Verified' means
        passes the sealed exam, no tampering found, no new failures: never 'correct'."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            request = api.VerifyRequest(
                **project, db=s.db, base=base, working_tree=True, exams=tuple(exams),
                runs=runs, strength=strength,
            )  # fmt: skip
            done = api.verify(request, listener=listener, cancel=cancel)
            return _text_result(done.to_json(), _verification_text(done))

        return await _call("verify_fix", ctx, work)

    @server.tool(annotations=read_only)
    async def exam_status(
        ctx: Context,
        exam: Annotated[
            str | None, Field(description="one exam id or prefix (default: all of them)")
        ] = None,
    ) -> Annotated[CallToolResult, ExamStatus]:
        """The exams sealed for this repository, each as a fixer sees it, whether it is
        still open (no verification found it fixed), and its latest verification
        (a truegreen.exam-status/1)."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            status = api.exam_status(api.ExamStatusRequest(repo=s.repo, db=s.db, exam=exam))
            return _text_result(status.to_json(), _status_text(status))

        return await _call("exam_status", ctx, work)

    @server.tool(annotations=runs_tests)
    async def get_fix_task(
        exam: Annotated[str, Field(description="the exam id (or a unique prefix)")],
        ctx: Context,
        budget_tokens: Annotated[int, Field(ge=50, description="size of the context")] = 1500,
        budget_seconds: Annotated[float, Field(gt=0, description="seconds for the context")] = 30.0,
    ) -> Annotated[CallToolResult, FixTask]:
        """A self-contained task for a fixer: the exam as a fixer sees it, its failure and
        its localized context (none for a hidden exam), and the rules (tests are
        read-only; the fix is graded by verify_fix) (a truegreen.fix-task/1)."""

        def work(listener: api.Listener, cancel: api.Cancellation) -> CallToolResult:
            request = api.FixTaskRequest(
                **project, db=s.db, exam=exam, budget_tokens=budget_tokens,
                budget_seconds=budget_seconds,
            )  # fmt: skip
            task = api.fix_task(request, listener=listener, cancel=cancel)
            return _text_result(task.to_json(), _fix_task_text(task, budget_tokens))

        return await _call("get_fix_task", ctx, work)

    return server


def serve(settings: Settings) -> None:
    """Run the server on stdio until the client closes it (logs on stderr)."""
    logging.basicConfig(level=logging.WARNING, format="truegreen-mcp: %(levelname)s %(message)s")
    build(settings).run("stdio")
