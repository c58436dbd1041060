"""The one module that starts processes.

Everything truegreen runs (pytest in the target's interpreter, git, sandbox wrappers)
goes through :class:`Executor.run`, which takes a :class:`Command` and returns a
:class:`Completed`. :class:`SubprocessExecutor` is the real one; tests may pass a
:class:`FakeExecutor` instead.

What the real executor guarantees, whatever the child does:

* the child runs in its own session and process group, with exactly the environment
  the command names (nothing is inherited implicitly);
* a deadline: when it passes, the whole process group is killed (SIGKILL), and so is
  every process that carries the run's marker in its environment, which catches
  children that called ``setsid()`` to escape the group;
* when the child exits, anything it left behind (a forked child sleeping forever) is
  killed the same way, so no orphan outlives a run;
* Ctrl-C (KeyboardInterrupt) kills the tree before it propagates;
* bounded capture: at most ``capture_limit`` bytes of each stream are kept (the head
  and the tail), so a test that prints 50 MB does not blow memory.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from truegreen.errors import ExecutionError

#: The environment variable that marks every process of one run, so that processes
#: which escaped the process group can still be found and killed.
MARKER_VAR = "TRUEGREEN_RUN_MARKER"

DEFAULT_CAPTURE_LIMIT = 2 * 1024 * 1024


@dataclass(frozen=True)
class Command:
    """A process to run. ``env`` is the child's whole environment."""

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None
    stdin: bytes | None = None
    capture_limit: int = DEFAULT_CAPTURE_LIMIT
    #: keep stdout's bytes as well (``Completed.stdout_bytes``): a file's content, which
    #: the text (decoded as UTF-8, invalid bytes replaced) does not give back
    binary: bool = False


@dataclass(frozen=True)
class Completed:
    """What happened to a :class:`Command`."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    #: bytes left out of the middle of stdout / stderr by the capture limit
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    #: stdout as bytes, for a ``Command(binary=True)``; else None
    stdout_bytes: bytes | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def signal(self) -> int | None:
        """The signal that ended the process, if one did."""
        return -self.returncode if self.returncode < 0 else None


class Executor(Protocol):
    def run(self, command: Command) -> Completed: ...


class _BoundedReader(threading.Thread):
    """Drains a pipe, keeping at most ``limit`` bytes: the first half and the last half."""

    def __init__(self, stream: object, limit: int) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._limit = max(limit, 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0

    def run(self) -> None:
        half = self._limit // 2
        read = self._stream.read1 if hasattr(self._stream, "read1") else self._stream.read  # type: ignore[attr-defined]
        while True:
            try:
                chunk: bytes = read(65536)
            except (OSError, ValueError):
                break
            if not chunk:
                break
            room = half - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail += chunk
                if len(self._tail) > half:
                    cut = len(self._tail) - half
                    self.dropped += cut
                    del self._tail[:cut]

    def data(self) -> bytes:
        data = bytes(self._head)
        if self.dropped:
            data += f"\n[... {self.dropped} bytes left out by truegreen ...]\n".encode()
        return data + bytes(self._tail)

    def text(self) -> str:
        return self.data().decode("utf-8", errors="replace")


def _wait(proc: subprocess.Popen[bytes], timeout: float | None) -> bool:
    """Wait for ``proc`` to exit, at most ``timeout`` seconds; False when it did not.

    ``Popen.wait(timeout)`` polls with sleeps that grow to 50 ms, so a run that ends
    is noticed up to 50 ms late; on Linux a pidfd wakes us the moment the child exits."""
    if timeout is None:
        proc.wait()
        return True
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux >= 5.3, or the child is already reaped
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            ready = sel.select(timeout)
    finally:
        os.close(fd)
    if not ready:
        return proc.poll() is not None
    proc.wait()
    return True


def _marked_pids(marker: str) -> list[int]:
    """Processes whose environment carries ``marker`` (Linux /proc; empty elsewhere)."""
    needle = f"{MARKER_VAR}={marker}".encode()
    found: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    me = os.getpid()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == me:
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(pid)
    return found


def kill_tree(pgid: int, marker: str | None) -> None:
    """Kill a process group and every process marked with ``marker``; repeat until none is left."""
    for _ in range(50):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        pids = _marked_pids(marker) if marker else []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not pids:
            return
        time.sleep(0.02)


_active_lock = threading.Lock()
_active: dict[int, str] = {}
_cancelled = threading.Event()


class ExecutionCancelled(ExecutionError):
    slug = "cancelled"


@contextlib.contextmanager
def cancelling() -> Iterator[None]:
    """On any exception inside (Ctrl-C above all), stop every process tree this process
    supervises and refuse to start new ones until the block is left. Needed when runs
    happen in worker threads: their children are in other sessions, never see SIGINT,
    and the threads would otherwise go on to their next run."""
    try:
        yield
    except BaseException:
        _cancelled.set()
        with _active_lock:
            running = list(_active.items())
        for pgid, marker in running:
            kill_tree(pgid, marker)
        raise


def reset_cancel() -> None:
    _cancelled.clear()


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


class SubprocessExecutor:
    """The real executor. See the module docstring for what it guarantees."""

    def __init__(self, *, on_start: Callable[[int], None] | None = None) -> None:
        self._on_start = on_start

    def run(self, command: Command) -> Completed:
        argv = tuple(str(a) for a in command.argv)
        if not argv:
            raise ExecutionError("empty command")
        if _cancelled.is_set():
            raise ExecutionCancelled("cancelled")
        marker = uuid.uuid4().hex
        env = dict(command.env)
        env[MARKER_VAR] = marker
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=command.cwd,
                env=env,
                stdin=subprocess.PIPE if command.stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
            )
        except FileNotFoundError as exc:
            raise ExecutionError(
                f"cannot run {argv[0]!r}: no such program", hint=_missing_hint(str(argv[0]))
            ) from exc
        except PermissionError as exc:
            raise ExecutionError(f"cannot run {argv[0]!r}: permission denied") from exc
        except OSError as exc:
            raise ExecutionError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from exc
        with _active_lock:
            _active[proc.pid] = marker
        if _cancelled.is_set():
            # cancelled while it was starting: cancelling() may have looked at the running
            # set before it was in it, and nobody else would stop it
            kill_tree(proc.pid, marker)
            proc.wait()
            with _active_lock:
                _active.pop(proc.pid, None)
            _close_pipes(proc)
            raise ExecutionCancelled("cancelled")
        if self._on_start is not None:
            self._on_start(proc.pid)
        out = _BoundedReader(proc.stdout, command.capture_limit)
        err = _BoundedReader(proc.stderr, command.capture_limit)
        out.start()
        err.start()
        timed_out = False
        try:
            if command.stdin is not None and proc.stdin is not None:
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.write(command.stdin)
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.close()
            timed_out = not _wait(proc, command.timeout)
        except BaseException:
            # Ctrl-C or anything else: nothing of the run may survive us.
            kill_tree(proc.pid, marker)
            proc.wait()
            raise
        finally:
            # The child is gone (or timed out); kill whatever it left behind, which also
            # closes the pipes that orphans were holding open.
            kill_tree(proc.pid, marker)
            with _active_lock:
                _active.pop(proc.pid, None)
        proc.wait()
        out.join(timeout=5)
        err.join(timeout=5)
        _close_pipes(proc)
        return Completed(
            argv=argv,
            returncode=proc.returncode,
            stdout=out.text(),
            stderr=err.text(),
            duration=time.monotonic() - start,
            timed_out=timed_out,
            stdout_dropped=out.dropped,
            stderr_dropped=err.dropped,
            stdout_bytes=out.data() if command.binary else None,
        )


class FakeExecutor:
    """An executor for tests: ``handler(command) -> Completed``; records every command."""

    def __init__(self, handler: Callable[[Command], Completed]) -> None:
        self._handler = handler
        self.commands: list[Command] = []

    def run(self, command: Command) -> Completed:
        self.commands.append(command)
        return self._handler(command)


_default: Executor = SubprocessExecutor()


def default_executor() -> Executor:
    return _default


def _missing_hint(program: str) -> str:
    """What to do about a program that is not there: a bare name is looked up on PATH (git
    is one truegreen needs itself); a path names an interpreter or a tool given to it."""
    if os.sep not in program:
        if program == "git":
            return (
                "truegreen needs git: install it (apt-get install git, dnf install git, or "
                "xcode-select --install); `truegreen doctor` checks it"
            )
        return f"install {program} or put it on PATH"
    return "check the path (for --python: the interpreter of the project's environment)"
