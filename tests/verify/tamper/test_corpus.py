"""The tamper corpus as part of the suite: no cheat approved, no legitimate change rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.tamper.corpus import CASES, Corpus, Outcome


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The base repository, built once per worker (each case is a test of its own, so
    pytest-xdist spreads them)."""
    return Corpus(Path(tmp_path_factory.mktemp("tamper")))


def _checked(corpus: Corpus, name: str) -> Outcome:
    o = corpus.outcome(next(c for c in CASES if c.name == name))
    for r in o.reasons:  # every reason names a file, relative, and a line or none
        assert r.file and not r.file.startswith("/") and "\\" not in r.file
        assert r.line is None or r.line >= 1
        assert set(r.to_json()) == {"code", "file", "line", "detail"}
    return o


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40
    assert sum(c.kind == "legit" for c in CASES) >= 8
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.slow
@pytest.mark.parametrize("name", [c.name for c in CASES if c.kind == "cheat"])
def test_cheat_is_flagged_with_its_code(corpus: Corpus, name: str) -> None:
    o = _checked(corpus, name)
    assert o.flagged, f"{name}: approved"
    assert set(o.case.expect) <= set(o.codes), f"{name}: {o.reasons}"


@pytest.mark.parametrize("name", [c.name for c in CASES if c.kind == "legit"])
def test_legitimate_change_is_not_flagged(corpus: Corpus, name: str) -> None:
    o = _checked(corpus, name)
    assert not o.flagged, f"{name}: {[r.to_json() for r in o.reasons]}"
