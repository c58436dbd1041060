"""`truegreen diagnose LOG` output: one JSON document with --json, a readable summary without."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import cli

CORPUS = Path(__file__).parent / "corpus"


def test_json_is_exactly_one_deterministic_document(capsys):
    log = (
        str(CORPUS / "test-00-gha.log")
        if (CORPUS / "test-00-gha.log").exists()
        else str(next(CORPUS.glob("test-*.log")))
    )
    code, first, _ = cli(capsys, "diagnose", log, "--json")
    assert code == 0
    doc = json.loads(first)
    assert doc["schema"] == "truegreen.diagnosis/1"
    assert set(doc) >= {
        "class",
        "confidence",
        "evidence",
        "failing_tests",
        "signatures",
        "next_step",
    }
    _, second, _ = cli(capsys, "diagnose", log, "--json")
    assert first == second


def test_the_summary_names_class_evidence_tests_and_next_step(tmp_path, capsys):
    path = tmp_path / "out.txt"
    path.write_text(
        "FAILED tests/test_a.py::test_x - ValueError: [bold]not markup[/bold]\n1 failed in 0.1s\n"
    )
    code, out, _ = cli(capsys, "diagnose", str(path))
    assert code == 0
    assert out.startswith("test (confidence")
    assert "[bold]not markup[/bold]" in out  # log text is printed as data, never as markup
    assert "tests/test_a.py::test_x" in out
    assert "next step: rerun locally with: python -m pytest tests/test_a.py::test_x" in out
