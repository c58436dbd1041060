"""Writes the golden diagnoses: tests/diagnose/gold/<log name>.json, the exact bytes of
``truegreen diagnose --json LOG`` for every log of the real CI corpus (LogChunks, see
/work/shared/data/ci-logs/README.md).

    python tests/diagnose/make_gold.py [--logs DIR]

Run it only when a change to truegreen.diagnose is MEANT to change what it says about these
logs, and review the diff of tests/diagnose/gold/ like code: each changed file is a log
whose diagnosis changed. A refactoring leaves them byte-identical (tests/diagnose/test_gold.py).

The corpus is not in this repository (58 MB); it is found through $TRUEGREEN_CI_LOGS, or
as shared/data/ci-logs beside the checkout or beside its parent directory (a git worktree
under wt/).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLD = HERE / "gold"
ROOT = HERE.parent.parent


def corpus_dir() -> Path | None:
    """The real corpus's directory (the one holding labels.json and logs/), or None."""
    given = os.environ.get("TRUEGREEN_CI_LOGS")
    candidates = (
        [Path(given)]
        if given
        else [
            ROOT.parent / "shared" / "data" / "ci-logs",
            ROOT.parent.parent / "shared" / "data" / "ci-logs",
        ]
    )
    for path in candidates:
        if (path / "labels.json").is_file() and (path / "logs").is_dir():
            return path
    return None


def gold_name(log: Path) -> str:
    return log.stem + ".json"


def cli_json(base: Path, log: Path) -> bytes:
    """``truegreen diagnose --json logs/LOG`` run as a user runs it, from the corpus's
    directory (so the document names the log ``logs/LOG`` wherever the corpus lies): its
    standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "diagnose", "--json", f"logs/{log.name}"],
        capture_output=True,
        check=False,
        cwd=base,
    )
    if done.returncode != 0:
        raise SystemExit(f"truegreen diagnose {log} exited {done.returncode}: {done.stderr!r}")
    return done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--logs", type=Path, default=None, help="the corpus directory")
    args = ap.parse_args()
    base = args.logs.resolve() if args.logs else corpus_dir()
    if base is None:
        raise SystemExit(
            "make_gold: the real CI corpus is not found; give --logs DIR or set TRUEGREEN_CI_LOGS"
        )
    logs = sorted((base / "logs").glob("*.log"))
    GOLD.mkdir(exist_ok=True)
    wanted = {gold_name(log) for log in logs}
    for stale in GOLD.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    changed = 0
    for log in logs:
        target = GOLD / gold_name(log)
        data = cli_json(base, log)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
            changed += 1
    print(f"{len(logs)} logs, {changed} gold documents written to {GOLD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
