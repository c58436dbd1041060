"""Localize's wall time, old code against new, on the real bugs: interleaved, in one run.

    python bench/bench_localize_ab.py --old REV [--max-bare 1.5] [--reps 3] [--only a,b]

Timing figures taken in different sessions are not comparable on a shared machine (the
bare suites of the real-bug benchmark ran 2-3x slower in one session than in the one
before). This runs, for each real bug already prepared by ``bench/bench_localize_real.py``
(under ``bench/.cache/real``), ``--reps`` rounds of: the bare pytest run of localize's
selection, ``truegreen localize`` with the working tree's code, and ``truegreen localize``
with the code of ``--old`` (``git archive`` into a temporary directory, first on
``PYTHONPATH``); each figure is the median of its rounds, each ratio is against the bare
run of the same bug in the same rounds. Both trees are byte-compiled first, as a wheel
install is. Only bugs whose recorded bare selection took under ``--max-bare`` seconds are
run (the fixed costs this measures matter there; a 50 s suite takes long to repeat).

Results: ``bench/results/localize_ab.json``. What earlier runs measured:
bench/results/localize-history.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REAL = HERE / ".cache" / "real"
RESULTS = ("localize_real.json", "localize_real_heldout.json", "localize_real_heldout2_after.json")


def _python_of(key: str, project: str) -> Path | None:
    for name in (f"venv-{key}", f"venv-{project}", f"venv-{project.lower()}"):
        py = REAL / name / "bin" / "python"
        if py.exists():
            return py
    return None


def _failing(d: Path) -> list[str]:
    verified = json.loads((d / ".git" / "bench-verify.json").read_text())
    before, after = verified["before"], verified["after"]
    return [t for t, o in before.items() if o in ("failed", "error") and after.get(t) == "passed"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the revision to compare with")
    ap.add_argument("--max-bare", type=float, default=1.5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="bug key prefixes, comma-separated")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "localize_ab.json")
    opts = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from truegreen.localize.engine import _selection
    from truegreen.project import open_project

    old = Path(tempfile.mkdtemp(prefix="tg-ab-"))
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", opts.old, "src"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
    for tree in (ROOT / "src" / "truegreen", old / "src" / "truegreen"):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True)
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    only = [o for o in opts.only.split(",") if o]
    seen: set[str] = set()
    rows: list[dict[str, Any]] = []
    for name in RESULTS:
        path = HERE / "results" / name
        if not path.exists():
            continue
        for b in json.loads(path.read_text())["bugs"]:
            key = f"{b['project']}-{b['bug']}"
            d = REAL / "bugs" / key
            if key in seen or b.get("skipped") or not b.get("localize_s") or not d.exists():
                continue
            if (b.get("bare_selection_s") or 99) >= opts.max_bare:
                continue
            if only and not any(key.startswith(o) for o in only):
                continue
            py = _python_of(key, b["project"])
            if py is None:
                continue
            seen.add(key)
            ids = _failing(d)[:5]
            selection = _selection(open_project(d, str(py), "none"), ids, None)
            bare = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection]
            loc = [sys.executable, "-m", "truegreen", "localize", *ids, "--repo", str(d)]
            loc += ["--python", str(py), "--json"]
            envs = {"new": dict(os.environ), "old": {**os.environ, "PYTHONPATH": str(old / "src")}}
            times: dict[str, list[float]] = {"bare": [], "new": [], "old": []}
            for _ in range(opts.reps):
                for kind in ("bare", "new", "old"):
                    t0 = time.perf_counter()
                    if kind == "bare":
                        subprocess.run(bare, cwd=d, capture_output=True)
                    else:
                        subprocess.run(
                            loc, cwd=tempfile.gettempdir(), env=envs[kind], capture_output=True
                        )
                    times[kind].append(time.perf_counter() - t0)
            m = {k: round(statistics.median(v), 3) for k, v in times.items()}
            rows.append({"bug": key, **m})
            print(
                f"{key:32} bare {m['bare']:6.2f}  new {m['new']:6.2f} ({m['new'] / m['bare']:.2f}x)"
                f"  old {m['old']:6.2f} ({m['old'] / m['bare']:.2f}x)",
                flush=True,
            )
    if not rows:
        raise SystemExit("no prepared bug to time: run bench/bench_localize_real.py first")
    new = [r["new"] / r["bare"] for r in rows]
    old_r = [r["old"] / r["bare"] for r in rows]
    summary = {
        "bugs": len(rows),
        "median_new": round(statistics.median(new), 2),
        "median_old": round(statistics.median(old_r), 2),
        "within_2x_new": sum(r <= 2 for r in new),
        "within_2x_old": sum(r <= 2 for r in old_r),
    }
    print(
        f"{len(rows)} bugs: localize / bare, median new {summary['median_new']}x, old "
        f"{summary['median_old']}x; within 2x: new {summary['within_2x_new']}, old "
        f"{summary['within_2x_old']}"
    )
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"head": head, "old": opts.old, "reps": opts.reps, "summary": summary, "bugs": rows}
    opts.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
