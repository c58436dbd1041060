"""``truegreen doctor``: what is installed and configured, what is missing, what to do."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from truegreen import __version__, config
from truegreen.errors import TruegreenError
from truegreen.run.executor import Command, Executor, default_executor


def _item(name: str, status: str, detail: str, fix: str | None = None) -> dict[str, Any]:
    return {"name": name, "status": status, "detail": detail, "fix": fix}


#: the oldest git truegreen works with: a branch made from an older base is graded merged
#: with ``git merge --no-verify`` (git 2.24)
MIN_GIT = (2, 24)

#: what needs git (``run``, ``localize`` and ``diagnose`` do not)
_GIT_USERS = "seal, verify, strength and demo need it (they compare revisions in git worktrees)"

_GIT_INSTALL = (
    "install git {min} or newer and put it on PATH (Debian/Ubuntu: apt-get install git; "
    "Fedora: dnf install git; macOS: xcode-select --install)"
)


def git_check(executor: Executor | None = None) -> dict[str, Any]:
    """Whether git is on PATH, and new enough."""
    need = ".".join(map(str, MIN_GIT))
    path = shutil.which("git")
    if path is None:
        return _item("git", "missing", f"not on PATH: {_GIT_USERS}", _GIT_INSTALL.format(min=need))
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    try:
        done = (executor or default_executor()).run(
            Command((path, "--version"), cwd=Path(path).parent, env=env, timeout=30)
        )
    except TruegreenError as exc:
        return _item("git", "missing", f"{path} does not run: {exc}", _GIT_INSTALL.format(min=need))
    m = re.search(r"git version (\d+)\.(\d+)", done.stdout)
    if not done.ok or m is None:
        said = (done.stdout or done.stderr).strip()[:200] or f"exit code {done.returncode}"
        return _item(
            "git",
            "warn",
            f"{path}: `git --version` said {said!r}, not a version",
            f"check that it is git; truegreen needs git {need} or newer",
        )
    version = (int(m.group(1)), int(m.group(2)))
    shown = done.stdout.strip().removeprefix("git version ")
    if version < MIN_GIT:
        return _item(
            "git",
            "missing",
            f"git {shown} ({path}) is older than {need}: {_GIT_USERS}",
            _GIT_INSTALL.format(min=need).replace("install", "upgrade to", 1),
        )
    return _item("git", "ok", f"git {shown} ({path})")


def checks(repo: Path, python: str | None) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = [
        _item(
            "truegreen",
            "ok",
            f"{__version__} on Python {sys.version.split()[0]} ({sys.executable})",
        )
    ]
    results.append(git_check())
    root = Path(repo).expanduser()
    if root.is_dir():
        try:
            settings = config.load(root)
            srcs = (
                ", ".join(f"{k} from {v}" for k, v in sorted(settings.sources.items()))
                or "defaults"
            )
            results.append(_item("configuration", "ok", srcs))
        except TruegreenError as exc:
            results.append(
                _item(
                    "configuration", "missing", str(exc), "fix [tool.truegreen] or truegreen.toml"
                )
            )
        try:
            from truegreen.run.interpreter import resolve

            interp = resolve(python, root)
            results.append(
                _item(
                    "project interpreter",
                    "ok",
                    f"{interp.path} (Python {interp.python}, pytest {interp.pytest})",
                )
            )
            modern = tuple(int(x) for x in interp.python.split(".")[:2]) >= (3, 12)
            results.append(
                _item(
                    "localize tracer",
                    "ok",
                    "sys.monitoring (Python >= 3.12): about 1.1-1.3x a bare run"
                    if modern
                    else "sys.settrace (Python 3.11): expect about 2-3x a bare run",
                    None if modern else "optional: a Python >= 3.12 interpreter measures faster",
                )
            )
        except TruegreenError as exc:
            results.append(_item("project interpreter", "missing", exc.message, exc.hint))
    else:
        results.append(
            _item(
                "repository",
                "missing",
                f"{root} is not a directory",
                "give the path of the project's repository",
            )
        )
    try:
        from truegreen import sandbox

        listing = getattr(sandbox, "available_backends", None)
        if listing is not None:
            for name, ok, why in listing():
                results.append(
                    _item(
                        f"sandbox {name}",
                        "ok" if ok else "warn",
                        why,
                        None if ok else f"the sandbox {name} will not work here",
                    )
                )
    except TruegreenError as exc:  # pragma: no cover - defensive
        results.append(_item("sandbox", "warn", str(exc)))
    db = os.environ.get("TRUEGREEN_DB")
    from truegreen.exam.db import data_dir

    ddir = data_dir()
    results.append(
        _item("database", "ok", db if db else f"SQLite in {ddir} (set TRUEGREEN_DB for PostgreSQL)")
    )
    token = "GITHUB_TOKEN" in os.environ
    results.append(
        _item(
            "GitHub token",
            "ok" if token else "warn",
            "GITHUB_TOKEN is set" if token else "GITHUB_TOKEN is not set",
            None if token else "needed only for diagnose --github (fetching a workflow run's logs)",
        )
    )
    return results
