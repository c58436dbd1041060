"""The changed-line coverage gate (``coverage-min`` in ``[tool.truegreen.gates]``).

The head's suite run of the regression layer (the whole suite, or the tests selection
picked: those that ran the changed functions on the base, and every test module the change
touches) runs under the line recorder (``verify/_lines/truegreen_lines.py``) restricted to
the changed files of non-test code. Of the changed lines that are executable (they have
bytecode: not blank lines, comments or docstrings), the share the run ran is the coverage;
below the minimum is ``gate.coverage_worse``, which escalates.

A module's top-level lines run when it is imported, which may happen before the recorder
starts (a conftest.py that imports the package): they count as run when the recorder saw
any line of the file. When nothing could be measured (the regression layer did not run,
or the head's run did not finish), the gate says so and escalates: a gate that was asked
for never passes without its evidence.
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen.model.reasons import GATE_COVERAGE_WORSE, Reason
from truegreen.testpaths import is_test_code
from truegreen.verify.strength import LINES_DIR, LINES_PLUGIN, function_lines


def executable_lines(text: str, name: str = "<file>") -> set[int]:
    """The lines of ``text`` that have bytecode (none when it does not compile)."""
    try:
        top = compile(text, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return set()
    lines: set[int] = set()
    todo = [top]
    while todo:
        code = todo.pop()
        lines.update(line for _a, _b, line in code.co_lines() if line is not None and line > 0)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return lines


def changed_executable(head_tree: Path, changed: Mapping[str, set[int]]) -> dict[str, set[int]]:
    """The executable lines among the changed lines (head numbering) of non-test Python
    files the head has."""
    out: dict[str, set[int]] = {}
    for path, lines in sorted(changed.items()):
        if not path.endswith(".py") or is_test_code(path):
            continue
        target = head_tree / path
        if not target.is_file():
            continue
        text = target.read_text(encoding="utf-8", errors="replace")
        picked = lines & executable_lines(text, path)
        if picked:
            out[path] = picked
    return out


@dataclass(frozen=True)
class Extras:
    """What a pytest run needs to load a recorder plugin."""

    plugins: tuple[str, ...] = ()
    pythonpath: tuple[Path, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    writable: tuple[Path, ...] = ()


def extras(head_tree: Path, lines: Mapping[str, set[int]], out_dir: Path) -> Extras:
    """The line recorder on the changed files, writing into ``out_dir``."""
    files = sorted(str((head_tree / p).resolve()) for p in lines)
    return Extras(
        (LINES_PLUGIN,),
        (LINES_DIR,),
        {
            "TRUEGREEN_LINES_FILES": json.dumps(files),
            "TRUEGREEN_LINES_OUT": str(out_dir / "lines.json"),
        },
        (out_dir,),
    )


@dataclass(frozen=True)
class Coverage:
    """How many of the changed executable lines the head's run ran (``measured`` False:
    nothing was recorded, with ``why``)."""

    minimum: float
    total: int = 0
    covered: int = 0
    not_run: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    measured: bool = True
    why: str | None = None

    @property
    def percent(self) -> float:
        return 100.0 if not self.total else round(100.0 * self.covered / self.total, 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "min": self.minimum,
            "measured": self.measured,
            "changed_lines": self.total,
            "run": self.covered,
            "percent": self.percent if self.measured else None,
            "not_run": {p: list(v) for p, v in sorted(self.not_run.items())},
            **({"why": self.why} if self.why else {}),
        }

    def reason(self) -> Reason | None:
        if not self.measured:
            return Reason(
                GATE_COVERAGE_WORSE,
                None,
                None,
                f"coverage of the changed lines was not measured ({self.why}); "
                f"coverage-min {self.minimum:g}% asks for it",
            )
        if self.percent >= self.minimum:
            return None
        first = min(self.not_run)
        shown = ", ".join(f"{p}:{_spans(v)}" for p, v in sorted(self.not_run.items()))
        return Reason(
            GATE_COVERAGE_WORSE,
            first,
            self.not_run[first][0],
            f"the suite runs {self.covered} of {self.total} changed lines of non-test code "
            f"({self.percent:g}%), below coverage-min {self.minimum:g}%; not run: {shown}",
        )


def _spans(lines: tuple[int, ...]) -> str:
    parts: list[str] = []
    start = prev = lines[0]
    for n in (*lines[1:], None):
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ",".join(parts)


def measure(
    minimum: float, head_tree: Path, lines: Mapping[str, set[int]], out_dir: Path
) -> Coverage:
    """The coverage of ``lines`` from what the recorder wrote into ``out_dir``."""
    if not lines:
        return Coverage(minimum)
    try:
        doc = json.loads((out_dir / "lines.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Coverage(
            minimum,
            measured=False,
            why="the line recorder wrote nothing: the head's suite run did not finish",
        )
    seen: dict[str, set[int]] = {}
    for path in lines:
        name = str((head_tree / path).resolve())
        seen[path] = set(doc.get(name, ()))
    total = covered = 0
    not_run: dict[str, tuple[int, ...]] = {}
    for path, wanted in sorted(lines.items()):
        text = (head_tree / path).read_text(encoding="utf-8", errors="replace")
        inside = function_lines(text)
        imported = bool(seen[path])
        ran = {n for n in wanted if n in seen[path] or (n not in inside and imported)}
        total += len(wanted)
        covered += len(ran)
        missing = tuple(sorted(wanted - ran))
        if missing:
            not_run[path] = missing
    return Coverage(minimum, total, covered, not_run)
