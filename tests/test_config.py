"""``[tool.truegreen]`` / truegreen.toml: every accepted key is acted on, anything else is
an error naming the key (the sub-tables DESIGN.md plans included, until a layer reads them)."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import cli
from truegreen import config
from truegreen.errors import ConfigError

PLANNED = sorted(config.PLANNED_SUBTABLES)


@pytest.mark.parametrize("key", PLANNED)
def test_a_planned_sub_table_is_an_error_naming_it_in_pyproject(key):
    text = f'[tool.truegreen]\ntests = ["tests"]\n\n[tool.truegreen.{key}]\nx = 1\n'
    with pytest.raises(ConfigError) as exc:
        config.parse(text, None)
    assert exc.value.message.startswith(f"pyproject.toml [tool.truegreen] {key}: not supported yet")
    assert exc.value.hint is not None and f"[tool.truegreen.{key}]" in exc.value.hint


@pytest.mark.parametrize("key", PLANNED)
def test_a_planned_sub_table_is_an_error_naming_it_in_truegreen_toml(key):
    with pytest.raises(ConfigError) as exc:
        config.parse(None, f"[{key}]\nx = 1\n")
    assert exc.value.message.startswith(f"truegreen.toml {key}: not supported yet")
    assert exc.value.hint is not None and f"remove the [{key}] table" in exc.value.hint


def test_a_planned_key_that_is_not_even_a_table_is_refused_the_same_way():
    with pytest.raises(ConfigError, match="policy: not supported yet"):
        config.parse('[tool.truegreen]\npolicy = "strict"\n', None)


def test_unknown_keys_name_themselves_and_the_keys_that_work():
    with pytest.raises(ConfigError) as exc:
        config.parse('[tool.truegreen]\nalways_run = ["tests"]\n', None)
    assert "unknown key 'always_run'" in exc.value.message
    assert exc.value.hint is not None and "always-run" in exc.value.hint
    # the hint lists only keys that do something
    assert "policy" not in exc.value.hint and "gates" not in exc.value.hint


def test_a_registered_sub_table_is_validated_once_and_returned(monkeypatch):
    seen: list[tuple[dict, str]] = []

    def validate(table: dict, origin: str) -> tuple[str, ...]:
        seen.append((table, origin))
        if not isinstance(table.get("rules"), list):
            raise ConfigError(f"{origin} policy: rules must be a list")
        return tuple(table["rules"])

    # what a later issue does, in one line
    monkeypatch.setitem(config.SUBTABLES, "policy", validate)
    settings, tables = config.parse(
        '[tool.truegreen]\nsandbox = "none"\n[tool.truegreen.policy]\nrules = ["a"]\n',
        '[policy]\nrules = ["b", "c"]\n',
    )
    assert tables == {"policy": ("b", "c")}  # truegreen.toml wins
    assert seen == [
        ({"rules": ["a"]}, "pyproject.toml [tool.truegreen]"),
        ({"rules": ["b", "c"]}, "truegreen.toml"),
    ]
    assert settings.sources["policy"] == "truegreen.toml"
    assert settings.sandbox == "none"
    with pytest.raises(ConfigError, match="rules must be a list"):
        config.parse(None, "[policy]\nrules = 1\n")
    with pytest.raises(ConfigError, match="policy must be a table"):
        config.parse(None, 'policy = "strict"\n')
    # the other planned tables are still refused
    with pytest.raises(ConfigError, match="gates: not supported yet"):
        config.parse(None, "[gates]\nlint = true\n")


def test_no_sub_table_is_read_in_this_version():
    # the day a layer registers one, its issue updates this list and the docs
    assert config.SUBTABLES == {}
    assert config.parse('[tool.truegreen]\ntests = ["tests"]\n', None)[1] == {}


@pytest.mark.parametrize(
    "entry",
    ["-k", "-pno:cacheprovider", "/abs/tests", "../other/tests", "tests\\win.py", "", " ", "C:/t"],
)
@pytest.mark.parametrize("key", ["tests", "always-run"])
def test_test_selections_must_be_paths_or_ids_inside_the_repository(key, entry):
    text = f"[tool.truegreen]\n{key} = [{json.dumps(entry)}]\n"
    with pytest.raises(ConfigError) as exc:
        config.parse(text, None)
    assert f"{key} entry {entry!r}" in exc.value.message


def test_test_selections_that_are_paths_or_node_ids_are_kept():
    settings, _ = config.parse(
        "[tool.truegreen]\n"
        'tests = ["tests", "."]\n'
        'always-run = ["tests/net/test_api.py::test_get[a/b-1]", "tests/smoke", "test_x.py"]\n',
        None,
    )
    assert settings.tests == ("tests", ".")
    assert settings.always_run == (
        "tests/net/test_api.py::test_get[a/b-1]",
        "tests/smoke",
        "test_x.py",
    )


def test_commands_refuse_a_planned_sub_table_in_one_line(make_project, capsys):
    root = make_project(
        {
            "pyproject.toml": '[tool.truegreen]\n[tool.truegreen.gates]\nlint = "ruff"\n',
            "tests/test_a.py": "def test_a():\n    pass\n",
        }
    )
    code, out, err = cli(
        capsys, "run", "tests/test_a.py::test_a", "--repo", str(root), "--python", sys.executable
    )
    assert (code, out) == (2, "")
    (line,) = err.strip().splitlines()
    assert "[tool.truegreen] gates: not supported yet" in line
    assert "remove the [tool.truegreen.gates] table" in line

    code, out, _ = cli(capsys, "doctor", "--repo", str(root), "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert checks["configuration"]["status"] == "missing"
    assert "gates: not supported yet" in checks["configuration"]["detail"]
