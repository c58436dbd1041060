"""A time budget for localize: which passing tests fit, and what was left out.

A localize runs the failing tests next to passing tests that share code with them. On a
real project that selection can pull in slow tests (a suite's download tests) where the
failing test's own file runs in two seconds. With a budget of ``seconds``:

1. **before the runs**, test files that an earlier run *of the same revision* (the same
   ``HEAD`` commit) measured are kept only while their measured time fits in
   :data:`RUN_SHARE` of the budget; the failing tests' own files always run, first;
2. **during the runs**, the tracer plugin runs no further passing test once the run's
   deadline has passed, and stops a passing test still running at the deadline (it ends
   as skipped; the failing tests' files always run to their end), so that a file never
   measured before cannot take the budget either;
3. **after the runs**, each test's time is kept for the next localize of the revision
   (``$TRUEGREEN_HOME/cache/durations``, else the user cache directory; never in the
   checkout).

The document's ``budget`` says what was left out, by file, and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen.project import Project
from truegreen.run.results import PytestRun

#: the share of the budget the test runs get (the measured run and the bare run run side
#: by side); the rest goes to the analysis, the mutants and truegreen's own start
RUN_SHARE = 0.5
#: the share of a run made alone (no bare run, so no mutants either): what follows it,
#: the analysis and the document, takes a second or two
ALONE_SHARE = 0.75
#: below this share of the budget left, the mutants are not run
MUTANT_SHARE = 0.15
#: the environment variable the tracer plugin reads: {"deadline": epoch s, "keep": [ids]}
BUDGET_VAR = "TRUEGREEN_TRACE_BUDGET"
#: revisions whose durations are kept per repository (the oldest beyond are removed)
KEEP_REVISIONS = 8


@dataclass(frozen=True)
class Plan:
    """The selection to run under a budget, and what was left out before running."""

    selection: list[str]
    #: test files left out because an earlier run measured them too slow to fit
    left_out: list[str] = field(default_factory=list)
    #: an earlier run of the same revision measured (some of) the selection
    reused: bool = False
    #: the seconds the earlier run measured for each left-out file (not in the document,
    #: which carries no durations)
    measured: dict[str, float] = field(default_factory=dict)


def _file(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def plan(
    selection: Sequence[str],
    targets: Sequence[str],
    seconds: float | None,
    known: Mapping[str, float],
    *,
    share: float = RUN_SHARE,
) -> Plan:
    """Which items of ``selection`` (test ids and files, the targets' first) run within
    ``seconds``, from the durations ``known`` by test id. The targets and their files
    always run; a file nothing is known about runs (the deadline bounds it); a file whose
    measured time does not fit what is left of the runs' ``share`` is left out."""
    if seconds is None:
        return Plan(selection=list(selection))
    own = {_file(t) for t in targets}
    per_file: dict[str, float] = {}
    for test_id, duration in known.items():
        per_file[_file(test_id)] = per_file.get(_file(test_id), 0.0) + duration
    room = seconds * share
    spent = sum(per_file.get(f, 0.0) for f in own)
    kept: list[str] = []
    left_out: list[str] = []
    measured: dict[str, float] = {}
    reused = any(_file(item) in per_file for item in selection)
    for item in selection:
        path = _file(item)
        if "::" in item or path in own or path not in per_file:
            kept.append(item)
            continue
        cost = per_file[path]
        if spent + cost > room:
            left_out.append(path)
            measured[path] = round(cost, 3)
            continue
        spent += cost
        kept.append(item)
    return Plan(selection=kept, left_out=left_out, reused=reused, measured=measured)


def deadline_env(
    seconds: float | None, share: float, keep: Sequence[str], *, strict: bool = False
) -> dict[str, str]:
    """The tracer plugin's budget variable for a run starting now (none without a budget).
    ``strict``: only the tests ``keep`` always run, not the other tests of their files."""
    if seconds is None:
        return {}
    spec: dict[str, Any] = {"deadline": time.time() + seconds * share, "keep": list(keep)}
    if strict:
        spec["files"] = False
    return {BUDGET_VAR: json.dumps(spec)}


def cache_dir(name: str = "durations") -> Path | None:
    """truegreen's cache directory ``name`` (durations; the tracer's instrumented code):
    under ``$TRUEGREEN_HOME`` when it is set, else the platform's user cache directory;
    None when it cannot be made."""
    home = os.environ.get("TRUEGREEN_HOME")
    if home:
        base = Path(home).expanduser() / "cache"
    else:
        import platformdirs

        base = Path(platformdirs.user_cache_dir("truegreen", appauthor=False))
    where = base / name
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return where


def revision(project: Project) -> str | None:
    """The commit the checkout is at (None outside git, or before the first commit)."""
    if project.git is None:
        return None
    done = project.git.git("rev-parse", "--verify", "--quiet", "HEAD", check=False)
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


def _path(project: Project, rev: str) -> Path | None:
    where = cache_dir()
    if where is None:
        return None
    repo = hashlib.sha256(str(project.root).encode()).hexdigest()[:16]
    return where / f"{repo}-{rev}.json"


def load(project: Project, rev: str | None) -> dict[str, float]:
    """The durations an earlier run of revision ``rev`` measured, by test id."""
    path = _path(project, rev) if rev else None
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, dict):
        return {}
    return {
        k: float(v) for k, v in tests.items() if isinstance(k, str) and isinstance(v, int | float)
    }


def save(project: Project, rev: str | None, runs: Iterable[PytestRun | None]) -> None:
    """Keep the durations of the tests that reported in ``runs`` (the first run's where
    several measured one test) for the next localize of ``rev``. Never raises: a cache
    that cannot be written costs time, not a result."""
    path = _path(project, rev) if rev else None
    if path is None:
        return
    tests = load(project, rev)
    seen: set[str] = set()
    for run in runs:
        if run is None:
            continue
        for t in run.tests:
            if t.outcome == "no_report" or t.id in seen:
                continue
            if t.reason == SKIP_REASON:  # stopped at the deadline: its time is not known
                continue
            seen.add(t.id)
            tests[t.id] = round(float(t.duration or 0.0), 4)
    doc: dict[str, Any] = {"revision": rev, "tests": dict(sorted(tests.items()))}
    try:
        part = path.with_name(f".{path.name}.{os.getpid()}.part")
        part.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(part, path)
        siblings = sorted(
            path.parent.glob(path.name.split("-", 1)[0] + "-*.json"),
            key=lambda p: p.stat().st_mtime_ns,
        )
        for old in siblings[:-KEEP_REVISIONS]:
            old.unlink(missing_ok=True)
    except OSError:
        return


#: the reason a passing test stopped at the deadline is reported skipped with (the
#: tracer plugin's ``_BUDGET_REASON``)
SKIP_REASON = "truegreen: stopped at the localize time budget"


def not_run(
    runs: Iterable[PytestRun | None], targets: Sequence[str], *, strict: bool = False
) -> list[str]:
    """The passing tests the deadline kept from running (or stopped), in any of ``runs``
    (the targets' files always run, unless ``strict``: then only the targets)."""
    out: set[str] = set()
    keep = set(targets) if strict else {_file(t) for t in targets}
    for run in runs:
        if run is None:
            continue
        for t in run.tests:
            if t.id in keep or t.id.partition("[")[0] in keep or _file(t.id) in keep:
                continue
            if t.outcome == "no_report" or t.reason == SKIP_REASON:
                out.add(t.id)
    return sorted(out)


def document(seconds: float | None, chosen: Plan, cut: Sequence[str]) -> dict[str, Any] | None:
    """The document's ``budget``: the seconds, what was left out and why (None: no budget)."""
    if seconds is None:
        return None
    files = sorted({_file(t) for t in cut})
    return {
        "seconds": seconds,
        "durations_reused": chosen.reused,
        "left_out_files": chosen.left_out,
        "cut_tests": len(cut),
        "cut_files": files,
    }


def note(doc: Mapping[str, Any]) -> str | None:
    """The line the text says about what the budget left out (None: nothing)."""
    left = list(doc["left_out_files"])
    cut = list(doc["cut_files"])
    if not left and not cut:
        return None
    parts = []
    if left:
        parts.append(
            f"{len(left)} test file(s) an earlier run measured too slow "
            f"({', '.join(left[:3])}{', ...' if len(left) > 3 else ''})"
        )
    if cut:
        parts.append(
            f"{doc['cut_tests']} passing test(s) not run by the deadline "
            f"({', '.join(cut[:3])}{', ...' if len(cut) > 3 else ''})"
        )
    return (
        f"the {doc['seconds']:.3g} s budget left out {' and '.join(parts)}: fewer passing tests "
        "to compare with; give a larger budget or a narrower scope to include them"
    )
