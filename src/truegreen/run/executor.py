"""The one module that starts processes.

Everything truegreen runs (pytest in the target's interpreter, git, sandbox wrappers)
goes through :class:`Executor.run`, which takes a :class:`Command` and returns a
:class:`Completed`. :class:`SubprocessExecutor` is the real one; tests may pass a
:class:`FakeExecutor` instead.

What the real executor guarantees, whatever the child does:

* the child runs in its own session and process group, with exactly the environment
  the command names (nothing is inherited implicitly);
* a deadline: when it passes, the run's whole tree is killed (SIGKILL): its process
  group, every descendant of the child, and every process that carries the run's
  marker in its environment (children that called ``setsid()`` to escape the group,
  orphans of a dead parent); see :func:`truegreen.run._reaper.kill_tree`;
* a command that says when its work is done (``settled``, e.g. the probe recorded the
  end of pytest) gets ``grace`` seconds more to exit, then its tree is killed the same
  way (``Completed.lingered``): a suite whose process never ends (a non-daemon thread,
  forked workers it waits for) costs seconds, not its deadline;
* when the child exits, anything it left behind (a forked child sleeping forever) is
  killed the same way, so no orphan outlives a run;
* Ctrl-C (KeyboardInterrupt) kills the tree before it propagates;
* cancellation is per call: an executor bound to a :class:`Cancellation` (one per api
  call) registers every tree it starts with it; ``cancel()`` kills those trees, and that
  executor's later runs raise :class:`ExecutionCancelled`. Another call's executor, with
  its own token, goes on;
* nothing outlives truegreen itself: a watcher process (the reaper, one per truegreen
  process, in a session of its own) kills the tree of every run still going when
  truegreen is gone, killed with SIGKILL included;
* bounded capture: at most ``capture_limit`` bytes of each stream are kept (the head
  and the tail), so a test that prints 50 MB does not blow memory.
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from truegreen.errors import ExecutionCancelled, ExecutionError
from truegreen.run import _reaper
from truegreen.run._reaper import MARKER_VAR, kill_tree

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
    #: True once the process has done its work (polled every :data:`SETTLED_POLL` s);
    #: from then on it has ``grace`` seconds to exit before its tree is killed
    settled: Callable[[], bool] | None = None
    grace: float = 0.0
    #: keep stdout's bytes as well (``Completed.stdout_bytes``): a file's content, which
    #: the text (decoded as UTF-8, invalid bytes replaced) does not give back
    binary: bool = False
    #: False for the clean-up a cancelled call still owes (``git worktree remove``): it
    #: runs whatever the call's :class:`Cancellation` says, and cancel() does not kill it
    cancellable: bool = True
    #: niceness added to the process and what it starts (``nice -n``): work started early
    #: that may wait, so that it takes no CPU from the work that is waited for
    nice: int = 0


#: seconds between two looks at a command's ``settled``
SETTLED_POLL = 0.1


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
    #: it had done its work (``Command.settled``) but had not exited ``grace`` seconds
    #: later: truegreen ended it and its tree (``returncode`` is then -SIGKILL)
    lingered: bool = False
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


class Cancellation:
    """One call's cancellation token, safe to use from any thread.

    An executor bound to it (:func:`bound`) registers every process tree it starts here
    while the tree runs. :meth:`cancel` kills those trees and makes the executor's later
    runs raise :class:`ExecutionCancelled` (and a run it killed raise it too, never
    return a result that could be graded); the clean-up a call owes (commands with
    ``cancellable=False``) still runs. A token is never reset: one per call.
    """

    def __init__(self) -> None:
        # re-entrant: Ctrl-C's handler may cancel on the thread that is registering a tree
        self._lock = threading.RLock()
        self._cancelled = threading.Event()
        self._trees: dict[int, str] = {}
        self._children: list[Cancellation] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Kill every tree started under this token (and its children) and refuse new ones
        (idempotent)."""
        with self._lock:
            self._cancelled.set()
            running = list(self._trees.items())
            children = list(self._children)
        for pgid, marker in running:
            kill_tree(pgid, marker)
        for child in children:
            child.cancel()

    def child(self) -> Cancellation:
        """A token for some of this call's processes, to end them early: cancelled with
        this one (at once, if this one already is), and on its own without this one."""
        kid = Cancellation()
        with self._lock:
            self._children.append(kid)
            cancelled = self._cancelled.is_set()
        if cancelled:
            kid.cancel()
        return kid

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until cancelled (at most ``timeout`` seconds); whether it is."""
        return self._cancelled.wait(timeout)

    def check(self) -> None:
        """Raise :class:`ExecutionCancelled` when cancelled."""
        if self.cancelled:
            raise ExecutionCancelled("cancelled")

    @property
    def running(self) -> frozenset[int]:
        """The process groups (pids of their first processes) running under this token."""
        with self._lock:
            return frozenset(self._trees)

    def _register(self, pgid: int, marker: str) -> bool:
        """Take a tree that just started; False (not taken) when already cancelled."""
        with self._lock:
            if self._cancelled.is_set():
                return False
            self._trees[pgid] = marker
            return True

    def _release(self, pgid: int) -> None:
        with self._lock:
            self._trees.pop(pgid, None)


def bound(executor: Executor, cancel: Cancellation) -> Executor:
    """``executor`` bound to ``cancel``: the same executor, for one call. An executor that
    cannot be bound (one a test wrote, with only ``run``) is returned as it is."""
    bind = getattr(executor, "with_cancel", None)
    if bind is None:
        return executor
    bound_executor: Executor = bind(cancel)
    return bound_executor


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


def _exited(proc: subprocess.Popen[bytes], fd: int | None, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``proc`` to exit; whether it did. ``fd`` is its
    pidfd, which wakes us the moment the child exits (``Popen.wait(timeout)`` polls with
    sleeps that grow to 50 ms)."""
    if fd is None:
        try:
            proc.wait(timeout=max(timeout, 0))
        except subprocess.TimeoutExpired:
            return False
        return True
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        ready = sel.select(max(timeout, 0))
    return bool(ready) or proc.poll() is not None


def _wait(proc: subprocess.Popen[bytes], command: Command) -> str:
    """Wait for ``proc``: "exited", "timeout" (its deadline passed) or "lingered" (it did
    its work, ``command.settled``, but did not exit within ``command.grace``)."""
    if command.timeout is None and command.settled is None:
        proc.wait()
        return "exited"
    try:
        fd: int | None = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux >= 5.3, or the child is already reaped
        fd = None
    try:
        now = time.monotonic()
        deadline = now + command.timeout if command.timeout is not None else None
        quit_at: float | None = None  # when the grace after ``settled`` ends
        while True:
            ends = [t for t in (deadline, quit_at) if t is not None]
            wait = min(ends) - now if ends else SETTLED_POLL
            if command.settled is not None and quit_at is None:
                wait = min(wait, SETTLED_POLL)
            if _exited(proc, fd, wait):
                proc.wait()
                return "exited"
            now = time.monotonic()
            if ends and now >= min(ends):
                return "lingered" if min(ends) == quit_at else "timeout"
            if quit_at is None and command.settled is not None and command.settled():
                quit_at = now + command.grace
    finally:
        if fd is not None:
            os.close(fd)


#: every run of this process still going (for the reaper: one started again learns of them)
_active_lock = threading.Lock()
_active: dict[int, str] = {}


#: the reaper is started with the Popen of import time: a test that wraps
#: ``subprocess.Popen`` to watch how a run starts sees the run's process, not the reaper
_spawn = subprocess.Popen


class _Reaper:
    """This process's link to its reaper (:mod:`truegreen.run._reaper`), started at the
    first run: it is told of every run that starts and ends, and kills the runs still
    going when this process is gone. Best effort: when it cannot be started (no usable
    ``sys.executable``), runs are supervised as before, without it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner = 0  # the pid that started it (a forked child starts its own)
        self._failed = 0  # the pid for which it could not be started
        self._inherited: list[subprocess.Popen[bytes]] = []  # a forked child's parent's

    def _start(self) -> subprocess.Popen[bytes] | None:
        import sys

        if not sys.executable or self._failed == os.getpid():
            return None
        try:
            proc = _spawn(
                [sys.executable, "-I", "-S", _reaper.__file__],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                env={},  # it carries nothing of the caller's (a test's process tag, say)
                start_new_session=True,  # a kill of our process group spares it
                close_fds=True,
            )
        except (OSError, ValueError):
            self._failed = os.getpid()
            return None
        self._proc, self._owner = proc, os.getpid()
        assert proc.stdin is not None
        # never wait on it: a line it cannot take now is lost, not worth a hung truegreen
        os.set_blocking(proc.stdin.fileno(), False)
        # a reaper started again (the first one died) learns of the runs still going
        with _active_lock:
            running = list(_active.items())
        for pgid, marker in running:
            self._write(f"+ {marker}\n")
            self._write(_group_line(marker, pgid))
        return proc

    def _write(self, line: str) -> None:
        """One line (under PIPE_BUF bytes: written whole or not at all)."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        try:
            os.write(proc.stdin.fileno(), line.encode("ascii"))
        except BlockingIOError:
            pass  # its pipe is full (it is stopped?): this line is lost
        except (OSError, ValueError):  # it died: the next run starts another one
            self._proc = None

    def tell(self, text: str) -> None:
        with self._lock:
            if self._proc is None or self._owner != os.getpid() or self._proc.poll() is not None:
                self._proc = None
                if self._start() is None:
                    return
            self._write(text)

    def forget(self) -> None:
        """In a forked child: close the inherited end of the parent's pipe (or the parent's
        reaper would wait for this process too before it noticed the parent is gone). The
        parent's Popen is kept, unused: collected, it would warn of a process still running."""
        proc = self._proc
        self._proc = None
        if proc is not None and proc.stdin is not None:
            self._inherited.append(proc)
            with contextlib.suppress(OSError):
                proc.stdin.close()


def kill_child(pid: int) -> None:
    """Kill this process's child ``pid`` and every process it started, and reap it: the
    processes descending from it are found first (once it is dead they are init's), then
    it, they and their process groups (a run's own) are killed. Its reaper, if it
    started one, is left to do what it does when its truegreen is gone: kill the runs it
    was told of (a process that left both the group and the tree carries their marker),
    then exit."""
    import signal

    found = _reaper.find((), (pid,))
    me = os.getpgid(0)
    groups: set[int] = set()
    for p in found:
        with contextlib.suppress(OSError):
            if p != pid and os.getpgid(p) == p and p != me:
                groups.add(p)
    watchers = {p for p in found if _reaper.__file__ in _reaper.command_line(p)}
    for p in [pid, *found]:
        if p not in watchers:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)
    for g in groups - watchers:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(g, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _group_line(marker: str, pid: int) -> str:
    """The reaper's line for a run's group: its first process's pid and start time."""
    return f"g {marker} {pid} {_reaper.start_time(pid) or 0}\n"


_reaper_link = _Reaper()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reaper_link.forget)


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


class SubprocessExecutor:
    """The real executor. See the module docstring for what it guarantees."""

    def __init__(
        self,
        *,
        on_start: Callable[[int], None] | None = None,
        cancel: Cancellation | None = None,
    ) -> None:
        self._on_start = on_start
        self._cancel = cancel

    def with_cancel(self, cancel: Cancellation) -> SubprocessExecutor:
        """This executor for one call: its trees registered with ``cancel``."""
        return SubprocessExecutor(on_start=self._on_start, cancel=cancel)

    def run(self, command: Command) -> Completed:
        argv = tuple(str(a) for a in command.argv)
        if not argv:
            raise ExecutionError("empty command")
        token = self._cancel if command.cancellable else None
        if token is not None:
            token.check()
        marker = uuid.uuid4().hex
        env = dict(command.env)
        env[MARKER_VAR] = marker
        start = time.monotonic()
        _reaper_link.tell(f"+ {marker}\n")  # before it starts: truegreen may die at any time
        try:
            proc = _start(argv, command, env)
        except BaseException:
            _reaper_link.tell(f"- {marker}\n")
            raise
        _reaper_link.tell(_group_line(marker, proc.pid))
        registered = False
        readers: list[_BoundedReader] = []
        ended = "exited"
        try:
            with _active_lock:
                _active[proc.pid] = marker
            if token is not None:
                registered = token._register(proc.pid, marker)
                if not registered:
                    # cancelled while it was starting: cancel() looked at the token's trees
                    # before this one was among them, and nobody else would stop it
                    raise ExecutionCancelled("cancelled")
            if self._on_start is not None:
                self._on_start(proc.pid)
            readers = [
                _BoundedReader(proc.stdout, command.capture_limit),
                _BoundedReader(proc.stderr, command.capture_limit),
            ]
            for reader in readers:
                reader.start()
            if command.stdin is not None and proc.stdin is not None:
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.write(command.stdin)
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.close()
            ended = _wait(proc, command)
        except BaseException:
            # Ctrl-C (also one that lands while the run registers), a cancel, or anything
            # else: nothing of the run may survive us.
            kill_tree(proc.pid, marker)
            proc.wait()
            if not readers:
                _close_pipes(proc)
            raise
        finally:
            # The child is gone (or timed out, or lingered); kill whatever it left behind,
            # which also closes the pipes that orphans were holding open.
            kill_tree(proc.pid, marker)
            self._forget(proc.pid, marker)
            if registered and token is not None:
                token._release(proc.pid)
        out, err = readers
        proc.wait()
        out.join(timeout=5)
        err.join(timeout=5)
        _close_pipes(proc)
        if token is not None:
            # killed by cancel() (or cancelled while it ran): what it did is no result
            token.check()
        return Completed(
            argv=argv,
            returncode=proc.returncode,
            stdout=out.text(),
            stderr=err.text(),
            duration=time.monotonic() - start,
            timed_out=ended == "timeout",
            stdout_dropped=out.dropped,
            stderr_dropped=err.dropped,
            lingered=ended == "lingered",
            stdout_bytes=out.data() if command.binary else None,
        )

    @staticmethod
    def _forget(pid: int, marker: str) -> None:
        """The run's tree is dead (and its first process not yet reaped, so its pid is
        not anyone else's): no one needs to kill it any more."""
        with _active_lock:
            _active.pop(pid, None)
        _reaper_link.tell(f"- {marker}\n")


def _start(argv: tuple[str, ...], command: Command, env: dict[str, str]) -> subprocess.Popen[bytes]:
    spawned = argv
    if command.nice and (nice := _nice_program()) is not None:
        # (``nice`` sets its niceness and execs the program: everything it starts inherits
        # it, a sandbox's children included, and the pid is the program's)
        spawned = (nice, "-n", str(command.nice), *argv)
    try:
        return subprocess.Popen(
            spawned,
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


@functools.cache
def _nice_program() -> str | None:
    return shutil.which("nice")


class FakeExecutor:
    """An executor for tests: ``handler(command) -> Completed``; records every command.

    Bound to a :class:`Cancellation` (:func:`bound`), it raises
    :class:`ExecutionCancelled` for a cancellable command once that is cancelled, as the
    real one does; the copy shares the handler and the list of commands."""

    def __init__(
        self, handler: Callable[[Command], Completed], *, cancel: Cancellation | None = None
    ) -> None:
        self._handler = handler
        self._cancel = cancel
        self.commands: list[Command] = []

    def with_cancel(self, cancel: Cancellation) -> FakeExecutor:
        fake = FakeExecutor(self._handler, cancel=cancel)
        fake.commands = self.commands
        return fake

    def run(self, command: Command) -> Completed:
        if self._cancel is not None and command.cancellable:
            self._cancel.check()
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
    return "check the path (for the project's interpreter: the one of its environment)"
