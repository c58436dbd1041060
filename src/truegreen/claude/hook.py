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
import shlex  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Mapping  # noqa: E402
from dataclasses import dataclass  # noqa: E402
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

#: the command words that are pytest (``pytest``, ``.venv/bin/pytest``, ``py.test``)
PYTEST_WORDS = frozenset({"pytest", "py.test", "pytest.exe", "py.test.exe"})
#: a Python interpreter's name (``python``, ``python3.12``, ``pypy3``)
PYTHON_WORD = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?")
#: words that run the rest of their command: their options (and the listed ones' values,
#: and ``timeout``'s duration) are skipped
WRAPPERS = frozenset({"env", "time", "nice", "nohup", "exec", "command", "timeout", "stdbuf"})
#: tools that run a command in the project's environment (``uv run pytest``), their
#: sub-command, and their options that take a value
RUNNERS = {
    "uv": "run",
    "poetry": "run",
    "pdm": "run",
    "hatch": "run",
    "pipenv": "run",
    "rye": "run",
}
VALUED = frozenset({
    "-n", "-p", "-e", "--with", "--python", "--extra", "--group", "--only-group", "--package",
    "--project", "--directory", "--env-file", "--index", "--with-requirements", "--env",
})  # fmt: skip
#: a shell's control operators and redirections (the characters of)
SHELL_PUNCTUATION = ";&|()<>\n"


@dataclass(frozen=True)
class PytestCall:
    """Where a shell command ran pytest: the ``cd`` of its chain before it (``tests`` for
    ``cd tests && pytest``; None: none) and the interpreter the command names (as written:
    ``venv/bin/python`` for ``venv/bin/python -m pytest`` and ``venv/bin/pytest``; None for
    a bare ``pytest``, ``python -m pytest``, ``uv run pytest``)."""

    directory: str | None
    python: str | None


def _segments(command: str) -> list[list[str]]:
    """The simple commands of a shell command line (split at ``&&``, ``||``, ``;``, ``|``,
    ``&``, parentheses and line ends; redirections left out); [] when it cannot be read."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=SHELL_PUNCTUATION)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote
        return []
    out: list[list[str]] = [[]]
    skip = False
    for token in tokens:
        if token and all(c in SHELL_PUNCTUATION for c in token):
            if "<" in token or ">" in token:
                skip = True  # a redirection: its target is no argument
            else:
                out.append([])
            continue
        if skip:
            skip = False
            continue
        out[-1].append(token)
    return [s for s in out if s]


def _command_words(words: list[str]) -> list[str]:
    """``words`` from the command they run, past variable assignments (``FOO=1 pytest``)
    and wrappers (``env``, ``time``, ``timeout 60``, ``nice -n 5``)."""
    i = 0
    while i < len(words):
        word = words[i]
        if "=" in word and not word.startswith(("-", "=")) and "/" not in word.split("=")[0]:
            i += 1  # FOO=1
            continue
        name = os.path.basename(word)
        if name not in WRAPPERS:
            return words[i:]
        i += 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in VALUED else 1
        if name == "timeout" and i < len(words):
            i += 1  # its duration
    return []


def _python_of(word: str) -> str | None:
    """The interpreter a command word names: itself for a path to a Python, the Python
    beside it for a path to pytest (``venv/bin/pytest``: ``venv/bin/python``); None for a
    bare name (which one runs depends on the agent's shell: its PATH, an activated venv)."""
    if "/" not in word:
        return None
    folder, name = os.path.split(word)
    if PYTHON_WORD.fullmatch(name):
        return word
    return os.path.join(folder, "python.exe" if name.endswith(".exe") else "python")


def _pytest_words(words: list[str], depth: int = 0) -> tuple[bool, str | None]:
    """Whether the simple command ``words`` runs pytest, and the interpreter it names."""
    words = _command_words(words)
    if not words or depth > 3:
        return False, None
    word, args = words[0], words[1:]
    name = os.path.basename(word)
    if name in PYTEST_WORDS:
        return True, _python_of(word)
    if name in RUNNERS and args and args[0] == RUNNERS[name]:
        rest = args[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in VALUED else rest[1:]
        return _pytest_words(rest, depth + 1)[0], None  # the runner picks its environment
    if name in ("sh", "bash", "zsh", "dash") and len(args) >= 2 and args[0] == "-c":
        call = find_pytest(args[1], depth + 1)
        return (call is not None, call.python if call else None)
    if name == "coverage" and args and args[0] == "run":
        args = args[1:]
    elif PYTHON_WORD.fullmatch(name) is None:
        return False, None
    # python's options up to -m MODULE (a script, -c CODE or a bare word: not pytest)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m" or (arg.startswith("-m") and len(arg) > 2):
            module = args[i + 1] if arg == "-m" and i + 1 < len(args) else arg[2:]
            rest = args[i + 2 :] if arg == "-m" else args[i + 1 :]
            if module == "coverage" and rest[:1] == ["run"]:
                return _pytest_words(["coverage", *rest], depth + 1)[0], _python_of(word)
            return module == "pytest", _python_of(word)
        if not arg.startswith("-") or arg == "-c":
            return False, None
        i += 2 if arg in ("-X", "-W", "--rcfile", "--source", "--data-file") else 1
    return False, None


def find_pytest(command: str, depth: int = 0) -> PytestCall | None:
    """Where the shell command ``command`` ran pytest (the first simple command of its
    ``&&`` / ``;`` / ``|`` chain that does), or None. A command runs pytest when its
    command word is pytest (``pytest``, ``py.test``, ``venv/bin/pytest``), a Python running
    the module (``python -m pytest``, ``.venv/bin/python3 -m pytest``), ``coverage run -m
    pytest``, a runner of the project's environment running one of these (``uv run``,
    ``poetry run``, ``pdm run``, ``hatch run``, ``pipenv run``, ``rye run``), or ``sh -c``
    one; after ``FOO=1``, ``env``, ``time``, ``timeout 60``. Not a command that only
    mentions it (``echo pytest``, ``grep -r pytest``, ``git commit -m "make pytest pass"``,
    ``cat pytest.ini``, ``pip install pytest-cov``), nor ``tox`` or ``nox``: their output
    is theirs (several environments' runs, in environments of their own)."""
    directory: str | None = None
    for words in _segments(command):
        ran, python = _pytest_words(words, depth)
        if ran:
            return PytestCall(directory, python)
        if words[0] in ("cd", "pushd") and len(words) == 2 and not words[1].startswith(("-", "~")):
            directory = os.path.join(directory or "", words[1])
    return None


def runs_pytest(command: str) -> bool:
    """Whether a shell command ran pytest (:func:`find_pytest`)."""
    return find_pytest(command) is not None


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
        """Whether ``key`` (a failure's signature, a test function's key) was explained."""
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


def invocation_dir(cwd: Path, call: PytestCall, printed: list[str]) -> Path:
    """The directory pytest ran in: the payload's ``cwd``, or that and the ``cd`` of the
    command's chain (whichever holds the test files pytest printed; Claude Code's ``cwd``
    may be where the shell was before the command or after it)."""
    files = {t.split("::", 1)[0] for t in printed}
    candidates = [cwd]
    if call.directory:
        candidates.append(cwd / call.directory)
    for candidate in candidates:
        if candidate.is_dir() and all((candidate / f).is_file() for f in files):
            return candidate.resolve()
    return cwd.resolve()


#: the rootdir line of pytest's header (not printed with ``-q``)
ROOTDIR = re.compile(r"^rootdir: (.+?)(?:, (?:configfile|inifile|testpaths|plugins): .*)?$", re.M)


def rootdir_of(output: str) -> Path | None:
    """pytest's rootdir as its output's header names it (None: not there, or not a
    directory)."""
    found = ROOTDIR.search(output[:20000])
    if not found:
        return None
    path = Path(found.group(1).strip())
    return path.resolve() if path.is_absolute() and path.is_dir() else None


def node_id(printed: str, here: Path, base: Path) -> str:
    """The node id from ``base`` of a test id pytest printed relative to ``here`` (where
    it ran): ``test_version.py::test_x`` run in ``tests/`` is
    ``tests/test_version.py::test_x``; an id whose file is not under ``base`` as printed."""
    file, sep, rest = printed.partition("::")
    path = Path(os.path.normpath(here / file))
    if not path.is_file():
        return printed
    rel = os.path.relpath(path, base)
    if rel.startswith(".."):
        return printed
    return Path(rel).as_posix() + sep + rest


#: the interpreter ``install-claude --python`` gave the hooks (their command's
#: ``--python PY``; :func:`run` reads it)
INSTALLED_PYTHON: str | None = None


def python_for(call: PytestCall, here: Path, cwd: Path) -> str | None:
    """The interpreter to run the project's tests with: the one the agent's command named
    (``venv/bin/python -m pytest``, ``./env/bin/pytest``: relative to where it ran), else
    :data:`INSTALLED_PYTHON`, else None (the project's: ``.venv/bin/python`` when present).
    A bare ``python -m pytest`` in an activated venv names none the hook can see (the
    agent's shell's environment is not in the payload)."""
    if call.python:
        for folder in (here, cwd):
            path = Path(os.path.abspath(folder / call.python))  # a venv's link kept
            if path.is_file():
                return str(path)
    if INSTALLED_PYTHON and Path(INSTALLED_PYTHON).is_file():
        return INSTALLED_PYTHON
    return None


def python_from_argv(argv: list[str]) -> str | None:
    """``--python PY`` (or ``--python=PY``) among the hook command's arguments."""
    for i, arg in enumerate(argv):
        if arg == "--python" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--python="):
            return arg.split("=", 1)[1]
    return None


def _function_key(test: str) -> str:
    """The key of a test's function: its node id without the parameters (``[...]``)."""
    return "function:" + test.split("[", 1)[0]


def unexplained(session: Session, failing: list[str], signatures: Mapping[str, str]) -> list[str]:
    """The failing tests not explained yet in this session: neither their signature nor
    their test function (another parameter of it: its values, in the message, make
    another signature, and the same bug was explained once per parameter)."""
    return [
        t
        for t in failing
        if not session.seen(signatures.get(t, t)) and not session.seen(_function_key(t))
    ]


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
    call = find_pytest(command) if isinstance(command, str) else None
    if call is None:
        return None
    output = _output_of(payload)
    if not output.strip():
        return None
    cwd = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR")
    if not isinstance(cwd, str) or not Path(cwd).is_dir():
        return None
    diagnosis = api.diagnose(api.DiagnoseRequest(text=output))
    printed = list(diagnosis.failing_tests)
    if not printed:
        return None
    # pytest prints ids relative to where it ran (``cd tests && pytest``): as node ids
    # from its rootdir, in the project that directory belongs to
    here = invocation_dir(Path(cwd), call, printed)
    try:
        root = api.project_root(here)
    except api.UsageError:  # not in a git repository: the directory itself
        root = here
    base = rootdir_of(output) or root
    ids = {t: node_id(t, here, base) for t in printed}
    failing = list(dict.fromkeys(ids.values()))
    if is_tiny(root):
        return None
    session = Session(str(payload.get("session_id") or "unknown"))
    by_test = {ids.get(s.test, s.test): s.signature for s in diagnosis.signatures}
    fresh = unexplained(session, failing, by_test)
    if not fresh:
        return None  # every failure here was already explained in this session
    target = fresh[0]
    found = api.localize(
        api.LocalizeRequest(
            repo=root,
            # the interpreter the agent's command ran pytest with, else the one given to
            # install-claude, else the project's (.venv/bin/python, else this one)
            python=python_for(call, here, Path(cwd)),
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
    session.remember(_function_key(target))
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
    from truegreen.claude.install import changed_only_by_install

    root = api.project_root(cwd)
    # install-claude's own files are not the agent's change: those it created are in
    # .git/info/exclude, its merge into committed ones is left out here
    changed = [
        rel for rel in api.working_tree_changes(root) if not changed_only_by_install(root, rel)
    ]
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
    global INSTALLED_PYTHON
    OWN_PROCESS.set()
    INSTALLED_PYTHON = python_from_argv(sys.argv[1:]) or None
    if hasattr(os, "fork"):
        leave(main(apart=True))
    import faulthandler

    left = deadline_from_env() + CLEANUP - (time.monotonic() - STARTED)
    backstop = open(os.devnull, "w")  # noqa: SIM115 - held until the process ends
    faulthandler.dump_traceback_later(max(0.05, left), exit=True, file=backstop)
    leave(main())


if __name__ == "__main__":
    run()
