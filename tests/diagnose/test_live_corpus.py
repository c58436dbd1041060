"""The live corpus (tests/diagnose/live, written by bench/live_logs.py from real runs of
today's tools): the measured figures stay at or above the floors reached.

The tools are not run here: the logs and labels are committed. A floor is a measure over
the whole corpus, not an answer per file; raise it when the figures rise."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from truegreen.diagnose import diagnose

LIVE = Path(__file__).parent / "live"
LABELS = json.loads((LIVE / "labels.json").read_text())

CLASS_FLOOR = 0.98  # share of logs whose class is the label (or its label_alt)
TOP3_FLOOR = 0.97  # share of logs with a labelled error line among the first 3 evidence lines
TESTS_FLOOR = 0.97  # share of the labelled failing node ids that are found


def test_the_live_corpus_is_what_the_generator_writes():
    assert len(LABELS) >= 40
    counts = Counter(x["class"] for x in LABELS)
    assert len(counts) >= 10, counts
    for x in LABELS:
        assert (LIVE / x["file"]).is_file(), x["file"]
        assert x["error_lines"], x["file"]
        lines = (LIVE / x["file"]).read_text().count("\n")
        assert all(1 <= n <= lines for n in x["error_lines"]), x["file"]


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    return {x["file"]: diagnose(LIVE / x["file"]).document() for x in LABELS}


def test_class_accuracy_stays_at_its_floor(results):
    right = sum(results[x["file"]]["class"] in (x["class"], x.get("label_alt")) for x in LABELS)
    assert right / len(LABELS) >= CLASS_FLOOR, right


def test_top3_evidence_stays_at_its_floor(results):
    hits = sum(
        bool(set(x["error_lines"]) & {e["line"] for e in results[x["file"]]["evidence"][:3]})
        for x in LABELS
    )
    assert hits / len(LABELS) >= TOP3_FLOOR, hits


def test_failing_tests_found_stay_at_their_floor(results):
    wanted = [(x["file"], t) for x in LABELS for t in x["failing_tests"]]
    found = sum(t in results[f]["failing_tests"] for f, t in wanted)
    assert found / len(wanted) >= TESTS_FLOOR, found
