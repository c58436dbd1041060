"""[tool.truegreen.policy] / [policy]: every key read and validated, unknown keys and bad
values are errors naming the key; globs and categories."""

from __future__ import annotations

import pytest

from truegreen import config
from truegreen.errors import ConfigError
from truegreen.policy.paths import category, matches
from truegreen.policy.settings import DEFAULT, DEFAULT_SENSITIVE_PATHS, KEYS, Policy


def policy_of(pyproject: str | None = None, toml: str | None = None) -> Policy:
    tables = config.parse(pyproject, toml)[1]
    return tables.get("policy", DEFAULT)


def test_no_table_is_the_default_policy() -> None:
    assert policy_of('[tool.truegreen]\ntests = ["tests"]\n') == DEFAULT
    assert DEFAULT.sensitive == DEFAULT_SENSITIVE_PATHS
    assert DEFAULT.source("broad-files") == "default"


def test_every_key_is_read_with_where_it_came_from() -> None:
    policy = policy_of(
        "[tool.truegreen.policy]\n"
        'sensitive-paths = ["src/pay/"]\n'
        'extend-sensitive-paths = ["*.sql"]\n'
        "broad-files = 3\nbroad-directories = 2\nbroad-lines = 50\n"
        'auto-approve = ["source"]\n'
        'min-strength = "strong"\n'
        "require-hidden-exam = true\n"
        'reject = ["policy.sensitive_path", "tamper.test_data_changed"]\n'
    )
    assert policy.values() == {
        "sensitive-paths": ["src/pay/"],
        "extend-sensitive-paths": ["*.sql"],
        "broad-files": 3,
        "broad-directories": 2,
        "broad-lines": 50,
        "auto-approve": ["source"],
        "min-strength": "strong",
        "require-hidden-exam": True,
        "reject": ["policy.sensitive_path", "tamper.test_data_changed"],
    }
    assert {policy.source(k) for k in KEYS} == {"pyproject.toml [tool.truegreen]"}


def test_truegreen_toml_wins_as_a_whole_table() -> None:
    policy = policy_of(
        "[tool.truegreen.policy]\nbroad-files = 3\nbroad-lines = 9\n",
        "[policy]\nbroad-files = 4\n",
    )
    assert (policy.broad_files, policy.broad_lines) == (4, DEFAULT.broad_lines)
    assert policy.source("broad-files") == "truegreen.toml"
    assert policy.source("broad-lines") == "default"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("broad_files = 3", "pyproject.toml [tool.truegreen.policy]: unknown key 'broad_files'"),
        ("rules = []", "unknown key 'rules'"),
        ("broad-files = 0", "broad-files must be a whole number of at least 1, not 0"),
        ("broad-lines = true", "broad-lines must be a whole number of at least 1, not True"),
        ("broad-lines = 2.5", "broad-lines must be a whole number"),
        ('sensitive-paths = "src"', "sensitive-paths must be a list of globs"),
        ('extend-sensitive-paths = ["../x"]', "the glob '../x' leads out of the project"),
        ('sensitive-paths = [""]', "the glob '' is empty"),
        ('sensitive-paths = ["a\\\\b"]', "uses backslashes"),
        ('auto-approve = ["code"]', "unknown file category 'code'"),
        ('min-strength = "high"', "min-strength must be one of none, weak, medium, strong"),
        ('require-hidden-exam = "yes"', "require-hidden-exam must be true or false"),
        ('reject = ["policy.nonsense"]', "unknown rule id 'policy.nonsense'"),
        ('reject = ["tamper.skip_added"]', "tamper.skip_added rejects already"),
        ('reject = ["strength.weak"]', "unknown rule id 'strength.weak'"),
    ],
)
def test_a_malformed_policy_is_an_error_naming_the_key(body: str, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        policy_of(f"[tool.truegreen.policy]\n{body}\n")
    assert message in exc.value.message
    assert exc.value.hint


def test_in_truegreen_toml_the_error_names_the_policy_table() -> None:
    with pytest.raises(ConfigError, match=r"truegreen.toml \[policy\]: unknown key 'x'"):
        policy_of(None, "[policy]\nx = 1\n")
    with pytest.raises(ConfigError, match="policy must be a table"):
        policy_of(None, 'policy = "strict"\n')


@pytest.mark.parametrize(
    ("path", "glob", "hit"),
    [
        ("uv.lock", "*.lock", True),
        ("sub/poetry.lock", "*.lock", True),
        (".github/workflows/ci.yml", ".github/workflows/**", True),
        (".github/dependabot.yml", ".github/workflows/**", False),
        ("src/app/migrations/0001.py", "migrations/", True),
        ("src/app/migrations.py", "migrations/", False),
        ("src/pay/x.py", "src/pay/", True),
        ("other/src/pay/x.py", "src/pay/", False),
        ("src/a/b/c.py", "src/**/c.py", True),
        ("src/c.py", "src/**/c.py", True),
        ("src/m.py", "src/?.py", True),
        ("src/m.py", "src/[!m].py", False),
        ("/abs.py", "*.py", True),
    ],
)
def test_globs(path: str, glob: str, hit: bool) -> None:
    assert matches(path.lstrip("/"), glob) is hit


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("tests/test_m.py", "tests"),
        ("tests/data/x.json", "tests"),
        ("src/conftest.py", "tests"),
        (".github/workflows/ci.yml", "ci"),
        ("tox.ini", "ci"),
        ("pyproject.toml", "dependencies"),
        ("requirements-dev.txt", "dependencies"),
        ("docs/index.rst", "docs"),
        ("README.md", "docs"),
        ("src/pkg/m.py", "source"),
        ("src/pkg/m.pyi", "source"),
        ("mypy.ini", "config"),
        ("Makefile", "config"),
        ("data/rates.csv", "other"),
    ],
)
def test_categories(path: str, kind: str) -> None:
    assert category(path) == kind
