"""Where a ``truegreen localize`` spends its time, phase by phase, on the real bugs that
bench/bench_localize_real.py prepared, with several versions of truegreen interleaved bug
by bug (so that the machine's drift falls on all of them alike).

Not part of the unit test suite. Run bench_localize_real.py first (``--verify-only`` is
enough): it checks the bugs out under ``bench/.cache/real/bugs/`` with their virtualenvs.

    python bench/localize_phases.py run --out /tmp/ph --keys KEYSFILE \\
        old=/tmp/old/.venv/bin/python new=.venv/bin/python nogc=.venv/bin/python+GC=off
    python bench/localize_phases.py report /tmp/ph.old.jsonl /tmp/ph.new.jsonl

A version is ``NAME=PYTHON`` (an interpreter with that truegreen installed) and optional
``+VAR=VALUE`` settings for the child: ``GC=off`` (no cyclic collector), ``GC=a,b,c``
(thresholds), ``HARDEXIT=1`` (end with ``os._exit`` after the exit handlers, as the console
script does since round 23). The child calls ``truegreen.cli.main``, not the console script:
to time a version as its console script runs, give it the console script's settings too
(``+GC=50000,50,1000+HARDEXIT=1``). bench_localize_ab.py times whole localizes, old code
against new, against the bare run; this says where the time went. KEYSFILE lists bug keys (``click-0551bf5358``), one per line;
without it, every prepared bug that verified. Each run of a bug appends one JSON line:
its wall time, its exit status, the phase marks (seconds from the child's start) and a
hash of its document (the same hash: the same bytes).

Each bug runs as ``truegreen localize <failing tests (at most 5)> --repo <checkout>
--python <venv> --json`` in a child that marks, by patching truegreen's internals (they may
move between versions; a mark that is not found is left out): the imports, opening the
project, the two pytest runs' starts and ends, the bare run's end of session (its ``ready``
file), reading the trace, the spectra, the document, the mutants, the exit handlers.
``report`` prints the median and the sum of each phase, and for two files the per-bug ratio
of wall times and how many documents are byte-identical (a flaky test, or a test that
writes a random temporary path into a value, makes two runs differ).

The rounds this was used in: bench/results/localize-history.md."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_localize_ab import _failing, _python_of  # the same bugs, venvs and failing tests

T0 = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
BUGS = ROOT / "bench" / ".cache" / "real" / "bugs"


def child(argv: list[str]) -> None:
    import atexit
    import gc
    import tempfile
    import threading

    setting = os.environ.get("TG_PHASES_GC")
    if setting == "off":
        gc.disable()
    elif setting:
        gc.set_threshold(*(int(x) for x in setting.split(",")))
    log: list[tuple[float, str]] = []

    def mark(what: str) -> None:
        log.append((round(time.perf_counter() - T0, 4), what))

    import truegreen.localize.engine as engine
    import truegreen.localize.mutation as mutation
    import truegreen.project as project

    mark("imports")

    def wrap(mod: Any, name: str, label: str | None = None) -> None:
        real = getattr(mod, name, None)
        if real is None:
            return

        def timed(*a: Any, **k: Any) -> Any:
            kind = label or name
            if name == "run_pytest":
                kind = "measured" if getattr(a[0], "launcher", None) else "bare"
            mark(kind + ".start")
            try:
                return real(*a, **k)
            finally:
                mark(kind + ".end")

        setattr(mod, name, timed)

    wrap(project, "open_project")
    for name in ("run_pytest", "_read_trace", "spectra", "_document", "read_held"):
        wrap(engine, name)
    wrap(mutation, "plan", "mutants.plan")
    wrap(mutation, "scores", "mutants.scores")
    mkdtemp = tempfile.mkdtemp

    def watched_mkdtemp(*a: Any, **k: Any) -> str:
        path = mkdtemp(*a, **k)
        if k.get("prefix") == "truegreen-mutants-":  # the held bare run's directory

            def watch() -> None:
                ready = os.path.join(path, "ready")
                while not os.path.exists(ready):
                    if not os.path.isdir(path):
                        return
                    time.sleep(0.002)
                mark("bare.ready")

            threading.Thread(target=watch, daemon=True).start()
        return path

    tempfile.mkdtemp = watched_mkdtemp  # type: ignore[assignment]

    def dump() -> None:
        mark("exit")
        sys.stderr.write("\n" + json.dumps(log) + "\n")
        sys.stderr.flush()

    atexit.register(dump)
    from truegreen.cli import main

    sys.argv = ["truegreen", "localize", *argv]
    try:
        main()
    except SystemExit as exc:
        if not os.environ.get("TG_PHASES_HARDEXIT") or threading.active_count() > 1:
            raise
        sys.stdout.flush()
        atexit._run_exitfuncs()
        os._exit(0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1)


def _bug(key: str) -> tuple[Path, list[str], Path] | None:
    checkout = BUGS / key
    try:
        ids = sorted(_failing(checkout))[:5]
    except OSError:
        return None
    python = _python_of(key, key.rsplit("-", 1)[0])
    return (checkout, ids, python) if ids and python is not None else None


def run(out: str, keys: list[str], versions: list[str]) -> None:
    parsed = []
    for v in versions:
        name, rest = v.split("=", 1)
        python, *settings = rest.split("+")
        env = {f"TG_PHASES_{k}": val for k, val in (s.split("=", 1) for s in settings)}
        parsed.append((name, python, env))
    for i, key in enumerate(keys):
        bug = _bug(key)
        if bug is None:
            continue
        checkout, ids, python_of_bug = bug
        for name, python, env in parsed if i % 2 == 0 else parsed[::-1]:
            argv = [python, __file__, "child", *ids, "--repo", str(checkout)]
            argv += ["--python", str(python_of_bug), "--json"]
            home = {"TRUEGREEN_HOME": f"{out}.{name}.home"}
            t0 = time.perf_counter()
            done = subprocess.run(
                argv, capture_output=True, text=True, env={**os.environ, **env, **home}
            )
            wall = time.perf_counter() - t0
            try:
                marks = json.loads(done.stderr.strip().splitlines()[-1])
            except (IndexError, ValueError):
                marks = None
            row = {
                "key": key,
                "wall": round(wall, 4),
                "rc": done.returncode,
                "marks": marks,
                "sha256": hashlib.sha256(done.stdout.encode()).hexdigest()[:16],
            }
            with open(f"{out}.{name}.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
        print(f"{key} done", flush=True)


def _phases(row: dict[str, Any]) -> dict[str, float] | None:
    at: dict[str, float] = {}
    for t, what in row["marks"] or ():
        at.setdefault(what, t)
        at[what + "@last"] = t
    if "measured.start" not in at or "exit" not in at:
        return None
    start, end = at["measured.start"], at["measured.end@last"]
    runs_end = max(end, at.get("read_held.start", end))
    return {
        "before runs": start,
        "measured run": end - start,
        "bare run to its session end": at.get("bare.ready", end) - start,
        "after runs": at["exit"] - runs_end,
        "mutants": at.get("mutants.scores.start", 0.0) - at.get("mutants.plan.end", 0.0)
        if "mutants.scores.start" in at
        else 0.0,
        "exit handlers to process end": row["wall"] - at["exit"],
        "wall": row["wall"],
    }


def report(paths: list[str]) -> None:
    tables = []
    for p in paths:
        rows = [json.loads(line) for line in Path(p).read_text(encoding="utf-8").splitlines()]
        tables.append({r["key"]: r for r in rows if r["marks"]})
    keys = sorted(set.intersection(*(set(t) for t in tables)))
    print(f"{len(keys)} bugs in every file")
    for p, table in zip(paths, tables, strict=True):
        phases = [ph for ph in (_phases(table[k]) for k in keys) if ph is not None]
        print(p)
        for name in phases[0]:
            values = [ph[name] for ph in phases]
            print(f"  {name:30} median {statistics.median(values):7.3f}  sum {sum(values):8.1f}")
    if len(tables) == 2:
        a, b = tables
        ratio = [b[k]["wall"] / a[k]["wall"] for k in keys]
        same = sum(a[k]["sha256"] == b[k]["sha256"] for k in keys)
        print(f"wall, second / first, per bug: median {statistics.median(ratio):.4f}")
        print(f"byte-identical documents: {same} of {len(keys)}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        child(sys.argv[2:])
        return
    if len(sys.argv) > 2 and sys.argv[1] == "report":
        report(sys.argv[2:])
        return
    if len(sys.argv) > 4 and sys.argv[1] == "run" and sys.argv[2] == "--out":
        out, rest = sys.argv[3], sys.argv[4:]
        if rest[:1] == ["--keys"]:
            keys = Path(rest[1]).read_text().split()
            rest = rest[2:]
        else:
            keys = sorted(p.name for p in BUGS.iterdir() if _bug(p.name) is not None)
        run(out, keys, rest)
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
