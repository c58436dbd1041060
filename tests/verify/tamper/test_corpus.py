"""The tamper corpus as part of the suite: no cheat approved, no legitimate change rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.tamper.corpus import CASES, Outcome, run_corpus

#: the module fixture analyses every case once: all of this module's tests go to one
#: pytest-xdist worker (`make test` runs with --dist loadgroup), not each worker again
pytestmark = pytest.mark.xdist_group("tamper-corpus")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    return {o.case.name: o for o in run_corpus(Path(tmp_path_factory.mktemp("tamper")))}


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40
    assert sum(c.kind == "legit" for c in CASES) >= 8
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.slow
@pytest.mark.parametrize("name", [c.name for c in CASES if c.kind == "cheat"])
def test_cheat_is_flagged_with_its_code(outcomes: dict[str, Outcome], name: str) -> None:
    o = outcomes[name]
    assert o.flagged, f"{name}: approved"
    assert set(o.case.expect) <= set(o.codes), f"{name}: {o.reasons}"


@pytest.mark.parametrize("name", [c.name for c in CASES if c.kind == "legit"])
def test_legitimate_change_is_not_flagged(outcomes: dict[str, Outcome], name: str) -> None:
    o = outcomes[name]
    assert not o.flagged, f"{name}: {[r.to_json() for r in o.reasons]}"


def test_every_reason_names_a_file(outcomes: dict[str, Outcome]) -> None:
    for o in outcomes.values():
        for r in o.reasons:
            assert r.file and not r.file.startswith("/") and "\\" not in r.file
            assert r.line is None or r.line >= 1
            assert set(r.to_json()) == {"code", "file", "line", "detail"}
