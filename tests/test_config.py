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
    with pytest.raises(ConfigError, match="fix: not supported yet"):
        config.parse('[tool.truegreen]\nfix = "strict"\n', None)


def test_unknown_keys_name_themselves_and_the_keys_that_work():
    with pytest.raises(ConfigError) as exc:
        config.parse('[tool.truegreen]\nalways_run = ["tests"]\n', None)
    assert "unknown key 'always_run'" in exc.value.message
    assert exc.value.hint is not None and "always-run" in exc.value.hint
    # the hint lists only keys that do something: policy and gates (read), not fix (planned)
    assert "policy" in exc.value.hint and "gates" in exc.value.hint
    assert "fix" not in exc.value.hint


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
    with pytest.raises(ConfigError, match="fix: not supported yet"):
        config.parse(None, "[fix]\nlint = true\n")


def test_only_the_policy_and_gates_sub_tables_are_read_in_this_version():
    # the day a layer registers one, its issue updates this list and the docs
    from truegreen.policy.gates import parse_gates
    from truegreen.policy.settings import parse_policy

    assert {"policy": parse_policy, "gates": parse_gates} == config.SUBTABLES
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
            "pyproject.toml": '[tool.truegreen]\n[tool.truegreen.fix]\nlint = "ruff"\n',
            "tests/test_a.py": "def test_a():\n    pass\n",
        }
    )
    code, out, err = cli(
        capsys, "run", "tests/test_a.py::test_a", "--repo", str(root), "--python", sys.executable
    )
    assert (code, out) == (2, "")
    (line,) = err.strip().splitlines()
    assert "[tool.truegreen] fix: not supported yet" in line
    assert "remove the [tool.truegreen.fix] table" in line

    code, out, _ = cli(capsys, "doctor", "--repo", str(root), "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert checks["configuration"]["status"] == "missing"
    assert "fix: not supported yet" in checks["configuration"]["detail"]


# -- layers: defaults, pyproject.toml, truegreen.toml (which wins) ----------------------


def test_no_file_and_no_table_give_the_defaults() -> None:
    for texts in [(None, None), ('[project]\nname = "p"\n', None), ("[tool.other]\nx = 1\n", None)]:
        settings, tables = config.parse(*texts)
        assert settings == config.Settings()
        assert tables == {}
    assert config.Settings().suite_timeout == 900.0


ALL_KEYS = (
    'tests = ["tests"]\n'
    'ignore = ["tests/net"]\n'
    'pytest-args = ["--tb=native"]\n'
    'always-run = ["tests/test_smoke.py"]\n'
    "suite-timeout = 60\n"
    'sandbox = "none"\n'
    'carry = ["src/pkg/_version.py"]\n'
)


@pytest.mark.parametrize("where", ["pyproject", "truegreen.toml"])
def test_every_key_is_read_from_either_file(where: str) -> None:
    texts = ("[tool.truegreen]\n" + ALL_KEYS, None) if where == "pyproject" else (None, ALL_KEYS)
    settings, _ = config.parse(*texts)
    assert (
        settings.tests,
        settings.ignore,
        settings.pytest_args,
        settings.always_run,
        settings.suite_timeout,
        settings.sandbox,
        settings.carry,
    ) == (
        ("tests",),
        ("tests/net",),
        ("--tb=native",),
        ("tests/test_smoke.py",),
        60.0,
        "none",
        ("src/pkg/_version.py",),
    )
    origin = "pyproject.toml [tool.truegreen]" if where == "pyproject" else "truegreen.toml"
    assert set(settings.sources.values()) == {origin}
    assert len(settings.sources) == 7


def test_truegreen_toml_wins_key_by_key_and_the_rest_stays_from_pyproject() -> None:
    settings, _ = config.parse(
        '[tool.truegreen]\ntests = ["tests"]\nsuite-timeout = 60\nsandbox = "none"\n',
        'tests = ["tests/unit"]\nsandbox = "bwrap"\n',
    )
    assert settings.tests == ("tests/unit",)
    assert settings.sandbox == "bwrap"
    assert settings.suite_timeout == 60.0
    assert settings.sources == {
        "tests": "truegreen.toml",
        "sandbox": "truegreen.toml",
        "suite-timeout": "pyproject.toml [tool.truegreen]",
    }


def test_load_reads_the_files_of_a_directory_truegreen_toml_winning(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.truegreen]\nignore = ["a"]\nsandbox = "none"\n')
    (tmp_path / "truegreen.toml").write_text('sandbox = "docker"\n')
    settings = config.load(tmp_path)
    assert (settings.ignore, settings.sandbox) == (("a",), "docker")
    assert config.load(tmp_path / "nothing-here") == config.Settings()


def test_an_unknown_key_in_truegreen_toml_is_an_error_naming_the_file() -> None:
    with pytest.raises(ConfigError) as exc:
        config.parse('[tool.truegreen]\ntests = ["t"]\n', "timeout = 5\n")
    assert exc.value.message == "truegreen.toml: unknown key 'timeout'"
    assert exc.value.hint is not None and "suite-timeout" in exc.value.hint


def test_a_key_known_to_pyproject_is_also_checked_when_truegreen_toml_overrides_it() -> None:
    # the lower layer is validated too: a broken value never hides behind an override
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.truegreen\]: sandbox"):
        config.parse('[tool.truegreen]\nsandbox = "chroot"\n', 'sandbox = "none"\n')


# -- every key's bad values ---------------------------------------------------------------

BAD = [
    ("tests", '"tests"', "tests must be a list of strings"),
    ("tests", "[1]", "tests must be a list of strings"),
    ("ignore", '"tests/net"', "ignore must be a list of strings"),
    ("ignore", "[true]", "ignore must be a list of strings"),
    ("pytest-args", '"-q"', "pytest-args must be a list of strings"),
    ("pytest-args", '["-k", "fast"]', "pytest-args may not contain '-k'"),
    ("pytest-args", '["-kfast"]', "pytest-args may not contain '-kfast'"),
    ("pytest-args", '["--deselect=tests/t.py::a"]', "may not contain '--deselect=tests/t.py::a'"),
    ("pytest-args", '["-p", "no:randomly"]', "pytest-args may not contain '-p'"),
    ("pytest-args", '["--continue-on-collection-errors"]', "may not contain"),
    ("always-run", '"tests/smoke"', "always-run must be a list of strings"),
    ("always-run", '["-m slow"]', "always-run entry '-m slow' is not a test path"),
    ("suite-timeout", "0", "suite-timeout must be a positive number of seconds, not 0"),
    ("suite-timeout", "-5", "suite-timeout must be a positive number of seconds, not -5"),
    ("suite-timeout", '"900"', "suite-timeout must be a positive number of seconds, not '900'"),
    ("suite-timeout", "true", "suite-timeout must be a positive number of seconds, not True"),
    ("sandbox", '"chroot"', "sandbox must be one of none, bwrap, docker, not 'chroot'"),
    ("sandbox", "1", "sandbox must be one of none, bwrap, docker, not 1"),
    ("carry", '"src/_version.py"', "carry must be a list of strings"),
    ("carry", '["/etc/passwd"]', "carry entry '/etc/passwd' is not a path relative"),
    ("carry", '["~/.ssh/id_rsa"]', "carry entry '~/.ssh/id_rsa' is not a path relative"),
    ("carry", '["C:/x.py"]', "is not a path relative"),
    ("carry", '["src\\\\x.py"]', "is not a path relative"),
    ("carry", '["src/../../x.py"]', "leads out of the repository"),
    ("carry", '["./src/x.py"]', "is not a plain path"),
    ("carry", '[".git/config"]', "is not a plain path"),
    ("carry", '["src//x.py"]', "is not a plain path"),
    ("carry", '[" "]', "is not a path relative"),
]


@pytest.mark.parametrize(("key", "value", "says"), BAD, ids=[f"{k}={v}" for k, v, _ in BAD])
@pytest.mark.parametrize("where", ["pyproject", "truegreen.toml"])
def test_a_bad_value_is_an_error_naming_the_file_the_key_and_what_to_do(
    where: str, key: str, value: str, says: str
) -> None:
    line = f"{key} = {value}\n"
    texts = ("[tool.truegreen]\n" + line, None) if where == "pyproject" else (None, line)
    with pytest.raises(ConfigError) as exc:
        config.parse(*texts)
    origin = "pyproject.toml [tool.truegreen]" if where == "pyproject" else "truegreen.toml"
    assert exc.value.message.startswith(origin)
    assert says in exc.value.message
    assert exc.value.hint, "every configuration error says what to do"


@pytest.mark.parametrize(
    ("texts", "says"),
    [
        (("[tool.truegreen\n", None), "pyproject.toml is not valid TOML"),
        ((None, "tests = [\n"), "truegreen.toml is not valid TOML"),
        (('[tool]\ntruegreen = "on"\n', None), "pyproject.toml: tool.truegreen must be a table"),
    ],
)
def test_a_file_that_is_not_what_it_should_be_is_an_error_with_a_hint(texts, says) -> None:
    with pytest.raises(ConfigError) as exc:
        config.parse(*texts)
    assert exc.value.message.startswith(says)
    assert exc.value.hint


def test_a_tool_key_that_is_not_a_table_holds_no_truegreen_settings() -> None:
    assert config.parse('tool = "x"\n', None)[0] == config.Settings()


def test_a_file_that_is_not_utf8_is_an_error_naming_it(tmp_path) -> None:
    (tmp_path / "truegreen.toml").write_bytes(b'sandbox = "\xff"\n')
    with pytest.raises(ConfigError) as exc:
        config.load(tmp_path)
    assert exc.value.message.startswith("cannot read truegreen.toml: ")
    assert exc.value.hint is not None and "UTF-8" in exc.value.hint
