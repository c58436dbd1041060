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
from truegreen.mcp import server as mcp_server
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
        assert len(got.content[0].text) <= 1500 * 4 and exam["id"] in got.content[0].text
        assert task["schema"] == "truegreen.fix-task/1"
        assert "calc.py:2" in task["context"]
        assert any("read-only" in rule for rule in task["rules"])

        (repo / "calc.py").write_text(FIXED, encoding="utf-8")
        got = await client.call_tool("verify_fix", {"runs": 1, "strength": False})
        verification = got.structured_content
        assert verification["verdict"] == "verified", got.content[0].text
        assert '"verified" means: passes the sealed exam' in got.content[0].text
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
        assert "no-such-exam" in _error(got) and "get_fix_task: exam: " in _error(got)
        got = await client.call_tool("verify_fix", {"runs": 1})
        assert "verify_fix: exams: no exam is sealed" in _error(got)
        got = await client.call_tool("diagnose_log", {"log_text": ""})
        assert "the log of a failed job" in _error(got)  # an expected failure, not a crash
        assert "diagnose_log: log_text: is empty" in _error(got)
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


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "args", "line"),
    [
        (
            "run_tests",
            {"test_ids": ["--collect-only"]},
            "test_ids: '--collect-only' is not a test id",
        ),
        ("run_tests", {"test_ids": ["tests", "--rootdir=/tmp"]}, "test_ids: '--rootdir=/tmp'"),
        ("run_tests", {"test_ids": ["-p", "no:python"]}, "test_ids: '-p' is not a test id"),
        ("failure_context", {"test_ids": ["--co"]}, "test_ids: '--co' is not a test id"),
        ("run_tests", {"test_ids": [EXAM_TEST], "repeat": 0}, "repeat: must be at least 1, not 0"),
        (
            "run_tests",
            {"test_ids": [EXAM_TEST], "repeat": 99},
            "repeat: must be at most 20, not 99",
        ),
        ("run_tests", {"test_ids": [EXAM_TEST], "repeat": "x"}, "repeat: input should be a valid"),
        ("run_tests", {}, "test_ids: is required"),
        ("run_tests", {"test_ids": []}, "test_ids: needs at least 1 item"),
        ("seal_exam", {"test_id": EXAM_TEST, "runs": 0}, "runs: must be at least 1, not 0"),
        ("verify_fix", {"runs": 0}, "runs: must be at least 1, not 0"),
        ("get_fix_task", {"exam": "x", "budget_tokens": 10}, "budget_tokens: must be at least 50"),
        ("failure_context", {"test_ids": ["a::b"], "budget_seconds": 0}, "budget_seconds: must be"),
        ("get_fix_task", {"exam": "nosuchexam"}, "exam: unknown exam id 'nosuchexam'"),
        ("exam_status", {"exam": "ex-0000"}, "exam: unknown exam id 'ex-0000'"),
    ],
)
async def test_bad_arguments_are_one_line_naming_the_argument(
    repo: Path, tool: str, args: dict[str, Any], line: str
) -> None:
    async with Client(_server(repo), raise_exceptions=True) as client:
        got = await client.call_tool(tool, args)
    text = _error(got)
    assert text.startswith(f"Error executing tool {tool}: {line}"), text
    assert "\n" not in text and "validation error" not in text and "pydantic" not in text
    assert len(text) < 600


@pytest.mark.anyio
async def test_a_large_run_answers_with_a_bounded_summary(
    make_project: Callable[..., Path],
) -> None:
    """One line per passing test made run_tests on a directory answer with 3 MB of text:
    the text is a summary (counts, the failures capped), the structured content all of it."""
    root = make_project(
        {
            "tests/test_many.py": "import pytest\n\n\n"
            "@pytest.mark.parametrize('n', range(600))\n"
            "def test_pass(n):\n    assert n >= 0\n\n\n"
            "@pytest.mark.parametrize('n', range(25))\n"
            "def test_fail(n):\n    assert n < 0, 'x' * 2000\n"
        }
    )
    async with Client(_server(root), raise_exceptions=True) as client:
        got = await client.call_tool("run_tests", {"test_ids": ["tests"]})
    assert not got.is_error
    text = got.content[0].text
    assert len(text) <= mcp_server.TEXT_LIMIT
    assert "625 tests, 1 run(s): 600 passed, 25 failed" in text
    assert "failed: tests/test_many.py::test_fail[0]" in text
    assert "signature: AssertionError@tests/test_many.py:test_fail" in text
    assert "crash: tests/test_many.py:" in text
    assert "15 more failures not shown" in text and "structured content" in text
    assert "test_pass" not in text
    assert len(got.structured_content["tests"]) == 625  # the whole document, as before
    assert set(got.structured_content) >= {"schema", "command", "tests", "exit_codes"}


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_sealed_exam_s_text_does_not_inline_its_files(repo: Path) -> None:
    test_file = repo / "tests" / "test_exam.py"
    test_file.write_text(EXAM + "# padding\n" * 6000, encoding="utf-8")
    git(repo, "commit", "-qam", "a long exam file")
    async with Client(_server(repo), raise_exceptions=True) as client:
        got = await client.call_tool("seal_exam", {"test_id": EXAM_TEST, "runs": 1})
        text = got.content[0].text
        assert len(text) < 1000 and "padding" not in text
        assert f"{EXAM_TEST} at " in text and "file: tests/test_exam.py sha256 " in text
        files = got.structured_content["files"]
        assert any("padding" in (f["content"] or "") for f in files)  # the document is whole
        got = await client.call_tool("exam_status", {})
        assert "1 exam(s), 1 open" in got.content[0].text
        assert got.structured_content["schema"] == "truegreen.exam-status/1"


def _fixer_exam(**over: Any) -> api.FixerExam:
    return api.FixerExam(
        **{
            "id": "ex-0123456789abcdef", "test": EXAM_TEST, "path": "tests/test_exam.py",
            "sha256": "a" * 64, "signature": "AssertionError@tests/test_exam.py:test_add#1",
            "rev": "b" * 40, "hidden": False, "files": (), **over,
        }
    )  # fmt: skip


@pytest.mark.parametrize("budget", [50, 300, 1500])
def test_a_fix_task_s_text_keeps_to_its_budget(budget: int) -> None:
    context = "\n".join(f"suspect rank {n}: calc.py:{n} ochiai=0.5 " + "x" * 60 for n in range(200))
    task = api.FixTask(
        exam=_fixer_exam(), failure="AssertionError@tests/test_exam.py:test_add#1",
        context=context, context_note=None, rules=("tests are read-only",), verify="verify_fix",
    )  # fmt: skip
    text = mcp_server._fix_task_text(task, budget)
    assert len(text) <= budget * 4
    assert "more characters left out" in text and f"budget of {budget} tokens" in text
    assert "structured content" in text
    short = api.FixTask(**{**task.model_dump(), "context": "crash site: calc.py:2"})
    assert mcp_server._fix_task_text(short, 300).endswith("crash site: calc.py:2")


def test_a_verification_s_text_shows_no_unknown_line_and_says_verified_once() -> None:
    from types import SimpleNamespace

    done = SimpleNamespace(
        verdict="rejected",
        decision="reject",
        reasons=[
            SimpleNamespace(
                code="tamper.test_changed", detail="changed", file="tests/t.py", line=None
            ),
            SimpleNamespace(code="exam.fails", detail="still fails", file="calc.py", line=2),
            SimpleNamespace(code="regression.none", detail="none", file=None, line=None),
        ],
    )
    text = mcp_server._verification_text(done)  # type: ignore[arg-type]
    assert "tamper.test_changed: changed (tests/t.py)\n" in text
    assert "exam.fails: still fails (calc.py:2)\n" in text
    assert "regression.none: none\n" in text
    assert "None" not in text
    assert text.count('verified" means') == 1 and text.endswith(api.VERIFIED_MEANS)
