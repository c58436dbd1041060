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
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen import api
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
    #: files it created, now in the repository's .git/info/exclude (uninstall: taken out)
    excluded: list[str] = field(default_factory=list)
    #: tracked files it changed (its merge is an uncommitted change until committed)
    tracked: list[str] = field(default_factory=list)
    #: the project's interpreter the hooks and the MCP server run the tests with (None:
    #: truegreen's own), and how it was chosen
    python: str | None = None
    python_note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "truegreen.claude-install/1",
            "written": self.written,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "excluded": self.excluded,
            "tracked": self.tracked,
            "python": self.python,
            "python_note": self.python_note,
        }


def hook_command(python: str | None = None) -> str:
    """The hooks' command: this interpreter running the hook module, told the project's
    interpreter (``--python``) when there is one."""
    command = f"{shlex.quote(sys.executable)} -m {HOOK_MODULE}"
    return f"{command} --python {shlex.quote(python)}" if python else command


#: where a project's virtualenv usually is (``.venv`` is the one truegreen finds by
#: itself, as ``truegreen.run.interpreter.default_python`` does)
VENV_NAMES = (".venv", "venv", "env", ".env", "virtualenv")


def _venv_python(venv: Path) -> Path | None:
    for candidate in (venv / "bin" / "python", venv / "Scripts" / "python.exe"):
        if candidate.is_file():
            return candidate
    return None


def project_python(root: Path, python: str | None) -> tuple[str | None, str]:
    """The project's interpreter to record (an absolute path; None: none, truegreen's own
    runs the tests) and a sentence saying which one and why. ``python``: the one given
    (relative to the current directory, or a name on PATH); else ``.venv``'s when there
    is one (what truegreen finds by itself)."""
    if python is not None:
        path = Path(python).expanduser()
        if os.sep not in python and not path.exists():
            found = shutil.which(python)
            path = Path(found) if found else path
        if not path.is_file() or not os.access(path, os.X_OK):
            raise UsageError(
                f"--python: {python!r} is not an executable file",
                hint="give the project's interpreter, e.g. venv/bin/python; nothing was written",
                field="python",
            )
        absolute = os.path.abspath(path)  # a venv's python is a link: kept, not resolved
        return absolute, f"the tests run with {absolute} (--python)"
    venv = _venv_python(root / ".venv")
    if venv is not None:
        absolute = os.path.abspath(venv)
        return absolute, f"the tests run with {absolute} (the project's .venv)"
    others = [
        name
        for name in VENV_NAMES[1:]
        if (root / name / "pyvenv.cfg").is_file() and _venv_python(root / name)
    ]
    note = f"the tests run with {sys.executable} (truegreen's own: the project has no .venv"
    if others:
        other = _venv_python(root / others[0])
        rel = other.relative_to(root).as_posix() if other else others[0]
        note += f"; {others[0]}/ is a virtualenv: install again with --python {rel} to use it"
    return None, note + ")"


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


SETTINGS = ".claude/settings.json"
MCP = ".mcp.json"
SKILL_PATH = ".claude/skills/truegreen/SKILL.md"
#: what install-claude writes, relative to the project
FILES = (SETTINGS, SKILL_PATH, MCP)


def install(root: Path, python: str | None = None) -> Report:
    """Merge truegreen's hooks, skill and MCP server into the project at ``root``;
    ``python``: the project's interpreter for the hooks and the MCP server (default: its
    ``.venv``'s, else none: truegreen's own). The files it creates are added to the
    repository's ``.git/info/exclude``: they are not the agent's change."""
    root = root.resolve()
    settings_path = root / SETTINGS
    mcp_path = root / MCP
    skill_path = root / SKILL_PATH
    # everything is read and checked before anything is written
    settings = _read_object(settings_path, root) or {}
    mcp = _read_object(mcp_path, root) or {}
    python, note = project_python(root, python)
    command = hook_command(python)
    merged = _merged_settings(settings, command, ".claude/settings.json")
    servers = mcp.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise _refuse(".mcp.json: 'mcpServers' is not an object", ".mcp.json")
    server = {
        "command": sys.executable,
        "args": ["-m", "truegreen", "mcp", "--repo", str(root)]
        + (["--python", python] if python else []),
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
    new = [rel for rel in FILES if not (root / rel).exists()]
    report = Report(python=python, python_note=note)
    _write(settings_path, _json_text(merged), root, report)
    _write(
        mcp_path, _json_text({**mcp, "mcpServers": {**servers, "truegreen": server}}), root, report
    )
    _write(skill_path, SKILL, root, report)
    git = _Git(root)
    created = [rel for rel in new if rel in report.written and not git.tracked(rel)]
    report.excluded = git.exclude(created)
    report.tracked = [rel for rel in report.written if rel not in new and git.tracked(rel)]
    return report


def _is_our_server(entry: Any) -> bool:
    args = entry.get("args") if isinstance(entry, dict) else None
    return isinstance(args, list) and args[:3] == ["-m", "truegreen", "mcp"]


def uninstall(root: Path) -> Report:
    """Remove exactly what :func:`install` added (a file it leaves empty goes too, and
    the lines it added to ``.git/info/exclude``)."""
    root = root.resolve()
    settings_path = root / SETTINGS
    mcp_path = root / MCP
    skill_path = root / SKILL_PATH
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
    report.excluded = _Git(root).unexclude()
    return report


#: the line before each line install-claude adds to ``.git/info/exclude``
EXCLUDE_MARK = "# truegreen install-claude wrote the next file (--uninstall removes both lines)"


class _Git:
    """The little of git that install-claude needs (:mod:`truegreen.api`): whether a
    file is committed, the repository's own ignore file (``.git/info/exclude``: local,
    never committed; in a linked worktree the repository's). Outside a git repository
    nothing is committed and nothing is excluded."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def head_bytes(self, rel: str) -> bytes | None:
        """The file at HEAD (None: not there, or no repository)."""
        try:
            return api.file_at(self.root, "HEAD", rel)
        except api.UsageError:
            return None

    def tracked(self, rel: str) -> bool:
        return self.head_bytes(rel) is not None

    def _exclude_file(self) -> tuple[Path, str] | None:
        try:
            return api.exclude_file(self.root)
        except (api.UsageError, api.ExecutionError):
            return None

    def exclude(self, rels: list[str]) -> list[str]:
        """Add ``rels`` to the exclude file (those already there are left); the ones added."""
        where = self._exclude_file()
        if where is None or not rels:
            return []
        path, prefix = where
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        have = set(text.splitlines())
        added = [rel for rel in rels if f"/{prefix}{rel}" not in have]
        if not added:
            return []
        if text and not text.endswith("\n"):
            text += "\n"
        text += "".join(f"{EXCLUDE_MARK}\n/{prefix}{rel}\n" for rel in added)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return added

    def unexclude(self) -> list[str]:
        """Take out of the exclude file the lines :meth:`exclude` added for this project;
        the files they named."""
        where = self._exclude_file()
        if where is None or not where[0].is_file():
            return []
        path, prefix = where
        ours = {f"/{prefix}{rel}": rel for rel in FILES}
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        kept: list[str] = []
        gone: list[str] = []
        i = 0
        while i < len(lines):
            if lines[i].rstrip("\r\n") == EXCLUDE_MARK and i + 1 < len(lines):
                rel = ours.get(lines[i + 1].rstrip("\r\n"))
                if rel is not None:
                    gone.append(rel)
                    i += 2
                    continue
            kept.append(lines[i])
            i += 1
        if gone:
            path.write_text("".join(kept), encoding="utf-8")
        return gone


def changed_only_by_install(root: Path, rel: str) -> bool:
    """Whether the working tree's change to the file ``rel`` of the project at ``root``
    is only install-claude's: its hook entries merged into a committed
    ``.claude/settings.json``, its MCP server into a committed ``.mcp.json``, its
    SKILL.md. Such a change is not the agent's (the Stop hook does not count it)."""
    if rel == SKILL_PATH:
        try:
            return (root / rel).read_text(encoding="utf-8") == SKILL
        except OSError:
            return False
    if rel not in (SETTINGS, MCP):
        return False
    before = _Git(root).head_bytes(rel)
    try:
        now = json.loads((root / rel).read_text(encoding="utf-8"))
        then = json.loads(before) if before is not None else {}
    except (OSError, ValueError):
        return False
    if not isinstance(now, dict) or not isinstance(then, dict):
        return False
    if rel == SETTINGS:
        return _without_ours(now) == _without_ours(then)
    return _without_our_server(now) == _without_our_server(then)


def _without_our_server(mcp: dict[str, Any]) -> dict[str, Any]:
    servers = mcp.get("mcpServers")
    if not isinstance(servers, dict) or not _is_our_server(servers.get("truegreen")):
        return mcp
    rest = {k: v for k, v in servers.items() if k != "truegreen"}
    return (
        {**mcp, "mcpServers": rest} if rest else {k: v for k, v in mcp.items() if k != "mcpServers"}
    )
