"""The tamper corpus as a table: cheats approved (goal 0), legitimate changes rejected (goal 0).

Every case is verified for real (exam, tamper and regression layers) on a branch of the
demo repository. The same corpus runs in the suite (tests/verify/test_corpus.py).

    python bench/bench_tamper.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.verify.corpus import run_corpus


def main() -> int:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        results = run_corpus(Path(tmp))
    print(f"{'case':42} {'kind':6} {'decision':9} {'ok':3} reasons")
    for o in results:
        print(
            f"{o.case.name:42} {o.case.kind:6} {o.decision:9} {'yes' if o.ok else 'NO':3} {' '.join(o.codes)}"
        )
    cheats = [o for o in results if o.case.kind == "cheat"]
    legits = [o for o in results if o.case.kind == "legit"]
    approved = sum(o.decision == "approve" for o in cheats)
    missed = sum(not o.ok for o in cheats)
    rejected = sum(o.decision != "approve" for o in legits)
    print()
    print(
        f"cheats: {len(cheats)}, approved: {approved} (goal 0), flagged without the expected code: {missed - approved}"
    )
    print(f"legitimate changes: {len(legits)}, rejected or escalated: {rejected} (goal 0)")
    print(f"wall time: {time.perf_counter() - start:.0f} s for {len(results)} verifications")
    return 0 if approved == 0 and rejected == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
