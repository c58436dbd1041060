"""Hostile tests, run for real: fixture projects under bwrap (and, for contrast, none).

Each fixture project is a small pytest suite that tries one thing it must not be able
to do. The outer test checks the host afterwards: nothing reached, nothing written,
nothing left running.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import write_files
from tests.sandbox.conftest import pids_with, run_suite
from truegreen.sandbox import Limits
from truegreen.sandbox.blocked import classify

pytestmark = pytest.mark.bwrap


@pytest.fixture
def loopback_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that answers b"pong" to every connection."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"pong")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.getsockname()[1]
    stop.set()
    thread.join(timeout=2)
    srv.close()


NET_TEST = """
import os, socket
def test_reach_loopback_server():
    s = socket.create_connection(("127.0.0.1", int(os.environ["TG_PORT"])), timeout=3)
    assert s.recv(4) == b"pong"
"""


@pytest.mark.slow
def test_loopback_server_reachable_outside_not_inside(tmp_path, loopback_server, bwrap):
    root = tmp_path / "net"
    write_files(root, {"tests/test_net.py": NET_TEST})
    env = {"TG_PORT": str(loopback_server)}
    outside = run_suite(root, "none", env=env)
    assert outside.returncode == 0, outside.stdout + outside.stderr
    inside = run_suite(root, "bwrap", env=env)
    assert inside.returncode == 1, inside.stdout + inside.stderr
    assert "ConnectionRefusedError" in inside.stdout or "unreachable" in inside.stdout
    assert classify("ConnectionRefusedError", "[Errno 111] Connection refused") == (
        "sandbox.blocked_network"
    )
    # DNS does not work either (no resolv.conf, no network).
    write_files(
        root,
        {
            "tests/test_net.py": """
        import socket
        def test_dns():
            socket.getaddrinfo("pypi.org", 443)
        """
        },
    )
    inside = run_suite(root, "bwrap")
    assert inside.returncode == 1
    assert "gaierror" in inside.stdout


WRITE_TEST = """
import os
import sys
from pathlib import Path

TARGETS = [os.environ["TG_REAL_HOME"], os.environ["TG_OUTSIDE"], "/usr", "/etc", "/"]

def test_try_writes():
    results = {}
    for target in TARGETS:
        path = Path(target) / ("tg-canary-" + os.environ["TG_CANARY"])
        try:
            path.write_text("pwned")
            results[target] = "written"
        except OSError as exc:
            results[target] = type(exc).__name__ + ": " + str(exc)
    # ~ inside is the private /tmp: writing there is allowed and vanishes with the run
    Path(os.path.expanduser("~"), "tg-home-file").write_text("ok")
    print("RESULTS", results)
    assert all(v != "written" for v in results.values()), results
"""


@pytest.mark.parametrize("private", [False, True], ids=["worktree-0755", "worktree-0700"])
def test_writes_to_home_and_outside_the_worktree_fail(tmp_path, bwrap, canary, private):
    """Both identities: a 0700 worktree (uid 65534 cannot read it) takes the user-namespace
    fallback as root; the writes must fail there too."""
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "w"
    write_files(root, {"tests/test_w.py": WRITE_TEST})
    if private:
        root.chmod(0o700)
    real_home = Path(os.path.expanduser("~"))
    env = {"TG_REAL_HOME": str(real_home), "TG_OUTSIDE": str(outside), "TG_CANARY": canary}
    done = run_suite(root, "bwrap", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    for target in (real_home, outside, Path("/usr"), Path("/etc"), Path("/")):
        assert not (target / f"tg-canary-{canary}").exists(), target
    assert not (real_home / "tg-home-file").exists() or (real_home / "tg-home-file").stat()
    assert "Read-only file system" in done.stdout or "Permission denied" in done.stdout
    assert classify("OSError", "[Errno 30] Read-only file system: '/usr/x'") == (
        "sandbox.blocked_write"
    )


@pytest.mark.slow
def test_granted_worktree_is_writable_the_host_sees_it_and_git_still_works(tmp_path, bwrap):
    from tests.conftest import git

    root = tmp_path / "wt"
    write_files(
        root,
        {
            "tests/test_out.py": """
        from pathlib import Path
        def test_write_in_worktree(tmp_path):
            Path("out.txt").write_text("from inside")
            Path("tests/test_out.py").open("a").write("# touched")
            (tmp_path / "scratch").write_text("private tmp")
        """
        },
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    # Without the grant a root-owned worktree is read-only in effect for uid 65534.
    denied = run_suite(root, "bwrap")
    if os.geteuid() == 0:
        assert denied.returncode == 1 and "Permission denied" in denied.stdout
    done = run_suite(root, "bwrap", grant_workdir=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "out.txt").read_text() == "from inside"
    assert root.stat().st_uid == os.geteuid()
    status = git(root, "status", "--porcelain")
    assert {line.strip() for line in status.splitlines()} == {"M tests/test_out.py", "?? out.txt"}


SECRETS = {
    "GITHUB_TOKEN": "ghp_secret",
    "AWS_SECRET_ACCESS_KEY": "aws_secret",
    "AWS_ACCESS_KEY_ID": "AKIA",
    "MY_SERVICE_PASSWORD": "hunter2",
    "OPENAI_API_KEY": "sk-secret",
    "NPM_TOKEN": "npm",
}


@pytest.mark.parametrize("private", [False, True], ids=["worktree-0755", "worktree-0700"])
def test_environment_secrets_are_absent_inside(tmp_path, bwrap, monkeypatch, private):
    for key, value in SECRETS.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "env"
    write_files(
        root,
        {
            "tests/test_env.py": """
        import os
        def test_env():
            print("ENV", sorted(os.environ))
            leaked = [v for v in os.environ.values() if v in ("ghp_secret", "aws_secret", "hunter2", "sk-secret", "npm", "AKIA")]
            assert not leaked, leaked
            assert os.environ["HOME"] == "/tmp"
            assert os.getuid() == 65534 and os.getgid() == 65534
            status = open("/proc/self/status").read()
            caps = {l.split(":")[0]: l.split()[1] for l in status.splitlines() if l.startswith("Cap")}
            assert set(caps.values()) == {"0000000000000000"}, caps
            assert "NoNewPrivs:\\t1" in status
            assert not os.path.exists(os.path.expanduser("~/.ssh"))
            assert not os.path.exists("/root/.ssh") and not os.path.exists("/var/run/docker.sock")
        """
        },
    )
    if private:
        root.chmod(0o700)
    # Worst case: the caller handed the backend its whole environment.
    done = run_suite(root, "bwrap", env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TRUEGREEN_RUN_MARKER" in done.stdout  # the executor's marker reaches inside


@pytest.mark.slow
def test_fork_bomb_is_contained(tmp_path, bwrap, canary):
    root = tmp_path / "bomb"
    write_files(
        root,
        {
            "tests/test_bomb.py": """
        import os, time
        def test_bomb():
            deadline = time.monotonic() + 3
            failures = 0
            while time.monotonic() < deadline:
                try:
                    os.fork()          # parent and child both keep forking
                except OSError:
                    failures += 1
                    time.sleep(0.01)
            os._exit(0 if failures else 3)
        """
        },
    )
    done = run_suite(
        root, "bwrap", env={"TG_CANARY": canary}, timeout=30, limits=Limits(processes=64)
    )
    assert not done.timed_out  # it ended by itself (the bomb stops after 3 s)
    assert done.returncode == 0, done.stdout + done.stderr  # 0: forks were refused
    assert not pids_with(canary)


def test_memory_hog_is_contained(tmp_path, bwrap):
    root = tmp_path / "mem"
    write_files(
        root,
        {
            "tests/test_mem.py": """
        def test_hog():
            blob = bytearray(2 * 1024**3)
            assert len(blob)
        """
        },
    )
    done = run_suite(root, "bwrap", limits=Limits(memory_bytes=512 * 1024**2))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "MemoryError" in done.stdout
    assert classify("MemoryError", "") == "sandbox.resource_limit"


@pytest.mark.slow
def test_cpu_and_file_size_limits(tmp_path, bwrap):
    root = tmp_path / "lim"
    write_files(
        root,
        {
            "tests/test_fsize.py": """
        def test_big_file(tmp_path):
            (tmp_path / "big").write_bytes(b"x" * (4 * 1024**2))
        """,
            "tests/test_spin.py": """
        def test_spin():
            while True:
                pass
        """,
        },
    )
    done = run_suite(root, "bwrap", "tests/test_fsize.py", limits=Limits(file_size_bytes=1024**2))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "File too large" in done.stdout
    assert classify("OSError", "[Errno 27] File too large") == "sandbox.resource_limit"
    start = time.monotonic()
    spin = run_suite(root, "bwrap", "tests/test_spin.py", timeout=30, limits=Limits(cpu_seconds=1))
    assert not spin.timed_out and spin.returncode != 0
    assert time.monotonic() - start < 25


@pytest.mark.slow
def test_sleep_forever_with_forked_children_is_killed_at_the_deadline(tmp_path, bwrap, canary):
    root = tmp_path / "hang"
    write_files(
        root,
        {
            "tests/test_hang.py": """
        import os, sys, time
        def test_hang():
            token = os.environ["TG_CANARY"]
            for _ in range(3):
                if os.fork() == 0:
                    os.setsid()                      # escape the process group
                    if os.fork() == 0:               # double fork: reparented
                        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(10**6)", token])
                    os._exit(0)
            print("children started", flush=True)
            time.sleep(10**6)
        """
        },
    )
    start = time.monotonic()
    done = run_suite(root, "bwrap", env={"TG_CANARY": canary}, timeout=6)
    assert done.timed_out
    assert "children started" in done.stdout
    assert time.monotonic() - start < 20
    # the canary fixture asserts that no process carrying the token is left


@pytest.mark.slow
def test_runner_integration_outcomes_and_blocked_reason(tmp_path, bwrap, loopback_server):
    """The real runner with sandbox="bwrap": outcomes come back through the probe, and
    the network failure is recognised as the sandbox's doing."""
    from truegreen.run.interpreter import resolve
    from truegreen.run.pytest_run import PytestRequest, run_pytest

    root = tmp_path / "proj"
    write_files(
        root,
        {
            "tests/test_mix.py": """
        import os, socket
        def test_ok():
            assert os.getuid() == 65534
        def test_net():
            socket.create_connection(("127.0.0.1", int(os.environ["TG_PORT"])), timeout=3)
        def test_plain_failure():
            assert 1 == 2
        """
        },
    )
    interp = resolve(str(sys.executable), root)
    request = PytestRequest(
        repo=root,
        interpreter=interp,
        timeout=60,
        sandbox="bwrap",
        env={"TG_PORT": str(loopback_server)},
    )
    run = run_pytest(request)
    got = {t.id.split("::")[-1]: t for t in run.tests}
    assert run.complete
    assert {k: t.outcome for k, t in got.items()} == {
        "test_ok": "passed",
        "test_net": "failed",
        "test_plain_failure": "failed",
    }
    net = got["test_net"]
    assert classify(net.exc_type or "", net.message or "") == "sandbox.blocked_network"
    plain = got["test_plain_failure"]
    assert classify(plain.exc_type or "", plain.message or "") is None


NON_ROOT_CHECK = """
import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
status = open("/proc/self/status").read()
print("uid", os.getuid(), "capeff", status.split("CapEff:")[1].split()[0])
print("nested userns", libc.unshare(0x10000000))  # CLONE_NEWUSER
procs = []
try:
    for _ in range(100):
        procs.append(subprocess.Popen(["sleep", "3"]))
except OSError as exc:
    print("fork refused", exc.errno)
for p in procs:
    p.kill()
print("spawned", len(procs))
"""


def test_non_root_identity_user_namespace(tmp_path, bwrap):
    """truegreen run by an ordinary user: the user-namespace identity. Simulated here by
    starting the wrapped command as uid 1000 (needs root to switch)."""
    import shutil
    from dataclasses import replace

    from truegreen.run.executor import Command, SubprocessExecutor
    from truegreen.sandbox import SandboxSpec
    from truegreen.sandbox.bwrap import BwrapBackend

    system_python = Path("/usr/bin/python3")
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or not system_python.exists():
        pytest.skip("needs root, setpriv and /usr/bin/python3 to act as another user")
    work = Path(tempfile.gettempdir()) / f"tg-nonroot-{os.getpid()}"
    work.mkdir(mode=0o755, exist_ok=True)
    try:
        backend = BwrapBackend(as_root=False)
        command = Command(
            [str(system_python), "-c", NON_ROOT_CHECK],
            cwd=work,
            env={"PATH": "/usr/bin:/bin"},
            timeout=30,
        )
        spec = SandboxSpec(workdir=work, python=system_python, limits=Limits(processes=40))
        wrapped = backend.wrap(command, spec)
        as_user = [setpriv, "--reuid=1000", "--regid=1000", "--clear-groups", "--"]
        done = SubprocessExecutor().run(replace(wrapped, argv=(*as_user, *wrapped.argv)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "uid 65534 capeff 0000000000000000" in done.stdout
    assert "nested userns -1" in done.stdout
    assert "fork refused 11" in done.stdout
