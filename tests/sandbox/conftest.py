"""Helpers for the sandbox tests: run ``python -m pytest`` in a fixture project through
a real backend and the real executor, and check that nothing of a run is left behind."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.conftest import require, requirement
from truegreen.run.executor import Command, Completed, SubprocessExecutor
from truegreen.sandbox import Limits, SandboxSpec, get_backend

PYTHON = Path(sys.executable)


def require_bwrap() -> None:
    """Skip (outside CI) or fail (in CI) when bubblewrap cannot sandbox here."""
    require(*requirement("bwrap"))


@pytest.fixture
def bwrap() -> None:
    require_bwrap()


def _pids_with(token: str) -> list[int]:
    """Host processes whose command line or environment carries ``token``."""
    needle = token.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for name in ("cmdline", "environ"):
            try:
                if needle in (entry / name).read_bytes():
                    found.append(int(entry.name))
                    break
            except OSError:
                continue
    return found


@pytest.fixture
def canary() -> Iterator[str]:
    """A token the fixture project's processes carry; none may outlive the test."""
    token = f"tgcanary{uuid.uuid4().hex}"
    yield token
    left = _pids_with(token)
    assert not left, f"processes left running after the run: {left}"


def run_suite(
    root: Path,
    sandbox: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
    limits: Limits | None = None,
    grant_workdir: bool = False,
) -> Completed:
    """``python -m pytest -q ARGS`` in ``root`` through ``sandbox`` and the real executor."""
    base = {
        "PATH": f"{PYTHON.parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = Command(
        [
            str(PYTHON),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-s",
            "-o",
            "addopts=",
            *args,
        ],
        cwd=root,
        env={**base, **(env or {})},
        timeout=timeout,
    )
    spec = SandboxSpec(
        workdir=root, python=PYTHON, limits=limits or Limits(), grant_workdir=grant_workdir
    )
    return SubprocessExecutor().run(get_backend(sandbox).wrap(command, spec))


def pids_with(token: str) -> list[int]:
    return _pids_with(token)
