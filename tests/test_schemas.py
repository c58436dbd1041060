"""The shipped JSON Schemas are generated from the models and up to date."""

from __future__ import annotations

from truegreen.model.documents import SCHEMA_DIR, generated


def test_shipped_schemas_match_the_models():
    for name, text in generated().items():
        assert (SCHEMA_DIR / name).read_text(encoding="utf-8") == text, (
            f"{name} is out of date: run python -m truegreen.model.documents --write"
        )
