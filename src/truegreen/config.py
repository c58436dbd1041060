"""The project's truegreen settings: ``[tool.truegreen]`` in pyproject.toml, or the same
keys at the top level of ``truegreen.toml`` at the repository root (which wins).

Layers, lowest first: 1) defaults, 2) pyproject.toml, 3) truegreen.toml, then the
command line where a command has a flag for the key. Unknown keys are errors, and so
are the sub-tables DESIGN.md plans (``fix``, ``strength``...) until the layer that reads
one registers it in :data:`SUBTABLES`: a setting nothing acts on is never accepted.
``policy`` and ``gates`` are read by :mod:`truegreen.policy` (``parse_policy``,
``parse_gates``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen import __version__
from truegreen.errors import ConfigError
from truegreen.policy.gates import parse_gates
from truegreen.policy.settings import parse_policy

SANDBOXES = ("none", "bwrap", "docker")

#: pytest arguments a project may not put in ``pytest-args``: they change what is
#: collected or how outcomes are judged, which truegreen controls when it grades.
REFUSED_PYTEST_ARGS = (
    "-k",
    "-m",
    "--deselect",
    "--ignore",
    "--ignore-glob",
    "-p",
    "-o",
    "--override-ini",
    "-c",
    "--config-file",
    "--rootdir",
    "--confcutdir",
    "--noconftest",
    "--lf",
    "--last-failed",
    "--ff",
    "--failed-first",
    "--nf",
    "--new-first",
    "--sw",
    "--stepwise",
    "--sw-skip",
    "--stepwise-skip",
    "-x",
    "--exitfirst",
    "--maxfail",
    "--runxfail",
    "--co",
    "--collect-only",
    "--continue-on-collection-errors",
    "--pyargs",
    "--import-mode",
    "--pdb",
    "--trace",
    "--reruns",
    "--only-rerun",
    "-W",
    "--pythonwarnings",
    "--strict-markers",
    "--strict",
    "--cache-clear",
    "--basetemp",
)


@dataclass(frozen=True)
class Settings:
    """Effective settings for one repository."""

    tests: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    pytest_args: tuple[str, ...] = ()
    always_run: tuple[str, ...] = ()
    suite_timeout: float = 900.0
    sandbox: str | None = None
    #: files git ignores that worktrees get from the checkout (globs, see truegreen.carry)
    carry: tuple[str, ...] = ()
    #: where each key came from, for ``truegreen doctor``
    sources: dict[str, str] = field(default_factory=dict)


_KEYS: dict[str, str] = {
    "tests": "tests",
    "ignore": "ignore",
    "pytest-args": "pytest_args",
    "always-run": "always_run",
    "suite-timeout": "suite_timeout",
    "sandbox": "sandbox",
    "carry": "carry",
}

#: A sub-table's validator: (the raw table, where it came from) -> the validated value
#: that :func:`parse` returns under the sub-table's name. It raises ConfigError.
SubTableValidator = Callable[[dict[str, Any], str], Any]

#: Sub-tables (``[tool.truegreen.<name>]``, or ``[<name>]`` in truegreen.toml) that a
#: layer reads, each with its validator. The layer that builds one registers it here
#: in one line, and the key stops being refused.
SUBTABLES: dict[str, SubTableValidator] = {"policy": parse_policy, "gates": parse_gates}

#: Sub-tables DESIGN.md plans that nothing reads yet, with what will read them. Accepting
#: one would let a user believe a policy or a gate applies when nothing enforces it, so
#: each is an error naming the key until its layer registers it in SUBTABLES.
PLANNED_SUBTABLES: dict[str, str] = {
    "fix": "the fixer",
    "strength": "settings of the exam-strength layer (verify measures it with fixed settings)",
    "regression": "settings of the regression layer (use tests, ignore and always-run)",
}


def _subtable_name(key: str, origin: str) -> str:
    return f"[{key}]" if origin == "truegreen.toml" else f"[tool.truegreen.{key}]"


def _subtable(key: str, value: Any, origin: str) -> Any:
    """A sub-table's validated value; an error naming the key when nothing reads it."""
    validator = SUBTABLES.get(key)
    if validator is None:
        raise ConfigError(
            f"{origin} {key}: not supported yet: nothing in truegreen {__version__} reads "
            f"it (planned for {PLANNED_SUBTABLES[key]})",
            hint=f"remove the {_subtable_name(key, origin)} table; truegreen accepts only "
            "settings it acts on",
        )
    if not isinstance(value, dict):
        raise ConfigError(
            f"{origin} {key} must be a table",
            hint=f"write it as {_subtable_name(key, origin)} with its keys below it",
        )
    return validator(value, origin)


def _str_list(key: str, value: Any, origin: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        example = "src/pkg/_version.py" if key == "carry" else "tests"
        raise ConfigError(
            f"{origin}: {key} must be a list of strings",
            hint=f'for example {key} = ["{example}"]',
        )
    return tuple(value)


def _test_selection(key: str, value: Any, origin: str) -> tuple[str, ...]:
    """``tests`` / ``always-run``: paths or node ids relative to the repository root.
    They are passed to pytest as arguments, so one that starts with ``-`` would be an
    option (the refused ``-k``, ``-p``... by another door)."""
    entries = _str_list(key, value, origin)
    for entry in entries:
        path = entry.split("::", 1)[0]
        parts = path.split("/")
        if (
            not entry.strip()
            or entry.startswith("-")
            or path.startswith("/")
            or "\\" in path
            or re.match(r"^[A-Za-z]:", path)
            or ".." in parts
        ):
            raise ConfigError(
                f"{origin}: {key} entry {entry!r} is not a test path or node id relative to "
                "the repository root",
                hint='write it like "tests/test_x.py::test_y" or "tests/net" (forward '
                "slashes, inside the repository, not an option)",
            )
    return entries


def check_pytest_args(args: tuple[str, ...], origin: str) -> None:
    for arg in args:
        name = arg.split("=", 1)[0]
        for refused in REFUSED_PYTEST_ARGS:
            short_glued = (
                len(refused) == 2 and name.startswith(refused) and not name.startswith("--")
            )
            if name == refused or short_glued:
                raise ConfigError(
                    f"{origin}: pytest-args may not contain {arg!r}: it changes what is collected or how "
                    "outcomes are judged, which truegreen controls when it grades",
                    hint="use tests / ignore / always-run instead, or drop the argument",
                )


def check_carry(patterns: Sequence[str], origin: str) -> None:
    """The configuration's ``carry`` entries: globs relative to the project's root, inside it."""
    for pattern in patterns:
        parts = pattern.split("/")
        if (
            not pattern.strip()
            or pattern.startswith(("/", "~"))
            or "\\" in pattern
            or re.match(r"^[A-Za-z]:", pattern)
        ):
            raise ConfigError(
                f"{origin}: carry entry {pattern!r} is not a path relative to the repository root",
                hint='write paths or globs from the repository root with forward slashes, e.g. carry = ["src/pkg/_version.py"]',
            )
        if ".." in parts:
            raise ConfigError(
                f"{origin}: carry entry {pattern!r} leads out of the repository",
                hint="carry brings files of the checkout only: name them from the repository root, without ..",
            )
        if parts[0] == ".git" or any(p in ("", ".") for p in parts):
            raise ConfigError(
                f"{origin}: carry entry {pattern!r} is not a plain path",
                hint="write it without ./, // or .git, e.g. src/pkg/_version.py",
            )


def _apply(
    raw: dict[str, Any], origin: str, values: dict[str, Any], sources: dict[str, str]
) -> dict[str, Any]:
    tables: dict[str, Any] = {}
    for key, value in raw.items():
        if key in SUBTABLES or key in PLANNED_SUBTABLES:
            tables[key] = _subtable(key, value, origin)
            sources[key] = origin
            continue
        if key not in _KEYS:
            known = ", ".join(sorted([*_KEYS, *SUBTABLES]))
            raise ConfigError(f"{origin}: unknown key {key!r}", hint=f"known keys: {known}")
        attr = _KEYS[key]
        if key in ("tests", "always-run"):
            values[attr] = _test_selection(key, value, origin)
        elif key in ("ignore", "pytest-args"):
            values[attr] = _str_list(key, value, origin)
        elif key == "carry":
            values[attr] = _str_list(key, value, origin)
            check_carry(values[attr], origin)
        elif key == "suite-timeout":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(
                    f"{origin}: suite-timeout must be a positive number of seconds, not {value!r}",
                    hint="for example suite-timeout = 900",
                )
            values[attr] = float(value)
        elif key == "sandbox":
            if value not in SANDBOXES:
                raise ConfigError(
                    f"{origin}: sandbox must be one of {', '.join(SANDBOXES)}, not {value!r}",
                    hint='for example sandbox = "bwrap", or leave it out for the default',
                )
            values[attr] = value
        sources[key] = origin
    if "pytest_args" in values:
        check_pytest_args(values["pytest_args"], origin)
    return tables


def _toml(name: str, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{name} is not valid TOML: {exc}", hint=f"fix {name} and run again"
        ) from exc


def raw_tables(
    pyproject: str | None, truegreen_toml: str | None
) -> list[tuple[str, dict[str, Any]]]:
    """The raw truegreen tables from the two files' texts, lowest layer first."""
    layers: list[tuple[str, dict[str, Any]]] = []
    if pyproject is not None:
        tool = _toml("pyproject.toml", pyproject).get("tool")
        table = tool.get("truegreen") if isinstance(tool, dict) else None
        if table is not None:
            if not isinstance(table, dict):
                raise ConfigError(
                    "pyproject.toml: tool.truegreen must be a table",
                    hint="write the settings below a [tool.truegreen] header",
                )
            layers.append(("pyproject.toml [tool.truegreen]", table))
    if truegreen_toml is not None:
        layers.append(("truegreen.toml", _toml("truegreen.toml", truegreen_toml)))
    return layers


def parse(pyproject: str | None, truegreen_toml: str | None) -> tuple[Settings, dict[str, Any]]:
    """Settings from the files' texts (as read from disk or from a revision), plus the
    validated sub-tables (:data:`SUBTABLES`) by name, the higher layer's winning."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    extra: dict[str, Any] = {}
    for origin, table in raw_tables(pyproject, truegreen_toml):
        extra.update(_apply(table, origin, values, sources))
    return Settings(**values, sources=sources), extra


def read_file(path: Path) -> str | None:
    """A configuration file's text (None when there is none): an unreadable one is a
    ConfigError naming it."""
    if not path.is_file():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read {path.name}: {exc}", hint=f"make {path} a readable UTF-8 text file"
        ) from exc


def load(root: Path) -> Settings:
    """Settings of the working tree at ``root``."""
    return parse(read_file(root / "pyproject.toml"), read_file(root / "truegreen.toml"))[0]
