"""Sandbox backends for the runner: ``none``, ``bwrap`` and ``docker``.

A backend turns a :class:`~truegreen.run.executor.Command` into the command that runs
it confined: ``backend.wrap(command, spec) -> Command``. The executor then supervises
the wrapped command as any other (deadline, process-group kill, bounded capture).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from truegreen.run.executor import Command


@dataclass(frozen=True)
class SandboxSpec:
    """What a confined run needs to see.

    ``workdir`` is the worktree (writable); ``writable`` are extra writable paths (the
    probe's report directory); ``readonly`` are paths the run must read (the interpreter's
    prefix, the probe plugin). Everything else of the host is hidden or read-only.
    """

    workdir: Path
    python: Path
    writable: tuple[Path, ...] = ()
    readonly: tuple[Path, ...] = ()
    network: bool = False
    extra: dict[str, str] = field(default_factory=dict)


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
        return True, "always available (no isolation)"

    def wrap(self, command: Command, spec: SandboxSpec) -> Command:
        return command


def get_backend(name: str | None) -> Backend:
    """The backend called ``name``; ``None`` picks the default (see the sandbox issue)."""
    if name in (None, "none"):
        return NoSandbox()
    from truegreen.errors import UsageError

    raise UsageError(f"sandbox backend {name!r} is not available", hint="use --sandbox none")
