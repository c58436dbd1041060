"""What a person reads about the layers: a layer that does not exist (no gate configured)
is not shown; a core layer is shown even when it did not run (its evidence is missing).
The JSON document keeps every layer (DESIGN.md)."""

from __future__ import annotations

from typing import Any

import pytest

from truegreen.cli.verify import print_verification
from truegreen.report.markdown import render


def _doc(**layers: str) -> dict[str, Any]:
    return {
        "schema": "truegreen.verification/1",
        "repo": "proj",
        "base": "a" * 40,
        "head": "b" * 40,
        "patch_sha256": None,
        "exams": [
            {
                "id": "ex-0123456789abcdef",
                "test": "tests/test_x.py::test_y",
                "base": {"outcome": "failed", "runs": 3},
                "head": {"outcome": "passed", "runs": 3},
            }
        ],
        "layers": {
            "exam": "pass",
            "tamper": "pass",
            "regression": "pass",
            "gates": "skipped",
            **layers,
        },
        "regression": None,
        "strength": None,
        "verdict": "verified",
        "decision": "approve",
        "reasons": [],
        "receipt": {"sha256": "c" * 64},
    }


def _terminal(capsys: pytest.CaptureFixture[str], doc: dict[str, Any]) -> str:
    print_verification(doc)
    return capsys.readouterr().out


def test_no_gate_configured_means_no_gates_line(capsys):
    doc = _doc()
    assert "  layers: exam pass, tamper pass, regression pass\n" in _terminal(capsys, doc)
    md = render(doc)
    assert "| regression | pass |" in md
    assert "gates" not in md
    assert doc["layers"]["gates"] == "skipped"  # the document still carries it


@pytest.mark.parametrize("status", ["pass", "fail"])
def test_gates_that_ran_are_shown(capsys, status):
    doc = _doc(gates=status)
    assert f"regression pass, gates {status}\n" in _terminal(capsys, doc)
    assert f"| gates | {status} |" in render(doc)


def test_a_core_layer_that_did_not_run_is_still_shown(capsys):
    doc = _doc(regression="skipped", tamper="skipped")
    assert "layers: exam pass, tamper skipped, regression skipped\n" in _terminal(capsys, doc)
    md = render(doc)
    assert "| tamper | skipped |" in md and "| regression | skipped |" in md
