"""The MCP server with the SDK's own client: in-process (every tool, its errors, a hidden
exam, cancellation) and over stdio (``truegreen mcp`` as a host starts it)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client, StdioServerParameters
from tests.api.conftest import EXAM, EXAM_TEST, FIXED
from tests.conftest import TARGET_PYTHON, git
from truegreen import api
from truegreen.mcp.server import Settings, build

TOOLS = {
    "diagnose_log",
    "run_tests",
    "failure_context",
    "expand_evidence",
    "seal_exam",
    "verify_fix",
    "exam_status",
    "get_fix_task",
}
HIDDEN_MARK = "hidden-marker-8f2c"
HIDDEN = f"from calc import add\n\n\ndef test_add_big():\n    assert add(20, 22) == 42  # {HIDDEN_MARK}\n"
HIDDEN_TEST = "tests/test_hidden.py::test_add_big"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def repo(calc_project: Callable[..., Path]) -> Path:
    """The calc project with its failing exam committed on main."""
    root = calc_project()
    (root / "tests" / "test_exam.py").write_text(EXAM, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the exam")
    return root


def _server(root: Path) -> Any:
    return build(Settings(repo=root, python=str(TARGET_PYTHON), sandbox="none"))


def _error(result: Any) -> str:
    assert result.is_error, result
    return str(result.content[0].text)


@pytest.mark.slow
@pytest.mark.anyio
async def test_every_tool_in_process_from_failure_to_a_verified_fix(repo: Path) -> None:
    progress: list[tuple[float, str | None]] = []

    async def heard(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async with Client(_server(repo), raise_exceptions=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        assert tools["diagnose_log"].output_schema is not None
        assert tools["failure_context"].output_schema["title"] == "Localization"
        assert tools["verify_fix"].output_schema["title"] == "Verification"

        log = f"tests/test_exam.py:5: AssertionError\nFAILED {EXAM_TEST} - assert -1 == 5\n"
        got = await client.call_tool("diagnose_log", {"log_text": log})
        assert got.structured_content["schema"] == "truegreen.diagnosis/1"
        assert got.structured_content["failing_tests"] == [EXAM_TEST]

        got = await client.call_tool("run_tests", {"test_ids": [EXAM_TEST]})
        assert not got.is_error
        assert got.structured_content["tests"][0]["outcome"] == "failed"
        assert "rerun: " in got.content[0].text and "failed: " + EXAM_TEST in got.content[0].text

        got = await client.call_tool(
            "failure_context", {"test_ids": [EXAM_TEST], "budget_tokens": 200},
            progress_callback=heard,
        )  # fmt: skip
        doc = got.structured_content
        assert doc["schema"] == "truegreen.localization/1"
        assert (doc["ranking"][0]["file"], doc["ranking"][0]["line"]) == ("calc.py", 2)
        assert doc["context"]["tokens"] <= 200 + 60  # the required items may pass it a little
        assert doc["budget"]["seconds"] == 30.0
        assert f"context_id: {doc['context_id']}" in got.content[0].text
        assert progress and any("localize" in (m or "") for _, m in progress)
        assert [d for d, _ in progress] == sorted(d for d, _ in progress)

        got = await client.call_tool("expand_evidence", {"handle": "suspect:calc.py:2"})
        assert got.structured_content["kind"] == "suspect"
        assert "return a - b" in got.structured_content["text"]
        assert "def add(a, b):" in got.structured_content["text"]  # the whole function
        got = await client.call_tool("expand_evidence", {"handle": "excerpt"})
        assert "assert" in got.structured_content["text"]

        got = await client.call_tool("seal_exam", {"test_id": EXAM_TEST, "runs": 1})
        exam = got.structured_content
        assert exam["schema"] == "truegreen.fixer-exam/1" and exam["test"] == EXAM_TEST

        got = await client.call_tool("exam_status", {})
        (state,) = got.structured_content["exams"]
        assert state["id"] == exam["id"] and state["open"] is True and state["last"] is None
        assert "no tampering found" in got.structured_content["verified_means"]

        got = await client.call_tool("get_fix_task", {"exam": exam["id"][:12]})
        task = got.structured_content
        assert task["schema"] == "truegreen.fix-task/1"
        assert "calc.py:2" in task["context"]
        assert any("read-only" in rule for rule in task["rules"])

        (repo / "calc.py").write_text(FIXED, encoding="utf-8")
        got = await client.call_tool("verify_fix", {"runs": 1, "strength": False})
        verification = got.structured_content
        assert verification["verdict"] == "verified", got.content[0].text
        assert "'verified' means" in got.content[0].text
        # the user's working tree and index are as the agent left them
        assert git(repo, "status", "--porcelain").strip() == "M calc.py"

        got = await client.call_tool("exam_status", {})
        (state,) = got.structured_content["exams"]
        assert state["open"] is False and state["last"]["verdict"] == "verified"


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_hidden_exam_is_never_revealed(repo: Path, tmp_path: Path) -> None:
    exam_file = tmp_path / "hidden.py"
    exam_file.write_text(HIDDEN, encoding="utf-8")
    sealed = api.seal(
        api.SealRequest(
            repo=repo, python=str(TARGET_PYTHON), sandbox="none", test_id=HIDDEN_TEST,
            test_file=exam_file, runs=1, hidden=True,
        )
    )  # fmt: skip
    said: list[str] = []
    async with Client(_server(repo), raise_exceptions=True) as client:
        for tool, args in [
            ("exam_status", {}),
            ("get_fix_task", {"exam": sealed.exam.id}),
            ("run_tests", {"test_ids": [HIDDEN_TEST]}),
            ("failure_context", {"test_ids": ["tests/test_hidden.py"]}),
        ]:
            got = await client.call_tool(tool, args)
            said.append(json.dumps(got.structured_content) + got.content[0].text)
            if tool in ("run_tests", "failure_context"):
                assert "hidden exam" in _error(got) and "test_ids" in _error(got)
    assert all(HIDDEN_MARK not in text and "add(20, 22)" not in text for text in said)
    assert '"context": null' in said[1] and "hidden" in said[1]


@pytest.mark.anyio
async def test_expected_failures_are_tool_errors_naming_the_tool_s_arguments(
    repo: Path,
) -> None:
    async with Client(_server(repo), raise_exceptions=True) as client:
        got = await client.call_tool("expand_evidence", {"handle": "suspect:calc.py:2"})
        assert "failure_context first" in _error(got)
        got = await client.call_tool("get_fix_task", {"exam": "no-such-exam"})
        assert "no-such-exam" in _error(got)
        got = await client.call_tool("verify_fix", {"runs": 1})
        assert "verify_fix: exams: no exam is sealed" in _error(got)
        got = await client.call_tool("diagnose_log", {"log_text": ""})
        assert "the log of a failed job" in _error(got)  # an expected failure, not a crash
        assert "Error executing tool diagnose_log: " in _error(got)
        got = await client.call_tool("run_tests", {"test_ids": []})
        assert got.is_error  # the schema's min_length
    bad = build(Settings(repo=repo / "nowhere", python=str(TARGET_PYTHON), sandbox="none"))
    async with Client(bad, raise_exceptions=True) as client:
        got = await client.call_tool("run_tests", {"test_ids": [EXAM_TEST]})
        assert "run_tests: the server's --repo: " in _error(got)


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_cancelled_call_leaves_no_process_behind(repo: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    (repo / "tests" / "test_slow.py").write_text(
        "import os, time\n\n\ndef test_slow():\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n    time.sleep(60)\n",
        encoding="utf-8",
    )
    async with Client(_server(repo), raise_exceptions=True) as client:
        with anyio.move_on_after(30) as scope:
            async with anyio.create_task_group() as tg:

                async def call() -> None:
                    await client.call_tool("run_tests", {"test_ids": ["tests/test_slow.py"]})

                tg.start_soon(call)
                while not pid_file.exists():
                    await anyio.sleep(0.05)
                tg.cancel_scope.cancel()
        assert not scope.cancelled_caught, "the test never started"
        pid = int(pid_file.read_text())
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        assert not _alive(pid)
        # the server still answers
        got = await client.call_tool("diagnose_log", {"log_text": "E   AssertionError"})
        assert not got.is_error


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.anyio
async def test_over_stdio_as_a_host_starts_it(repo: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "truegreen", "mcp", "--repo", str(repo), "--python", str(TARGET_PYTHON),
              "--sandbox", "none"],
        env={**os.environ},
    )  # fmt: skip
    async with Client(params) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        got = await client.call_tool("run_tests", {"test_ids": [EXAM_TEST]})
        assert got.structured_content["tests"][0]["outcome"] == "failed"
        got = await client.call_tool("run_tests", {"test_ids": ["tests/test_nope.py::test_x"]})
        assert got.is_error and "does not exist" in got.content[0].text
        assert "--collect-only" in got.content[0].text  # what to do
