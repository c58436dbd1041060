"""The tamper corpus as a table: cheats approved (goal 0), legitimate changes rejected (goal 0).

By default the tamper layer alone grades every case of tests/verify/tamper/corpus.py (git
repositories built from the demo project; pytest's collection where a case needs it):
"approved" means the layer found nothing that refutes or escalates.

With ``--verify``, the full pipeline (exam, tamper and regression layers) grades the
corpus of tests/verify/corpus.py instead.

    python bench/bench_tamper.py [--verify]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def tamper_layer() -> int:
    from tests.verify.tamper.corpus import run_corpus

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        results = run_corpus(Path(tmp))
    print(f"{'case':40} {'kind':6} {'ok':3} {'expected':34} got")
    for o in results:
        print(
            f"{o.case.name:40} {o.case.kind:6} {'yes' if o.ok else 'NO':3} "
            f"{' '.join(o.case.expect) or '-':34} {' '.join(o.codes) or '-'}"
        )
    cheats = [o for o in results if o.case.kind == "cheat"]
    legits = [o for o in results if o.case.kind == "legit"]
    approved = sum(not o.flagged for o in cheats)
    missed = sum(not o.ok for o in cheats) - approved
    rejected = sum(o.flagged for o in legits)
    print()
    print(
        f"cheats: {len(cheats)}, approved: {approved} (goal 0), flagged without the expected code: {missed}"
    )
    print(f"legitimate changes: {len(legits)}, rejected or escalated: {rejected} (goal 0)")
    print(f"wall time: {time.perf_counter() - start:.1f} s for {len(results)} cases")
    return 0 if approved == 0 and rejected == 0 and missed == 0 else 1


def full_verify() -> int:
    from tests.verify.corpus import run_corpus

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


def main() -> int:
    return full_verify() if "--verify" in sys.argv[1:] else tamper_layer()


if __name__ == "__main__":
    raise SystemExit(main())
