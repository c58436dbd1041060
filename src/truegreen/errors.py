"""Exceptions raised by truegreen.

Every error truegreen raises on purpose derives from :class:`TruegreenError`.
The CLI prints its message (one line, naming the problem and what to do) and
exits with status 2. A rejected fix is a verdict, never an exception.

An error about one input of a request names it in ``field`` (``"head"``, ``"patch"``,
``"repo"``...: the request's field, :mod:`truegreen.model.requests`); the message says
what is wrong with it without naming a command-line option, so that each adapter can
name the input its own way (the CLI as its flag, ``--head``; an MCP server as the tool's
argument; a service as the request's field).

    TruegreenError
    ├── UsageError        bad input from the user: a path, a revision, an id, an option
    ├── ConfigError       an invalid [tool.truegreen] table or truegreen.toml
    ├── ExecutionError    a process could not be started (a run past its deadline is not an
    │   │                 error: it comes back with timed_out set)
    │   └── ExecutionCancelled  the call was cancelled (its Cancellation token)
    ├── RepoError         git could not do what was asked (not a repo, unknown revision, ...)
    ├── StoreError        the ledger or exam store is unreadable, or fails its hash checks
    │   └── IntegrityError     a stored hash does not match its content (fail closed)
    ├── PolicyError       an invalid policy
    └── GitHubError       the GitHub API refused, failed or could not be reached (``status``:
                          the HTTP status, 0 when there was no answer)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping


class TruegreenError(Exception):
    """The root of truegreen's errors.

    ``slug`` is a stable name for the kind of error (``usage``, ``config``, ...); there is
    no errors page for it to point to yet, and the CLI does not print it.
    ``hint`` says what the user can do about it; ``field`` names the request's input the
    error is about, when it is about one; ``suggest`` gives inputs to try, by field
    (``{"test_file": "tests/test_x.py"}``), for an adapter to phrase as its own.
    """

    slug = "error"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        slug: str | None = None,
        field: str | None = None,
        suggest: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.field = field
        self.suggest = dict(suggest or {})
        if slug is not None:
            self.slug = slug

    def __str__(self) -> str:
        return self.render()

    def render(self, name: Callable[[str], str] = str) -> str:
        """One line: the input it is about, what is wrong, what to do, the inputs to try;
        ``name(field)`` is how the adapter names an input (the CLI: its option)."""
        text = f"{name(self.field)}: {self.message}" if self.field else self.message
        hint = self.hint
        if self.suggest:
            tried = " ".join(f"{name(k)} {v}" for k, v in self.suggest.items())
            hint = f"{hint}: {tried}" if hint else tried
        return f"{text}; {hint}" if hint else text

    def to_json(self) -> dict[str, object]:
        """The error as data, for an adapter that answers in JSON (an MCP tool's error)."""
        return {
            "slug": self.slug,
            "field": self.field,
            "message": self.message,
            "hint": self.hint,
            "suggest": dict(self.suggest),
        }


class UsageError(TruegreenError):
    slug = "usage"


class ConfigError(TruegreenError):
    slug = "config"


class ExecutionError(TruegreenError):
    slug = "execution"


class ExecutionCancelled(ExecutionError):
    """The call's :class:`~truegreen.run.executor.Cancellation` was cancelled: its processes
    were killed and it starts no more."""

    slug = "cancelled"


class RepoError(TruegreenError):
    slug = "repo"


class StoreError(TruegreenError):
    slug = "store"


class IntegrityError(StoreError):
    slug = "integrity"


class PolicyError(TruegreenError):
    slug = "policy"


class GitHubError(TruegreenError):
    """The GitHub API refused a request, kept failing, or could not be reached."""

    slug = "github"

    def __init__(self, message: str, *, status: int = 0, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status
