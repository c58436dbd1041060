"""Sandbox backends for the runner: ``none``, ``bwrap`` and ``docker``.

A backend turns a :class:`~truegreen.run.executor.Command` into the command that runs
it confined: ``backend.wrap(command, spec) -> Command``. The executor then supervises
the wrapped command as any other (deadline, process-group kill, bounded capture).

    get_backend(name, notify=...)   "none" | "bwrap" | "docker" | None (the default:
                                    bwrap where it works here, else none, and says so)
    available_backends()            [(name, works_here, why)] for ``truegreen doctor``
    check_backend(name)             ask ahead whether it works (the answer is kept)

What a confined run sees and may do is described in ``docs/sandbox.md``.
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from truegreen.run.executor import Command

BACKENDS = ("none", "bwrap", "docker")


@dataclass(frozen=True)
class Limits:
    """Per-process resource limits of a confined run (``setrlimit``; ``None``: not set).

    ``cpu_seconds`` defaults to the command's deadline plus a margin. ``processes`` is
    enforced by the kernel only for a non-root uid (the bwrap backend runs the tests as
    uid 65534 when truegreen runs as root for that reason).
    """

    memory_bytes: int | None = 4 * 1024**3
    cpu_seconds: int | None = None
    file_size_bytes: int | None = 1024**3
    open_files: int | None = 1024
    processes: int | None = 512


@dataclass(frozen=True)
class SandboxSpec:
    """What a confined run needs to see.

    ``workdir`` is the worktree (writable); ``writable`` are extra writable paths (the
    probe's report directory); ``readonly`` are paths the run must read (the interpreter's
    prefix, the probe plugin). Everything else of the host is hidden or read-only.
    Paths keep their host names inside the sandbox. ``network`` is for the install phase
    only; the run phase has none. ``grant_workdir``: the workdir is a disposable worktree
    truegreen made (under the temp dir); when the tests run as uid 65534 (bwrap as root)
    its directories and files are made writable for others (``o+w``, owner unchanged, so
    git keeps working in it) so that tests can write in it; otherwise a root-owned
    worktree is read-only in effect for them.
    """

    workdir: Path
    python: Path
    writable: tuple[Path, ...] = ()
    readonly: tuple[Path, ...] = ()
    network: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    grant_workdir: bool = False


class Backend(Protocol):
    name: str

    def available(self) -> tuple[bool, str]:
        """Whether this backend works on this machine, and why not when it does not."""
        ...

    def wrap(self, command: Command, spec: SandboxSpec) -> Command: ...


class NoSandbox:
    """Trusted local use: the command runs as it is (still supervised by the executor)."""

    name = "none"

    def available(self) -> tuple[bool, str]:
        return True, "always available (no isolation: for trusted code only)"

    def wrap(self, command: Command, spec: SandboxSpec) -> Command:
        return command


#: Environment variable names that never enter a sandbox, whatever the allow-list says.
SECRET_PATTERNS = (
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*KEY*",
    "*CREDENTIAL*",
    "*AUTH*",
    "*COOKIE*",
    "*SESSION*",
    "AWS_*",
    "AZURE_*",
    "GCP_*",
    "GOOGLE_*",
    "GITHUB_*",
    "GH_*",
    "GITLAB_*",
    "CI_JOB_*",
    "ACTIONS_*",
    "NPM_*",
    "PYPI_*",
    "TWINE_*",
    "DOCKER_*",
    "SSH_*",
    "GPG_*",
    "KUBECONFIG",
    "VAULT_*",
    "OPENAI_*",
    "ANTHROPIC_*",
    "DATABASE_URL",
    "TRUEGREEN_DB",
    "TRUEGREEN_WEBHOOK_SECRET",
)


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_PATTERNS)


def scrub_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without anything that looks like a secret by its name."""
    return {k: v for k, v in env.items() if not is_secret_name(k)}


def _backends() -> dict[str, Backend]:
    from truegreen.sandbox.bwrap import BwrapBackend
    from truegreen.sandbox.docker import DockerBackend

    return {"none": NoSandbox(), "bwrap": BwrapBackend(), "docker": DockerBackend()}


def available_backends() -> list[tuple[str, bool, str]]:
    """``[(name, works_here, why)]`` for every backend, for ``truegreen doctor``."""
    return [(name, *backend.available()) for name, backend in _backends().items()]


def check_backend(name: str | None) -> None:
    """Find out whether the backend ``name`` (None: the default, bwrap) works here, ahead
    of :func:`get_backend`, which then says what the answer was (it is kept per process).
    Never raises: an unknown name or a failing check is for ``get_backend`` to report."""
    backend = _backends().get(name or "bwrap")
    if backend is not None:
        with contextlib.suppress(Exception):
            backend.available()


def get_backend(name: str | None, *, notify: Callable[[str], None] | None = None) -> Backend:
    """The backend called ``name``.

    ``None`` picks the default: ``bwrap`` when it works here, else ``none``; ``notify``
    (a sink of lines: the call's events, ``Events.notes("sandbox")``) is told which and why. A backend named explicitly that does not
    work here is a :class:`~truegreen.errors.UsageError` that says why and what to do.
    """
    from truegreen.errors import UsageError

    if name == "none":
        return NoSandbox()
    backends = _backends()
    if name is None:
        bwrap = backends["bwrap"]
        ok, why = bwrap.available()
        if ok:
            if notify is not None:
                notify(f"truegreen: sandbox: bwrap ({why.removeprefix('works: ')})")
            return bwrap
        if notify is not None:
            notify(
                f"truegreen: sandbox: none - tests run WITHOUT isolation ({why}); "
                "install bubblewrap, or choose the sandbox none to silence this"
            )
        return NoSandbox()
    backend = backends.get(name)
    if backend is None:
        raise UsageError(
            f"{name!r} is not a sandbox",
            hint=f"use one of {', '.join(BACKENDS)}",
            field="sandbox",
        )
    ok, why = backend.available()
    if not ok:
        other = "bwrap" if name == "docker" else "docker"
        raise UsageError(
            f"sandbox backend {name!r} does not work here: {why}",
            hint=f"fix that (see `truegreen doctor`), or choose the sandbox {other}, or none "
            "(no isolation: trusted code only)",
            field="sandbox",
        )
    return backend


__all__ = [
    "BACKENDS",
    "Backend",
    "Limits",
    "NoSandbox",
    "SandboxSpec",
    "available_backends",
    "check_backend",
    "get_backend",
    "is_secret_name",
    "scrub_env",
]
