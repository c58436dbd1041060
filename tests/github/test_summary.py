"""Annotations for every severity a reason can have: a new severity (the policy's
``escalate``) must not make ``truegreen ci`` crash on a reason that has it."""

from __future__ import annotations

from typing import get_args

import pytest

from truegreen.github import summary
from truegreen.model.reasons import SEVERITY, Severity


def test_every_severity_has_an_annotation_level() -> None:
    for level in get_args(Severity):
        assert level in summary.COMMAND and level in summary.CHECK_LEVEL


@pytest.mark.parametrize("code", sorted(SEVERITY))
def test_every_reason_code_becomes_a_workflow_command(code: str) -> None:
    [line] = summary.workflow_commands([{"code": code, "file": "src/x.py", "line": 3}])
    assert line.startswith(f"::{summary.COMMAND[SEVERITY[code]]} file=src/x.py,line=3,")
    assert f"title=truegreen {code}" in line
