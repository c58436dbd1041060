"""The quality gates' settings: ``[tool.truegreen.gates]`` in pyproject.toml, or
``[gates]`` in truegreen.toml (which wins, as a whole table), read from the base.

    [tool.truegreen.gates]
    ruff = true      # the project's linters and type checker, run in its interpreter
    flake8 = true
    mypy = true
    pyright = true
    coverage-min = 80  # percent of the changed lines the suite must run

A gate is off unless turned on. Each tool runs on the changed Python files at the base and
at the head (:mod:`truegreen.verify.gates`); a violation on a changed line that the base
did not have is a ``gate.<tool>`` reason, which escalates (or rejects where the policy's
``reject`` names it). ``coverage-min``: the head's suite run (the regression layer's)
records which changed lines of non-test code it runs; below the minimum is
``gate.coverage_worse``, which escalates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from truegreen.errors import ConfigError

#: the tools a gate can run, in the order they run
GATE_TOOLS = ("ruff", "flake8", "mypy", "pyright")
#: keys planned for a later version, refused by name
PLANNED_GATE_KEYS: dict[str, str] = {}
COVERAGE_MIN = "coverage-min"


@dataclass(frozen=True)
class Gates:
    """The gates turned on (none: the layer does not exist and is not shown)."""

    tools: tuple[str, ...] = ()
    #: the least percentage of the changed lines of non-test code the suite must run
    coverage_min: float | None = None

    @property
    def on(self) -> bool:
        return bool(self.tools) or self.coverage_min is not None


def _where(origin: str) -> str:
    if origin.startswith("pyproject.toml"):
        return "pyproject.toml [tool.truegreen.gates]"
    return f"{origin} [gates]"


def parse_gates(table: dict[str, Any], origin: str) -> Gates:
    """The gates a table turns on; unknown keys and values that are not true/false are
    ConfigErrors naming the key (the validator :data:`truegreen.config.SUBTABLES` registers)."""
    tools = []
    coverage_min: float | None = None
    for key, value in table.items():
        if key == COVERAGE_MIN:
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value <= 100
            ):
                raise ConfigError(
                    f"{_where(origin)} {key} must be a percentage from 0 to 100, not {value!r}",
                    hint=f"for example {key} = 80",
                )
            coverage_min = float(value)
            continue
        if key in PLANNED_GATE_KEYS:
            raise ConfigError(
                f"{_where(origin)} {key}: not supported yet (planned: {PLANNED_GATE_KEYS[key]})",
                hint=f"remove {key}; truegreen accepts only settings it acts on",
            )
        if key not in GATE_TOOLS:
            raise ConfigError(
                f"{_where(origin)}: unknown key {key!r}",
                hint=f"known keys: {', '.join((*GATE_TOOLS, COVERAGE_MIN))}",
            )
        if not isinstance(value, bool):
            raise ConfigError(
                f"{_where(origin)} {key} must be true or false, not {value!r}",
                hint=f"for example {key} = true",
            )
        if value:
            tools.append(key)
    return Gates(tuple(t for t in GATE_TOOLS if t in tools), coverage_min)
