"""Fault localization: per-test spectra, exact ranking, runtime values, context packing.

``localize(project, test_ids)`` is the engine behind ``truegreen localize``; it returns
the ``truegreen.localization/1`` document. See docs/localize.md.
"""

from __future__ import annotations

from truegreen.localize.engine import LocalizeOptions, localize

__all__ = ["LocalizeOptions", "localize"]
