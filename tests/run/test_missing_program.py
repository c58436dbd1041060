"""A program that is not there gets a hint that fits it: git (which truegreen needs), a tool
looked up on PATH, or a path given by the user."""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen.errors import ExecutionError
from truegreen.run.executor import Command, default_executor


@pytest.mark.parametrize(
    ("program", "hint"),
    [
        ("git", "truegreen needs git: install it"),
        ("no-such-tool-xyz", "install no-such-tool-xyz or put it on PATH"),
        ("/nonexistent/bin/python", "check the path (for the project's interpreter"),
    ],
)
def test_a_missing_program_is_named_with_what_to_do(tmp_path: Path, program, hint) -> None:
    command = Command((program, "--version"), cwd=tmp_path, env={"PATH": str(tmp_path)})
    with pytest.raises(ExecutionError) as info:
        default_executor().run(command)
    assert f"cannot run {program!r}: no such program" in str(info.value)
    assert hint in (info.value.hint or "")
