"""The click application and the helpers every command shares.

Adapters translate arguments into engine calls and results into output, with no logic
of their own. Progress and logs go to stderr; ``--json`` prints exactly one JSON
document on stdout and nothing else there.

Start-up time is part of the product: hooks and agents call ``truegreen`` often, and
``localize`` is measured against a bare test run. So the adapters import their engine
inside the command, and rich (for colour and tables) only when something styled is
printed: plain text goes straight to the stream.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar

import click

from truegreen import __version__, canonical

if TYPE_CHECKING:
    from rich.console import Console

    from truegreen.api import Cancellation, Event, TruegreenError

F = TypeVar("F", bound=Callable[..., Any])

#: the help texts wrap at this width (click's default of 80 squeezes the option lists)
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(
    name="truegreen",
    help=(
        "Turn 'the tests pass' into evidence a maintainer can trust.\n\n"
        "'Verified' means: passes the sealed exam, no tampering found, no new failures. "
        "It never means 'correct'."
    ),
    no_args_is_help=True,
    context_settings=CONTEXT,
)
@click.version_option(__version__, "--version", message="%(prog)s %(version)s")
def app() -> None:
    """The root command: its subcommands register themselves when their modules load."""


class Output:
    """``print`` to stdout or stderr: plain strings as they are, styled ones through rich.

    ``print(text, markup=False)`` writes ``text`` unchanged (log lines are data: no markup,
    no emoji codes, no wrapping). Anything else (markup, rich renderables) goes to a rich
    console made on first use.
    """

    def __init__(self, *, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def stream(self) -> TextIO:
        return sys.stderr if self._stderr else sys.stdout

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return self._console

    def print(self, *objects: Any, markup: bool | None = None, end: str = "\n") -> None:
        if markup is False and all(isinstance(o, str) for o in objects):
            stream = self.stream
            stream.write(" ".join(objects) + end)
            stream.flush()
            return
        self.console.print(*objects, markup=markup, end=end)


#: Progress, logs and human-readable output that must not pollute --json on stdout.
err = Output(stderr=True)
#: Human-readable results (when --json is not given).
out = Output(stderr=False)


def progress(event: Event) -> None:
    """The listener of every engine call: an event's line on stderr, as it is (a step
    that is only a count has none, and prints nothing)."""
    if event.message is not None:
        err.print(event.message, markup=False)


#: the cancellation tokens of this invocation's engine calls: Ctrl-C cancels them
_tokens: list[Cancellation] = []


def call(listener: Callable[[Event], None] = progress) -> dict[str, Any]:
    """The parts every engine call of a command gets: the progress listener, and a
    cancellation token of its own, which Ctrl-C cancels (see :func:`truegreen.cli.main`)."""
    from truegreen.api import Cancellation

    token = Cancellation()
    _tokens.append(token)
    return {"listener": listener, "cancel": token}


#: what else cancels this invocation's calls (the MCP server's running tool calls)
_cancellers: list[Callable[[], None]] = []


def on_cancel(canceller: Callable[[], None]) -> None:
    """Have :func:`cancel_calls` (Ctrl-C, SIGTERM) call ``canceller`` too: for calls whose
    tokens a command makes itself, such as the MCP server's."""
    _cancellers.append(canceller)


#: end the process without waiting for its other threads once the command is over
#: (:func:`exit_at_once`)
_at_once: list[bool] = []


def exit_at_once() -> None:
    """Have :func:`truegreen.cli.main` end the process without waiting for the threads
    still alive: for a command stopped by a signal whose threads may be blocked for ever
    (the MCP server's reader of stdin), once its own clean-up is done."""
    _at_once.append(True)


def cancel_calls() -> None:
    """Cancel every engine call of this invocation: their processes are killed now, also
    those of threads the interrupt does not reach."""
    for token in _tokens:
        token.cancel()
    for canceller in list(_cancellers):
        canceller()


#: how the command line names the inputs the engine's errors are about (``error.field``)
FLAGS = {
    "test_id": "TEST_ID",
    "test_ids": "TEST_ID",
    "exams": "--exam",
    "report_dir": "--report",
    "log": "LOG",
    "text": "LOG",
    "run_id": "--run",
    "job_id": "--job",
    "exam": "ID",
    "file": "FILE",
    "extras": "--extra",
    "target": "OWNER/REPO#N",
    "event_path": "--event",
    "repository": "GITHUB_REPOSITORY",
}


def flag(field: str) -> str:
    """The option or argument of the command line that gives the request's ``field``."""
    return FLAGS.get(field, "--" + field.replace("_", "-"))


def describe(exc: TruegreenError) -> str:
    """An engine error as one line: the option it is about, what is wrong, what to do
    (and the options to try, as the command line spells them)."""
    return exc.render(flag)


# Shared options, so every command spells them the same way.
def repo_option(f: F) -> F:
    return click.option(
        "--repo",
        type=click.Path(path_type=Path),
        default=Path("."),
        help="The project's git repository (default: the current directory).",
    )(f)


def python_option(f: F) -> F:
    return click.option(
        "--python",
        default=None,
        help="The project's interpreter (default: .venv/bin/python in the repository, "
        "else the current one).",
    )(f)


def sandbox_option(f: F) -> F:
    return click.option(
        "--sandbox",
        default=None,
        help="none | bwrap | docker (default: bwrap where it works, else none).",
    )(f)


def project_options(f: F) -> F:
    """``--repo``, ``--python`` and ``--sandbox``: where the project is and how it runs."""
    return repo_option(python_option(sandbox_option(f)))


def given(**options: Any) -> dict[str, Any]:
    """The options given on the command line (not None): the rest keep the request's own
    defaults."""
    return {k: v for k, v in options.items() if v is not None}


def grading_options(f: F) -> F:
    """``--runs``, ``--no-strength``, ``--regression`` and ``--report``: how a verification grades, and
    where its report goes (verify, ci)."""
    f = click.option(
        "--report",
        type=click.Path(path_type=Path),
        default=None,
        help="Write report.md, report.html, verification.json and receipt.json to DIR.",
    )(f)
    f = click.option("--no-strength", is_flag=True, help="Skip mutating the changed lines.")(f)
    f = click.option(
        "--regression",
        type=click.Choice(["selected", "full"]),
        default=None,
        help="selected: run on the head the tests the change can affect, picked from the "
        "base's per-test record (the first verification of a base records it and runs the "
        "whole suite); full: the whole suite on both sides. Default: selected (ci: full, "
        "as a CI job has no record to reuse).",
    )(f)
    return click.option(
        "--runs",
        type=click.IntRange(min=1),
        default=3,
        show_default=True,
        help="Runs of each exam on each side.",
    )(f)


def json_option(f: F) -> F:
    return click.option(
        "--json", "json_out", is_flag=True, help="Print one JSON document on stdout, nothing else."
    )(f)


def db_option(f: F) -> F:
    return click.option(
        "--db",
        default=None,
        help="Database URL (default: $TRUEGREEN_DB, else SQLite in the data directory).",
    )(f)


def emit_json(document: Any) -> None:
    """Print ``document`` as the one JSON document of this command (deterministic bytes)."""
    sys.stdout.write(canonical.pretty(document))
    sys.stdout.flush()


def fail(message: str, hint: str | None = None) -> NoReturn:
    """Exit 2 with a one-line message naming the problem and what to do."""
    text = f"truegreen: error: {message}"
    if hint:
        text += f"; {hint}"
    err.print(text, markup=False)
    raise SystemExit(2)
