"""The quality gates' settings: ``[tool.truegreen.gates]`` in pyproject.toml, or
``[gates]`` in truegreen.toml (which wins, as a whole table), read from the base.

    [tool.truegreen.gates]
    ruff = true      # the project's linters and type checker, run in its interpreter
    flake8 = true
    mypy = true
    pyright = true

A gate is off unless turned on. Each runs on the changed Python files at the base and at
the head (:mod:`truegreen.verify.gates`); a violation on a changed line that the base did
not have is a ``gate.<tool>`` reason, which escalates (or rejects where the policy's
``reject`` names it). ``coverage-min`` (coverage of the changed lines by the suite) is
planned and refused by name until it is built: a setting nothing acts on is never
accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from truegreen.errors import ConfigError

#: the tools a gate can run, in the order they run
GATE_TOOLS = ("ruff", "flake8", "mypy", "pyright")
#: keys planned for a later version, refused by name
PLANNED_GATE_KEYS = {"coverage-min": "coverage of the changed lines by the suite"}


@dataclass(frozen=True)
class Gates:
    """The gates turned on (none: the layer does not exist and is not shown)."""

    tools: tuple[str, ...] = ()


def _where(origin: str) -> str:
    if origin.startswith("pyproject.toml"):
        return "pyproject.toml [tool.truegreen.gates]"
    return f"{origin} [gates]"


def parse_gates(table: dict[str, Any], origin: str) -> Gates:
    """The gates a table turns on; unknown keys and values that are not true/false are
    ConfigErrors naming the key (the validator :data:`truegreen.config.SUBTABLES` registers)."""
    tools = []
    for key, value in table.items():
        if key in PLANNED_GATE_KEYS:
            raise ConfigError(
                f"{_where(origin)} {key}: not supported yet (planned: {PLANNED_GATE_KEYS[key]})",
                hint=f"remove {key}; truegreen accepts only settings it acts on",
            )
        if key not in GATE_TOOLS:
            raise ConfigError(
                f"{_where(origin)}: unknown key {key!r}",
                hint=f"known keys: {', '.join(GATE_TOOLS)}",
            )
        if not isinstance(value, bool):
            raise ConfigError(
                f"{_where(origin)} {key} must be true or false, not {value!r}",
                hint=f"for example {key} = true",
            )
        if value:
            tools.append(key)
    return Gates(tuple(t for t in GATE_TOOLS if t in tools))
