"""A project whose pytest configuration names one of its own classes is imported by pytest
before any ``-p`` plugin: localize must still measure it (its tracer runs first), and say so
when a module escaped the tracer."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import pytest

from truegreen.localize import LocalizeOptions, localize
from truegreen.localize.engine import TRACER_DIR, _request
from truegreen.project import open_project
from truegreen.run.pytest_run import run_pytest

PY = sys.executable

PROJECT = {
    "setup.cfg": """
        [tool:pytest]
        filterwarnings =
            error
            ignore::shop.warnings.OldApiWarning
        """,
    "shop/__init__.py": "",
    "shop/warnings.py": """
        class OldApiWarning(DeprecationWarning):
            pass
        """,
    "shop/cart.py": """
        RATE = 10

        def total(prices):
            s = 0
            for p in prices:
                s += p
            return s * (100 - RATE) // 101
        """,
    "tests/test_cart.py": """
        from shop.cart import total

        def test_empty():
            assert total([]) == 0

        def test_two():
            assert total([50, 50]) == 90
        """,
}


@pytest.mark.slow
def test_a_package_pytest_imports_for_its_warning_filters_is_measured(make_project):
    root = make_project(PROJECT, use_git=False)
    doc = localize(
        open_project(root, PY, "none"),
        ["tests/test_cart.py::test_two"],
        LocalizeOptions(timeout=60),
    )
    codes = {r["code"] for r in doc["ranking"] if r["file"] == "shop/cart.py"}
    assert {"s += p", "return s * (100 - RATE) // 101", "RATE = 10"} <= codes
    assert not any("before the tracer" in w for w in doc["warnings"])


@pytest.mark.slow
def test_modules_imported_before_the_tracer_are_named(make_project, tmp_path):
    """Without the launcher (``-p`` alone, as before), pytest imports ``shop`` for the
    warning filter first: the tracer lists it instead of staying silent."""
    root = make_project(PROJECT, use_git=False)
    project = open_project(root, PY, "none")
    out = tmp_path / "trace.json"
    request = _request(project, ["tests/test_cart.py"], 60, tracer=out)
    assert request.launcher is not None and TRACER_DIR in request.pythonpath
    run_pytest(replace(request, launcher=None))
    preloaded = json.loads(out.read_text())["preloaded"]
    assert "shop/warnings.py" in preloaded and "shop/__init__.py" in preloaded
    run_pytest(request)
    assert json.loads(out.read_text())["preloaded"] == []
