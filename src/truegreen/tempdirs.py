"""truegreen's temporary directories: named after the process that made them, and removed
by a later truegreen process once that one is gone.

A run cleans up after itself (``finally``, also on Ctrl-C), but a process killed with
SIGKILL (a CI runner's cancel, the OOM killer) cleans up nothing: its worktrees and probe
directories would stay in the temp dir for ever. So every directory truegreen makes there
is named ``<prefix><owner>-<random>``, the owner being ``p<pid>.<start>.<pidns>``: the
pid, its start time (in clock ticks since boot, from /proc: a pid used again by another
process does not pass for the owner) and its pid namespace (a temp dir shared with a
container: a pid of another namespace says nothing here). :func:`make` removes, once per
process, the directories of owners that are gone (:func:`sweep`); a directory whose owner
is alive, or cannot be told, is never touched. The name, not a file inside, says who owns
it: the tests under a sandbox may write in some of these directories, never rename them.

Cost: one listing of the temp dir and a read of /proc/<pid>/stat per truegreen directory
found, once per process, when it first makes a directory (not at the CLI's start).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from truegreen.run._reaper import stat_fields

PREFIX = "truegreen-"

#: ``<prefix>p<pid>.<start>.<pidns>-<mkdtemp's random part>``
_OWNED = re.compile(r"-p(\d+)\.([0-9a-f]+)\.([0-9a-f]+)-[a-z0-9_]+$")

_lock = threading.Lock()
_swept: set[tuple[int, str]] = set()  # (pid, temp dir) already swept by this process


def _start_time(pid: int) -> int | None:
    """The start time of a live process (clock ticks since boot); None when it is gone or
    a zombie, 0 when this system has no /proc to tell it."""
    if not os.path.isdir("/proc/self"):
        return _exists(pid)
    fields = stat_fields(pid)
    if fields is None or len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None
    return int(fields[19])


def _exists(pid: int) -> int | None:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass  # someone else's: it exists
    return 0


def _pid_namespace() -> int:
    try:
        link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
    except OSError:
        return 0
    digits = re.sub(r"\D", "", link)
    return int(digits) if digits else 0


_owners: dict[int, str] = {}


def owner() -> str:
    """This process as the owner part of a directory's name."""
    pid = os.getpid()
    if pid not in _owners:  # a forked child is an owner of its own
        _owners[pid] = f"p{pid}.{_start_time(pid) or 0:x}.{_pid_namespace():x}"
    return _owners[pid]


def make(prefix: str = PREFIX) -> Path:
    """A new directory in the temp dir, named after this process (``prefix`` starts with
    ``truegreen-``); the first call of a process removes the dead owners' first."""
    if not prefix.startswith(PREFIX):
        raise ValueError(f"a truegreen temp dir's prefix starts with {PREFIX!r}: {prefix!r}")
    tmp = tempfile.gettempdir()
    key = (os.getpid(), tmp)
    with _lock:
        first = key not in _swept
        _swept.add(key)
    if first:
        sweep(Path(tmp))
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{owner()}-"))


def stale(name: str) -> bool:
    """Whether ``name`` is a truegreen directory's name whose owner is gone (not one of
    another pid namespace, not one whose owner cannot be told)."""
    if not name.startswith(PREFIX):
        return False
    m = _OWNED.search(name)
    if m is None:
        return False
    pid, start, ns = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
    if ns != _pid_namespace():
        return False
    now = _start_time(pid)
    return now is None or (start != 0 and now != 0 and now != start)


def remove_own(tmp: Path | None = None) -> list[Path]:
    """Remove this process's own directories (a process giving up its work at once, whose
    ``finally`` clauses will not run: the Claude Code hook at its deadline, before it
    exits); the ones removed. Those of other processes, live or dead, are left alone."""
    mine = f"-{owner()}-"
    return _remove(tmp, lambda name: mine in name)


def sweep(tmp: Path | None = None) -> list[Path]:
    """Remove the truegreen directories of owners that are gone; the ones removed."""
    return _remove(tmp, stale)


def _remove(tmp: Path | None, which: Callable[[str], bool]) -> list[Path]:
    """Remove the truegreen directories in ``tmp`` (default: the system's temp dir) whose
    names ``which`` picks; the ones removed."""
    where = tmp or Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    for entry in entries:
        if entry.name.startswith(PREFIX) and which(entry.name):
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                    removed.append(Path(entry.path))
    return removed
    for entry in entries:
        if entry.name.startswith(PREFIX) and stale(entry.name):
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                    removed.append(Path(entry.path))
    return removed
