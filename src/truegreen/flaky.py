"""``truegreen flaky``: tests whose outcome flips across repeats, and tests whose outcome
depends on what runs with them.

Three kinds of run, in the project's own interpreter, in the checkout (as ``run``):

1. **repeats** — the selection (the given tests, else the suite as verify runs it) N
   times in pytest's order: a test with more than one outcome across them is *flaky*;
2. **reversed** — one run of the same tests in the reverse order (node ids given in that
   order, which pytest keeps);
3. **alone and in its module** — a test that kept one outcome across the repeats but had
   another in the reversed run, or that failed in every repeat (does it pass alone?), or,
   when the selection is small (at most :data:`ALONE_LIMIT` tests), every test: run by
   itself, and with the rest of its module. A test whose outcome differs between those
   runs, or from the repeats, is *order-dependent*, with the runs that say so. Beyond
   :data:`ALONE_LIMIT` candidates, the rest are listed as ``unchecked``.

The document (``truegreen.flaky/1``) carries no timings: the same outcomes give the same
bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from truegreen.errors import UsageError
from truegreen.events import QUIET, Events
from truegreen.project import Project
from truegreen.run.pytest_ini import INI_FILES, suite_exclusions
from truegreen.run.pytest_run import PytestRequest, run_pytest
from truegreen.run.results import PytestRun
from truegreen.testpaths import check_test_ids

#: the default number of repeats
REPEAT = 5
#: at most this many tests are run alone and in their module
ALONE_LIMIT = 20
#: outcomes that are a pass for order dependence (a skip alone is not a failure)
_GOOD = frozenset({"passed", "skipped", "xfailed"})


def _suite_args(project: Project) -> tuple[str, ...]:
    """The suite as verify's regression layer runs it: ``tests``, ``ignore`` and the
    project's own addopts exclusions."""
    files = {name: _read(project.root / name) for name in INI_FILES}
    s = project.settings
    return (
        *s.pytest_args,
        "--continue-on-collection-errors",
        *(f"--ignore={p}" for p in s.ignore),
        *suite_exclusions(files),
        *s.tests,
    )


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _good(outcome: str | None) -> bool:
    return outcome in _GOOD


def _module(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _outcomes(run: PytestRun) -> dict[str, str]:
    return {t.id: t.outcome for t in run.tests}


def check(
    project: Project,
    test_ids: Sequence[str] = (),
    repeat: int = REPEAT,
    timeout: float | None = None,
    events: Events = QUIET,
) -> dict[str, Any]:
    """The ``truegreen.flaky/1`` document for ``test_ids`` (empty: the suite)."""
    if repeat < 2:
        raise UsageError(
            f"must be at least 2, not {repeat}: one run cannot show a flip",
            field="repeat",
        )
    check_test_ids(test_ids)  # never an option: each id reaches pytest as an argument
    limit = timeout or project.settings.suite_timeout

    def run(ids: Sequence[str], args: Sequence[str]) -> PytestRun:
        request = PytestRequest(
            repo=project.root,
            interpreter=project.interpreter,
            test_ids=tuple(ids),
            args=tuple(args),
            timeout=limit,
            sandbox=project.sandbox,
        )
        return run_pytest(request, project.executor)

    plain = tuple(project.settings.pytest_args)
    select_args = plain if test_ids else _suite_args(project)
    events.start("repeats", f"flaky: running the tests {repeat} times", total=repeat)
    repeats: list[PytestRun] = []
    for n in range(1, repeat + 1):
        events.step("repeats", n, repeat, None)
        repeats.append(run(test_ids, select_args))
    order: list[str] = []
    for r in repeats:
        order += [t.id for t in r.tests if t.id not in order]
    if not order:
        raise UsageError(
            f"no test ran ({repeats[0].meaning})",
            hint="name tests that exist: `python -m pytest --collect-only -q` lists them",
            field="test_ids",
        )
    seen = [_outcomes(r) for r in repeats]
    outcomes = {t: [s.get(t, "no_report") for s in seen] for t in order}
    flaky = [t for t in order if len(set(outcomes[t])) > 1]
    stable = {t: outcomes[t][0] for t in order if t not in flaky}

    events.note("reversed", f"flaky: one run of the {len(order)} tests in the reverse order")
    reversed_run = run(list(reversed(order)), plain)
    backwards = _outcomes(reversed_run)

    wanted = [
        t
        for t in order
        if t in stable
        and (
            backwards.get(t, "no_report") != stable[t]
            or not _good(stable[t])
            or len(order) <= ALONE_LIMIT
        )
    ]
    checked, unchecked = wanted[:ALONE_LIMIT], wanted[ALONE_LIMIT:]
    alone: dict[str, str] = {}
    in_module: dict[str, str] = {}
    if checked:
        events.start(
            "alone", f"flaky: {len(checked)} test(s) alone and in their module", total=len(checked)
        )
        modules: dict[str, dict[str, str]] = {}
        for n, t in enumerate(checked, 1):
            events.step("alone", n, len(checked), t)
            alone[t] = _outcomes(run([t], plain)).get(t, "no_report")
            m = _module(t)
            if m not in modules:
                modules[m] = _outcomes(run([m], plain))
            in_module[t] = modules[m].get(t, "no_report")

    tests: list[dict[str, Any]] = []
    order_dependent: list[str] = []
    for t in order:
        entry: dict[str, Any] = {
            "id": t,
            "outcomes": outcomes[t],
            "reversed": backwards.get(t, "no_report"),
            "alone": alone.get(t),
            "module": in_module.get(t),
        }
        if t in flaky:
            runs = ", ".join(outcomes[t])
            entry |= {"kind": "flaky", "detail": f"outcomes across {repeat} runs: {runs}"}
        else:
            why = _order_detail(stable[t], entry["reversed"], alone.get(t), in_module.get(t))
            if why is None:
                continue
            order_dependent.append(t)
            entry |= {"kind": "order_dependent", "detail": why}
        tests.append(entry)
    first = repeats[0]
    return {
        "schema": "truegreen.flaky/1",
        "repo": str(project.root),
        "python": str(project.interpreter.path),
        "sandbox": project.sandbox,
        "command": list(first.command),
        "repeat": repeat,
        "tests_run": len(order),
        "stable": len(order) - len(flaky) - len(order_dependent),
        "flaky": flaky,
        "order_dependent": order_dependent,
        "unchecked": unchecked,
        "tests": tests,
        "complete": all(r.complete for r in [*repeats, reversed_run]),
        "collection_errors": [c.to_json() for c in first.collection_errors],
        "notes": list(dict.fromkeys(n for r in [*repeats, reversed_run] for n in r.notes)),
    }


def _order_detail(
    together: str, backwards: str, alone: str | None, module: str | None
) -> str | None:
    """Why a test that kept one outcome across the repeats depends on the order, or None."""
    if alone is not None and module is not None and _good(alone) != _good(module):
        return f"{alone} alone, {module} in its module"
    if alone is not None and _good(alone) != _good(together):
        return f"{alone} alone, {together} with the other tests"
    if module is not None and _good(module) != _good(together):
        return f"{module} in its module, {together} with the other tests"
    if _good(backwards) != _good(together):
        return f"{together} in pytest's order, {backwards} in the reverse order"
    return None
