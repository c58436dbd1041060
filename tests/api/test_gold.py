"""The command line prints, byte for byte, what it printed before the engine API of #34.

Each scenario of goldrun.py runs real commands on the demo repository (or the diagnose
corpus) and compares every output, scrubbed of what varies between machines and runs,
with its gold file. A difference is saved to tests/actual/api/ for a look at the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api import goldrun

ACTUAL = Path(__file__).resolve().parent.parent / "actual" / "api"


@pytest.mark.parametrize("scenario", sorted(goldrun.SCENARIOS))
def test_the_output_is_the_gold_output(
    scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # rich's tables: the width the gold was made at
    outputs = goldrun.outputs_of(scenario, tmp_path)
    gold_dir = goldrun.GOLD / scenario
    gold = {p.name: p.read_text(encoding="utf-8") for p in sorted(gold_dir.iterdir())}
    assert sorted(outputs) == sorted(gold)
    differ = sorted(name for name in gold if outputs[name] != gold[name])
    if differ:
        where = ACTUAL / scenario
        where.mkdir(parents=True, exist_ok=True)
        for name in differ:
            (where / name).write_text(outputs[name], encoding="utf-8")
    assert differ == [], f"differs from tests/api/gold/{scenario} (actual: {ACTUAL / scenario})"
