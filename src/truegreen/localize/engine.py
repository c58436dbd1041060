"""``truegreen localize``: where a failure happened, where the bad value came from, and
the few lines that matter (the ``truegreen.localization/1`` document).

Runs, all through :func:`truegreen.run.pytest_run.run_pytest`:

A. *measured*: the failing tests plus passing tests that share code with them, under
   truegreen's tracer (per-test, per-phase lines; import-time lines per module), with
   value capture for the first target and its nearest collected neighbours (the passing
   one most similar by spectrum is compared with);
B. *bare*: the same selection without the tracer, in parallel with A (after it with
   ``--sandbox none``: both would write into the one checkout), so that an outcome the
   measurement changed is reported instead of trusted; the target tests run first
   there (the first one alone in a fresh process: the order-dependence check).

Only project source lines (not tests, not libraries) that a failing test executed are
ranked; scores are exact (see :mod:`truegreen.localize.ranking`).
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import functools
import hashlib
import json
import os
import shlex
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from truegreen import tempdirs
from truegreen.errors import UsageError
from truegreen.events import QUIET, Events
from truegreen.localize import (
    boundary,
    budget,
    history,
    keys,
    mocks,
    mutation,
    names,
    raises,
    texts,
)
from truegreen.localize import context as ctx
from truegreen.localize import values as val
from truegreen.localize.ranking import FORMULAS, Formula, Ranked, Score, by_history, rank
from truegreen.localize.redact import Scrubber
from truegreen.localize.spectrum import (
    Line,
    Statements,
    Trace,
    choose_test_files,
    import_only,
    is_source,
    project_modules,
    similarity,
    spectra,
    test_files,
)
from truegreen.project import Project
from truegreen.run.executor import Executor
from truegreen.run.pytest_ini import checkout_suite_exclusions
from truegreen.run.pytest_run import PytestRequest, read_held, rerun_command, run_pytest
from truegreen.run.results import Outcome, PytestRun, TestResult
from truegreen.sandbox.blocked import classify

SCHEMA = "truegreen.localization/1"
TRACER_DIR = Path(__file__).resolve().parent / "_tracer"
TRACER_PLUGIN = "truegreen_trace"
#: runs pytest after importing the tracer: pytest imports a project's package before any
#: ``-p`` plugin when its configuration names one of its classes (``filterwarnings =
#: ignore::pkg.SomeWarning``), and a module imported before the import hook is not measured
TRACER_LAUNCHER = "truegreen_trace_launch"
OUT_VAR = "TRUEGREEN_TRACE_OUT"
ROOT_VAR = "TRUEGREEN_TRACE_ROOT"
VALUES_VAR = "TRUEGREEN_TRACE_VALUES"
ENGINE_VAR = "TRUEGREEN_TRACE_ENGINE"
FIRST_VAR = "TRUEGREEN_TRACE_FIRST"
KEEP_VAR = "TRUEGREEN_TRACE_KEEP"
CODE_CACHE_VAR = "TRUEGREEN_TRACE_CODE_CACHE"
CODE_OUT_VAR = "TRUEGREEN_TRACE_CODE_OUT"
#: cached instrumented modules kept (the oldest beyond are removed)
CODE_CACHE_MAX = 2000

FAILED = ("failed", "error")
#: collected neighbours of each target (same parametrized function, class, file) whose
#: values are recorded too; the most similar of those that pass is compared with
SIBLINGS = 1


@dataclass(frozen=True)
class LocalizeOptions:
    #: None: choose passing tests (same files, files importing the same modules);
    #: ("suite",): the whole suite; else paths or node ids to take passing tests from
    scope: Sequence[str] | None = None
    budget_tokens: int = 1500
    formula: Formula = "ochiai"
    #: ranking entries in the document (the rest is counted in ``ranked_lines``)
    limit: int = 30
    #: suspects whose values are compared
    value_lines: int = 15
    timeout: float | None = None
    #: run the selection bare too and compare outcomes (the measurement check, and the
    #: order check: the targets run first there); False, with ``mutants`` off: the
    #: selection runs once, under the tracer (a caller that has the bare outcomes already)
    check_measurement: bool = True
    #: run the value capture (C); off in benchmarks that only score the spectrum
    values: bool = True
    #: break ties near the top with mutants run in the bare run's process (the bare run
    #: is made for them when the values are on; see docs/localize.md, Mutants)
    mutants: bool = True
    #: with ``check_measurement`` off and a budget: the mutants' run starts only after the
    #: traced run, and only when that left at least :data:`SPARE_SHARE` of the budget (the
    #: traced run gets a run's whole share meanwhile): mutants only with time to spare
    spare_mutants: bool = False
    #: break the ties left last by version history: the most recently changed line first
    #: (``git blame``; see :mod:`truegreen.localize.history`)
    history: bool = True
    #: seconds the whole localize should take: passing tests that do not fit are left out
    #: (see :mod:`truegreen.localize.budget`); None: no budget
    budget_seconds: float | None = None
    #: the deadline stops the passing tests of the failing tests' own files too (only the
    #: failing tests always run): an answer in time matters more than all of them
    strict_budget: bool = False
    #: test files to take passing tests from, from a per-test record of the checkout's
    #: commit (see :class:`Related`); None: chosen by what the test files import
    related: Related | None = None


@dataclass(frozen=True)
class Related:
    """What a per-test record of the checkout's commit (made by a verification whose base
    it was) says about the failing tests: the test files whose tests ran the same project
    functions, most related first, and every test file it knows (a file it does not know
    is new since, and is judged by its imports)."""

    files: Sequence[str]
    known: frozenset[str]
    revision: str


@dataclass
class _Runs:
    measured: PytestRun | None = None
    trace: Trace | None = None
    bare: PytestRun | None = None
    bare_error: BaseException | None = None
    notes: list[str] = field(default_factory=list)
    #: the targets' outcomes in the suite's order, when they all passed there but one
    #: failed run first, and the measured run was repeated with the targets first
    in_suite: dict[str, Outcome] | None = None
    #: passing tests the time budget kept from running (or stopped) in either run
    budget_cut: frozenset[str] = frozenset()


def _ignored(project: Project) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The paths (and globs) no test file is chosen from: truegreen's ``ignore`` setting and
    the project's own ``--ignore`` (``--ignore-glob``) in addopts, as pytest would leave them
    out of the suite (a file named on the command line is collected whatever they say)."""
    paths = list(project.settings.ignore)
    globs: list[str] = []
    for arg in checkout_suite_exclusions(project.root):
        name, _, value = arg.partition("=")
        if name == "--ignore":
            paths.append(value)
        elif name == "--ignore-glob":
            globs.append(value.removeprefix("./"))
    norm = (p.removeprefix("./").rstrip("/") for p in paths)
    return tuple(p for p in norm if p), tuple(globs)


def _selection(
    project: Project,
    test_ids: Sequence[str],
    scope: Sequence[str] | None,
    related: Related | None = None,
) -> list[str]:
    root = project.root
    if scope is not None and list(scope) == ["suite"]:
        paths = list(project.settings.tests)
        files: list[str] = []
        args = paths or []
        targets = list(test_ids)
        return [*args, *targets] if args else [*targets, *test_files(root, ["."])]
    if scope:
        files = list(scope)
    else:
        candidates = test_files(root, list(project.settings.tests) or ["."])
        ignored, globs = _ignored(project)
        candidates = [
            c
            for c in candidates
            if not any(c == i or c.startswith(i + "/") for i in ignored)
            and not any(fnmatch.fnmatch(c, g) for g in globs)
        ]
        if related is None:
            files = choose_test_files(root, test_ids, candidates)
        else:
            files = _related_files(root, test_ids, candidates, related)
    covered = set(files)
    extra = [t for t in test_ids if t.split("::", 1)[0] not in covered]
    return [*extra, *files]


def _related_files(
    root: Path,
    test_ids: Sequence[str],
    candidates: Sequence[str],
    related: Related,
    max_files: int = 60,
) -> list[str]:
    """The failing tests' own files, the files the record relates to them (those that are
    still candidates), then the files new since the record, chosen by their imports."""
    own = sorted({t.split("::", 1)[0] for t in test_ids})
    present = set(candidates)
    chosen = [*own, *(f for f in related.files if f in present and f not in own)]
    new = [c for c in candidates if c not in related.known]
    for f in choose_test_files(root, test_ids, new, max_files=max_files):
        if f not in chosen:
            chosen.append(f)
    return chosen[: max(max_files, len(own))]


def _request(
    project: Project,
    ids: Sequence[str],
    timeout: float | None,
    *,
    tracer: Path | None = None,
    values_cfg: Path | None = None,
    engine: str | None = None,
    first: Sequence[str] = (),
    keep: Sequence[str] = (),
    code: tuple[Path, Path] | None = None,
    hold: Path | None = None,
    deadline: Mapping[str, str] | None = None,
) -> PytestRequest:
    """The pytest run: bare; bare with the tests ``first`` moved to the front (the tracer
    plugin only reorders then); or under the tracer, writing to ``tracer``. With ``keep``
    (the targets), the project's own ``-m``, ``-k``, ``--deselect`` and ``--ignore`` from
    its addopts leave out of the passing tests what its suite leaves out (a ``-m "not
    slow"``), and the tracer plugin keeps the tests ``keep`` whatever they say. With
    ``hold`` (a directory), the run waits there after its session for mutants to run
    (:mod:`truegreen.localize.mutation`), its probe records in ``hold``."""
    # a test module of the selection that cannot be collected must not stop the others
    args = [
        *project.settings.pytest_args,
        *(f"--ignore={i}" for i in project.settings.ignore),
        "--continue-on-collection-errors",
    ]
    env: dict[str, str] = {}
    exclusions = checkout_suite_exclusions(project.root) if keep else ()
    if exclusions:
        args += exclusions
        env[KEEP_VAR] = json.dumps(list(keep))
    if first:
        env[FIRST_VAR] = json.dumps(list(first))
    env.update(deadline or {})
    writable: tuple[Path, ...] = ()
    readonly: tuple[Path, ...] = ()
    if tracer is not None:
        env.update({OUT_VAR: str(tracer), ROOT_VAR: str(project.root)})
        writable = (tracer.parent,)
        if engine is not None:  # monitoring, probe or settrace; default: the tracer's choice
            env[ENGINE_VAR] = engine
        if values_cfg is not None:
            env[VALUES_VAR] = str(values_cfg)
            readonly = (values_cfg,)
        if code is not None:  # read the cached instrumented modules, write new ones
            env[CODE_CACHE_VAR], env[CODE_OUT_VAR] = str(code[0]), str(code[1])
            readonly += (code[0],)
            writable += (code[1],)
    plugin = bool(env)
    plugins: tuple[str, ...] = (TRACER_PLUGIN,) if plugin else ()
    records: Path | None = None
    if hold is not None:
        env[mutation.DIR_VAR] = str(hold)
        # a run is never left waiting: truegreen writes the spec or ``stop`` in all cases
        env[mutation.WAIT_VAR] = str(int(timeout or project.settings.suite_timeout))
        plugins += (mutation.PLUGIN,)
        records = hold / "bare.jsonl"  # the runner makes its directory writable
    return PytestRequest(
        repo=project.root,
        interpreter=project.interpreter,
        test_ids=tuple(ids),
        args=tuple(args),
        timeout=timeout or project.settings.suite_timeout,
        plugins=plugins,
        launcher=TRACER_LAUNCHER if tracer is not None else None,
        pythonpath=(TRACER_DIR,) if plugins else (),
        env=env,
        writable=writable,
        readonly=readonly,
        sandbox=project.sandbox,
        records=records,
    )


def code_cache_dir() -> Path | None:
    """truegreen's cache of instrumented project modules (see the tracer's
    ``_instrumented_code``): under ``$TRUEGREEN_HOME`` when it is set, else the platform's
    user cache directory; None when it cannot be made."""
    return budget.cache_dir("trace-code")


def _code_key(root: Path, rel: str, probes: bool) -> str:
    """The KEY of the tracer's ``code_cache_name`` (TAG-KEY.pyc)."""
    key = "\0".join((os.path.abspath(root), rel, "probe" if probes else "receivers"))
    return hashlib.blake2b(key.encode("utf-8", "replace"), digest_size=12).hexdigest()


def keep_code(out: Path, cache: Path, root: Path, trace: Trace) -> None:
    """Move the instrumented modules a traced run compiled into the cache: only those of
    the project's own modules that the run imported (a test cannot plant code for another
    project's modules), then keep the cache bounded."""
    probes = trace.engine == "probe"
    keys = {_code_key(root, rel, probes) for rel in (*trace.import_runs, *trace.import_lines)}
    moved = False
    for f in out.iterdir():
        tag, _, key = f.name.partition("-")
        if tag and f.suffix == ".pyc" and key[:-4] in keys and f.is_file():
            # whole or not at all, for a localize reading the cache meanwhile
            part = cache / f".{f.name}.{os.getpid()}.part"
            try:
                shutil.copyfile(f, part)
                os.replace(part, cache / f.name)
                moved = True
            except OSError:
                with contextlib.suppress(OSError):
                    part.unlink(missing_ok=True)
    if moved:
        with contextlib.suppress(OSError):
            entries = sorted(cache.iterdir(), key=lambda p: p.stat().st_mtime_ns)
            for old in entries[: max(0, len(entries) - CODE_CACHE_MAX)]:
                old.unlink()


def warm(stmts: Statements, selection: Sequence[str], stop: Callable[[], bool]) -> None:
    """Analyse the project modules the selection's test files import (nearest first), then
    the test files themselves, until ``stop()``: what the ranking and the evidence ask of
    each file, computed ahead."""
    files = sorted({f for f in (s.split("::", 1)[0] for s in selection) if f.endswith(".py")})
    for rel in project_modules(stmts.root, files, stop):
        if stop():
            return
        stmts.warm(rel)
        boundary.warm(stmts, rel)
    for rel in files:
        if stop():
            return
        stmts.defuse.warm_test_file(rel)


def _read_trace(path: Path) -> Trace | None:
    try:
        return Trace.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def localize(
    project: Project,
    test_ids: Sequence[str],
    options: LocalizeOptions | None = None,
    executor: Executor | None = None,
    events: Events = QUIET,
) -> dict[str, Any]:
    """Localize the failure of ``test_ids``; the ``truegreen.localization/1`` document.
    Every run goes through ``executor`` (default: the project's, bound to its call).

    The steps: check the options; choose the selection (:func:`_selection`); run it under
    the tracer (A) while the bare run (B) goes on in a thread (:class:`_Bare`) and the
    modules the tests import are analysed meanwhile (:func:`_warm_meanwhile`); wait for
    the bare run's outcomes; measure again with the targets first if they fail only there
    (:func:`_fails_only_first`); read the failure (:func:`_failure_of`); write the document
    (:func:`_document`), whose ranking may run mutants in the held bare run
    (:func:`_mutator`)."""
    opts = options or LocalizeOptions()
    executor = executor if executor is not None else project.executor
    check_options(test_ids, opts)
    targets = list(dict.fromkeys(test_ids))
    started = time.monotonic()
    seconds = opts.budget_seconds
    selection = _selection(project, targets, opts.scope, opts.related)
    # the bare run: for the measurement check, or to run mutants in
    wanted = opts.check_measurement or (opts.values and opts.mutants)
    # mutants with time to spare only: their run starts after the traced one, if at all
    spare = wanted and opts.spare_mutants and not opts.check_measurement and seconds is not None
    # the time budget (None: none): without a sandbox the two runs take turns, and each
    # gets its part of the runs' share; a run alone gets more (nothing waits for mutants)
    parallel = wanted and project.sandbox != "none" and not spare
    share = budget.RUN_SHARE if parallel else budget.RUN_SHARE / 2
    if not wanted or spare:
        share = budget.ALONE_SHARE
    strict = opts.strict_budget
    rev = budget.revision(project) if seconds is not None else None
    chosen = budget.plan(selection, targets, seconds, budget.load(project, rev), share=share)
    selection = chosen.selection
    runs = _Runs()
    hold: Path | None = None
    tmp = tempdirs.make("truegreen-localize-")
    try:
        events.start(
            "trace", f"localize: running {len(selection)} selection item(s) under the tracer"
        )
        cfg = _values_config(tmp, targets) if opts.values else None
        stmts = Statements(project.root)
        if wanted and opts.mutants:
            # its own temp dir: the sandbox hands a writable dir's entries to its uid only
            # while truegreen still owns them, and the measured run is handed ``tmp``'s
            hold = tempdirs.make("truegreen-mutants-")
        bare_request = functools.partial(
            _request, project, selection, opts.timeout, first=targets, keep=targets, hold=hold
        )
        bare = _Bare(
            bare_request(
                deadline=budget.deadline_env(
                    seconds, share if parallel else 2 * share, targets, strict=strict
                )
            ),
            executor,
            runs,
            hold,
        )

        def spare_time() -> bool:
            """Whether the traced run left the mutants' run time (it then gets a deadline
            of its own, from what is left); if not, the note says so."""
            assert seconds is not None
            left = seconds - (time.monotonic() - started)
            if left < seconds * SPARE_SHARE:
                runs.notes.append(
                    f"mutants were not run: {seconds - left:.0f} s of the {seconds:.3g} s "
                    "budget were spent by the traced run; ties near the top stand"
                )
                return False
            # only the failing tests run in its session (the traced run ran the others,
            # and the mutants rerun those they need): the time left is the mutants'
            bare.request = bare_request(
                deadline=budget.deadline_env(seconds, 0.0, targets, strict=True)
            )
            return True

        measure = functools.partial(
            _measure,
            project,
            selection,
            targets,
            opts,
            executor,
            tmp,
            cfg,
            runs,
            budget.deadline_env(seconds, share, targets, strict=strict),
        )
        try:
            _measure_and_bare(
                measure,
                bare,
                stmts,
                selection,
                wanted,
                project.sandbox,
                spare_time if spare else None,
            )
            if _fails_only_first(targets, runs):
                # it passed after the other tests and failed run first (the bare run):
                # measure it first, where it fails; the order check says why
                assert runs.measured is not None
                runs.in_suite = {t.id: t.outcome for t in runs.measured.tests}
                events.note(
                    "order",
                    "localize: the test passed after the other tests but fails run first: "
                    "measuring it first",
                )
                measure(first=targets)
            targets, failing, passing = _failure_of(targets, runs, project.sandbox)
            assert runs.trace is not None
            spec = spectra(runs.trace, [*failing, *passing], stmts)
            primary = failing[0]
            # the values to compare with come from the watched neighbours that passed
            valued = [p for p in passing if p in runs.trace.values]
            best, best_sim = _most_similar(spec, primary, valued or passing)
            # (with spare mutants the bare run only hosts them: what it skipped ran traced)
            cut = budget.not_run(
                [runs.measured, None if spare else runs.bare], targets, strict=strict
            )
            runs.budget_cut = frozenset(cut)
            budget_doc = budget.document(seconds, chosen, cut)
            said = budget.note(budget_doc) if budget_doc is not None else None
            if said:
                runs.notes.append(said)
            doc = _document(
                project,
                targets,
                failing,
                passing,
                primary,
                best,
                best_sim,
                spec,
                stmts,
                runs,
                opts,
                _mutator(bare, runs, failing, passing, spec, stmts, events, (started, seconds)),
            )
            # the bare run (a thread) and the history (git blame) fail quietly: a cancel
            # that cut them short must still end the call, not give a document
            project.cancel.check()
            if budget_doc is not None:
                doc["budget"] = budget_doc
                budget.save(project, rev, [runs.bare, runs.measured])
            return doc
        finally:
            bare.finish()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if hold is not None:
            shutil.rmtree(hold, ignore_errors=True)


def check_options(test_ids: Sequence[str], opts: LocalizeOptions) -> None:
    """Refuse a call without tests, with an unknown formula or too small a budget (before
    anything is opened or run)."""
    if not test_ids:
        raise UsageError(
            "no test id given",
            hint="give the failing tests' node ids, e.g. tests/test_x.py::test_y",
            field="test_ids",
        )
    if opts.formula not in FORMULAS:
        raise UsageError(
            f"unknown formula {opts.formula!r}",
            hint=f"use one of {', '.join(FORMULAS)}",
            field="formula",
        )
    if opts.budget_tokens < 50:
        raise UsageError(f"must be at least 50, not {opts.budget_tokens}", field="budget_tokens")


def _values_config(tmp: Path, targets: Sequence[str]) -> Path:
    """The tracer's value-capture configuration: values are compared for the first failing
    target only, so watch the first target and its neighbours (each watched test runs
    under a trace function)."""
    cfg = tmp / "values.json"
    watch = {"tests": list(targets[:1]), "siblings": SIBLINGS}
    cfg.write_text(json.dumps(watch), encoding="utf-8")
    return cfg


class _Bare:
    """The bare run (B) in a thread. With ``hold`` (mutants wanted), it waits after its
    session until it is sent mutants to run or told to stop
    (:mod:`truegreen.localize.mutation`): a run is never left waiting (:meth:`finish`)."""

    def __init__(
        self, request: PytestRequest, executor: Executor, runs: _Runs, hold: Path | None
    ) -> None:
        self.request = request
        self.executor = executor
        self.runs = runs
        self.hold = hold
        self.sent = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        runs = self.runs
        try:
            done = run_pytest(self.request, self.executor)
            # once read while it was held, the outcomes stay those: the document
            # may be written while the run ends
            if runs.bare is None:
                runs.bare = done
        except BaseException as exc:  # reported, never raised from the thread
            if runs.bare is None:
                runs.bare_error = exc

    def ready(self) -> bool:
        """The held run reported its session's end (its outcomes can be read)."""
        return self.hold is not None and (self.hold / "ready").exists()

    def held(self) -> bool:
        """The run is waiting for mutants (or still running toward that wait)."""
        return self.thread.is_alive() and not self.sent

    def wait_for_outcomes(self) -> None:
        """The bare run's outcomes, once it reported its session's end (it then waits for
        mutants) or ended."""
        thread = self.thread
        while thread.is_alive() and not self.ready():
            thread.join(0.002 if self.hold is not None else None)
        if thread.is_alive():
            self.runs.bare = read_held(self.request) or self.runs.bare
        if self.runs.bare is None and self.runs.bare_error is None:
            self.finish()  # held, but its records cannot be read: let it end

    def send(self, spec: dict[str, Any] | None) -> Mapping[str, Any] | None:
        """Let the held bare run go on: with mutants to run first (``spec``) or with
        none. With mutants, wait for their results (the run then ends on its own)."""
        if self.sent or self.hold is None:
            return None
        self.sent = True
        hold = self.hold
        if self.thread.ident is None:
            return None  # never started (no time was spare for it)
        if spec is None:
            # (a hook past its deadline may have removed the dir: the run is gone too)
            with contextlib.suppress(OSError):
                (hold / "stop").write_text("stop\n", encoding="utf-8")
            return None
        part = hold / "spec.json.tmp"
        part.write_text(json.dumps(spec), encoding="utf-8")
        part.replace(hold / "spec.json")
        results = hold / "results.json"  # written whole (renamed into place)
        while not results.exists() and self.thread.is_alive():
            self.thread.join(0.002)
        try:
            got = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return got if isinstance(got, dict) else None

    def finish(self) -> None:
        """Let the bare run end, and wait for it: a run is never left waiting."""
        self.send(None)
        if self.thread.ident is not None:
            self.thread.join()


def _warm_meanwhile(
    stmts: Statements, selection: Sequence[str], traced: threading.Event, bare: _Bare
) -> None:
    """The traced run usually takes longer: analyse the modules the tests import meanwhile,
    on the core the bare run freed (stopped when the traced run ends); without a bare run,
    from the start."""
    if bare.thread.ident is not None:
        if bare.hold is None:
            bare.thread.join()
        while not traced.is_set() and not bare.ready() and bare.thread.is_alive():
            traced.wait(0.002)
    with contextlib.suppress(Exception):
        warm(stmts, selection, traced.is_set)


def _measure(
    project: Project,
    selection: Sequence[str],
    targets: Sequence[str],
    opts: LocalizeOptions,
    executor: Executor,
    tmp: Path,
    cfg: Path | None,
    runs: _Runs,
    deadline: Mapping[str, str],
    first: Sequence[str] = (),
) -> None:
    """The measured run (A): the selection under the tracer (``first``: those tests run
    first; ``deadline``: the time budget's, for the tracer plugin), its trace read, the
    modules it instrumented kept in the cache."""
    out = tmp / ("measured-first.json" if first else "measured.json")
    cache = code_cache_dir()
    code = None
    if cache is not None:
        (tmp / out.stem).mkdir()
        code = (cache, tmp / out.stem)
    runs.measured = run_pytest(
        _request(
            project,
            selection,
            opts.timeout,
            tracer=out,
            values_cfg=cfg,
            first=first,
            keep=targets,
            code=code,
            deadline=deadline,
        ),
        executor,
    )
    runs.trace = _read_trace(out)
    if code is not None and runs.trace is not None:
        keep_code(code[1], code[0], project.root, runs.trace)


def _measure_and_bare(
    measure: Callable[[], None],
    bare: _Bare,
    stmts: Statements,
    selection: Sequence[str],
    wanted: bool,
    sandbox: str,
    spare: Callable[[], bool] | None = None,
) -> None:
    """The measured run, and the bare one (when ``wanted``) up to its outcomes: in
    parallel, except without a sandbox (then both runs share the checkout, and tests that
    write into it, generated files, caches, would see each other's writes), or with
    ``spare`` (then the bare run starts after the measured one only if ``spare()`` says
    there is time for it)."""
    traced = threading.Event()
    warm_thread = threading.Thread(
        target=_warm_meanwhile, args=(stmts, selection, traced, bare), daemon=True
    )
    parallel = wanted and sandbox != "none" and spare is None
    if parallel:
        bare.thread.start()
    if parallel or not wanted or spare is not None:
        warm_thread.start()
    try:
        measure()
    finally:
        traced.set()
        if warm_thread.ident is not None:
            warm_thread.join()
    if wanted and not parallel and (spare is None or spare()):
        bare.thread.start()
    if wanted and bare.thread.ident is not None:
        bare.wait_for_outcomes()


def _failure_of(
    targets: Sequence[str], runs: _Runs, sandbox: str
) -> tuple[list[str], list[str], list[str]]:
    """The targets as collected, those that failed and the passing tests of the measured
    run; refused when no target failed or the tracer wrote nothing. Notes the failure the
    sandbox may have caused and the modules imported before the tracer saw them."""
    measured = runs.measured
    assert measured is not None
    by_id = measured.by_id()
    targets = _expand(targets, measured)
    _check_targets(targets, by_id, measured)
    failing = [t for t in targets if by_id[t].outcome in FAILED]
    warning = _sandbox_warning(by_id[failing[0]], sandbox)
    if warning:
        runs.notes.append(warning)
    if runs.trace is not None and runs.trace.preloaded:
        some = ", ".join(runs.trace.preloaded[:3])
        more = len(runs.trace.preloaded) - 3
        runs.notes.append(
            f"{len(runs.trace.preloaded)} project module(s) were imported before the "
            f"tracer could see them ({some}{f', and {more} more' if more > 0 else ''}): "
            "the lines their import ran are not in the spectrum"
        )
    if runs.trace is None:
        raise UsageError(
            "the tracer wrote no data (the test process may have crashed)",
            hint="run `truegreen run` on the test to see what happened",
        )
    passing = sorted(t.id for t in measured.tests if t.outcome == "passed" and t.id not in targets)
    return targets, failing, passing


def _mutator(
    bare: _Bare,
    runs: _Runs,
    failing: Sequence[str],
    passing: Sequence[str],
    spec: Mapping[str, frozenset[Line]],
    stmts: Statements,
    events: Events,
    clock: tuple[float, float | None] = (0.0, None),
) -> Callable[[Sequence[Ranked], Mapping[Line, int]], dict[Line, tuple[Fraction, str]]]:
    """What breaks the ties of a ranking with mutants, run in the held bare run (once;
    without a held run, nothing). ``clock``: when the call started and its time budget
    (None: none); mutants are not run once the budget's share for them is gone. The
    mutator is given the ranking and each tied line's last change (see
    :func:`mutation.plan`)."""
    assert runs.trace is not None
    trace = runs.trace
    started, seconds = clock

    def mutate(
        ranking: Sequence[Ranked], recent: Mapping[Line, int]
    ) -> dict[Line, tuple[Fraction, str]]:
        held = bare.held()
        spent = time.monotonic() - started
        if held and seconds is not None and spent > seconds * (1 - budget.MUTANT_SHARE):
            held = False
            runs.notes.append(
                f"mutants were not run: {spent:.0f} s of the {seconds:.3g} s budget "
                "were spent; ties near the top stand"
            )
        todo = (
            mutation.plan(
                ranking,
                failing,
                passing,
                spec,
                stmts,
                _durations(runs),
                import_only(trace, stmts),
                recent,
                # what the budget left, less its share for the document after them
                within=(
                    max(0.5, seconds * (1 - DOCUMENT_SHARE) - spent)
                    if seconds is not None
                    else None
                ),
            )
            if held
            else None
        )
        if todo is not None:
            events.start(
                "mutants",
                f"localize: running {len(todo.mutants)} mutant(s) of tied suspects",
                total=len(todo.mutants),
            )
        got = bare.send(todo.spec if todo is not None else None)
        if todo is None:
            return {}
        for problem in (mutation.problem(todo, got), mutation.reload_problem(todo, got)):
            if problem:
                runs.notes.append(problem)
        return mutation.scores(todo, got) if got else {}

    return mutate


def _durations(runs: _Runs) -> dict[str, float]:
    """Each test's duration in the bare run (the measured run's, traced, for a test the
    bare run did not run: none, or one that only hosts the mutants)."""
    out = {t.id: t.duration for t in runs.measured.tests if t.duration} if runs.measured else {}
    if runs.bare is not None:
        out |= {t.id: t.duration for t in runs.bare.tests if t.duration}
    return out


def _fails_only_first(targets: Sequence[str], runs: _Runs) -> bool:
    """No target failed in the measured run (the suite's order), and one failed in the
    bare run, where the targets ran first."""
    if runs.measured is None or runs.bare is None:
        return False
    measured, bare = runs.measured.by_id(), runs.bare.by_id()
    expanded = _expand(targets, runs.measured)
    if any(t in measured and measured[t].outcome in FAILED for t in expanded):
        return False
    return any(t in bare and bare[t].outcome in FAILED for t in expanded)


def _expand(targets: Sequence[str], run: PytestRun) -> list[str]:
    """The targets as collected: a parametrized function given without its parameters
    (as people and bug databases write them) stands for its instances."""
    ids = [t.id for t in run.tests]
    present = set(ids)
    out: list[str] = []
    for t in targets:
        out += [t] if t in present else [i for i in ids if i.startswith(t + "[")] or [t]
    return list(dict.fromkeys(out))


def _collection_problem(target: str, run: PytestRun) -> str | None:
    """The collection error that explains why ``target`` has no result: its own file's,
    else the first of the run's."""
    errors = run.collection_errors
    if not errors:
        return None
    file = target.split("::", 1)[0]
    err = next((e for e in errors if e.nodeid == file), errors[0])
    last = [ln for ln in err.excerpt.splitlines() if ln.strip()][-1:] or ["(no message)"]
    return f"{err.nodeid}: {last[0].strip()[:300]}"


def _sandbox_warning(result: TestResult, sandbox: str) -> str | None:
    """A warning when the failure looks like the sandbox's doing, not the code's."""
    if sandbox == "none":
        return None
    blocked = classify(result.exc_type or "", result.message or "")
    if blocked is None:
        return None
    return (
        f"{result.id} fails with {result.exc_type} ({blocked}): the {sandbox} sandbox keeps the "
        "checkout read-only and the network off, so this may be the sandbox's failure, not "
        "the code's; if you trust the tests, localize with --sandbox none"
    )


def _check_targets(targets: Sequence[str], by_id: Mapping[str, TestResult], run: PytestRun) -> None:
    unreported = [t for t in targets if t not in by_id or by_id[t].outcome == "no_report"]
    if unreported and len(unreported) == len(targets):
        problem = _collection_problem(unreported[0], run)
        if problem is not None:
            raise UsageError(
                f"{unreported[0]} has no result: a test module could not be collected ({problem})",
                hint="fix the collection error (`truegreen run` on that file shows it in full), "
                "or narrow the passing tests (the scope)",
            )
    missing = [t for t in targets if t not in by_id]
    if missing:
        raise UsageError(
            f"test id {missing[0]!r} was not collected (no such test?)",
            hint="list the test ids with `python -m pytest --collect-only -q` (ids are relative to the repository root)",
        )
    if any(by_id[t].outcome in FAILED for t in targets):
        return
    if any(by_id[t].outcome == "no_report" for t in targets):
        raise UsageError(
            f"{targets[0]} ended without a report (the test process died or timed out)",
            hint="`truegreen run` on the test shows what happened; a longer timeout gives it "
            "more time",
        )
    outcomes = ", ".join(f"{t}: {by_id[t].outcome}" for t in targets)
    raise UsageError(
        f"the test passes here: nothing to localize ({outcomes})",
        hint="localize needs a test that fails in this checkout, run as truegreen runs tests "
        "(in the suite's order and first, in a clean environment: TZ=UTC, PYTHONHASHSEED=0, "
        "allow-listed variables only, see docs/runner.md): a test that fails only in your "
        "shell may depend on its environment (a variable the project needs can be passed "
        "with TRUEGREEN_PASS_ENV=NAME); `truegreen run --repeat 5` shows whether it is flaky",
    )


def _most_similar(
    spec: Mapping[str, frozenset[Line]], primary: str, passing: Sequence[str]
) -> tuple[str | None, Fraction]:
    best: str | None = None
    best_sim = Fraction(-1)
    for p in passing:
        s = similarity(spec[primary], spec[p])
        if s > best_sim:
            best, best_sim = p, s
    return best, max(best_sim, Fraction(0))


class _Source:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, list[str]] = {}

    def lines(self, rel: str) -> list[str]:
        if rel not in self.cache:
            try:
                self.cache[rel] = (
                    (self.root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
                )
            except OSError:
                self.cache[rel] = []
        return self.cache[rel]

    def line(self, rel: str, n: int) -> str:
        ls = self.lines(rel)
        return ls[n - 1] if 0 < n <= len(ls) else ""


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


@dataclass(frozen=True)
class _Failure:
    """The primary failing test as the measured run and the trace saw it."""

    primary: str
    result: TestResult
    #: the trace's record of its failure (frames, locals), if any
    record: Mapping[str, Any] | None
    #: every failing test's record, in the failing tests' order
    records: list[Mapping[str, Any]]
    #: its watched values, and those of the most similar passing test
    fvals: Mapping[str, Any]
    pvals: Mapping[str, Any] | None
    #: the source line of the crash frame, and the document's ``failure.crash``
    crash_src: str
    crash_doc: dict[str, Any] | None

    @property
    def message(self) -> str:
        return self.result.message or ""


def _failure(
    primary: str, best: str | None, failing: Sequence[str], runs: _Runs, src: _Source
) -> _Failure:
    assert runs.measured is not None and runs.trace is not None
    trace = runs.trace
    trace_failures = dict(trace.failures)
    record = trace_failures.get(primary)
    crash_src, crash_doc = _crash(record, src)
    return _Failure(
        primary=primary,
        result=runs.measured.by_id()[primary],
        record=record,
        records=[trace_failures[t] for t in failing if t in trace_failures],
        fvals=trace.values.get(primary, {}),
        pvals=trace.values.get(best) if best else None,
        crash_src=crash_src,
        crash_doc=crash_doc,
    )


def _crash(record: Mapping[str, Any] | None, src: _Source) -> tuple[str, dict[str, Any] | None]:
    """The crash frame of a failure record (the one the tracer chose, else the innermost
    frame not in a library): its source line and its document."""
    if record is None:
        return "", None
    frames = record.get("frames") or []
    idx = record.get("crash_frame")
    frame = frames[int(idx)] if isinstance(idx, int) and 0 <= idx < len(frames) else None
    if frame is None:
        local = [f for f in frames if f.get("file") != "<library>"]
        frame = local[-1] if local else None
    if frame is None:
        return "", None
    crash_src = src.line(str(frame["file"]), int(frame["line"]))
    return crash_src, {
        "file": frame["file"],
        "line": frame["line"],
        "function": frame["function"],
        "code": crash_src.strip()[:200],
    }


@dataclass
class _Values:
    """What the failing test's values say (:mod:`truegreen.localize.values`): where the
    bad value came from, what the assertion rejected and who wrote it."""

    origin_docs: list[dict[str, Any]]
    #: lines that bound a value of another kind than in the passing test
    kind_lines: set[Line]
    rejected_docs: list[dict[str, Any]] = field(default_factory=list)
    key_writers: dict[Line, str] = field(default_factory=dict)
    text_writers: dict[Line, str] = field(default_factory=dict)
    #: which operands of the failed comparison are literals the test wrote
    literal: list[bool] = field(default_factory=list)


def _values_of(f: _Failure, ran: frozenset[Line], stmts: Statements, src: _Source) -> _Values:
    """The value analyses of the primary failing test (``ran``: the lines it ran); none
    without watched values."""
    fvals = f.fvals
    origin_docs = val.origins(f.record, fvals, f.crash_src, f.message) if fvals else []
    _add_attribute_writers(origin_docs, ran, stmts)
    found = _Values(origin_docs, val.kind_diff_lines(fvals, f.pvals) if fvals else set())
    if not fvals:
        return found
    literal = found.literal = _literal_operands(f.record, fvals, stmts)
    found.rejected_docs = val.rejected(fvals, literal, source=is_source)
    found.rejected_docs += val.received(fvals, literal, f.message)
    test_text = "\n".join(src.lines(f.primary.split("::", 1)[0]))
    found.rejected_docs += val.in_message(fvals, f.message, test_text, source=is_source)
    found.key_writers = keys.writer_lines(
        keys.differing_keys(fvals, literal), ran, stmts, is_source
    )
    found.text_writers = texts.rejected_text_writers(
        fvals,
        literal,
        f.message,
        test_text,
        ran,
        stmts,
        is_source,
        raised_in_project=_raised_in_project(f.record),
    )
    return found


def _evidence(
    f: _Failure, found: _Values, ran: frozenset[Line], stmts: Statements
) -> dict[Line, tuple[int, tuple[str, ...]]]:
    """The evidence of each statement (:func:`values.evidence`): the crash, the values'
    origins and differences, missed raise guards, boundaries, mocks, writers."""
    fvals, pvals = f.fvals, f.pvals
    expected = raises.expected_exceptions(f.result.excerpt)
    return _by_statement(
        val.evidence(
            f.records,
            found.origin_docs,
            {ln for ln in found.kind_lines if is_source(ln[0])},
            found.rejected_docs,
            raises.missed_raise_guards(expected, ran, stmts),
            boundary.boundary_lines(fvals, pvals, stmts, is_source) if fvals else None,
            mocks.mock_call_lines(fvals, stmts, is_source)
            if fvals and mocks.mock_failure(f.result.excerpt)
            else (),
            found.key_writers,
            boundary.truth_lines(fvals, pvals, stmts, is_source) if fvals else None,
            found.text_writers,
        ),
        stmts,
    )


def _ranker(
    f: _Failure,
    found: _Values,
    failing: Sequence[str],
    passing: Sequence[str],
    spec: Mapping[str, frozenset[Line]],
    stmts: Statements,
    src: _Source,
    evidence: dict[Line, tuple[int, tuple[str, ...]]],
    formula: Formula,
) -> Callable[..., list[Ranked]]:
    """:func:`ranking.rank` with everything it orders by bound (the tiers before any
    score: the crash site first, its guard and the bad value's origin second; the
    nearness to the crash; the lines a failing test's name names, noted in
    ``evidence``); called again with the mutants' scores."""
    executed: frozenset[Line] = frozenset().union(*(spec[t] for t in failing))
    first, second, near = _near_crash(f.records, stmts, src, executed)
    if found.text_writers and texts.literal_is_wrong(
        f.fvals, found.literal, spec[f.primary], stmts, is_source
    ):
        # the literal wrote the rejected text, and none could have written the expected
        # one: it ranks with the crash's guard
        second |= frozenset(found.text_writers) - first
    # the line that made the bad value the crash used comes with the crash's guard
    second |= _origin_lines(found.origin_docs, stmts, executed, is_source) - first
    named = names.named_lines(failing, executed, stmts)
    for ln, name in named.items():
        level, notes = evidence.get(ln, (0, ()))
        evidence[ln] = (level, (*notes, f"in {name}, which the failing test's name names"))
    headers = frozenset(ln for ln in executed if ln[1] in stmts.headers(ln[0]))
    return functools.partial(
        rank,
        [spec[t] for t in failing],
        [spec[t] for t in passing],
        formula,
        evidence=evidence,
        first=first,
        second=second,
        order=near,
        headers=headers,
        outcomes=_outcomes(executed, stmts),
        named=frozenset(named),
    )


def _final_ranking(
    ranked: Callable[..., list[Ranked]],
    evidence: dict[Line, tuple[int, tuple[str, ...]]],
    project: Project,
    stmts: Statements,
    opts: LocalizeOptions,
    mutate: Callable[[Sequence[Ranked], Mapping[Line, int]], Mapping[Line, tuple[Fraction, str]]]
    | None,
) -> list[Ranked]:
    """The ranking, its ties near the top broken by mutants (their scores) and then by
    version history (the most recently changed first)."""
    ranking = ranked()
    past = history.History(project.git if opts.history else None)
    # blamed before the mutants run: the statements of the tie groups that start within
    # the top places (a group further down cannot change the top 10)
    tied = [r for r in ranking if r.ties > 1 and r.rank - r.ties < history.PLACES]
    spans = {(r.file, r.line): stmts.span(r.file, r.line) for r in tied}
    past.start((file, lo, hi) for (file, _line), (lo, hi) in spans.items())
    # the blame first: where a tie group has more statements than get mutants, those the
    # history shows first (the most recently changed) get them first
    recent = past.recency(spans)  # waits for the blame: no git left running
    if mutate is not None:
        mutated = mutate(ranking, {ln: when for ln, (when, _note) in recent.items()})
    else:
        mutated = {}
    if mutated:
        for ln, (_score, note) in mutated.items():
            level, notes = evidence.get(ln, (0, ()))
            evidence[ln] = (level, (*notes, note))
        ranking = ranked(mutation={ln: score for ln, (score, _note) in mutated.items()})
    if recent:
        ranking = by_history(ranking, recent)
    return ranking


def _focus(
    crash_doc: Mapping[str, Any] | None, ranking: Sequence[Ranked], opts: LocalizeOptions
) -> list[Line]:
    """The lines whose values are compared: the crash site, the best by score alone and
    the best in the final order."""
    focus: list[Line] = []
    if crash_doc is not None:
        focus.append((str(crash_doc["file"]), int(crash_doc["line"])))
    by_score = sorted(ranking, key=lambda r: (_neg_score(r.score(opts.formula)), r.file, r.line))
    focus += [(r.file, r.line) for r in by_score[: opts.value_lines]]
    focus += [(r.file, r.line) for r in ranking[: opts.value_lines]]
    return list(dict.fromkeys(focus))


def _document(
    project: Project,
    targets: Sequence[str],
    failing: Sequence[str],
    passing: Sequence[str],
    primary: str,
    best: str | None,
    best_sim: Fraction,
    spec: Mapping[str, frozenset[Line]],
    stmts: Statements,
    runs: _Runs,
    opts: LocalizeOptions,
    mutate: Callable[[Sequence[Ranked], Mapping[Line, int]], Mapping[Line, tuple[Fraction, str]]]
    | None = None,
) -> dict[str, Any]:
    """The ``truegreen.localization/1`` document: the failure (:func:`_failure`), what its
    values say (:func:`_values_of`), the evidence (:func:`_evidence`), the ranking
    (:func:`_ranker`, :func:`_final_ranking`), the values compared on its top lines, the
    order and measurement checks; secrets scrubbed, and the context for a reader within
    the token budget."""
    assert runs.measured is not None and runs.trace is not None
    src = _Source(project.root)
    f = _failure(primary, best, failing, runs, src)
    found = _values_of(f, spec[primary], stmts, src)
    evidence = _evidence(f, found, spec[primary], stmts)
    ranked = _ranker(f, found, failing, passing, spec, stmts, src, evidence, opts.formula)
    ranking = _final_ranking(ranked, evidence, project, stmts, opts, mutate)
    diffs = val.differences(f.fvals, f.pvals, _focus(f.crash_doc, ranking, opts)) if f.fvals else []
    order = _order_doc(primary, runs)
    measurement = _measurement_doc(runs, targets, opts.check_measurement)
    rerun = rerun_command(_request(project, list(targets), opts.timeout))
    ranking_docs = [_ranked_doc(r, opts.formula, src, stmts) for r in ranking[: opts.limit]]
    result = f.result
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "repo": str(project.root),
        "python": str(project.interpreter.path),
        "target": list(targets),
        "failing": list(failing),
        "formula": opts.formula,
        "engine": runs.trace.engine,
        "tests": {
            "selection": len(runs.measured.tests),
            "failing": len(failing),
            "passing": len(passing),
            "other_failures": sorted(
                t.id for t in runs.measured.tests if t.outcome in FAILED and t.id not in targets
            ),
            "chosen_by": _chosen_by(opts),
        },
        "failure": {
            "test": primary,
            "outcome": result.outcome,
            "phase": result.phase,
            "exc_type": result.exc_type,
            "message": f.message[:2000],
            "signature": result.signature,
            "crash": f.crash_doc,
        },
        "excerpt": result.excerpt,
        "ranked_lines": len(ranking),
        "ranking": ranking_docs,
        "values": {
            "failing": primary,
            "passing": best,
            "similarity": _frac(best_sim) if best else None,
            "differences": diffs,
            "origins": found.origin_docs,
            "rejected": found.rejected_docs,
            "crash_locals": (f.record or {}).get("locals") or {},
        },
        "order_dependence": order,
        "measurement": measurement,
        "warnings": _warnings(runs),
        "command": list(rerun),
    }
    scrub = Scrubber(list(runs.trace.secrets))
    doc = scrub.document(doc)
    doc["context"] = _context(doc, project.root, src, opts.budget_tokens, scrub)
    return dict(doc)


def _chosen_by(opts: LocalizeOptions) -> str:
    """How the passing tests were chosen, as the document says it."""
    if opts.scope is not None:
        return "suite" if list(opts.scope) == ["suite"] else "scope"
    if opts.related is not None:
        return f"record of {opts.related.revision[:12]}"
    return "imports"


def _warnings(runs: _Runs) -> list[str]:
    """localize's own notes, then the runner's about its test runs (each once)."""
    notes = [*runs.notes, *(n for r in (runs.measured, runs.bare) if r for n in r.notes)]
    return list(dict.fromkeys(notes))


def _raised_in_project(failure: Mapping[str, Any] | None) -> bool:
    """The failure's innermost frame is project code (not the test's, not pytest's)."""
    frames = list((failure or {}).get("frames") or ())
    return bool(frames) and bool(frames[-1].get("project"))


def _outcomes(executed: frozenset[Line], stmts: Statements) -> dict[Line, tuple[Line, ...]]:
    """The executed ``if`` lines, each with the statements that show its outcomes."""
    out: dict[Line, tuple[Line, ...]] = {}
    for file, line in executed:
        shown = stmts.outcomes(file).get(line)
        if shown:
            out[(file, line)] = tuple((file, o) for o in shown)
    return out


def _neg_score(s: Score) -> tuple[int, Fraction]:
    infinite, value = s.key()
    return (-infinite, -value)


def _literal_operands(
    failure: Mapping[str, Any] | None, fvals: Mapping[str, Any], stmts: Statements
) -> list[bool]:
    """For the comparison a failed ``assert`` (or ``self.assertEqual``) rejected: which of
    its two operands is a literal written by the test (the expected value), read from the
    innermost frame that stopped on one. An operand that is a parameter of a helper
    (``def assert_equal(expected, result)``) is what the caller passed for it."""
    compared = list(fvals.get("compared", ()))
    if not failure or not compared:
        return []
    frames = list(failure.get("frames") or [])
    index = int(compared[0].get("index", 0))
    for at in range(len(frames) - 1, -1, -1):
        file, line = str(frames[at].get("file")), int(frames[at].get("line", 0))
        tree = stmts.tree(file) if file.endswith(".py") else None
        if tree is None:
            continue
        found: list[ast.Assert | ast.Call] = [
            n
            for n in ast.walk(tree)
            if (isinstance(n, ast.Assert) or (isinstance(n, ast.Call) and _is_assert_equal(n)))
            and n.lineno <= line <= (n.end_lineno or n.lineno)
        ]
        if not found:
            continue
        node = min(found, key=_span)
        if isinstance(node, ast.Call):
            sides = list(node.args[:2])
        elif isinstance(node.test, ast.Compare):
            sides = [node.test.left, *node.test.comparators][index : index + 2]
        else:
            return []
        return [_written_literal(n, frames, at, stmts) for n in sides]
    return []


def _span(node: ast.AST) -> int:
    return (getattr(node, "end_lineno", None) or node.lineno) - node.lineno  # type: ignore[attr-defined, no-any-return]


def _written_literal(
    node: ast.expr, frames: Sequence[Mapping[str, Any]], at: int, stmts: Statements, depth: int = 0
) -> bool:
    """``node`` (in frame ``at``) is a literal, or a parameter its caller passed a literal
    for (followed up to a few helper levels)."""
    if _is_literal(node):
        return True
    if not isinstance(node, ast.Name) or at == 0 or depth > 4:
        return False
    file, line = str(frames[at].get("file")), int(frames[at].get("line", 0))
    tree = stmts.tree(file)
    if tree is None:
        return False
    funcs = [
        f
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        and f.lineno <= line <= (f.end_lineno or f.lineno)
    ]
    if not funcs:
        return False
    func = min(funcs, key=_span)
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if node.id not in positional and node.id not in {a.arg for a in func.args.kwonlyargs}:
        return False  # a local of the helper, not something its caller passed
    caller = frames[at - 1]
    ctree = stmts.tree(str(caller.get("file")))
    cline = int(caller.get("line", 0))
    if ctree is None:
        return False
    calls = [
        c
        for c in ast.walk(ctree)
        if isinstance(c, ast.Call)
        and c.lineno <= cline <= (c.end_lineno or c.lineno)
        and _called_name(c) == func.name
    ]
    if not calls:
        return False
    call = min(calls, key=_span)
    for kw in call.keywords:
        if kw.arg == node.id:
            return _written_literal(kw.value, frames, at - 1, stmts, depth + 1)
    if node.id not in positional:
        return False
    pos = positional.index(node.id)
    if isinstance(call.func, ast.Attribute) and positional[:1] in (["self"], ["cls"]):
        pos -= 1  # a method called on its object: the object is the first parameter
    if 0 <= pos < len(call.args) and not isinstance(call.args[pos], ast.Starred):
        return _written_literal(call.args[pos], frames, at - 1, stmts, depth + 1)
    return False


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


_ASSERT_EQUAL = frozenset({"assertEqual", "assertEquals", "failUnlessEqual"})


def _is_assert_equal(node: ast.Call) -> bool:
    """``self.assertEqual(a, b)`` and its old aliases."""
    return (
        isinstance(node.func, ast.Attribute)
        and node.func.attr in _ASSERT_EQUAL
        and len(node.args) >= 2
    )


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _by_statement(
    evidence: Mapping[Line, tuple[int, tuple[str, ...]]], stmts: Statements
) -> dict[Line, tuple[int, tuple[str, ...]]]:
    """Evidence keyed by statement, as the spectra are: the strongest level, all notes."""
    out: dict[Line, tuple[int, tuple[str, ...]]] = {}
    for (file, line), (level, notes) in evidence.items():
        key = (file, stmts.line(file, line))
        old_level, old_notes = out.get(key, (0, ()))
        out[key] = (max(level, old_level), tuple(sorted({*old_notes, *notes})))
    return out


#: exceptions whose deepest frame says little about where the fault is
_UNINFORMATIVE_CRASH = ("RecursionError", "KeyboardInterrupt", "MemoryError")


def _near_crash(
    failures: Sequence[Mapping[str, Any]], stmts: Statements, src: _Source, lines: frozenset[Line]
) -> tuple[frozenset[Line], frozenset[Line], dict[Line, int]]:
    """What the failing tracebacks say about ``lines``, beyond the spectrum.

    ``first``: the statement where an exception was raised in project code, put before
    every score: an ``IndexError`` or ``TypeError`` is usually raised by the faulty
    statement itself. Not when the statement is an explicit ``raise`` or ``assert`` (the
    code detected a bad state that was made elsewhere), nor for a ``RecursionError``
    (the deepest frame is wherever the stack ran out), nor when the exception was raised
    in the test's own code that the statement called (a callback: the call is not what
    failed; :func:`values.raised_by_test_code`).

    ``second``: the innermost ``if``/``while``/``for`` whose body holds a crash statement
    (raised or explicit ``raise``/``assert``; not a ``RecursionError``): its condition
    decided that the crash statement ran, and a wrong condition is a common fault.

    ``order`` (a tie-break among equal scores and evidence): lines in a function on a
    failing traceback before other lines; in the crashing function, the lines before the
    crash line, nearest first.
    """
    first: set[Line] = set()
    second: set[Line] = set()
    funcs: set[tuple[str, tuple[int, int]]] = set()
    crashes: list[tuple[str, tuple[int, int], int]] = []
    for fail in failures:
        frames = [f for f in fail.get("frames") or () if f.get("project")]
        for f in frames:
            span = stmts.function(str(f["file"]), int(f["line"]))
            if span is not None:
                funcs.add((str(f["file"]), span))
        if not frames:
            continue
        file, line = str(frames[-1]["file"]), int(frames[-1]["line"])
        code = src.line(file, line).strip()
        informative = fail.get("type") not in _UNINFORMATIVE_CRASH and not val.raised_by_test_code(
            fail
        )
        if informative and not code.startswith(("raise", "assert")):
            first.add((file, stmts.line(file, line)))
        guard = stmts.guard(file, stmts.line(file, line)) if informative else None
        if guard is not None:
            second.add((file, guard))
        span = stmts.function(file, line)
        if span is not None:
            crashes.append((file, span, stmts.line(file, line)))
    order: dict[Line, int] = {}
    if not funcs:
        return frozenset(first), frozenset(second - first), order
    for file, line in lines:
        span = stmts.function(file, line)
        if span is None or (file, span) not in funcs:
            continue
        near = 0
        for cfile, cspan, cline in crashes:
            if (cfile, cspan) == (file, span) and line <= cline:
                near = max(near, _SPAN - (cline - line))
        order[(file, line)] = _SPAN + near
    return frozenset(first), frozenset(second - first), order


_SPAN = 1 << 24
#: with ``spare_mutants``: the share of the budget the traced run must leave for the
#: mutants' run to start
SPARE_SHARE = 0.5
#: under a time budget, the mutants end by the time this share of it is left (for the
#: document written after them)
DOCUMENT_SHARE = 0.05


def _add_attribute_writers(
    origin_docs: Sequence[dict[str, Any]], executed: Iterable[Line], stmts: Statements
) -> None:
    """A bad value bound from an attribute (``used = scope[name].used``) was made by the
    statements the failing test ran (``executed``) that wrote that attribute: each origin
    gets them as ``written_at`` (at most :data:`keys.MAX_WRITERS` an attribute, and not one
    that writes a literal of another type than the bad value's)."""
    for o in origin_docs:
        at = o.get("assigned_at")
        if not isinstance(at, dict) or "returned_at" in o:
            continue
        attrs = keys.value_attributes(stmts, str(at["file"]), int(at["line"]))
        writers = {
            ln: a
            for ln, a in keys.writer_lines(attrs, executed, stmts, is_source).items()
            if keys.written_literal_type(stmts, *ln) in (None, o["type"])
        }
        if writers:
            o["written_at"] = [
                {"file": f, "line": n, "attribute": a} for (f, n), a in sorted(writers.items())
            ]


def _origin_lines(
    origin_docs: Sequence[Mapping[str, Any]],
    stmts: Statements,
    executed: frozenset[Line],
    is_source: Callable[[str], bool],
) -> frozenset[Line]:
    """The source statements that bound or returned the bad value a crash used
    (:func:`values.origins`): the crash statement may be right, and the value wrong."""
    out: set[Line] = set()
    for o in origin_docs:
        for at in [o.get("assigned_at"), o.get("returned_at"), *o.get("written_at", ())]:
            if isinstance(at, Mapping) and is_source(str(at["file"])):
                ln = (str(at["file"]), stmts.line(str(at["file"]), int(at["line"])))
                if ln in executed:
                    out.add(ln)
    return frozenset(out)


def _ranked_doc(r: Ranked, formula: Formula, src: _Source, stmts: Statements) -> dict[str, Any]:
    first, last = stmts.span(r.file, r.line)
    return {
        "file": r.file,
        "line": r.line,
        "lines": [first, last],
        "score": r.score(formula).text(),
        "rank": r.rank,
        "ties": r.ties,
        "scores": {f: s.text() for f, s in sorted(r.scores.items())},
        "counts": {"ef": r.counts.ef, "nf": r.counts.nf, "ep": r.counts.ep, "np": r.counts.np},
        "evidence": list(r.evidence_notes),
        "code": src.line(r.file, r.line).strip()[:160],
    }


def _order_doc(primary: str, runs: _Runs) -> dict[str, Any]:
    assert runs.measured is not None
    in_sel = runs.measured.by_id()[primary].outcome
    if runs.in_suite is not None:  # measured first: its outcome in the suite's order
        in_sel = runs.in_suite.get(primary, in_sel)
    alone_r = runs.bare.outcome_of(primary) if runs.bare is not None else None
    alone = alone_r.outcome if alone_r is not None else None
    doc: dict[str, Any] = {"in_selection": in_sel, "alone": alone, "order_dependent": False}
    if alone is None:
        doc["note"] = "the test was not rerun alone"
    elif in_sel in FAILED and alone == "passed":
        doc["order_dependent"] = True
        doc["note"] = (
            "the test passes alone but fails after other tests ran: look for state shared "
            "between tests (module globals, caches, wider-scoped fixtures, environment, files) "
            "before changing the code under test"
        )
    elif in_sel == "passed" and alone in FAILED:
        doc["order_dependent"] = True
        doc["note"] = (
            "the test fails alone but passes after other tests ran: it relies on state they leave behind"
        )
    return doc


def _measurement_doc(runs: _Runs, targets: Sequence[str], check: bool) -> dict[str, Any]:
    """Measured against bare outcomes; the targets ran first in the bare run (alone: the
    order check), so only the other tests are compared."""
    assert runs.measured is not None and runs.trace is not None
    doc: dict[str, Any] = {"engine": runs.trace.engine}
    if not check:
        doc["checked"] = False
        doc["note"] = "not checked"
        return doc
    if runs.bare is None:
        doc["checked"] = False
        doc["note"] = (
            f"the bare run failed: {runs.bare_error}" if runs.bare_error else "not checked"
        )
        return doc
    bare = runs.bare.by_id()
    mismatches = []
    # a test the budget's deadline left out of one run is not a changed outcome
    compared = [
        t for t in runs.measured.tests if t.id not in targets and t.id not in runs.budget_cut
    ]
    for t in compared:
        b = bare.get(t.id)
        if b is None or b.outcome != t.outcome:
            mismatches.append({"id": t.id, "bare": b.outcome if b else None, "measured": t.outcome})
    doc["checked"] = True
    doc["compared"] = len(compared)
    doc["consistent"] = not mismatches
    doc["mismatches"] = mismatches
    if mismatches:
        doc["note"] = (
            "measuring changed some outcomes (timing, recursion depth, tracing-sensitive code): "
            "the ranking rests on the measured outcomes; treat it with care"
        )
    return doc


#: a shortened warning or message keeps this many characters
_SHORT_TEXT = 100


def _cut(text: str, limit: int = _SHORT_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _context(
    doc: Mapping[str, Any], root: Path, src: _Source, budget: int, scrub: Scrubber
) -> dict[str, Any]:
    """The text for a person or an agent, packed to ``budget`` tokens (context.pack): the
    required items with shorter forms for a small budget, the top suspect first of the
    rest, a value difference only with the suspect of its line."""
    fail = doc["failure"]
    items: list[ctx.Item] = []
    head = f"# {fail['test']} {fail['outcome']}"
    heads = [head]
    if fail.get("exc_type"):
        first = (str(fail.get("message") or "").splitlines() or [""])[0]
        heads = [
            f"{head}: {fail['exc_type']}: {first[:200]}",
            f"{head}: {fail['exc_type']}: {_cut(first, 60)}",
            f"{head}: {fail['exc_type']}",
            head,
        ]
    items.append(_forms("header", heads, required=True))
    files: list[str] = []
    crash = fail.get("crash")
    if crash:
        files.append(crash["file"])
        where = f"crash site: {crash['file']}:{crash['line']} in {crash['function']}"
        lines = src.lines(crash["file"])
        items.append(
            _forms(
                "crash",
                [
                    where + "\n" + ctx.excerpt(lines, int(crash["line"])),
                    where + "\n" + ctx.excerpt(lines, int(crash["line"]), 0, 0),
                    where,
                ],
                required=True,
            )
        )
    items.append(_forms("rerun", _rerun_forms(doc), required=True))
    order = doc["order_dependence"]
    if order.get("order_dependent"):
        note = "ORDER-DEPENDENT: " + order["note"]
        items.append(_forms("order", [note, _cut(note)], required=True))
    for i, warning in enumerate(doc.get("warnings") or ()):
        text = "WARNING: " + warning
        items.append(_forms(f"warning:{i}", [text, _cut(text)], required=True))
    meas = doc["measurement"]
    if meas.get("checked") and not meas.get("consistent"):
        text = "WARNING: " + meas["note"]
        items.append(_forms("measurement", [text, _cut(text)], required=True))
    for o in doc["values"]["origins"]:
        what = "None" if o.get("value") is None else f"of type {o.get('type')}"
        parts = [f"{o['var']} is {what} at {o['used_at']['file']}:{o['used_at']['line']}"]
        if "assigned_at" in o:
            parts.append(f"assigned at {o['assigned_at']['file']}:{o['assigned_at']['line']}")
        if "returned_at" in o:
            parts.append(f"returned at {o['returned_at']['file']}:{o['returned_at']['line']}")
        for w in o.get("written_at", ()):
            parts.append(f"its .{w['attribute']} written at {w['file']}:{w['line']}")
        items.append(ctx.Item(f"origin:{o['var']}", "bad value's origin: " + ", ".join(parts)))
    suspects = doc["ranking"]
    handle_of = {(r["file"], int(r["line"])): f"suspect:{r['file']}:{r['line']}" for r in suspects}
    index_of = {(r["file"], int(r["line"])): i for i, r in enumerate(suspects)}
    # differences on lines the passing test also reached say the most: those first; a
    # difference on a suspect's line below the third goes right after that suspect, the
    # others (on the first three's lines, or on no suspect's) after the third suspect
    diffs = sorted(doc["values"]["differences"], key=lambda d: not d["passing_reached"])
    passing = doc["values"]["passing"]
    after: dict[int, list[Mapping[str, Any]]] = {}
    early: list[Mapping[str, Any]] = []
    for d in diffs:
        k = index_of.get((d["file"], int(d["line"])))
        if k is not None and k >= 3:
            after.setdefault(k, []).append(d)
        else:
            early.append(d)

    def diff(d: Mapping[str, Any]) -> ctx.Item:
        return _diff_item(d, passing, handle_of.get((d["file"], int(d["line"]))))

    for i, r in enumerate(suspects):
        files.append(r["file"])
        tie = f", tied with {r['ties'] - 1} other(s)" if r["ties"] > 1 else ""
        ev = f" [{'; '.join(r['evidence'])}]" if r["evidence"] else ""
        title = (
            f"suspect rank {r['rank']}{tie}: {r['file']}:{r['line']} {doc['formula']}={r['score']}"
        )
        lines = src.lines(r["file"])
        marked = ctx.excerpt(lines, int(r["line"]), 0, 0)
        forms = [
            f"{title}{ev}\n" + ctx.excerpt(lines, int(r["line"]), 1, 1),
            f"{title}{ev}\n{marked}",
            f"{title}\n{marked}",
        ]
        items.append(_forms(f"suspect:{r['file']}:{r['line']}", forms, lead=i == 0))
        if i == min(2, len(suspects) - 1):
            items += [diff(d) for d in early[:5]]
        items += [diff(d) for d in after.get(i, ())]
    if not suspects:
        items += [diff(d) for d in early[:5]]
    items += [diff(d) for d in early[5:]]
    # scrubbed before packing, so that what is packed is what is measured
    items = [
        replace(it, text=scrub.text(it.text), shorter=tuple(scrub.text(f) for f in it.shorter))
        for it in items
    ]
    text, omitted, _tokens = ctx.pack(items, budget)
    text = scrub.text(text)
    return {
        "text": text,
        "tokens": ctx.estimate_tokens(text),
        "budget": budget,
        "token_estimate": "ceil(characters / 4)",
        "omitted": omitted,
        "files": ctx.file_hashes(root, files),
    }


def _forms(
    handle: str, forms: Sequence[str], *, required: bool = False, lead: bool = False
) -> ctx.Item:
    """An item with its shorter forms (longest first; a form no shorter than the one
    before it is dropped)."""
    kept = [forms[0]]
    for f in forms[1:]:
        if len(f) < len(kept[-1]):
            kept.append(f)
    return ctx.Item(handle, kept[0], required=required, shorter=tuple(kept[1:]), lead=lead)


def _rerun_forms(doc: Mapping[str, Any]) -> list[str]:
    """The exact command, then (for a small budget) the failing tests' node ids with the
    interpreter and pytest's options elided: the document's ``command`` has them all."""
    full = "rerun: " + shlex.join(doc["command"])
    ids = [str(t) for t in doc.get("failing") or ()] or [str(doc["failure"]["test"])]
    more = f" (+{len(ids) - 1} more)" if len(ids) > 1 else ""
    return [
        full,
        "rerun: ... -m pytest "
        + shlex.join(ids[:3])
        + (f" (+{len(ids) - 3} more)" if len(ids) > 3 else ""),
        "rerun: ... -m pytest " + shlex.quote(ids[0]) + more,
    ]


def _diff_item(d: Mapping[str, Any], passing: str | None, parent: str | None) -> ctx.Item:
    f = ", ".join(ctx.show(v) for v in d["failing"])
    if d["passing"] is None:
        p = "(not reached by the passing test)" if passing else "(no passing test)"
    else:
        p = ", ".join(ctx.show(v) for v in d["passing"])
    return ctx.Item(
        f"values:{d['file']}:{d['line']}:{d['var']}",
        f"value {d['file']}:{d['line']} {d['var']}: failing {f} | passing {p}",
        parent=parent,
    )
