"""Exceptions raised by truegreen.

Every error truegreen raises on purpose derives from :class:`TruegreenError`.
The CLI prints its message (one line, naming the problem and what to do) and
exits with status 2. A rejected fix is a verdict, never an exception.

    TruegreenError
    ├── UsageError        bad input from the user: a path, a revision, an id, an option
    ├── ConfigError       an invalid [tool.truegreen] table or truegreen.toml
    ├── ExecutionError    a process could not be started (a run past its deadline is not an
    │                     error: it comes back with timed_out set)
    ├── RepoError         git could not do what was asked (not a repo, unknown revision, ...)
    ├── StoreError        the ledger or exam store is unreadable, or fails its hash checks
    │   └── IntegrityError     a stored hash does not match its content (fail closed)
    └── PolicyError       an invalid policy
"""

from __future__ import annotations


class TruegreenError(Exception):
    """The root of truegreen's errors.

    ``slug`` is a stable name for the kind of error (``usage``, ``config``, ...); there is
    no errors page for it to point to yet, and the CLI does not print it.
    ``hint`` says what the user can do about it.
    """

    slug = "error"

    def __init__(self, message: str, *, hint: str | None = None, slug: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if slug is not None:
            self.slug = slug

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}; {self.hint}"
        return self.message


class UsageError(TruegreenError):
    slug = "usage"


class ConfigError(TruegreenError):
    slug = "config"


class ExecutionError(TruegreenError):
    slug = "execution"


class RepoError(TruegreenError):
    slug = "repo"


class StoreError(TruegreenError):
    slug = "store"


class IntegrityError(StoreError):
    slug = "integrity"


class PolicyError(TruegreenError):
    slug = "policy"
