"""The install phase: build the target's environment (``truegreen env build``).

Separate from the run phase, and the only phase with network access. It creates (or
updates) a virtualenv, by default ``.venv`` at the repository root (which ``--python``
then picks by default), and installs the project with its test extras plus pytest:

    PY -m venv VENV
    VENV/bin/python -m pip install --upgrade pip          (only when the venv is new)
    VENV/bin/python -m pip install -e ".[test]" pytest    (the extras the project declares)

Every step runs through the executor under a deadline, with an environment built from
an allow-list: no tokens or credentials, except what pip needs to reach the package index
(``PIP_INDEX_URL``, ``PIP_EXTRA_INDEX_URL``, ``PIP_TRUSTED_HOST``, ``PIP_CERT``, proxies).

What this does NOT do: filter the network by host. bubblewrap shares or removes the
whole network namespace; restricting it to the index would need a proxy. Installing a
project runs its build backend (and, for sdists, its dependencies' build code) with
network access, so ``env build`` is meant for a project the maintainer chose to build,
not for a pull request's head; the run phase, where a pull request's code runs, has no
network at all.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from truegreen.errors import ExecutionCancelled, ExecutionError, UsageError
from truegreen.events import QUIET, Events
from truegreen.run.executor import Command, Completed, Executor, default_executor
from truegreen.run.interpreter import default_python
from truegreen.sandbox import is_secret_name

#: Extras that conventionally hold a project's test dependencies, in order of preference.
TEST_EXTRAS = ("test", "tests", "testing", "dev")

#: Variables the install phase passes through (pip's index settings and proxies).
INSTALL_ENV_ALLOW = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_TRUSTED_HOST",
    "PIP_CERT",
    "PIP_NO_CACHE_DIR",
    "PIP_CACHE_DIR",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
)
#: pip's own settings are allowed even if their names look secret-ish (an index URL
#: may carry credentials for a private index: that is what the install phase is for).
_PIP_NAMES = {n for n in INSTALL_ENV_ALLOW if n.startswith("PIP_")}


@dataclass(frozen=True)
class EnvBuild:
    """What ``env build`` did."""

    venv: Path
    python: Path
    created: bool
    extras: tuple[str, ...]
    steps: list[dict[str, object]] = field(default_factory=list)
    #: whether commands run tests with it when no --python is given (it is the
    #: repository's .venv, which the interpreter resolution reads)
    default: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "truegreen.env/1",
            "venv": str(self.venv),
            "python": str(self.python),
            "default": self.default,
            "created": self.created,
            "extras": list(self.extras),
            "steps": self.steps,
            "network": "install phase only; the run phase has none",
        }


def install_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k in INSTALL_ENV_ALLOW and (k in _PIP_NAMES or not is_secret_name(k))
    }
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def declared_test_extras(repo: Path) -> tuple[str, ...]:
    """The first of the conventional test extras that pyproject.toml declares (if any)."""
    path = repo / "pyproject.toml"
    if not path.is_file():
        return ()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return ()
    declared = data.get("project", {}).get("optional-dependencies", {})
    if not isinstance(declared, dict):
        return ()
    for name in TEST_EXTRAS:
        if name in declared:
            return (name,)
    return ()


def venv_python(venv: Path) -> Path:
    unix = venv / "bin" / "python"
    return unix if unix.exists() or os.name != "nt" else venv / "Scripts" / "python.exe"


def build_env(
    repo: Path,
    *,
    venv: Path | None = None,
    python: str | None = None,
    extras: Sequence[str] | None = None,
    packages: Sequence[str] = ("pytest",),
    timeout: float = 1800.0,
    executor: Executor | None = None,
    events: Events = QUIET,
) -> EnvBuild:
    """Create or update the target's virtualenv and install the project for testing."""
    root = Path(repo).expanduser().resolve()
    if not (root / "pyproject.toml").is_file() and not (root / "setup.py").is_file():
        raise UsageError(
            f"{root} has neither pyproject.toml nor setup.py: nothing to install",
            hint="give the path of the project's root",
            field="repo",
        )
    target = (venv if venv is not None else root / ".venv").expanduser()
    target = target if target.is_absolute() else (root / target)
    base = python or sys.executable
    ex = executor or default_executor()
    env = install_env()
    steps: list[dict[str, object]] = []

    def step(argv: list[str], what: str) -> Completed:
        events.note("env", f"truegreen: env build: {what}")
        try:
            done = ex.run(Command(argv, cwd=root, env=env, timeout=timeout))
        except ExecutionCancelled:
            raise
        except ExecutionError as exc:
            raise UsageError(f"env build: {what} could not run: {exc.message}") from exc
        steps.append({"argv": list(argv), "exit_code": done.returncode, "seconds": done.duration})
        if not done.ok:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
            why = "timed out" if done.timed_out else f"exit {done.returncode}"
            raise UsageError(
                f"env build: {what} failed ({why}):\n{tail}",
                hint="fix the project's packaging, or give a working interpreter",
                field="python",
            )
        return done

    created = not venv_python(target).exists()
    if created:
        step([base, "-m", "venv", str(target)], f"create {target}")
        step(
            [str(venv_python(target)), "-m", "pip", "install", "-q", "--upgrade", "pip"],
            "upgrade pip",
        )
    chosen = tuple(extras) if extras is not None else declared_test_extras(root)
    spec = "." + (f"[{','.join(chosen)}]" if chosen else "")
    step(
        [str(venv_python(target)), "-m", "pip", "install", "-q", "-e", spec, *packages],
        f"pip install -e {spec} {' '.join(packages)}".strip(),
    )
    python_path = venv_python(target)
    return EnvBuild(
        venv=target,
        python=python_path,
        created=created,
        extras=chosen,
        steps=steps,
        default=default_python(root).absolute() == python_path.absolute(),
    )
