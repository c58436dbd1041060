"""Supervised pytest runs in the target project's own interpreter.

``run_pytest(request)`` runs ``python -m pytest`` from the repository root, with the
probe plugin loaded, under a deadline, in a clean environment, and returns a
:class:`~truegreen.run.results.PytestRun` read from the probe's JSON lines.

Grading choices (``controlled=True``, the default), made explicit so that the same
inputs give the same outcomes:

* ``-o addopts=`` and no ``PYTEST_ADDOPTS``: the project's addopts can neither deselect
  tests nor reorder or rerun them; only those that make its tests importable or judge
  more strictly are put back (:data:`truegreen.run.pytest_ini.KEPT_ADDOPTS`:
  ``--import-mode``, ``-p pytester``, ``--strict-markers``, ``-W error``, ``--ds``...);
  extra arguments come from ``[tool.truegreen] pytest-args``, checked by
  :mod:`truegreen.config`;
* ``-p no:cacheprovider``: no ``--lf``/``--ff`` state, and nothing written to
  ``.pytest_cache`` (the sandbox's worktree may be the only writable place);
* ``-p no:randomly -p no:random_order -p no:rerunfailures -p no:flaky -p no:xdist``:
  no random order, no reruns that turn a failure into a pass, one process;
* ``PYTHONHASHSEED=0`` and ``TZ=UTC``, ``--tb=short``, ``--color=no``.

Node ids are passed as separate arguments, never through a shell; many ids go
through an argfile (``@file``, pytest >= 8.2).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from truegreen import tempdirs
from truegreen.errors import UsageError
from truegreen.run.executor import Command, Executor, default_executor
from truegreen.run.interpreter import Interpreter
from truegreen.run.pytest_ini import kept_addopts
from truegreen.run.results import CollectionError, Outcome, PytestRun, TestResult
from truegreen.run.signature import Frame, legacy_signature, make_signature

PROBE_DIR = Path(__file__).resolve().parent / "_probe"
PROBE_PLUGIN = "truegreen_probe"
PROBE_OUT_VAR = "TRUEGREEN_PROBE_OUT"
#: the probe's traceback style for the tests' failures (``no``: a run read for its outcomes)
PROBE_TB_VAR = "TRUEGREEN_PROBE_TB"

#: Plugins blocked when grading: they change the order or the outcomes of tests.
BLOCKED_PLUGINS = (
    "cacheprovider",
    "randomly",
    "random_order",
    "rerunfailures",
    "flaky",
    "xdist",
    "sugar",
)

#: Environment variables passed through from the caller (nothing else is: no tokens).
ENV_ALLOW = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "USER", "LOGNAME")

#: Names the user may add with TRUEGREEN_PASS_ENV="NAME1,NAME2" (e.g. DJANGO_SETTINGS_MODULE).
PASS_ENV_VAR = "TRUEGREEN_PASS_ENV"

#: seconds a test process has to exit once pytest is done (the probe's ``done`` record):
#: a suite whose process never ends (a server thread that is not a daemon, forked
#: workers it waits for) is then ended, and graded from what the probe recorded
EXIT_GRACE = 5.0

LINGER_NOTE = (
    "the test process had not exited {grace:g} s after pytest was done (a thread or a "
    "child process it waits for?): truegreen ended it, and all it had started, and graded "
    "the outcomes it had reported"
)

ARGFILE_THRESHOLD = 200
EXCERPT_LINES = 25
EXCERPT_CHARS = 3000


class UnknownTestError(UsageError):
    slug = "unknown-test"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        missing: Sequence[str] = (),
        field: str | None = None,
        suggest: Mapping[str, str] | None = None,
    ):
        super().__init__(message, hint=hint, field=field, suggest=suggest)
        #: the ids or paths pytest said it could not find, relative to the repository root
        self.missing = tuple(missing)


@dataclass(frozen=True)
class PytestRequest:
    """One pytest process to run."""

    repo: Path
    interpreter: Interpreter
    test_ids: Sequence[str] = ()
    #: arguments placed before the ids (paths, --ignore=..., the project's pytest-args)
    args: Sequence[str] = ()
    timeout: float | None = 900.0
    controlled: bool = True
    #: extra plugin modules (``-p NAME``), importable from ``pythonpath``
    plugins: Sequence[str] = ()
    #: the module run with ``-m`` in place of ``pytest`` (a launcher on ``pythonpath`` that
    #: must import something before pytest does, then runs pytest's own main)
    launcher: str | None = None
    pythonpath: Sequence[Path] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    #: extra writable / readable paths the sandbox must allow
    writable: Sequence[Path] = ()
    readonly: Sequence[Path] = ()
    sandbox: str | None = "none"
    #: let the sandboxed tests write into ``repo`` (only for truegreen's own disposable
    #: worktrees: it widens the directory's permissions)
    grant_workdir: bool = False
    #: the user's checkout when ``repo`` is a disposable worktree of it: the interpreter's
    #: import paths under ``origin`` (editable installs) are redirected into ``repo``
    origin: Path | None = None
    #: bytes of stdout/stderr kept (head and tail)
    capture_limit: int = 4 * 1024 * 1024
    #: niceness added to the run (:attr:`Command.nice`)
    nice: int = 0
    #: where the probe writes its records (JSON lines, flushed per record), for a caller
    #: that reads them while the process still runs (:func:`read_held`); default: a
    #: temporary file removed with the run
    records: Path | None = None


def child_env(
    interpreter: Interpreter, extra: Mapping[str, str], pythonpath: Sequence[Path]
) -> dict[str, str]:
    """The child's whole environment, built from an allow-list."""
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    for name in os.environ.get(PASS_ENV_VAR, "").split(","):
        name = name.strip()
        if name and name in os.environ:
            env[name] = os.environ[name]
    bindir = str(interpreter.path.parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    if interpreter.prefix != interpreter.base_prefix:
        env["VIRTUAL_ENV"] = interpreter.prefix
    env.setdefault("LANG", "C.UTF-8")
    env["PYTHONPATH"] = os.pathsep.join([str(PROBE_DIR), *(str(p) for p in pythonpath)])
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONUNBUFFERED"] = "1"
    env["TZ"] = "UTC"
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "120"
    env.update(extra)
    return env


def build_argv(request: PytestRequest, argfile: Path | None, *, probe: bool = True) -> list[str]:
    main = request.launcher if probe and request.launcher else "pytest"
    argv = [str(request.interpreter.path), "-m", main]
    if probe:
        argv += ["-p", PROBE_PLUGIN]
        for plugin in request.plugins:
            argv += ["-p", plugin]
    if request.controlled:
        argv += ["-o", "addopts="]
        for name in BLOCKED_PLUGINS:
            argv += ["-p", f"no:{name}"]
        argv += ["-o", "console_output_style=classic"]
        argv += kept_addopts(request.repo)
    argv += ["--tb=short", "--color=no", "-q", "-rfEs"]
    argv += list(request.args)
    if argfile is not None:
        argv.append(f"@{argfile}")
    else:
        argv += list(request.test_ids)
    return argv


def rerun_command(request: PytestRequest) -> list[str]:
    """The command a person can paste to rerun the same selection by hand (no probe)."""
    return build_argv(request, None, probe=False)


def run_pytest(
    request: PytestRequest,
    executor: Executor | None = None,
) -> PytestRun:
    """Run pytest once and read what the probe reported."""
    from truegreen.sandbox import SandboxSpec, get_backend

    ex = executor or default_executor()
    tmp = tempdirs.make("truegreen-probe-")
    try:
        out = request.records or tmp / "probe.jsonl"
        out.touch()
        argfile: Path | None = None
        if len(request.test_ids) > ARGFILE_THRESHOLD and request.interpreter.pytest_version >= (
            8,
            2,
        ):
            argfile = tmp / "ids.txt"
            argfile.write_text("\n".join(request.test_ids) + "\n", encoding="utf-8")
        argv = build_argv(request, argfile)
        pythonpath = list(request.pythonpath)
        if request.origin is not None:
            pythonpath += request.interpreter.redirected_paths(request.origin, request.repo)
        env = child_env(request.interpreter, {**request.env, PROBE_OUT_VAR: str(out)}, pythonpath)
        command = Command(
            argv,
            cwd=request.repo,
            env=env,
            timeout=request.timeout,
            capture_limit=request.capture_limit,
            settled=_PytestDone(out),
            grace=EXIT_GRACE,
            nice=request.nice,
        )
        backend = get_backend(request.sandbox)
        prefixes = {Path(request.interpreter.prefix), Path(request.interpreter.base_prefix)}
        spec = SandboxSpec(
            workdir=request.repo,
            python=request.interpreter.path,
            writable=(tmp, *request.writable)
            + ((request.records.parent,) if request.records is not None else ()),
            readonly=(PROBE_DIR, *sorted(prefixes), *request.pythonpath, *request.readonly),
            grant_workdir=request.grant_workdir,
        )
        done = ex.run(backend.wrap(command, spec))
        records = list(_read_records(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    status = _finish_status(records) if done.lingered else None
    run = parse_records(
        records,
        command=tuple(rerun_command(request)),
        cwd=str(request.repo),
        # ended by truegreen after pytest was done: pytest's own status, not the kill's
        exit_code=done.returncode if status is None else status,
        timed_out=done.timed_out,
        duration=done.duration,
        stdout=done.stdout,
        stderr=done.stderr,
        requested=request.test_ids,
    )
    if done.lingered:
        run = replace(run, notes=(*run.notes, LINGER_NOTE.format(grace=EXIT_GRACE)))
    _raise_for_unknown_ids(run, request)
    return run


class _PytestDone:
    """``Command.settled`` of a pytest run: whether the last record of the probe's file is
    ``done`` (pytest unconfigured: the process has nothing left to do but exit). Reads
    the file's tail only when it grew."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._size = -1

    def __call__(self) -> bool:
        try:
            size = self._path.stat().st_size
            if size == self._size:
                return False
            self._size = size
            with self._path.open("rb") as fh:
                fh.seek(max(0, size - 256))
                last = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
            record = json.loads(last)
        except (OSError, ValueError):
            return False  # not there yet, or a line being written
        return isinstance(record, dict) and record.get("event") == "done"


def _finish_status(records: Sequence[dict[str, Any]]) -> int | None:
    """pytest's exit status, from the probe's ``finish`` record (None without one)."""
    end = next((r for r in records if r.get("event") == "finish"), None)
    if end is None:
        return None
    try:
        return int(end.get("exitstatus", 1))
    except (TypeError, ValueError):
        return 1


def read_held(request: PytestRequest) -> PytestRun | None:
    """The outcomes of a run that reported the end of its session but has not exited (a
    plugin holds it, e.g. to run more work on request): read from ``request.records``.
    None if the records do not report the end of the session yet."""
    if request.records is None:
        return None
    records = list(_read_records(request.records))
    status = _finish_status(records)
    if status is None:
        return None
    return parse_records(
        records,
        command=tuple(rerun_command(request)),
        cwd=str(request.repo),
        exit_code=status,
        timed_out=False,
        duration=0.0,
        requested=request.test_ids,
    )


def run_from_records(path: Path, like: PytestRun, requested: Sequence[str] = ()) -> PytestRun:
    """A run a plugin of ``like``'s process made in a child of its own (a forked
    repetition), from the probe records the child wrote at ``path``: complete only when
    the child reported the end of its session and ``like`` did not time out."""
    records = list(_read_records(path))
    status = _finish_status(records)
    return parse_records(
        records,
        command=like.command,
        cwd=like.cwd,
        exit_code=like.exit_code if status is None else status,
        timed_out=like.timed_out,
        duration=like.duration,
        requested=requested,
    )


def _read_records(path: Path) -> Iterable[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash
        if isinstance(rec, dict):
            yield rec


_NOT_FOUND = re.compile(r"ERROR: (?:not found|file or directory not found): (.+)")


def _raise_for_unknown_ids(run: PytestRun, request: PytestRequest) -> None:
    if run.exit_code != 4 or not request.test_ids:
        return
    text = run.stdout_tail + "\n" + run.stderr_tail
    root = str(request.repo).rstrip("/") + "/"
    missing = []
    for m in _NOT_FOUND.finditer(text):
        what = m.group(1).strip().replace(root, "")
        if any(covers(c.nodeid, what) for c in run.collection_errors):
            # pytest 7 says "not found" for an id whose module failed to import: the id
            # exists, and its outcome is that collection error
            continue
        missing.append(what)
    if missing:
        raise UnknownTestError(
            f"test id {missing[0]!r} does not exist in {request.repo}",
            hint="list the test ids with `python -m pytest --collect-only -q` (ids are relative to the repository root)",
            missing=missing,
        )


def _tail(text: str, lines: int = 40, chars: int = 6000) -> str:
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    return kept[-chars:]


def excerpt_of(longrepr: str) -> str:
    lines = longrepr.rstrip().splitlines()
    if len(lines) > EXCERPT_LINES:
        lines = ["...", *lines[-EXCERPT_LINES:]]
    text = "\n".join(lines)
    return text[-EXCERPT_CHARS:]


_E_LINE = re.compile(
    r"^E\s+(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failed|Skipped))(?::\s*(?P<msg>.*))?$"
)


def covers(nodeid: str, test_id: str) -> bool:
    """Whether a collection error reported at ``nodeid`` (a module, a package's directory
    or ``__init__.py``, a conftest.py, or the session) keeps ``test_id`` from running."""
    where = nodeid.split("::")[0].rstrip("/")
    path = test_id.split("::")[0]
    if not where or where == path:
        return True
    if where.endswith(("/conftest.py", "/__init__.py")) or where in ("conftest.py", "__init__.py"):
        where = where.rpartition("/")[0]
        return not where or path.startswith(where + "/")
    return path.startswith(where + "/")


#: pytest's report of a conftest.py that raised on import, printed before any test is
#: collected (the probe is not configured yet, so it has no record of it)
_CONFTEST_FAILED = re.compile(r"^ImportError while loading conftest '(?P<path>[^']+)'\.$", re.M)


def conftest_errors(text: str, root: str) -> tuple[CollectionError, ...]:
    """The conftest.py files pytest could not import, from its output: each with the lines
    of its traceback up to the error (``E   ModuleNotFoundError: ...``)."""
    found: list[CollectionError] = []
    for m in _CONFTEST_FAILED.finditer(text):
        lines = [m.group(0)]
        seen_error = False
        for line in text[m.end() :].lstrip("\n").splitlines()[:40]:
            if seen_error and not line.startswith("E "):
                break
            seen_error = seen_error or line.startswith("E ")
            lines.append(line)
        path = m.group("path")
        prefix = root.rstrip("/") + "/"
        rel = path[len(prefix) :] if path.startswith(prefix) else path
        if all(c.nodeid != rel for c in found):
            found.append(CollectionError(rel, excerpt_of("\n".join(lines))))
    return tuple(found)


def collection_summary(error: CollectionError, root: str = "") -> str:
    """One line saying what could not be collected and why: ``tests/test_x.py could not be
    collected: ModuleNotFoundError: No module named 'pkg._version'``."""
    _sig, _legacy, etype, msg = _signature_from_text(error.excerpt, root)
    lines = [line for line in error.excerpt.splitlines() if line.strip()]
    why = f"{etype}: {msg}" if etype else (lines[-1].strip() if lines else "no details")
    what = error.nodeid or "the session"
    verb = "imported" if what.endswith("conftest.py") else "collected"
    return f"{what} could not be {verb}: {why}"


def _signatures(
    etype: str, message: str, frames: Sequence[Frame], root: str, notes: Sequence[str] = ()
) -> tuple[str, str | None]:
    """(signature, the legacy signature where it differs): an exam sealed before the
    signature's normalisation changed carries the legacy one."""
    text = "\n".join([message, *notes]) if notes else message
    signature = make_signature(etype, text, frames, root)
    legacy = legacy_signature(etype, message, frames, root)
    return signature, (legacy if legacy != signature else None)


def _signature_from_text(
    text: str, root: str
) -> tuple[str | None, str | None, str | None, str | None]:
    """(signature, legacy signature, exc_type, message) from a collection error's text."""
    etype = msg = None
    for line in text.splitlines():
        m = _E_LINE.match(line.strip())
        if m:
            etype, msg = m.group("type"), m.group("msg") or ""
    if etype is None:
        return None, None, None, None
    frames = [
        Frame(path=p, line=int(n), function="<module>")
        for p, n in re.findall(r"^([\w./-]+\.py):(\d+)", text, re.M)
    ]
    return *_signatures(etype, msg or "", frames, root), etype, msg


def _names_a_group(test_id: str, ids: set[str]) -> bool:
    """Whether ``test_id`` (a class, a parametrized function without its case) stands for
    tests among ``ids``: it is not one test of its own that failed to report."""
    return any(i.startswith((test_id + "::", test_id + "[")) for i in ids)


def parse_records(
    records: Sequence[dict[str, Any]],
    *,
    command: tuple[str, ...],
    cwd: str,
    exit_code: int,
    timed_out: bool,
    duration: float,
    stdout: str = "",
    stderr: str = "",
    requested: Sequence[str] = (),
) -> PytestRun:
    """Turn the probe's records into per-test outcomes (pure; unit-tested on its own)."""
    start = next((r for r in records if r.get("event") == "start"), {})
    root = str(start.get("rootdir") or cwd)
    complete = any(r.get("event") == "finish" for r in records)
    notes: list[str] = []
    probe_file = start.get("probe")
    if probe_file is not None and Path(str(probe_file)).parent != PROBE_DIR:
        # Something in the project was imported as truegreen's probe: nothing it says counts.
        notes.append(f"the probe was shadowed by {probe_file}: the run's reports are not trusted")
        records = [r for r in records if r.get("event") in ("start", "collected")]
        complete = False
    collected: list[str] = []
    for r in records:
        if r.get("event") == "collected":
            collected = [str(i) for i in r.get("ids", [])]
    cerrors = tuple(
        CollectionError(str(r.get("nodeid", "")), excerpt_of(str(r.get("longrepr", ""))))
        for r in records
        if r.get("event") == "collect_error"
    )
    if not start:
        # pytest stopped before the probe was configured: a conftest.py that cannot be
        # imported is the usual reason, and pytest said which on its output
        cerrors += conftest_errors(stdout + "\n" + stderr, root)
    phases: dict[str, dict[str, dict[str, Any]]] = {}
    order: list[str] = []
    for r in records:
        if r.get("event") != "report":
            continue
        nid = str(r.get("nodeid"))
        if nid not in phases:
            phases[nid] = {}
            order.append(nid)
        phases[nid][str(r.get("when"))] = r
    tests: list[TestResult] = []
    for nid in order:
        result = _outcome(nid, phases[nid], root)
        if not complete:
            result = TestResult(
                id=nid,
                outcome="no_report",
                duration=result.duration,
                excerpt=result.excerpt,
                observed=result.outcome,
                signature=None,
                reason="the test process ended without reporting the end of the session",
            )
        tests.append(result)
    seen = set(order)
    # Requested or collected tests that never reported anything.
    pending = [i for i in collected if i not in seen]
    known = seen | set(collected)
    pending += [
        i for i in requested if i not in known and "::" in i and not _names_a_group(i, known)
    ]
    for nid in pending:
        if nid in seen:
            continue
        seen.add(nid)
        cerr = next((c for c in cerrors if covers(c.nodeid, nid)), None)
        if cerr is not None:
            sig, legacy, etype, msg = _signature_from_text(cerr.excerpt, root)
            tests.append(
                TestResult(
                    id=nid,
                    outcome="error",
                    phase="collect",
                    excerpt=cerr.excerpt,
                    signature=sig,
                    legacy_signature=legacy,
                    exc_type=etype,
                    message=msg,
                    reason=collection_summary(cerr, root),
                )
            )
        else:
            why = (
                "the run passed its deadline"
                if timed_out
                else "the test process ended before this test reported"
            )
            tests.append(TestResult(id=nid, outcome="no_report", reason=why))
    return PytestRun(
        command=command,
        cwd=cwd,
        exit_code=exit_code,
        timed_out=timed_out,
        complete=complete and not timed_out,
        tests=tuple(tests),
        collected=tuple(collected),
        collection_errors=cerrors,
        duration=duration,
        stdout_tail=_tail(stdout),
        stderr_tail=_tail(stderr),
        pytest_version=start.get("pytest"),
        python_version=start.get("python"),
        notes=tuple(notes),
    )


def _outcome(nid: str, ph: dict[str, dict[str, Any]], root: str) -> TestResult:
    setup, call, teardown = ph.get("setup"), ph.get("call"), ph.get("teardown")
    duration = sum(float(p.get("duration", 0.0)) for p in ph.values())
    outcome: Outcome
    deciding: dict[str, Any] | None
    if setup is not None and setup.get("outcome") == "failed":
        outcome, deciding = "error", setup
    elif setup is not None and setup.get("outcome") == "skipped":
        outcome, deciding = ("xfailed" if "wasxfail" in setup else "skipped"), setup
    elif call is None:
        outcome, deciding = "no_report", None
    elif call.get("outcome") == "failed":
        outcome, deciding = "failed", call
    elif call.get("outcome") == "skipped":
        outcome, deciding = ("xfailed" if "wasxfail" in call else "skipped"), call
    elif "wasxfail" in call:
        outcome, deciding = "xpassed", call
    else:
        outcome, deciding = "passed", call
    if teardown is None and outcome in ("passed", "xpassed"):
        # The call passed but the test never finished (the process died in teardown).
        outcome, deciding = "no_report", call
    elif (
        teardown is not None
        and teardown.get("outcome") == "failed"
        and outcome in ("passed", "xpassed", "skipped")
    ):
        outcome, deciding = "error", teardown
    if deciding is None:
        return TestResult(
            id=nid, outcome=outcome, duration=duration, reason="no call phase was reported"
        )
    phase = str(deciding.get("when"))
    exc = deciding.get("exc") if isinstance(deciding.get("exc"), dict) else None
    longrepr = str(deciding.get("longrepr", ""))
    excerpt = excerpt_of(longrepr) if longrepr else ""
    signature = legacy = etype = message = None
    if outcome in ("failed", "error"):
        if exc:
            etype, message = str(exc.get("type")), str(exc.get("message", ""))
            frames = [
                Frame(
                    str(f.get("path")),
                    int(f.get("line", 0)),
                    str(f.get("function")),
                    hidden=f.get("hidden") is True,
                )
                for f in exc.get("frames", [])
                if isinstance(f, dict)
            ]
            notes = exc.get("notes")
            notes = [str(n) for n in notes] if isinstance(notes, list) else []
            signature, legacy = _signatures(etype, message, frames, root, notes)
        elif "[XPASS(strict)]" in longrepr:
            etype, message = "XPASS(strict)", longrepr.strip()
            signature, legacy = _signatures(
                etype, message, [Frame(nid.split("::")[0], 0, nid.split("::")[-1])], root
            )
        else:
            signature, legacy, etype, message = _signature_from_text(longrepr, root)
    reason = None
    if outcome == "skipped":
        skip = deciding.get("skip")
        reason = (
            str(skip.get("reason")).removeprefix("Skipped: ") if isinstance(skip, dict) else None
        )
    elif outcome in ("xfailed", "xpassed"):
        reason = str(deciding.get("wasxfail") or "") or None
    crash = deciding.get("crash") if isinstance(deciding.get("crash"), dict) else None
    return TestResult(
        id=nid,
        outcome=outcome,
        signature=signature,
        legacy_signature=legacy,
        duration=duration,
        excerpt=excerpt,
        phase=phase,
        exc_type=etype,
        message=message,
        crash=crash,
        reason=reason,
    )
