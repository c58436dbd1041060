"""Claude Code hooks: ``python -m truegreen.claude.hook`` reads one hook payload on stdin.

* **PostToolUse / PostToolUseFailure** of a Bash command that ran pytest: when a test
  failed, answer with at most :data:`MAX_CONTEXT` bytes of context for the agent
  (``hookSpecificOutput.additionalContext``): the failing test, the crash site, the clean
  rerun command, where a bad value came from, the top suspects, the values that differ
  (``truegreen localize``, packed). A failing pytest exits non-zero, which Claude Code
  reports as PostToolUseFailure (its ``error`` holds the output), so both are handled.
* **Stop**: when an exam is open for the repository and the working tree changed since
  the last reminder, ask the agent once to call ``verify_fix`` before it stops.

Silence rules (say nothing where it cannot help): no failing test in the output; a tiny
repository (the agent can read all of it); the same failure already explained in this
session; a failed assertion whose cause is in the test itself (no project line ran: the
values pytest shows are all there is); a Stop while ``stop_hook_active`` (no loops).

A hook must never break the agent's session: it answers within 10 seconds of its start
(:data:`DEADLINE` plus :data:`CLEANUP`; ``TRUEGREEN_HOOK_DEADLINE`` sets another
deadline, for a slow machine or a test) or says nothing, and on any error it exits 0 with
nothing on stdout (a line on stderr at most, which Claude Code shows only in verbose mode).

At the deadline it gives the work up at once. In the hook's own process (:func:`run`)
the work is done in a forked child and the process only waits for its answer
(:func:`answer_apart`): at the deadline the child and every process it started are
killed, their temporary directories removed, and the hook ends, whatever the work was
doing (deep in the analysis of a large project there is no cancellation point, and one
call, the compile of a large module, can hold the interpreter's lock for a second). In a
caller's process (:func:`answer`) the work is a thread, and at the deadline its process
trees are killed and its temporary directories removed (:func:`api.give_up`). Measured on
sqlglot (a 2-core machine at load 6 to 10.6, the process's wall time against its
deadline, its interpreter's start included): it used to end 0.35 to 6.7 s after its
deadline (the kill, the threads and the teardown of a heap of syntax trees fighting for
the interpreter's lock); now 0.37 to 0.49 s after it (of which the ending itself, the
kill and the removal, about 0.03 s).

Speed: the agent's own pytest run is the bare run (its output names the failing tests),
so the failing test's file runs once, under the tracer, and stops starting passing tests
at the deadline the time left gives it (:func:`localize_seconds`).
"""

from __future__ import annotations

import time

#: when this process began its work (before truegreen's own imports, about a second on a
#: loaded machine): the hook's deadline counts from here
STARTED = time.monotonic()

import contextlib  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Mapping  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, NoReturn, TextIO  # noqa: E402

from truegreen import api  # noqa: E402

#: the most bytes of context injected (UTF-8)
MAX_CONTEXT = 2048
#: seconds from the hook's start (its imports included) before it says nothing, and what
#: giving the work up and the exit may then take (together within the 10 s a hook may
#: take, with the interpreter's own start: about 0.1 s, measured at load 6): past
#: ``DEADLINE + CLEANUP`` the process is ended whatever it is doing (:func:`run`)
DEADLINE = 9.2
CLEANUP = 0.6
#: seconds between two hand-overs of the interpreter's lock once the work is given up
SWITCH_INTERVAL = 1e-4
#: the localize's time budget is what is left of the deadline when it starts, less this
#: (the answer's own margin), at most :data:`LOCALIZE_SECONDS`; its one run gets three
#: quarters of it (``budget.ALONE_SHARE``), then stops starting passing tests
LOCALIZE_MARGIN = 1.0
LOCALIZE_SECONDS = 30.0
#: the localize's token budget (2 KB is about 512 tokens)
LOCALIZE_TOKENS = 420
#: at most this much of a payload is read
MAX_PAYLOAD = 16 * 1024 * 1024
#: a repository with at most this many project source files, and this many bytes of them,
#: is tiny: the agent can read all of it
TINY_FILES = 3
TINY_BYTES = 6000
#: directories never counted as the project's source
SKIP_DIRS = {
    ".git",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "__pycache__",
    "build",
    "dist",
}

#: pytest as the command word (``pytest``, ``.venv/bin/pytest``, ``py.test``) or a module
#: run with ``-m``; not ``pytest.ini`` or ``pytest-cov``
PYTEST = re.compile(r"(?:^|[\s;&|(/])(?:py\.test|pytest)(?=$|[\s;&|)])|-m\s+pytest(?=$|[\s;&|)])")


def runs_pytest(command: str) -> bool:
    """Whether a shell command ran pytest (``pytest``, ``python -m pytest``, ``uv run
    pytest``, ``tox -e py -- ...`` is not: its output is tox's)."""
    return bool(PYTEST.search(command))


def _state_dir() -> Path:
    home = os.environ.get("TRUEGREEN_HOME")
    if home:
        return Path(home).expanduser() / "cache" / "claude-hooks"
    import platformdirs

    return Path(platformdirs.user_cache_dir("truegreen", appauthor=False)) / "claude-hooks"


class Session:
    """What this Claude Code session was already told (a small JSON file per session)."""

    def __init__(self, session_id: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id)[:100] or "unknown"
        self.path = _state_dir() / f"{safe}.json"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self.data: dict[str, Any] = data if isinstance(data, dict) else {}

    def seen(self, key: str) -> bool:
        return key in (self.data.get("explained") or [])

    def remember(self, key: str) -> None:
        keys = [k for k in self.data.get("explained") or [] if isinstance(k, str)]
        self.data["explained"] = [*keys[-200:], key]

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            part.write_text(json.dumps(self.data), encoding="utf-8")
            part.replace(self.path)
        except OSError:
            return


def is_tiny(root: Path) -> bool:
    """At most :data:`TINY_FILES` project source files (not tests), of at most
    :data:`TINY_BYTES` bytes together."""
    files = 0
    size = 0
    for here, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        rel = Path(here).relative_to(root).parts
        if any(p in ("tests", "test", "testing") for p in rel):
            continue
        for name in names:
            if not name.endswith(".py") or name.startswith("test_") or name == "conftest.py":
                continue
            if name.endswith("_test.py"):
                continue
            files += 1
            try:
                size += (Path(here) / name).stat().st_size
            except OSError:
                continue
            if files > TINY_FILES or size > TINY_BYTES:
                return False
    return True


def _output_of(payload: Mapping[str, Any]) -> str:
    """The command's output: PostToolUse's tool_response, PostToolUseFailure's error."""
    if payload.get("hook_event_name") == "PostToolUseFailure":
        error = payload.get("error")
        return error if isinstance(error, str) else ""
    response = payload.get("tool_response")
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping):
        parts = [response.get("stdout"), response.get("stderr")]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _fit(text: str, limit: int = MAX_CONTEXT) -> str:
    """``text`` cut at a line end to at most ``limit`` bytes of UTF-8."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    tail = "\n(cut to 2 KB: call the failure_context tool for more)"
    room = limit - len(tail.encode("utf-8"))
    cut = data[:room].decode("utf-8", "ignore")
    if "\n" in cut:
        cut = cut[: cut.rindex("\n")]
    return cut + tail


def localize_seconds(until: float | None, now: float | None = None) -> float:
    """The localize's time budget: what is left before ``until`` (a ``time.monotonic()``
    deadline; None: none), less :data:`LOCALIZE_MARGIN`, within 1 s and
    :data:`LOCALIZE_SECONDS`."""
    if until is None:
        return LOCALIZE_SECONDS
    left = until - (time.monotonic() if now is None else now) - LOCALIZE_MARGIN
    return min(LOCALIZE_SECONDS, max(1.0, left))


def test_context(
    payload: Mapping[str, Any], cancel: api.Cancellation, until: float | None = None
) -> str | None:
    """The context for a Bash command that ran pytest, or None (silence). ``until``: the
    ``time.monotonic()`` by which the answer is due (the localize's budget comes from it)."""
    if payload.get("tool_name") != "Bash":
        return None
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if not isinstance(command, str) or not runs_pytest(command):
        return None
    output = _output_of(payload)
    if not output.strip():
        return None
    cwd = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR")
    if not isinstance(cwd, str) or not Path(cwd).is_dir():
        return None
    diagnosis = api.diagnose(api.DiagnoseRequest(text=output))
    failing = list(diagnosis.failing_tests)
    if not failing:
        return None
    root = Path(cwd)
    if is_tiny(root):
        return None
    session = Session(str(payload.get("session_id") or "unknown"))
    by_test = {s.test: s.signature for s in diagnosis.signatures}
    fresh = [t for t in failing if not session.seen(by_test.get(t, t))]
    if not fresh:
        return None  # every failure here was already explained in this session
    target = fresh[0]
    found = api.localize(
        api.LocalizeRequest(
            repo=root,
            test_ids=(target,),
            # the failing test's own file only, and of it what runs by the deadline: an
            # answer within seconds matters more here than all the passing tests
            # (failure_context has them)
            scope=(target.split("::", 1)[0],),
            budget_tokens=LOCALIZE_TOKENS,
            budget_seconds=localize_seconds(until),
            strict_budget=True,
            # the agent's own run was the bare run: no measurement check. A bare run
            # holding the mutants that break ties near the top starts after the traced
            # run, only when that left half the budget: an answer in time first
            check_measurement=False,
            mutants=True,
            spare_mutants=True,
            limit=10,
        ),
        cancel=cancel,
    )
    doc = found.to_json()
    failure = doc.get("failure") or {}
    session.remember(by_test.get(target, target))
    session.remember(str(failure.get("signature") or target))
    session.save()
    if not doc["ranking"] and failure.get("exc_type") == "AssertionError":
        return None  # no project line ran: the cause is in the test, pytest showed it all
    more = (
        f" ({len(failing)} failed; localized the first not yet explained)"
        if len(failing) > 1
        else ""
    )
    head = (
        f"truegreen: context for {target}{more}. Tests are evidence: fix the code, not the test.\n"
    )
    return _fit(head + found.text)


def stop_reminder(payload: Mapping[str, Any]) -> str | None:
    """The reason to give Claude for not stopping yet, or None."""
    if payload.get("stop_hook_active"):
        return None
    cwd = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR")
    if not isinstance(cwd, str) or not Path(cwd).is_dir():
        return None
    root = Path(cwd)
    changed = api.working_tree_changes(root)
    if not changed:
        return None
    status = api.exam_status(api.ExamStatusRequest(repo=root))
    open_exams = status.open
    if not open_exams:
        return None
    digest = hashlib.sha256()
    for rel in changed:
        digest.update(rel.encode() + b"\0")
        try:
            digest.update((root / rel).read_bytes())
        except OSError:
            digest.update(b"<gone>")
    session = Session(str(payload.get("session_id") or "unknown"))
    key = "stop:" + digest.hexdigest()
    if session.seen(key):
        return None  # reminded about this very state already
    session.remember(key)
    session.save()
    names = ", ".join(e.id for e in open_exams[:3])
    files = ", ".join(changed[:5]) + (", ..." if len(changed) > 5 else "")
    return (
        f"truegreen: exam(s) {names} are open and the working tree changed ({files}). "
        "Before you stop, call the verify_fix tool (MCP server truegreen) or run "
        "`truegreen verify --patch <(git diff HEAD)`: 'verified' means passes the sealed "
        "exam, no tampering found, no new failures (never 'correct')."
    )


def respond(
    payload: Any, cancel: api.Cancellation | None = None, until: float | None = None
) -> dict[str, Any] | None:
    """The hook's JSON answer to ``payload``, or None to say nothing (``until``: see
    :func:`test_context`)."""
    if not isinstance(payload, Mapping):
        return None
    event = payload.get("hook_event_name")
    token = cancel or api.Cancellation()
    if event in ("PostToolUse", "PostToolUseFailure"):
        text = test_context(payload, token, until)
        if not text:
            return None
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    if event == "Stop":
        reason = stop_reminder(payload)
        return {"decision": "block", "reason": reason} if reason else None
    return None


def deadline_from_env(default: float = DEADLINE) -> float:
    """``TRUEGREEN_HOOK_DEADLINE`` (seconds of work before the hook says nothing), else
    :data:`DEADLINE`; a value that is not a positive number is ignored."""
    try:
        value = float(os.environ.get("TRUEGREEN_HOOK_DEADLINE", ""))
    except ValueError:
        return default
    return value if value > 0 else default


def answer(raw: str, deadline: float | None = None, started: float | None = None) -> str:
    """What the hook prints for the payload ``raw``: a JSON answer, or nothing. Never
    raises; past ``deadline`` seconds (default: :func:`deadline_from_env`) from
    ``started`` (a ``time.monotonic()``; default: now) the work is cancelled and the
    answer is nothing."""
    deadline = deadline_from_env() if deadline is None else deadline
    until = (time.monotonic() if started is None else started) + deadline
    try:
        payload = json.loads(raw)
    except ValueError:
        return ""
    result: list[dict[str, Any] | None] = []
    cancel = api.Cancellation()

    def work() -> None:
        try:
            result.append(respond(payload, cancel, until))
        except BaseException as exc:  # a hook never breaks the session: say nothing
            print(f"truegreen hook: {type(exc).__name__}: {exc}", file=sys.stderr)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(max(0.0, until - time.monotonic()))
    if thread.is_alive():
        # its processes killed, its temp dirs removed; the thread is left to the exit.
        # The thread is busy in Python: meanwhile it hands the interpreter's lock over at
        # once (at the default 5 ms, each system call of the give-up and the exit waits
        # that long for it)
        before = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        api.give_up(cancel)
        GAVE_UP.set()
        print(f"truegreen hook: no answer within {deadline:g} s: said nothing", file=sys.stderr)
        if not OWN_PROCESS.is_set():  # a caller in its own process goes on
            sys.setswitchinterval(before)
        return ""
    got = result[0] if result else None
    return json.dumps(got) if got else ""


#: set when :func:`answer` gave its work up at the deadline: the process then ends without
#: waiting for the work's threads (:func:`leave`)
GAVE_UP = threading.Event()
#: set in the hook's own process (:func:`run`), which ends after its answer
OWN_PROCESS = threading.Event()


def leave(code: int) -> NoReturn:
    """End the hook's process with ``code``, its answer written: at once when the work was
    given up (its threads are not waited for, nor the teardown of what they built, nor
    exit handlers: :func:`api.give_up` did the clean-up), else as a console script ends."""
    if GAVE_UP.is_set():
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code & 0xFF)
    from truegreen import _console

    # a process for one answer: no interpreter teardown when nothing else runs (about a
    # second measured on a loaded machine, after the answer was written)
    _console.end(SystemExit(code))


def answer_apart(raw: str, deadline: float | None = None, started: float | None = None) -> str:
    """:func:`answer`, the work done in a forked child (in a process of the hook's own,
    :func:`run`, which runs nothing else): this process only waits for its answer, so
    nothing the work does (one long call holding the interpreter's lock: the compile of a
    large module, the read of a large trace) can delay it. Past the deadline the child is
    ended (:func:`api.child_ender`: it and its processes killed, their temporary
    directories removed) and the answer is nothing."""
    import select

    deadline = deadline_from_env() if deadline is None else deadline
    until = (time.monotonic() if started is None else started) + deadline
    try:
        payload = json.loads(raw)
    except ValueError:
        return ""
    end_child = api.child_ender()
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the work, its answer written to the pipe, then gone
        code = 0
        try:
            os.close(read_end)
            got = respond(payload, api.Cancellation(), until)
            data = json.dumps(got).encode("utf-8") if got else b""
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
        except BaseException as exc:  # a hook never breaks the session: say nothing
            print(f"truegreen hook: {type(exc).__name__}: {exc}", file=sys.stderr)
            code = 1
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os._exit(code)
    os.close(write_end)
    chunks: list[bytes] = []
    try:
        while True:
            left = until - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                end_child(pid)
                GAVE_UP.set()
                print(
                    f"truegreen hook: no answer within {deadline:g} s: said nothing",
                    file=sys.stderr,
                )
                return ""
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")


def main(stdin: TextIO | None = None, stdout: TextIO | None = None, *, apart: bool = False) -> int:
    """Read the payload, write the answer (``apart``: the work in a forked child, see
    :func:`answer_apart`; only in a process of the hook's own)."""
    try:
        raw = (stdin or sys.stdin).read(MAX_PAYLOAD)
        text = (answer_apart if apart else answer)(raw, started=STARTED)
        if text:
            (stdout or sys.stdout).write(text + "\n")
    except BaseException as exc:  # never break the agent's session
        print(f"truegreen hook: {type(exc).__name__}", file=sys.stderr)
    return 0


def run() -> NoReturn:
    """The hook's process (``python -m truegreen.claude.hook``): :func:`main` with the work
    in a forked child (:func:`answer_apart`), then :func:`leave`. Where there is no fork,
    the work runs in a thread (:func:`answer`), and a backstop ends the process
    :data:`CLEANUP` seconds after its deadline whatever it is doing (status 1, nothing on
    stdout, which Claude Code takes as a hook's non-blocking error): the work thread may
    hold the interpreter's lock in one long call, and the main thread cannot even give
    the work up then. Its processes are still killed (the reaper does it when this
    process is gone); a temporary directory it left is removed by the next truegreen
    process (:mod:`truegreen.tempdirs`)."""
    OWN_PROCESS.set()
    if hasattr(os, "fork"):
        leave(main(apart=True))
    import faulthandler

    left = deadline_from_env() + CLEANUP - (time.monotonic() - STARTED)
    backstop = open(os.devnull, "w")  # noqa: SIM115 - held until the process ends
    faulthandler.dump_traceback_later(max(0.05, left), exit=True, file=backstop)
    leave(main())


if __name__ == "__main__":
    run()
