"""action.yml, run as the GitHub Actions runner runs a composite action (no `act`): each
`run:` step's script through `bash --noprofile --norc -eo pipefail`, its `env:` expressions
evaluated from the inputs, the files and variables GitHub gives a step (event payload,
step summary, a GITHUB_OUTPUT file per step read back into the step's outputs), then the
action's outputs from the steps'."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.github.conftest import event
from tests.github.fake import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def evaluate(text: str, context: dict[str, str]) -> str:
    """The expressions the action uses (``inputs.X``, ``github.token``,
    ``steps.ID.outputs.X``); any other is an error, so the emulation cannot drift silently."""

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in context:
            raise AssertionError(f"the emulation does not know the expression {name!r}")
        return context[name]

    return EXPR.sub(one, text)


def run_action(
    inputs: dict[str, str], env: dict[str, str], workspace: Path, temp: Path
) -> tuple[int, dict[str, str], list[str]]:
    action = _action()
    context = {"github.token": env["GITHUB_TOKEN"]}
    for name, spec in action["inputs"].items():
        default = evaluate(str(spec.get("default", "")), context)
        context[f"inputs.{name}"] = inputs.get(name, default)
    stdout: list[str] = []
    for n, step in enumerate(action["runs"]["steps"]):
        assert step["shell"] == "bash"
        script = temp / f"step{n}.sh"
        script.write_text(step["run"], encoding="utf-8")
        output = temp / f"output{n}.txt"
        output.write_text("")
        step_env = {**env, "GITHUB_OUTPUT": str(output), "GITHUB_ACTION_PATH": str(ROOT)}
        step_env.update({k: evaluate(str(v), context) for k, v in (step.get("env") or {}).items()})
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace, env=step_env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        stdout += done.stdout.splitlines()
        # a step's outputs stand even when it fails (a reject or an escalation fails the
        # step, and later steps of the job still read its decision); the steps after it
        # do not run
        for line in output.read_text().splitlines():
            key, _, value = line.partition("=")
            if "id" in step:
                context[f"steps.{step['id']}.outputs.{key}"] = value
        if done.returncode != 0:
            stdout += done.stderr.splitlines()
            break
    outputs = {name: evaluate(spec["value"], context) for name, spec in action["outputs"].items()}
    return done.returncode, outputs, stdout


def test_the_action_is_composite_and_its_scripts_take_inputs_through_env_only():
    action = _action()
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        # an expression inside a script is pasted into it before bash reads it
        assert "${{" not in step["run"], step["name"]
        assert step["shell"] == "bash"
    assert set(action["outputs"]) == {"decision", "verdict"}


@pytest.mark.slow
def test_the_action_verifies_a_fork_pull_request_as_the_runner_would(
    repo, template, tmp_path, gh: FakeGitHub
):
    # a fork's head fixes the bug and rewrites the exam's bundle: the base's copy is used,
    # and the read-only token writes nothing though the input asks for live writes
    summary = tmp_path / "summary.md"
    summary.write_text("")
    temp = tmp_path / "runner_temp"
    temp.mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(
            event(repo, tmp_path, "fix-and-exam", "Fixes #12", head_repo="contributor/shop")
        ),
        "GITHUB_REPOSITORY": "acme/shop",
        "GITHUB_RUN_ID": "99",
        "GITHUB_WORKSPACE": str(repo),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_API_URL": gh.url,
        "GITHUB_TOKEN": "ghs_jobtoken",
        "RUNNER_TEMP": str(temp),
        "TRUEGREEN_HOME": str(tmp_path / "home"),
        # the install step runs pip for real, offline: truegreen is already installed here
        "PIP_NO_INDEX": "1",
    }
    inputs = {
        "args": "--runs 1 --no-strength --sandbox none",
        "python": sys.executable,
        "writes": "live",
    }
    code, outputs, stdout = run_action(inputs, env, repo, temp)
    # the base's exam is used, so the fix is verified; the head's rewrite of the exam file
    # is a change outside source, tests and docs, which the default policy escalates
    assert code == 3, "\n".join(stdout)
    assert outputs == {"decision": "escalate", "verdict": "verified"}
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# truegreen: VERIFIED -> escalate")
    assert "policy.file_category" in text and ".truegreen/exams/" in text
    assert f"acme/shop#12 (exam `{template[1]}`)" in text
    assert "gets a read-only token" in text and text.count(": refused: ") == 3
    assert gh.requests == []  # refused before any request
    assert any(line.startswith("truegreen ") for line in stdout)  # `truegreen --version`
