"""The quality gates: the project's own linters and type checker (ruff, flake8, mypy,
pyright: those ``[tool.truegreen.gates]`` turns on), run in the project's interpreter
(``python -m <tool>``, through the executor and the sandbox, as the tests are) on the
changed Python files, at the base and at the head.

A violation at the head on a changed line (the head's lines the diff adds or changes)
that the base's copy of the file did not have (same code and message, counted) is a new
one: a ``gate.<tool>`` reason naming the file, the line, the code and the message. A tool
the project's interpreter does not have is said once, plainly, in the document's notes,
and its gate does not run.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from truegreen import tempdirs
from truegreen.model.reasons import Reason
from truegreen.project import Project
from truegreen.run.executor import Command
from truegreen.run.pytest_run import child_env

#: seconds one tool may take on one side
TOOL_TIMEOUT = 300.0


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    code: str
    message: str


def _argv(tool: str, python: str, files: Sequence[str], cache: Path) -> list[str]:
    if tool == "ruff":
        return [python, "-m", "ruff", "check", "--output-format=json", "--no-cache",
                "--exit-zero", "--", *files]  # fmt: skip
    if tool == "flake8":
        fmt = "%(path)s:%(row)d:%(col)d: %(code)s %(text)s"
        return [python, "-m", "flake8", "--exit-zero", f"--format={fmt}", "--", *files]
    if tool == "mypy":
        return [python, "-m", "mypy", "--no-error-summary", "--show-error-codes",
                "--no-color-output", f"--cache-dir={cache}", "--", *files]  # fmt: skip
    return [python, "-m", "pyright", "--outputjson", *files]


def _rel(path: str, tree: Path) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(tree)
        except ValueError:
            return path
    return p.as_posix().removeprefix("./")


_FLAKE8 = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):\d+: (?P<code>[A-Z]+\d+) (?P<msg>.*)$")
_MYPY = re.compile(
    r"^(?P<path>[^:\n]+):(?P<line>\d+):(?:\d+:)? error: (?P<msg>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)


def parse(tool: str, stdout: str, tree: Path) -> list[Violation]:
    """A tool's output as violations (paths relative to ``tree``)."""
    if tool == "ruff":
        found = json.loads(stdout or "[]")
        return [
            Violation(_rel(v["filename"], tree), v["location"]["row"], v.get("code") or "syntax",
                      v["message"])
            for v in found
        ]  # fmt: skip
    if tool == "pyright":
        found = json.loads(stdout or "{}").get("generalDiagnostics", [])
        return [
            Violation(_rel(v["file"], tree), v["range"]["start"]["line"] + 1,
                      v.get("rule") or v.get("severity", "error"), v["message"])
            for v in found
            if v.get("severity") == "error"
        ]  # fmt: skip
    pattern = _FLAKE8 if tool == "flake8" else _MYPY
    out = []
    for line in stdout.splitlines():
        m = pattern.match(line)
        if m:
            out.append(
                Violation(_rel(m["path"], tree), int(m["line"]), m["code"] or "error", m["msg"])
            )
    return out


class ToolMissing(Exception):
    """The project's interpreter has no such tool."""


def run_tool(project: Project, tool: str, tree: Path, files: Sequence[str]) -> list[Violation]:
    """Run ``tool`` on ``files`` (relative to ``tree``) in the project's interpreter."""
    from truegreen.sandbox import SandboxSpec, get_backend

    if not files:
        return []
    interpreter = project.interpreter
    cache = tempdirs.make("truegreen-gate-")
    try:
        argv = _argv(tool, str(interpreter.path), files, cache)
        env = child_env(interpreter, {"NO_COLOR": "1", "HOME": str(cache)}, [])
        command = Command(argv, cwd=tree, env=env, timeout=TOOL_TIMEOUT)
        prefixes = {Path(interpreter.prefix), Path(interpreter.base_prefix)}
        spec = SandboxSpec(
            workdir=tree,
            python=interpreter.path,
            writable=(cache,),
            readonly=tuple(sorted(prefixes)),
            grant_workdir=True,
        )
        done = project.executor.run(get_backend(project.sandbox).wrap(command, spec))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if f"No module named {tool}" in done.stderr:
        raise ToolMissing(tool)
    try:
        return parse(tool, done.stdout, tree)
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolMissing(f"{tool} gave output truegreen cannot read ({exc})") from None


def new_violations(
    base: Iterable[Violation], head: Iterable[Violation], changed: dict[str, set[int]]
) -> list[Violation]:
    """Head violations on changed lines beyond what the base had (by path, code, message)."""
    had = Counter((v.path, v.code, v.message) for v in base)
    out = []
    for v in sorted(head, key=lambda v: (v.path, v.line, v.code, v.message)):
        key = (v.path, v.code, v.message)
        if had[key] > 0:
            had[key] -= 1
            continue
        if v.line in changed.get(v.path, ()):
            out.append(v)
    return out


def gate_layer(
    project: Project,
    tools: Sequence[str],
    base_tree: Path,
    head_tree: Path,
    changed: dict[str, set[int]],
    notes: set[str],
) -> tuple[Reason, ...]:
    """The ``gate.<tool>`` reasons of the tools turned on (missing tools go to ``notes``)."""
    files = sorted(p for p in changed if p.endswith((".py", ".pyi")))
    head_files = [p for p in files if (head_tree / p).is_file()]
    base_files = [p for p in files if (base_tree / p).is_file()]
    found: list[Reason] = []
    for tool in tools:
        try:
            before = run_tool(project, tool, base_tree, base_files)
            after = run_tool(project, tool, head_tree, head_files)
        except ToolMissing as exc:
            what = str(exc)
            if what == tool:
                what = f"{tool} is not installed in the project's interpreter"
            notes.add(f"gates: {what}: the {tool} gate did not run")
            continue
        for v in new_violations(before, after, changed):
            found.append(
                Reason(
                    f"gate.{tool}",
                    v.path,
                    v.line,
                    f"{v.code} {v.message} (new on a changed line)",
                )
            )
    return tuple(found)
