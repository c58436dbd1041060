"""`truegreen env build` (the install phase) with a fake executor: no network here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import write_files
from truegreen.cli import main
from truegreen.errors import UsageError
from truegreen.run.executor import Command, Completed, FakeExecutor
from truegreen.sandbox import install
from truegreen.sandbox.install import build_env, declared_test_extras


def _ok(command: Command) -> Completed:
    argv = tuple(command.argv)
    if argv[1:3] == ("-m", "venv"):
        bindir = Path(argv[3]) / "bin"
        bindir.mkdir(parents=True)
        (bindir / "python").write_text("")
    return Completed(argv=argv, returncode=0, stdout="", stderr="", duration=0.01)


def _project(root: Path, extras: str = "") -> Path:
    write_files(
        root,
        {"pyproject.toml": f'[project]\nname = "p"\nversion = "0"\n{extras}', "p.py": ""},
    )
    return root


def test_new_venv_then_editable_install_with_the_declared_test_extra(tmp_path, monkeypatch):
    root = _project(
        tmp_path / "p", '[project.optional-dependencies]\ndev = ["x"]\ntest = ["pytest"]\n'
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_x")
    monkeypatch.setenv("PIP_INDEX_URL", "https://index.example/simple")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    fake = FakeExecutor(_ok)
    result = build_env(root, python="/usr/bin/python3", executor=fake)
    argvs = [list(c.argv) for c in fake.commands]
    assert argvs[0] == ["/usr/bin/python3", "-m", "venv", str(root / ".venv")]
    assert argvs[-1][-3:] == ["-e", ".[test]", "pytest"]
    assert result.created and result.extras == ("test",)
    assert result.python == root / ".venv" / "bin" / "python"
    for command in fake.commands:
        assert "GITHUB_TOKEN" not in command.env and "AWS_SECRET_ACCESS_KEY" not in command.env
        assert command.env["PIP_INDEX_URL"] == "https://index.example/simple"
        assert command.cwd == root.resolve()
    # a second build updates: no new venv, only the install
    fake2 = FakeExecutor(_ok)
    again = build_env(root, executor=fake2)
    assert not again.created and len(fake2.commands) == 1


def test_no_extras_declared_and_explicit_extras(tmp_path):
    root = _project(tmp_path / "p")
    assert declared_test_extras(root) == ()
    fake = FakeExecutor(_ok)
    build_env(root, venv=Path("envs/t"), extras=["a", "b"], executor=fake)
    assert fake.commands[0].argv[-1] == str(root / "envs" / "t")
    assert ".[a,b]" in fake.commands[-1].argv


def test_failures_and_non_projects_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="nothing to install"):
        build_env(tmp_path)
    root = _project(tmp_path / "p")

    def fail(command: Command) -> Completed:
        return Completed(tuple(command.argv), 1, "", "ERROR: no matching distribution", 0.1)

    with pytest.raises(UsageError, match="no matching distribution"):
        build_env(root, executor=FakeExecutor(fail))


def test_cli_env_build_json(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p")
    code, out = _cli_build(monkeypatch, capsys, root, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.env/1" and doc["created"] is True
    assert doc["venv"] == str(root / ".venv")


def _cli_build(monkeypatch, capsys, root: Path, *extra: str) -> tuple[int, str]:
    fake = FakeExecutor(_ok)
    real = install.build_env

    def with_fake(*args, **kwargs):
        return real(*args, **{**kwargs, "executor": fake})

    monkeypatch.setattr(install, "build_env", with_fake)
    with pytest.raises(SystemExit) as exc:
        main(["env", "build", "--repo", str(root), *extra])
    return (exc.value.code or 0), capsys.readouterr().out


def test_the_repositorys_venv_is_said_to_be_the_default_and_is(tmp_path, monkeypatch, capsys):
    from truegreen.run.interpreter import default_python

    root = _project(tmp_path / "p")
    code, out = _cli_build(monkeypatch, capsys, root)
    assert code == 0
    venv_python = root.resolve() / ".venv" / "bin" / "python"
    assert f"tests will run with {venv_python}: commands use it when no --python" in out
    assert default_python(root.resolve()) == venv_python  # what the commands resolve
    code, out = _cli_build(monkeypatch, capsys, root, "--json")
    assert json.loads(out)["default"] is True


def test_another_venv_is_said_not_to_be_the_default_with_how_to_use_it(
    tmp_path, monkeypatch, capsys
):
    from truegreen.run.interpreter import default_python

    root = _project(tmp_path / "p")
    code, out = _cli_build(monkeypatch, capsys, root, "--venv", "envs/t")
    assert code == 0
    other = root.resolve() / "envs" / "t"
    assert f"{other} is not the default environment" in out
    assert f"pass --python {other / 'bin' / 'python'} to run" in out
    assert "(the default for this repo)" not in out
    # and indeed: without --python, commands do not use it
    assert default_python(root.resolve()) != other / "bin" / "python"
    code, out = _cli_build(monkeypatch, capsys, root, "--venv", "envs/t", "--json")
    assert json.loads(out)["default"] is False
