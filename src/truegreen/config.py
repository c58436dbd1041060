"""The project's truegreen settings: ``[tool.truegreen]`` in pyproject.toml, or the same
keys at the top level of ``truegreen.toml`` at the repository root (which wins).

Layers, lowest first: 1) defaults, 2) pyproject.toml, 3) truegreen.toml, then the
command line where a command has a flag for the key. Unknown keys are errors.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen.errors import ConfigError

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
    #: where each key came from, for ``truegreen doctor`` and ``policy explain``
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

#: Tables other layers own (policy, gates...). They are validated by their owners.
_SUBTABLES = ("policy", "gates", "fix", "strength", "regression")


def _str_list(key: str, value: Any, origin: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        example = "src/pkg/_version.py" if key == "carry" else "tests"
        raise ConfigError(
            f"{origin}: {key} must be a list of strings",
            hint=f'for example {key} = ["{example}"]',
        )
    return tuple(value)


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
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _SUBTABLES and isinstance(value, dict):
            extra[key] = value
            continue
        if key not in _KEYS:
            known = ", ".join(sorted([*_KEYS, *_SUBTABLES]))
            raise ConfigError(f"{origin}: unknown key {key!r}", hint=f"known keys: {known}")
        attr = _KEYS[key]
        if key in ("tests", "ignore", "pytest-args", "always-run"):
            values[attr] = _str_list(key, value, origin)
        elif key == "carry":
            values[attr] = _str_list(key, value, origin)
            check_carry(values[attr], origin)
        elif key == "suite-timeout":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{origin}: suite-timeout must be a positive number of seconds")
            values[attr] = float(value)
        elif key == "sandbox":
            if value not in SANDBOXES:
                raise ConfigError(
                    f"{origin}: sandbox must be one of {', '.join(SANDBOXES)}, not {value!r}"
                )
            values[attr] = value
        sources[key] = origin
    if "pytest_args" in values:
        check_pytest_args(values["pytest_args"], origin)
    return extra


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path.name} is not valid TOML: {exc}", hint="fix the file and run again"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


def raw_tables(
    pyproject: str | None, truegreen_toml: str | None
) -> list[tuple[str, dict[str, Any]]]:
    """The raw truegreen tables from the two files' texts, lowest layer first."""
    layers: list[tuple[str, dict[str, Any]]] = []
    if pyproject is not None:
        try:
            data = tomllib.loads(pyproject)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"pyproject.toml is not valid TOML: {exc}") from exc
        table = data.get("tool", {}).get("truegreen")
        if table is not None:
            if not isinstance(table, dict):
                raise ConfigError("pyproject.toml: [tool.truegreen] must be a table")
            layers.append(("pyproject.toml [tool.truegreen]", table))
    if truegreen_toml is not None:
        try:
            layers.append(("truegreen.toml", tomllib.loads(truegreen_toml)))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"truegreen.toml is not valid TOML: {exc}") from exc
    return layers


def parse(pyproject: str | None, truegreen_toml: str | None) -> tuple[Settings, dict[str, Any]]:
    """Settings from the files' texts (as read from disk or from a revision), plus the
    sub-tables (``policy`` and others) that other layers validate."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    extra: dict[str, Any] = {}
    for origin, table in raw_tables(pyproject, truegreen_toml):
        extra.update(_apply(table, origin, values, sources))
    return Settings(**values, sources=sources), extra


def load(root: Path) -> Settings:
    """Settings of the working tree at ``root``."""

    def text(name: str) -> str | None:
        p = root / name
        return p.read_text(encoding="utf-8") if p.is_file() else None

    return parse(text("pyproject.toml"), text("truegreen.toml"))[0]
