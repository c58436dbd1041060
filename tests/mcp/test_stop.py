"""A stopped MCP server (Ctrl-C, or SIGTERM from a client or a service manager) cancels
the tool call it is running: the call's processes and temporary directories are gone,
and it ends at once with 130 or 143, even though the client keeps its stdin open."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, live_processes_with, write_files


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")],
    ids=["ctrl-c", "sigterm"],
)
def test_a_stopped_server_cancels_its_running_call_and_ends(
    tmp_path: Path, process_tag: str, signum: int, status: int, word: str
) -> None:
    pytest.importorskip("mcp")
    root = tmp_path / "proj"
    write_files(
        root, {"tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(300)\n"}
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "TRUEGREEN_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "truegreen", "mcp", "--repo", str(root),
         "--python", sys.executable, "--sandbox", "none"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    try:
        client = {"name": "t", "version": "1"}
        send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}})  # fmt: skip
        assert json.loads(proc.stdout.readline())["id"] == 1
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {
            "name": "run_tests", "arguments": {"test_ids": ["tests/test_slow.py::test_slow"]}}})  # fmt: skip
        # stop it once the test runs (its process carries the tag), not at a fixed time
        deadline = time.monotonic() + 60
        while not live_processes_with(process_tag) or not list(tmp.glob("truegreen-*")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signum)
        try:
            proc.wait(timeout=60)  # stdin is still open: the server must not wait for it
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the server did not end after {signum!r}") from None
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert proc.returncode == status, err
    assert f"truegreen: {word}; its worktrees and processes were cleaned up" in err
    assert list(tmp.glob(f"truegreen-*-p{proc.pid}.*")) == []
    time.sleep(0.2)
    assert live_processes_with(process_tag) == []
