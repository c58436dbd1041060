"""CI: GitHub Actions workflows, tox.ini, noxfile.py, Makefile and pyproject.toml task
runners' (poe, hatch, pdm) test commands."""

from __future__ import annotations

import ast
import configparser
import re
import shlex
import tomllib
from pathlib import PurePosixPath
from typing import Any

import yaml

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.verify.tamper.config import addopts_change, line_of
from truegreen.verify.tamper.names import parse

_RUNNERS = re.compile(r"\b(pytest|py\.test|tox|nox|unittest|make\s+test|coverage\s+run)\b")
_SWALLOW = re.compile(r"\|\|\s*(true|:|exit\s+0)\b|;\s*exit\s+0\b|\bset\s+\+e\b|\|\|\s*echo\b")


def _load(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _command_args(run: str) -> list[list[str]]:
    """The argument lists of test-running commands in a shell snippet."""
    out: list[list[str]] = []
    for piece in re.split(r"&&|\|\||;|\n", run):
        if not _RUNNERS.search(piece):
            continue
        try:
            words = shlex.split(piece, comments=True)
        except ValueError:
            words = piece.split()
        for i, w in enumerate(words):
            if w in ("pytest", "py.test") or w.endswith("/pytest") or w == "--":
                out.append(words[i + 1 :])
                break
        else:
            out.append(words)
    return out


def run_weakened(old: str, new: str) -> list[str]:
    why: list[str] = []
    if len(_SWALLOW.findall(new)) > len(_SWALLOW.findall(old)):
        why.append("its failure is swallowed (`|| true`, `exit 0`, `set +e`)")
    o_cmds, n_cmds = _command_args(old), _command_args(new)
    if len(n_cmds) < len(o_cmds):
        why.append("a test command was removed")
    for o, n in zip(o_cmds, n_cmds, strict=False):
        why += addopts_change(o, n)
    return why


def _steps(doc: Any) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    jobs: dict[str, dict[str, Any]] = {}
    steps: dict[str, dict[str, Any]] = {}
    if not isinstance(doc, dict):
        return jobs, steps
    for job_name, job in (doc.get("jobs") or {}).items():
        if not isinstance(job, dict):
            continue
        jobs[str(job_name)] = job
        for i, step in enumerate(job.get("steps") or []):
            if isinstance(step, dict):
                key = (
                    step.get("name")
                    or step.get("id")
                    or step.get("uses")
                    or str(step.get("run", ""))[:60]
                    or str(i)
                )
                steps[f"{job_name}: {key}"] = step
    return jobs, steps


def _same(step: dict[str, Any], others: dict[str, dict[str, Any]]) -> str | None:
    """A step with the same command or action under another name (a renamed step)."""
    for key, s in others.items():
        if (step.get("run") and s.get("run") == step.get("run")) or (
            step.get("uses")
            and s.get("uses") == step.get("uses")
            and s.get("with") == step.get("with")
        ):
            return key
    return None


def _triggers(doc: Any) -> set[str]:
    if not isinstance(doc, dict):
        return set()
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads `on:` as True
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return {str(x) for x in on}
    if isinstance(on, dict):
        return {str(x) for x in on}
    return set()


def workflow(path: str, old: str | None, new: str | None) -> list[Reason]:
    if old is None:
        return []
    out: list[Reason] = []

    def add(detail: str, ln: int | None) -> None:
        out.append(Reason(R.TAMPER_CI_STEP_REMOVED, path, ln, detail))

    b_doc, h_doc = _load(old), _load(new)
    if new is None:
        return [Reason(R.TAMPER_CI_STEP_REMOVED, path, 1, "the workflow was deleted")]
    for t in sorted(_triggers(b_doc) - _triggers(h_doc)):
        add(f"the workflow no longer runs on {t}", line_of(old, "on:"))
    b_jobs, b_steps = _steps(b_doc)
    h_jobs, h_steps = _steps(h_doc)
    for name, job in b_jobs.items():
        if name not in h_jobs:
            add(f"job {name} removed", line_of(old, f"{name}:"))
            continue
        nj = h_jobs[name]
        if "if" in nj and nj.get("if") is not True and nj.get("if") != job.get("if"):
            add(f"job {name}: `if: {nj['if']}` added", line_of(new, "if:"))
        if nj.get("continue-on-error") and not job.get("continue-on-error"):
            add(f"job {name}: continue-on-error added", line_of(new, "continue-on-error"))
    for key, step in b_steps.items():
        nstep = h_steps.get(key)
        if nstep is None:
            other = _same(step, {k: v for k, v in h_steps.items() if k not in b_steps})
            if other is None:
                add(
                    f"step removed: {key}",
                    line_of(
                        old,
                        str(
                            step.get("name") or step.get("run") or step.get("uses") or ""
                        ).splitlines()[0]
                        if (step.get("name") or step.get("run") or step.get("uses"))
                        else "steps:",
                    ),
                )
                continue
            nstep = h_steps[other]
        label = (
            str(nstep.get("name") or nstep.get("run") or nstep.get("uses") or "").splitlines()[0]
            if (nstep.get("name") or nstep.get("run") or nstep.get("uses"))
            else key
        )
        ln = line_of(new, label)
        if "if" in nstep and nstep.get("if") is not True and nstep.get("if") != step.get("if"):
            add(f"{key}: `if: {nstep['if']}` added", ln)
        if nstep.get("continue-on-error") and not step.get("continue-on-error"):
            add(f"{key}: continue-on-error added", ln)
        for why in run_weakened(str(step.get("run") or ""), str(nstep.get("run") or "")):
            add(f"{key}: {why}", ln)
    return out


def tox(path: str, old: str | None, new: str | None) -> list[Reason]:
    def commands(text: str | None) -> dict[str, str]:
        out: dict[str, str] = {}
        if text is None:
            return out
        p = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            p.read_string(text)
        except configparser.Error:
            return out
        for s in p.sections():
            if s.startswith("testenv") and p.has_option(s, "commands"):
                out[s] = p.get(s, "commands")
        return out

    o, n = commands(old), commands(new)
    out: list[Reason] = []
    for env, cmd in o.items():
        if env not in n:
            out.append(
                Reason(
                    R.TAMPER_CI_STEP_REMOVED,
                    path,
                    line_of(old, f"[{env}]"),
                    f"[{env}] commands removed",
                )
            )
            continue
        for why in run_weakened(cmd, n[env]) + (
            ["commands now ignore failures (`-` prefix)"]
            if re.search(r"^\s*-\s*\w", n[env], re.M) and not re.search(r"^\s*-\s*\w", cmd, re.M)
            else []
        ):
            out.append(
                Reason(R.TAMPER_CI_STEP_REMOVED, path, line_of(new, "commands"), f"[{env}]: {why}")
            )
    return out


def _nox_runs(text: str | None) -> list[str]:
    tree = parse(text)
    out: list[str] = []
    for node in ast.walk(tree) if tree else []:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run"
        ):
            words = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if any("pytest" in w for w in words):
                flags = [
                    k.arg or ""
                    for k in node.keywords
                    if not (isinstance(k.value, ast.Constant) and not k.value.value)
                ]
                out.append(
                    " ".join(shlex.quote(w) for w in words)
                    + (" || true" if "success_codes" in flags else "")
                )
    return out


def nox(path: str, old: str | None, new: str | None) -> list[Reason]:
    out: list[Reason] = []
    o, n = _nox_runs(old), _nox_runs(new)
    if len(n) < len(o):
        out.append(Reason(R.TAMPER_CI_STEP_REMOVED, path, None, "a pytest session.run was removed"))
    for a, b in zip(o, n, strict=False):
        for why in run_weakened(a, b):
            out.append(Reason(R.TAMPER_CI_STEP_REMOVED, path, line_of(new, "pytest"), why))
    return out


def makefile(path: str, old: str | None, new: str | None) -> list[Reason]:
    def recipes(text: str | None) -> str:
        return "\n".join(
            ln.strip().lstrip("@-") for ln in (text or "").splitlines() if ln.startswith("\t")
        )

    out: list[Reason] = []
    if old is None:
        return out
    why = run_weakened(recipes(old), recipes(new))
    if new is not None and re.search(r"^\t-", new, re.M) and not re.search(r"^\t-", old, re.M):
        why.append("a recipe line now ignores failures (`-` prefix)")
    for w in why:
        out.append(Reason(R.TAMPER_CI_STEP_REMOVED, path, line_of(new, "pytest"), w))
    return out


#: tables of pyproject.toml whose strings are commands a CI step may run by name
#: (``poe check``, ``hatch run test``, ``pdm run test``)
_TASK_TABLES = (("tool", "poe", "tasks"), ("tool", "hatch", "envs"), ("tool", "pdm", "scripts"))


def _task_commands(text: str | None) -> dict[str, str]:
    """Every command string of the task runners' tables, by its place in the file."""
    try:
        data = tomllib.loads(text) if text is not None else {}
    except tomllib.TOMLDecodeError:
        return {}
    out: dict[str, str] = {}

    def walk(value: Any, where: str) -> None:
        if isinstance(value, str):
            out[where] = value
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{where}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{where}[{i}]")

    for table in _TASK_TABLES:
        node: Any = data
        for key in table:
            node = node.get(key) if isinstance(node, dict) else None
        if node is not None:
            walk(node, ".".join(table))
    return out


def task_runners(path: str, old: str | None, new: str | None) -> list[Reason]:
    """A test task of poe, hatch or pdm in pyproject.toml removed or narrowed."""
    o, n = _task_commands(old), _task_commands(new)
    out: list[Reason] = []
    for where, cmd in sorted(o.items()):
        if not _RUNNERS.search(cmd):
            continue
        name = where.rsplit(".", 1)[-1].split("[", 1)[0]
        at = (f"{name} =", f"{name}=", name)
        if where not in n:
            out.append(
                Reason(R.TAMPER_CI_STEP_REMOVED, path, line_of(old, *at), f"{where} removed")
            )
            continue
        for why in run_weakened(cmd, n[where]):
            out.append(Reason(R.TAMPER_CI_STEP_REMOVED, path, line_of(new, *at), f"{where}: {why}"))
    return out


def analyze_ci(path: str, old: str | None, new: str | None) -> list[Reason]:
    name = PurePosixPath(path).name
    if path.startswith(".github/workflows/") and name.endswith((".yml", ".yaml")):
        return workflow(path, old, new)
    if name == "tox.ini":
        return tox(path, old, new)
    if name == "noxfile.py":
        return nox(path, old, new)
    if name in ("Makefile", "makefile", "GNUmakefile"):
        return makefile(path, old, new)
    if name == "pyproject.toml":
        return task_runners(path, old, new)
    if name == ".gitlab-ci.yml" and old is not None and new is not None:
        return [
            Reason(R.TAMPER_CI_STEP_REMOVED, path, None, w)
            for w in run_weakened(str(_load(old)), str(_load(new)))
        ]
    return []
