"""Nothing of a run outlives it: not a child that hides from its process group and its
marker, not a process that has done its work but never exits, and nothing at all when the
process supervising the run (truegreen) is killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.sandbox.conftest import require_bwrap
from truegreen.run import _reaper
from truegreen.run.executor import Command, SubprocessExecutor

PY = sys.executable

#: forks a child that leaves the process group (setsid) and drops its environment (the run
#: marker with it): only its parentage links it to the run; writes the child's pid to
#: argv[1] and waits for ever (as a pytest process waits on the workers it forked)
HIDER = textwrap.dedent(
    """
    import os, sys, time
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.execve("/bin/sleep", ["sleep", "600"], {})
    with open(sys.argv[1] + ".tmp", "w") as fh:
        fh.write(str(pid))
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(600)
    """
)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def gone_within(pids: list[int], seconds: float) -> list[int]:
    """The processes of ``pids`` still alive after ``seconds`` (polled)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(alive(p) for p in pids):
            return []
        time.sleep(0.02)
    return [p for p in pids if alive(p)]


def wait_for(path: Path, proc: subprocess.Popen[bytes], seconds: float = 60) -> str:
    end = time.monotonic() + seconds
    while not path.exists():
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            _, err = proc.communicate()
            raise AssertionError(f"{path} was never written: {err.decode()}")
        time.sleep(0.02)
    return path.read_text()


def test_a_child_that_left_the_group_and_dropped_the_marker_is_killed_at_the_deadline(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "hidden.pid"
    done = SubprocessExecutor().run(
        Command([PY, "-c", HIDER, str(pidfile)], cwd=tmp_path, env={}, timeout=3)
    )
    assert done.timed_out
    hidden = int(pidfile.read_text())
    assert gone_within([hidden], 2) == []


def test_a_process_that_did_its_work_but_never_exits_is_ended_after_the_grace(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "hidden.pid"
    start = time.monotonic()
    done = SubprocessExecutor().run(
        Command(
            [PY, "-c", HIDER, str(pidfile)],
            cwd=tmp_path,
            env={},
            timeout=120,
            settled=pidfile.exists,
            grace=0.5,
        )
    )
    assert done.lingered and not done.timed_out
    assert done.signal == signal.SIGKILL
    assert time.monotonic() - start < 30  # the grace, not the deadline
    assert gone_within([int(pidfile.read_text())], 2) == []


def test_a_process_that_exits_within_the_grace_is_not_ended(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    code = f"open({str(flag)!r}, 'w').close(); import time; time.sleep(0.3)"
    done = SubprocessExecutor().run(
        Command([PY, "-c", code], cwd=tmp_path, env={}, timeout=60, settled=flag.exists, grace=5)
    )
    assert done.returncode == 0 and not done.lingered and not done.timed_out
    assert done.duration < 5


#: "truegreen": supervises HIDER through the real executor, optionally sandboxed
SUPERVISOR = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from truegreen.run.executor import Command, SubprocessExecutor
    from truegreen.sandbox import SandboxSpec, get_backend

    hider, pidfile, sandbox = sys.argv[1:4]
    command = Command([sys.executable, "-c", hider, pidfile], cwd=Path(pidfile).parent,
                      env={"PATH": "/usr/bin:/bin"}, timeout=600)
    spec = SandboxSpec(workdir=Path(pidfile).parent, python=Path(sys.executable),
                       grant_workdir=True)
    SubprocessExecutor().run(get_backend(sandbox).wrap(command, spec))
    """
)


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_nothing_of_a_run_outlives_a_supervisor_killed_with_sigkill(
    tmp_path: Path, sandbox: str
) -> None:
    if sandbox == "bwrap":
        require_bwrap()
    work = tmp_path / "work"
    work.mkdir()
    pidfile = work / "hidden.pid"
    supervisor = subprocess.Popen(
        [PY, "-c", SUPERVISOR, HIDER, str(pidfile), sandbox],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        hidden = int(wait_for(pidfile, supervisor))  # a pid in the sandbox's namespace under bwrap
        run = [p for p in _children(supervisor.pid) if alive(p)]
        assert run, "the supervised run is not running"
        tree = _descendants(run)
        if sandbox == "none":
            assert hidden in tree  # the hidden child is the one of the tree found by pid
        supervisor.kill()
        supervisor.wait(timeout=10)
        left = gone_within(tree, 5)
        assert left == [], [Path(f"/proc/{p}/cmdline").read_bytes() for p in left]
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
        supervisor.wait()
        assert supervisor.stderr is not None
        supervisor.stderr.close()


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(name))
    return found


def _descendants(roots: list[int]) -> list[int]:
    found, todo = list(roots), list(roots)
    while todo:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def _reaper_told(lines: str) -> None:
    """Start a reaper, tell it ``lines``, end its pipe (as a dying truegreen does) and
    wait for it to do its work."""
    reaper = subprocess.Popen([PY, "-I", "-S", _reaper.__file__], stdin=subprocess.PIPE)
    reaper.communicate(lines.encode(), timeout=30)


@pytest.mark.parametrize("same_start", [True, False])
def test_the_reaper_kills_a_registered_group_only_while_its_pid_is_the_runs(
    same_start: bool,
) -> None:
    """A run's group is killed when truegreen is gone; a pid used again by a process
    started later (the run's group long gone) is someone else's and is left alone."""
    other = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        start = _reaper.start_time(other.pid)
        assert start is not None
        told = start if same_start else start - 1
        _reaper_told(f"+ m1\ng m1 {other.pid} {told}\n+ m2\n- m2\n")
        assert (other.wait(timeout=5) == -signal.SIGKILL) if same_start else other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_the_reaper_reads_what_truegreen_tells_it() -> None:
    runs: dict[str, tuple[int, int] | None] = {}
    lines = [b"+ a\n", b"g a 12 34\n", b"+ b\n", b"- b\n", b"+ c\n", b"g c x 1\n", b"junk\n"]
    _reaper._watch(lines, runs)
    assert runs == {"a": (12, 34), "c": None}


FORKS = textwrap.dedent(
    """
    import os, time
    from pathlib import Path
    from truegreen.run.executor import Command, SubprocessExecutor, _reaper_link
    SubprocessExecutor().run(Command(["/bin/true"], cwd=Path("/")))
    print(_reaper_link._proc.pid, flush=True)
    if os.fork() == 0:  # a child that outlives this process (not holding its output)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        time.sleep(30)
        os._exit(0)
    """
)


def test_a_forked_child_does_not_keep_the_reaper_waiting() -> None:
    """The reaper notices its truegreen is gone when the pipe ends: a forked child of
    truegreen must not hold the pipe open."""
    done = subprocess.run([PY, "-W", "error", "-c", FORKS], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert gone_within([int(done.stdout)], 5) == []


#: a truegreen process doing a call's work: a run (in a session of its own) of HIDER,
#: whose child hides from the run's group and marker; argv[1]: where HIDER writes its pid
WORKER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from truegreen.run.executor import Command, SubprocessExecutor
    SubprocessExecutor().run(Command(
        argv=[sys.executable, "-c", sys.argv[2], sys.argv[1]], cwd=Path.cwd(), timeout=60,
        env=dict(os.environ),
    ))
    """
)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="reads /proc")
def test_a_child_doing_a_calls_work_is_ended_with_every_process_it_started(
    tmp_path: Path,
) -> None:
    from truegreen.run.executor import kill_child

    hidden = tmp_path / "hidden.pid"
    proc = subprocess.Popen([PY, "-c", WORKER, str(hidden), HIDER], cwd=tmp_path)
    grandchild = int(wait_for(hidden, proc))
    found = _reaper.find((), (proc.pid,))
    # the run's process, its hider, the worker's reaper
    assert grandchild in found and len(found) >= 3
    kill_child(proc.pid)
    # reaped here: no zombie of it is left either
    with pytest.raises(ChildProcessError):
        os.waitpid(proc.pid, os.WNOHANG)
    proc.wait(timeout=5)  # Popen learns it is gone (reaped already)
    assert gone_within(found, 2.0) == []
