"""``truegreen run``: a clean reproduction of one or more tests, repeated N times."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from truegreen.errors import UsageError
from truegreen.events import QUIET, Events
from truegreen.project import Project
from truegreen.run.executor import Executor
from truegreen.run.pytest_run import PytestRequest, run_pytest
from truegreen.run.results import PytestRun
from truegreen.testpaths import check_test_ids

#: Outcomes that are not a failure: pytest's exit status stays 0 for them.
NOT_FAILURES = frozenset({"passed", "skipped", "xfailed", "xpassed"})


def not_passed(doc: dict[str, Any]) -> list[str]:
    """Ids of the reproduced tests that failed, errored or did not report in any run of a
    ``truegreen.run/1`` document (what makes pytest exit 1), and the collection errors'
    node ids."""
    failing = [t["id"] for t in doc["tests"] if any(o not in NOT_FAILURES for o in t["outcomes"])]
    return failing + [c["nodeid"] or "the session" for c in doc["collection_errors"]]


def reproduce(
    project: Project,
    test_ids: Sequence[str],
    repeat: int = 1,
    timeout: float | None = None,
    executor: Executor | None = None,
    events: Events = QUIET,
) -> dict[str, Any]:
    """Run ``test_ids`` ``repeat`` times; the ``truegreen.run/1`` document."""
    if not test_ids:
        raise UsageError(
            "no test id given",
            hint="give one or more pytest node ids, e.g. tests/test_x.py::test_y",
            field="test_ids",
        )
    check_test_ids(test_ids)  # never an option: each id reaches pytest as an argument
    if repeat < 1:
        raise UsageError(f"must be at least 1, not {repeat}", field="repeat")
    request = PytestRequest(
        repo=project.root,
        interpreter=project.interpreter,
        test_ids=tuple(test_ids),
        args=project.settings.pytest_args,
        timeout=timeout or project.settings.suite_timeout,
        sandbox=project.sandbox,
    )
    runs: list[PytestRun] = []
    for n in range(1, repeat + 1):
        events.step("run", n, repeat, " ".join(test_ids))
        runs.append(run_pytest(request, executor or project.executor))
    return run_document(project, runs)


def run_document(project: Project, runs: Sequence[PytestRun]) -> dict[str, Any]:
    first = runs[0]
    ids: list[str] = []
    for run in runs:
        for t in run.tests:
            if t.id not in ids:
                ids.append(t.id)
    tests: list[dict[str, Any]] = []
    for tid in ids:
        results = [r.outcome_of(tid) for r in runs]
        present = [r for r in results if r is not None]
        doc = present[0].to_json()
        outcomes = [r.outcome if r is not None else "no_report" for r in results]
        signatures = sorted({r.signature for r in present if r.signature})
        doc["outcomes"] = outcomes
        doc["stable"] = len(set(outcomes)) == 1 and len(signatures) <= 1
        if len(signatures) > 1:
            doc["signatures"] = signatures
        tests.append(doc)
    return {
        "schema": "truegreen.run/1",
        "repo": str(project.root),
        "python": str(project.interpreter.path),
        "python_version": project.interpreter.python,
        "pytest_version": project.interpreter.pytest,
        "sandbox": project.sandbox,
        "command": list(first.command),
        "runs": len(runs),
        "exit_codes": [r.exit_code for r in runs],
        "meaning": first.meaning,
        "complete": all(r.complete for r in runs),
        "collection_errors": [c.to_json() for c in first.collection_errors],
        "tests": tests,
        # what the runner did that the outcomes alone do not say (each note once)
        "notes": list(dict.fromkeys(n for r in runs for n in r.notes)),
    }
