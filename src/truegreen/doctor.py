"""``truegreen doctor``: what is installed and configured, what is missing, what to do."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from truegreen import __version__, config
from truegreen.errors import TruegreenError


def _item(name: str, status: str, detail: str, fix: str | None = None) -> dict[str, Any]:
    return {"name": name, "status": status, "detail": detail, "fix": fix}


def checks(repo: Path, python: str | None) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = [
        _item(
            "truegreen",
            "ok",
            f"{__version__} on Python {sys.version.split()[0]} ({sys.executable})",
        )
    ]
    git = shutil.which("git")
    results.append(
        _item(
            "git",
            "ok" if git else "missing",
            git or "not on PATH",
            None if git else "install git (apt-get install git)",
        )
    )
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
            _item("repository", "missing", f"{root} is not a directory", "pass --repo PATH")
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
                        None if ok else f"--sandbox {name} will not work here",
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
            None if token else "needed only for diagnose --github and audit OWNER/REPO",
        )
    )
    return results
