"""Shared fixtures: fixture projects built in temporary directories."""

from __future__ import annotations

import glob
import os
import shutil
import site
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from truegreen.cli import main

#: The interpreter the fixture projects run in: it has pytest (the dev extras).
TARGET_PYTHON = Path(sys.executable)


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_AUTHOR_DATE": "2020-01-01T00:00:00+0000",
        "GIT_COMMITTER_DATE": "2020-01-01T00:00:00+0000",
    }
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[..., Path]:
    """``make_project({"tests/test_x.py": "..."}, git=True)`` -> the project's root."""

    def make(files: dict[str, str], *, use_git: bool = True, name: str = "proj") -> Path:
        root = tmp_path / name
        root.mkdir()
        write_files(root, files)
        if use_git:
            git(root, "init", "-q", "-b", "main")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "base")
        return root

    return make


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the developer's real truegreen data directory."""
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path_factory.mktemp("tghome")))


#: The fixture projects run in this interpreter, which holds truegreen's own development
#: tools: pytest would load their plugins (hypothesis alone takes 1-2 s to import) into
#: every one of the suite's hundreds of pytest runs, for projects that use none of them.
#: truegreen passes PYTEST_DISABLE_PLUGIN_AUTOLOAD to those runs (TRUEGREEN_PASS_ENV, as a
#: user would); a test about plugins is marked ``autoload`` and gets them.
LEAN = ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture(autouse=True)
def _lean_fixture_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("autoload") is not None:
        return
    name, value = LEAN
    monkeypatch.setenv(name, value)
    passed = [n for n in os.environ.get("TRUEGREEN_PASS_ENV", "").split(",") if n]
    monkeypatch.setenv("TRUEGREEN_PASS_ENV", ",".join([*passed, name]))
    monkeypatch.delenv("TRUEGREEN_DB", raising=False)


def live_processes_with(env_entry: str) -> list[int]:
    """Live (non-zombie) processes whose environment holds ``env_entry`` (NAME=value)."""
    needle = env_entry.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def process_tag(monkeypatch: pytest.MonkeyPatch) -> str:
    """An environment entry every process started by this test carries (truegreen passes
    it to tests through TRUEGREEN_PASS_ENV), so leftovers can be found without mistaking
    another test run's processes for ours."""
    import uuid

    value = uuid.uuid4().hex
    monkeypatch.setenv("TG_TEST_TAG", value)
    passed = [n for n in os.environ.get("TRUEGREEN_PASS_ENV", "").split(",") if n]
    monkeypatch.setenv("TRUEGREEN_PASS_ENV", ",".join([*passed, "TG_TEST_TAG"]))
    return f"TG_TEST_TAG={value}"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``truegreen ARGS`` in-process: (exit status, stdout, stderr). ``main`` always ends in
    ``SystemExit``, so a return without one fails the test."""
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    captured = capsys.readouterr()
    code = exc.value.code if isinstance(exc.value.code, int) else 0
    return code, captured.out, captured.err


# -- tests that need a system tool or a service ------------------------------------------
#
# A test marked with one of these needs something outside Python. Outside CI a missing one
# skips the test with the reason; with CI=true (.ci/run installs and starts them all) it is
# a failure, so a missing install step can never hide behind a skip.


def modern_python(base: Path) -> str:
    """A Python >= 3.12 with pytest, for the sys.monitoring engine when the suite runs on
    3.11: another installed interpreter in a bare virtualenv that borrows this one's
    (pure-Python) pytest through a .pth file."""
    if sys.version_info >= (3, 12):
        return sys.executable
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    found += [w for w in map(shutil.which, ("python3.13", "python3.12")) if w]
    for cand in found:
        venv = base / "py312"
        done = subprocess.run([cand, "-m", "venv", "--without-pip", str(venv)], check=False)
        sites = list(venv.glob("lib/python3.*/site-packages"))
        if done.returncode != 0 or not sites:
            continue
        here = [p for p in site.getsitepackages() if "site-packages" in p]
        (sites[0] / "_borrowed.pth").write_text("\n".join(here) + "\n")
        python = str(venv / "bin" / "python")
        if subprocess.run([python, "-c", "import pytest"], check=False).returncode == 0:
            return python
    if in_ci():
        pytest.fail("no Python >= 3.12 to test the sys.monitoring engine with")
    pytest.skip("no Python >= 3.12 installed here to test the sys.monitoring engine with")


#: where the virtualenvs with other pytest versions are kept between runs
VENV_CACHE = Path(
    os.environ.get("TRUEGREEN_TEST_CACHE", Path.home() / ".cache" / "truegreen-tests")
)


def venv_with(spec: str) -> Path:
    """The python of a virtualenv with ``spec`` installed (another pytest version, for the
    stdlib-only plugins), cached between runs (built from the registry)."""
    name = spec.replace("<", "lt").replace("=", "").replace(",", "_").replace(">", "gt")
    env = VENV_CACHE / f"venv-{name}-py{sys.version_info[0]}{sys.version_info[1]}"
    python = env / "bin" / "python"
    if not (env / ".ok").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(env)], check=True)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", spec],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            if in_ci():
                pytest.fail(f"cannot install {spec} in CI: {done.stderr[-500:]}")
            pytest.skip(
                f"cannot install {spec} here (no package index?): {done.stderr.strip()[-200:]}"
            )
        (env / ".ok").write_text("ok")
    return python


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require(ok: bool, why: str) -> None:
    """Skip (outside CI) or fail (in CI) when a test's requirement ``ok`` does not hold."""
    if ok:
        return
    if in_ci():
        pytest.fail(f"CI=true, but {why}: .ci/run must provide it")
    pytest.skip(f"{why} (this test runs in CI)")


def _reachable(host: str, port: int) -> bool:
    import socket

    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True


def _bwrap() -> tuple[bool, str]:
    from truegreen.sandbox.bwrap import BwrapBackend

    ok, why = BwrapBackend().available()
    return ok, f"the bwrap sandbox does not work here: {why}"


def _postgres() -> tuple[bool, str]:
    return _reachable("127.0.0.1", 5432), "PostgreSQL is not reachable at 127.0.0.1:5432"


def _redis() -> tuple[bool, str]:
    return _reachable("127.0.0.1", 6379), "Redis is not reachable at 127.0.0.1:6379"


def _chromium() -> tuple[bool, str]:
    import shutil

    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return found is not None, "Chromium is not installed (apt-get install chromium)"


#: marker -> the check of what it needs, run once per session on first use
REQUIREMENTS: dict[str, Callable[[], tuple[bool, str]]] = {
    "bwrap": _bwrap,
    "postgres": _postgres,
    "redis": _redis,
    "chromium": _chromium,
}
_checked: dict[str, tuple[bool, str]] = {}


def requirement(marker: str) -> tuple[bool, str]:
    if marker not in _checked:
        _checked[marker] = REQUIREMENTS[marker]()
    return _checked[marker]


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in REQUIREMENTS:
        if item.get_closest_marker(marker) is not None:
            require(*requirement(marker))
