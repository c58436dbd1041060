"""The diagnoses of the real CI corpus stay byte-identical to tests/diagnose/gold/*.json
(written by make_gold.py from ``truegreen diagnose --json``): a refactoring of
truegreen.diagnose changes no document. A change meant to change one regenerates the gold
files and shows, in their diff, every log whose diagnosis moved.

Each log is re-diagnosed in-process through ``truegreen.api.diagnose`` and written as the
CLI writes it (``canonical.pretty``), so this also holds the API and the CLI to the same
bytes.

Diagnosing all 263 logs (60 MB, a few with thousands of error-looking lines) takes about
half a minute, too long for every run of the suite: by default the logs of up to 64 KiB are
checked, plus the smallest log of each label those leave out (so every class the corpus
has is covered); ``TRUEGREEN_GOLD=all`` checks every log. The corpus lives outside the
repository (see make_gold.py for where it is looked for); without it these tests skip and
say so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.diagnose.make_gold import GOLD, corpus_dir, gold_name
from truegreen import canonical
from truegreen.api import DiagnoseRequest, diagnose

#: Logs up to this size are checked on every run: 82 of the 263, with the smallest of each
#: label they miss 88 (about 4 s of CPU).
QUICK_BYTES = 64 * 1024

CORPUS = corpus_dir()


def _chosen() -> list[str]:
    """The log file names this run checks."""
    if CORPUS is None:
        return sorted(p.stem + ".log" for p in GOLD.glob("*.json"))
    labels = json.loads((CORPUS / "labels.json").read_text())
    size = {e["file"]: (CORPUS / e["file"]).stat().st_size for e in labels}
    if os.environ.get("TRUEGREEN_GOLD") == "all":
        return sorted(Path(f).name for f in size)
    chosen = {e["file"] for e in labels if size[e["file"]] <= QUICK_BYTES}
    covered = {e["label"] for e in labels if e["file"] in chosen}
    for e in sorted(labels, key=lambda e: (size[e["file"]], e["file"])):
        if e["label"] not in covered:
            chosen.add(e["file"])
            covered.add(e["label"])
    return sorted(Path(f).name for f in chosen)


def _need_corpus() -> Path:
    if CORPUS is None:
        pytest.skip(
            "the real CI corpus (shared/data/ci-logs) is not here; set TRUEGREEN_CI_LOGS to "
            "its directory to check the gold diagnoses"
        )
    return CORPUS


@pytest.mark.parametrize("log", _chosen())
def test_the_diagnosis_is_byte_identical_to_its_gold_document(
    log: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _need_corpus()
    gold = GOLD / gold_name(Path(log))
    assert gold.is_file(), f"no gold document for {log}: run tests/diagnose/make_gold.py"
    # From the corpus's directory, as make_gold.py runs it: the document names the log
    # "logs/<name>", the same wherever the corpus lies.
    monkeypatch.chdir(base)
    doc = diagnose(DiagnoseRequest(log=f"logs/{log}")).to_json()
    assert canonical.pretty(doc).encode("utf-8") == gold.read_bytes(), (
        f"the diagnosis of {log} changed; if that is meant, run tests/diagnose/make_gold.py "
        "and review the diff of tests/diagnose/gold/"
    )


def test_every_log_has_a_gold_document_and_every_gold_document_a_log() -> None:
    base = _need_corpus()
    logs = {gold_name(p) for p in (base / "logs").glob("*.log")}
    golds = {p.name for p in GOLD.glob("*.json")}
    assert len(logs) == 263
    assert logs == golds


def test_the_quick_selection_covers_every_label_of_the_corpus() -> None:
    base = _need_corpus()
    labels = json.loads((base / "labels.json").read_text())
    chosen = set(_chosen())
    assert {e["label"] for e in labels if Path(e["file"]).name in chosen} == {
        e["label"] for e in labels
    }
