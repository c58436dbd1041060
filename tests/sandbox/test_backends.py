"""Backends without running anything: selection, argv, environment, docker, doctor."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import truegreen.sandbox as sandbox
from tests.conftest import in_ci
from truegreen.errors import UsageError
from truegreen.run.executor import Command
from truegreen.sandbox import Limits, NoSandbox, SandboxSpec, get_backend, is_secret_name
from truegreen.sandbox import bwrap as bwrap_mod
from truegreen.sandbox import docker as docker_mod
from truegreen.sandbox.bwrap import BwrapBackend
from truegreen.sandbox.docker import DockerBackend

PY = Path(sys.executable)


def _cmd(cwd: Path, **env: str) -> Command:
    return Command([str(PY), "-m", "pytest", "-q"], cwd=cwd, env=env, timeout=60)


def _after(argv: tuple[str, ...], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_none_wraps_nothing(tmp_path):
    cmd = _cmd(tmp_path, PATH="/usr/bin")
    assert NoSandbox().wrap(cmd, SandboxSpec(workdir=tmp_path, python=PY)) is cmd
    assert get_backend("none").name == "none"


def test_unknown_backend_is_a_usage_error():
    with pytest.raises(UsageError, match="not a sandbox"):
        get_backend("chroot")


def test_default_falls_back_to_none_and_says_why(monkeypatch):
    monkeypatch.setattr(BwrapBackend, "available", lambda self: (False, "no bwrap here"))
    said: list[str] = []
    backend = get_backend(None, notify=said.append)
    assert backend.name == "none"
    assert len(said) == 1 and "WITHOUT isolation" in said[0] and "no bwrap here" in said[0]


def test_default_is_bwrap_when_it_works_and_says_so(monkeypatch):
    monkeypatch.setattr(BwrapBackend, "available", lambda self: (True, "uid 65534"))
    said: list[str] = []
    assert get_backend(None, notify=said.append).name == "bwrap"
    assert said == ["truegreen: sandbox: bwrap (uid 65534)"]


def test_explicit_unavailable_backend_names_why_and_what_to_do(monkeypatch):
    monkeypatch.setattr(DockerBackend, "available", lambda self: (False, "no engine"))
    with pytest.raises(UsageError) as info:
        get_backend("docker")
    assert "no engine" in str(info.value) and info.value.field == "sandbox"
    assert "choose the sandbox bwrap, or none" in str(info.value)


def test_check_backend_asks_ahead_and_get_backend_says_the_answer(monkeypatch):
    probes: list[str] = []

    def probe(self):
        probes.append("bwrap")
        return (False, "no user namespaces")

    bwrap_mod.reset_cache()
    monkeypatch.setattr(BwrapBackend, "_probe", probe)
    try:
        sandbox.check_backend(None)
        assert probes == ["bwrap"]
        said: list[str] = []
        assert get_backend(None, notify=said.append).name == "none"
        assert probes == ["bwrap"]  # the answer kept, not asked again
        assert "no user namespaces" in said[0]
    finally:
        bwrap_mod.reset_cache()


def test_check_backend_never_raises(monkeypatch):
    def broken(self):
        raise OSError("bwrap vanished")

    monkeypatch.setattr(BwrapBackend, "available", broken)
    sandbox.check_backend("bwrap")  # get_backend is the one to report it
    sandbox.check_backend("chroot")  # not a backend: get_backend says so
    with pytest.raises(UsageError, match="not a sandbox"):
        get_backend("chroot")


def test_available_backends_lists_all_three():
    listing = sandbox.available_backends()
    assert [name for name, _, _ in listing] == ["none", "bwrap", "docker"]
    assert all(isinstance(ok, bool) and why for _, ok, why in listing)


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("GITHUB_TOKEN", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("AWS_PROFILE", True),
        ("MY_API_KEY", True),
        ("DB_PASSWORD", True),
        ("SSH_AUTH_SOCK", True),
        ("PATH", False),
        ("LANG", False),
        ("PYTHONHASHSEED", False),
        ("TRUEGREEN_RUN_MARKER", False),
    ],
)
def test_secret_names(name, secret):
    assert is_secret_name(name) is secret


@pytest.mark.parametrize("as_root", [True, False])
def test_bwrap_argv(tmp_path, as_root):
    work = tmp_path / "wt"
    probe = tmp_path / "probe"
    (work / ".venv").mkdir(parents=True)
    probe.mkdir()
    work.chmod(0o755)
    spec = SandboxSpec(
        workdir=work,
        python=PY,
        writable=(probe,),
        readonly=(work / ".venv",),
        limits=Limits(memory_bytes=1000, processes=7, open_files=9, file_size_bytes=11),
    )
    cmd = _cmd(work, PATH="/usr/bin", GITHUB_TOKEN="x", HOME="/root", KEEP="1")
    backend = BwrapBackend(as_root=as_root)
    argv = backend.wrap(cmd, spec).argv
    assert argv[0].endswith("prlimit")
    assert {"--as=1000", "--nproc=7", "--nofile=9", "--fsize=11", "--core=0", "--cpu=90"} <= set(
        argv[: argv.index("--")]
    )
    for flag in ("--die-with-parent", "--new-session"):
        assert flag in argv
    if as_root:
        assert {"--unshare-net", "--unshare-pid", "--unshare-ipc"} <= set(argv)
        assert "--unshare-user" not in argv
        tail = argv[argv.index("--", argv.index("--chdir")) + 1 :]
        assert tail[0].endswith("setpriv") and "--reuid=65534" in tail
        assert "--bounding-set=-all" in tail and "--no-new-privs" in tail
        assert backend.last_mode == "setpriv"
    else:
        assert "--unshare-all" in argv and "--share-net" not in argv
        assert _after(argv, "--uid") == ["65534"] and _after(argv, "--cap-drop") == ["ALL"]
        assert "--disable-userns" in argv
        assert backend.last_mode == "userns"
    # /tmp is a fresh tmpfs, mounted before the binds that live under it
    tmpfs = argv.index("/tmp", argv.index("--tmpfs"))
    assert argv.index(str(work)) > tmpfs
    # same paths inside; worktree and probe writable, the venv inside it read-only after it
    assert str(work) in _after(argv, "--bind") and str(probe) in _after(argv, "--bind")
    assert str(work / ".venv") in _after(argv, "--ro-bind")
    assert argv.index(str(work / ".venv")) > argv.index(str(work))
    assert "--ro-bind" in argv and "/usr" in _after(argv, "--ro-bind")
    assert str(Path.home()) not in _after(argv, "--bind") + _after(argv, "--ro-bind")
    # directories above binds under /tmp are created traversable
    assert str(tmp_path) in _after(argv, "--dir")
    assert _after(argv, "--chdir") == [str(work)]
    assert argv[-4:] == (str(PY), "-m", "pytest", "-q")
    env = backend.wrap(cmd, spec).env
    assert "GITHUB_TOKEN" not in env and env["KEEP"] == "1"
    assert env["HOME"] == "/tmp" and env["TMPDIR"] == "/tmp"


def test_bwrap_root_falls_back_to_userns_when_uid_65534_cannot_read(tmp_path):
    work = tmp_path / "private"
    work.mkdir(mode=0o700)
    work.chmod(0o700)
    backend = BwrapBackend(as_root=True)
    argv = backend.wrap(_cmd(work), SandboxSpec(workdir=work, python=PY)).argv
    assert backend.last_mode == "userns"
    assert "--unshare-user" in argv and "--cap-drop" in argv
    assert not any(a.endswith("setpriv") for a in argv)


def test_bwrap_network_only_when_asked(tmp_path):
    b = BwrapBackend(as_root=False)
    argv = b.wrap(_cmd(tmp_path), SandboxSpec(workdir=tmp_path, python=PY, network=True)).argv
    assert "--share-net" in argv
    if Path("/etc/resolv.conf").exists():
        assert "/etc/resolv.conf" in _after(argv, "--ro-bind")


def test_bwrap_unavailable_without_the_binary(monkeypatch):
    bwrap_mod.reset_cache()
    monkeypatch.setattr(bwrap_mod.shutil, "which", lambda name: None)
    try:
        ok, why = BwrapBackend().available()
        assert not ok and "bubblewrap is not installed" in why
    finally:
        bwrap_mod.reset_cache()


def test_docker_argv(tmp_path, monkeypatch):
    monkeypatch.setenv("TRUEGREEN_DOCKER_IMAGE", "example/py:1")
    spec = SandboxSpec(workdir=tmp_path, python=PY, limits=Limits(processes=64, memory_bytes=2**30))
    cmd = _cmd(tmp_path, PATH="/usr/bin", AWS_SECRET_ACCESS_KEY="s", KEEP="1")
    argv = DockerBackend(docker="docker").wrap(cmd, spec).argv
    assert argv[:4] == ("docker", "run", "--rm", "--init")
    assert _after(argv, "--network") == ["none"]
    assert "--read-only" in argv and _after(argv, "--user") == ["65534:65534"]
    assert _after(argv, "--cap-drop") == ["ALL"] and _after(argv, "--pids-limit") == ["64"]
    assert _after(argv, "--memory") == [str(2**30)]
    assert f"{tmp_path}:{tmp_path}:rw" in _after(argv, "-v")
    envs = _after(argv, "-e")
    assert "KEEP=1" in envs and not any(e.startswith("AWS_") for e in envs)
    image = argv.index("example/py:1")
    assert argv[image + 1 : image + 5] == ("timeout", "-s", "KILL", "65")
    assert argv[-4:] == (str(PY), "-m", "pytest", "-q")


def test_docker_reports_unavailable_with_a_reason_here():
    docker_mod.reset_cache()
    ok, why = DockerBackend().available()
    docker_mod.reset_cache()
    if ok:
        pytest.skip(f"a Docker engine is reachable here: {why}")
    assert why and ("not installed" in why or "no Docker engine" in why), why
    if not in_ci():
        with pytest.raises(UsageError, match="docker"):
            get_backend("docker")


def test_root_without_privileged_bwrap_uses_the_user_namespace(tmp_path, monkeypatch):
    """Root in a container where privileged bwrap fails: the userns identity, said so."""
    bwrap_mod.reset_cache()
    monkeypatch.setattr(bwrap_mod.shutil, "which", lambda name: f"/usr/bin/{name}")

    def fake_try(self, bwrap, *, setpriv):
        return (False, "denied") if setpriv else (True, "ok")

    monkeypatch.setattr(BwrapBackend, "_try", fake_try)
    try:
        backend = BwrapBackend(as_root=True)
        ok, why = backend.available()
        assert ok and "user namespace only" in why and "not enforced" in why
        work = tmp_path / "w"
        work.mkdir(mode=0o755)
        work.chmod(0o755)
        argv = backend.wrap(_cmd(work), SandboxSpec(workdir=work, python=PY)).argv
        assert backend.last_mode == "userns" and "--unshare-user" in argv
    finally:
        bwrap_mod.reset_cache()


def test_the_fallback_names_the_path_uid_65534_cannot_read(tmp_path: Path) -> None:
    """The warning used to name the worktree whatever path was private (a selection's
    0700 scratch directory given read-only): advice the user could not act on."""
    work, private = tmp_path / "wt", tmp_path / "scratch"
    work.mkdir()
    private.mkdir()
    work.chmod(0o755)
    private.chmod(0o700)
    spec = SandboxSpec(workdir=work, python=PY, readonly=(private,))
    assert BwrapBackend._unreadable(spec) == private
    private.chmod(0o755)
    assert BwrapBackend._unreadable(spec) is None
