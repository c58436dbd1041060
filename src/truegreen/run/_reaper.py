"""Finding and killing what a run started, and the watcher that does it when truegreen dies.

This module is standard library only, and runs on its own as ``python -I -S _reaper.py``
(the executor imports it too, for :func:`kill_tree`).

**Killing a run's tree.** :func:`kill_tree` kills, until none is left, every process that
is in the run's process group, descends from its first process (while that one lives:
one that exited handed its children to init), or carries the run's marker
(``TRUEGREEN_RUN_MARKER=<uuid>``) in its environment. Each net catches what the others
miss: a child that called ``setsid()`` leaves the group but keeps the marker and its
parent; one that cleared its environment (or had it overwritten by ``setproctitle``)
keeps its group or its parent; an orphan of a dead parent keeps the marker.

**The watcher ("reaper").** The executor starts one per truegreen process, before its
first child, in a session of its own, with the read end of a pipe as its stdin; only
truegreen holds the write end (close-on-exec, and children are started with
``close_fds``). truegreen writes one line per event::

    + MARKER          a run with this marker is about to start
    g MARKER PGID T   its process group (the pid of its first process) and that
                      process's start time (a pid used again later is not the run's)
    - MARKER          the run is over, and its tree was killed

When the pipe ends, truegreen is gone: it exited, or it was killed (SIGKILL from a CI
runner's cancel, the OOM killer, a worker's hard time limit), and nothing of its own
could clean up. The reaper then kills the tree of every run still registered and exits.
SIGTERM does the same. Measured (Linux 6.18, two shared cores under load): a pytest run
with forked workers, its supervisor killed with SIGKILL, was gone 10 to 40 ms later (8
tries, sandboxed or not); without the reaper, unsandboxed, its workers were still there
5 s later (under bwrap, ``--die-with-parent`` and the pid namespace already did it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable

#: The environment variable that marks every process of one run.
MARKER_VAR = "TRUEGREEN_RUN_MARKER"

#: rounds of kill-and-look-again before :func:`kill_tree` gives up (a fork bomb that
#: outpaces the kills; the sandbox's process limit bounds those)
ROUNDS = 50
PAUSE = 0.02


def _read(path: str) -> bytes:
    """The whole of a /proc file (b"" when it cannot be read: gone, or not ours to read)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/PID/stat from the third on (state, ppid, pgrp, ...: index 0 is
    field 3); None when there is no such process."""
    raw = _read(f"/proc/{pid}/stat")
    if not raw:
        return None
    # the command name (field 2) is in parentheses and may hold spaces or ")"
    return raw[raw.rfind(b")") + 2 :].split()


def command_line(pid: int) -> str:
    """The command line of process ``pid``, its arguments joined by spaces ("" when it
    is gone or cannot be read)."""
    return _read(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode("utf-8", "replace")


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), a zombie too; None when
    there is no such process (or no /proc)."""
    fields = stat_fields(pid)
    return int(fields[19]) if fields is not None and len(fields) > 19 else None


def _parent(pid: str) -> int | None:
    """The parent of a live process; None for a zombie or a gone one."""
    fields = stat_fields(pid)
    if fields is None or len(fields) < 2 or fields[0] in (b"Z", b"X"):
        return None
    return int(fields[1])


def _marked(pid: str, entries: set[bytes]) -> bool:
    """Whether the environment of ``pid`` holds one of ``entries`` (NAME=value)."""
    return bool(entries) and not entries.isdisjoint(_read(f"/proc/{pid}/environ").split(b"\0"))


def find(markers: Iterable[str], roots: Iterable[int] = ()) -> list[int]:
    """Live processes (not this one) of the runs: marked with one of ``markers``, or
    descending from one of the ``roots`` that is alive (one that exited already handed
    its children to init: the marker and the process group are the nets left then, and
    the parents of every process are not read). Linux only (/proc); empty elsewhere."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    wanted = {f"{MARKER_VAR}={m}".encode() for m in markers}
    live = [r for r in set(roots) if r != me and _parent(str(r)) is not None]
    if not wanted and not live:
        return []
    found: set[int] = set()
    children: dict[int, list[int]] = {}
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        if live:
            parent = _parent(name)
            if parent is None:
                continue
            children.setdefault(parent, []).append(pid)
        if _marked(name, wanted):
            found.add(pid)
    todo = live
    seen = set(todo)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                found.add(child)
                todo.append(child)
    return sorted(found)


def kill_trees(runs: Iterable[tuple[int | None, str]]) -> None:
    """Kill every process of the runs ``(pgid or None, marker)``: the process group, and
    what :func:`find` finds (the group's first process is the root of the tree); again
    until it finds none."""
    runs = list(runs)
    if not runs:
        return
    groups = [g for g, _ in runs if g]
    markers = [m for _, m in runs]
    for _ in range(ROUNDS):
        # look before killing: a process killed first would hand its children to init,
        # and its descendants could no longer be told from anyone else's
        pids = find(markers, groups)
        for pgid in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not pids:
            return
        time.sleep(PAUSE)


def kill_tree(pgid: int, marker: str | None) -> None:
    """Kill one run's process group, its first process's descendants, and every process
    marked with ``marker``; repeat until none is left."""
    if marker:
        kill_trees([(pgid, marker)])
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _watch(lines: Iterable[bytes], runs: dict[str, tuple[int, int] | None]) -> None:
    """Keep ``runs`` (marker -> (pgid, its first process's start time)) up to date with
    ``lines``, the pipe from truegreen, until it ends."""
    for raw in lines:
        parts = raw.decode("ascii", "replace").split()
        if len(parts) == 2 and parts[0] == "+":
            runs[parts[1]] = None
        elif len(parts) == 4 and parts[0] == "g" and parts[2].isdigit() and parts[3].isdigit():
            runs[parts[1]] = (int(parts[2]), int(parts[3]))
        elif len(parts) == 2 and parts[0] == "-":
            runs.pop(parts[1], None)


def _still_ours(pgid: int, start: int) -> bool:
    """Whether the process group ``pgid`` may still be the run's. Its first process is
    the run's (alive, or a zombie) when it started at ``start``; with no process of that
    pid, a group of that number can only be the run's (a pid stays taken while a group
    of its number exists); a process of that pid started at another time took the
    number after the run's group was gone: never kill that one."""
    now = start_time(pgid)
    return now is None or now == start


def main() -> None:
    # Ctrl-C at a terminal is truegreen's to handle (the reaper is in a session of its
    # own, but be sure); SIGTERM means "stop now": clean up first, as at the pipe's end
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    runs: dict[str, tuple[int, int] | None] = {}

    def stop(_signum: int, _frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        _watch(iter(sys.stdin.buffer.readline, b""), runs)
    finally:
        kill_trees(
            (group[0] if group is not None and _still_ours(*group) else None, marker)
            for marker, group in runs.items()
        )


if __name__ == "__main__":
    main()
