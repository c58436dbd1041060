"""docs/agents.md's end-to-end script runs as written: install-claude, a recorded
PostToolUse payload piped to the hook command it wrote, the context printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "agents.md"


def _script() -> str:
    text = PAGE.read_text(encoding="utf-8")
    after = text.split("<!-- e2e-script -->\n```sh\n", 1)[1]
    return after.split("\n```", 1)[0]


@pytest.mark.slow
def test_the_end_to_end_script_prints_the_injected_context() -> None:
    # a loaded machine must not make the hook (rightly) say nothing
    env = {**os.environ, "PYTHON": sys.executable, "TRUEGREEN_HOOK_DEADLINE": "120"}
    done = subprocess.run(
        ["bash", "-c", _script()], capture_output=True, text=True, timeout=120, env=env,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "wrote .claude/settings.json" in out
    assert "truegreen: context for tests/test_issue_42.py::" in out
    assert "rerun: " in out and "invoicekit/discounts.py:14" in out
    context = out.split("truegreen: context for", 1)[1]
    assert len(("truegreen: context for" + context).strip().encode()) <= 2048
