"""Writes the gold outputs: tests/api/gold/<scenario>/<file>, what the command line prints
in the scenarios of goldrun.py (scrubbed of what varies between machines and runs).

    python tests/api/make_gold.py [SCENARIO...]

test_gold.py compares every output with its gold file byte for byte, so that a change
meant to leave the command line's output alone (the engine API of #34) is proven to, and
one meant to alter it shows, file by file, what it altered: run this after such a change
and review the diff of tests/api/gold before committing it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    import goldrun

    names = argv or list(goldrun.SCENARIOS)
    for name in names:
        where = goldrun.GOLD / name
        with tempfile.TemporaryDirectory() as tmp:
            outputs = goldrun.outputs_of(name, Path(tmp))
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        for file, text in sorted(outputs.items()):
            (where / file).write_text(text, encoding="utf-8")
        print(f"{name}: {len(outputs)} gold files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main(sys.argv[1:]))
