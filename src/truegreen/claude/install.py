"""``truegreen install-claude``: a project's Claude Code hooks, skill and MCP server.

Writes, in the project:

* ``.claude/settings.json``: hooks on PostToolUse and PostToolUseFailure (matcher
  ``Bash``) and on Stop, each running :mod:`truegreen.claude.hook` with this interpreter,
  merged into what is there (other hooks, other settings and their order are kept);
* ``.claude/skills/truegreen/SKILL.md``: when and how to use truegreen's tools;
* ``.mcp.json``: the ``truegreen`` MCP server (``truegreen mcp --repo <the project>``).

Never clobbers: a file that is not a JSON object, or a ``truegreen`` MCP server or a
SKILL.md that truegreen did not write, stops the install before anything is written
(exit 2). ``--uninstall`` removes exactly what it added: its hook entries (a matcher group
left empty by that, and an event left empty, go too), its MCP server entry, its skill; a
file it created that is left empty is removed. Installing twice changes nothing.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen.errors import UsageError

#: how truegreen recognises its own hook commands (and nothing else)
HOOK_MODULE = "truegreen.claude.hook"
#: Claude Code's own limit for the hook, above the hook's own 10 s
HOOK_TIMEOUT = 15
EVENTS = (("PostToolUse", "Bash"), ("PostToolUseFailure", "Bash"), ("Stop", None))
SKILL_MARK = "<!-- written by truegreen install-claude -->"
SKILL = f"""---
name: truegreen
description: Reproduce, localize and grade fixes of failing pytest tests with truegreen. Use when a pytest run fails, before changing code to fix a failing test, and before saying a fix is done.
---
{SKILL_MARK}
# truegreen: evidence that a fix is real

truegreen turns "the tests pass" into evidence: a failing test sealed as an *exam*, and a
gate that grades a claimed fix. "Verified" means: passes the sealed exam, no tampering
found, no new failures. It never means "correct".

## When a test fails
1. `run_tests` (MCP server `truegreen`) reruns it cleanly: the outcome, the excerpt and
   the exact command to rerun it.
2. `failure_context` says where to look: the crash site, where a bad value (a None) came
   from, the top suspect lines with their evidence, values that differ from a passing
   test. It names what did not fit by handle (`suspect:FILE:LINE`, `values:FILE:LINE:VAR`):
   pass one to `expand_evidence`.
3. After a failing `pytest` run, the hook may already have given you this context.

## Fixing
- Tests are read-only: never edit, delete, skip or xfail a test, conftest.py, test data
  or the pytest/CI configuration to make a test pass. Change the code under test.
- Do not special-case the test's inputs or detect the test runner.
- `get_fix_task` gives an exam's task: its failure, its context, these rules.

## Before you say it is fixed
- `verify_fix` grades the working tree's changes against a base (default HEAD): the
  sealed exams fail on the base and pass with your change, no tampering, no new
  failures; the answer is a verdict and a decision (approve, reject, escalate).
- `exam_status` lists the exams and whether they are still open.
- `seal_exam` seals a failing test as an exam before the fix is written (a bug report's
  reproduction).
"""


@dataclass
class Report:
    """What an install or uninstall did, file by file (paths relative to the project)."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "truegreen.claude-install/1",
            "written": self.written,
            "removed": self.removed,
            "unchanged": self.unchanged,
        }


def hook_command(python: str | None = None) -> str:
    """The hooks' command: this interpreter running the hook module."""
    return f"{shlex.quote(python or sys.executable)} -m {HOOK_MODULE}"


def _ours(hook: Any) -> bool:
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and HOOK_MODULE in hook["command"]
    )


def _refuse(message: str, what: str, todo: str = "fix") -> UsageError:
    """The one line that stops an install before anything is written."""
    return UsageError(
        message, hint=f"{todo} {what}, then install again; nothing was written", field="repo"
    )


def _read_object(path: Path, root: Path) -> dict[str, Any] | None:
    """The JSON object in ``path`` (None when there is no file); a UsageError naming it
    when it is not one."""
    if not path.exists():
        return None
    rel = path.relative_to(root).as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _refuse(f"{rel} is not valid JSON ({exc})", rel, "fix or move") from None
    if not isinstance(data, dict):
        raise _refuse(f"{rel} is not a JSON object", rel, "fix or move")
    return data


def _merged_settings(settings: dict[str, Any], command: str, rel: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(settings))  # a deep copy of plain JSON
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise _refuse(f"{rel}: 'hooks' is not an object", rel)
    for event, matcher in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise _refuse(f"{rel}: hooks.{event} is not a list", rel)
        entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
        placed = False
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            kept = []
            for h in group["hooks"]:
                if not _ours(h):
                    kept.append(h)
                elif not placed:  # ours already: brought up to date, in place
                    kept.append(entry)
                    placed = True
            if group["hooks"] and not kept:
                group["hooks"] = None  # held only a copy of ours: goes
            else:
                group["hooks"] = kept
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") is None)]
        if not placed:
            group = {"hooks": [entry]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            groups.append(group)
    return out


def _without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(settings))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                had = len(group["hooks"])
                group["hooks"] = [h for h in group["hooks"] if not _ours(h)]
                if had and not group["hooks"]:
                    continue  # a group that held only ours goes with them
            kept.append(group)
        if kept:
            hooks[event] = kept
        elif groups:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def _write(path: Path, text: str, root: Path, report: Report) -> None:
    rel = path.relative_to(root).as_posix()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        report.unchanged.append(rel)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.truegreen-part")
    part.write_text(text, encoding="utf-8")
    part.replace(path)
    report.written.append(rel)


def _json_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def install(root: Path, python: str | None = None) -> Report:
    """Merge truegreen's hooks, skill and MCP server into the project at ``root``."""
    root = root.resolve()
    settings_path = root / ".claude" / "settings.json"
    mcp_path = root / ".mcp.json"
    skill_path = root / ".claude" / "skills" / "truegreen" / "SKILL.md"
    # everything is read and checked before anything is written
    settings = _read_object(settings_path, root) or {}
    mcp = _read_object(mcp_path, root) or {}
    command = hook_command(python)
    merged = _merged_settings(settings, command, ".claude/settings.json")
    servers = mcp.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise _refuse(".mcp.json: 'mcpServers' is not an object", ".mcp.json")
    server = {
        "command": python or sys.executable,
        "args": ["-m", "truegreen", "mcp", "--repo", str(root)],
    }
    theirs = servers.get("truegreen")
    if theirs is not None and not _is_our_server(theirs):
        raise _refuse(
            ".mcp.json already has an MCP server named truegreen that truegreen did not write",
            "it",
            "rename or remove",
        )
    if skill_path.exists() and SKILL_MARK not in skill_path.read_text(encoding="utf-8"):
        raise _refuse(
            ".claude/skills/truegreen/SKILL.md exists and truegreen did not write it", "it", "move"
        )
    report = Report()
    _write(settings_path, _json_text(merged), root, report)
    _write(
        mcp_path, _json_text({**mcp, "mcpServers": {**servers, "truegreen": server}}), root, report
    )
    _write(skill_path, SKILL, root, report)
    return report


def _is_our_server(entry: Any) -> bool:
    args = entry.get("args") if isinstance(entry, dict) else None
    return isinstance(args, list) and args[:3] == ["-m", "truegreen", "mcp"]


def uninstall(root: Path) -> Report:
    """Remove exactly what :func:`install` added (a file it leaves empty goes too)."""
    root = root.resolve()
    settings_path = root / ".claude" / "settings.json"
    mcp_path = root / ".mcp.json"
    skill_path = root / ".claude" / "skills" / "truegreen" / "SKILL.md"
    settings = _read_object(settings_path, root)
    mcp = _read_object(mcp_path, root)
    report = Report()
    if settings is not None:
        left = _without_ours(settings)
        if left == settings:
            report.unchanged.append(".claude/settings.json")
        elif left:
            _write(settings_path, _json_text(left), root, report)
        else:
            settings_path.unlink()
            report.removed.append(".claude/settings.json")
    if mcp is not None:
        servers = mcp.get("mcpServers")
        if isinstance(servers, dict) and _is_our_server(servers.get("truegreen")):
            rest = {k: v for k, v in servers.items() if k != "truegreen"}
            left = (
                {**mcp, "mcpServers": rest}
                if rest
                else {k: v for k, v in mcp.items() if k != "mcpServers"}
            )
            if left:
                _write(mcp_path, _json_text(left), root, report)
            else:
                mcp_path.unlink()
                report.removed.append(".mcp.json")
        else:
            report.unchanged.append(".mcp.json")
    if skill_path.exists() and SKILL_MARK in skill_path.read_text(encoding="utf-8"):
        skill_path.unlink()
        report.removed.append(".claude/skills/truegreen/SKILL.md")
        for empty in (skill_path.parent, skill_path.parent.parent, root / ".claude"):
            try:
                empty.rmdir()  # only when empty
            except OSError:
                break
    return report
