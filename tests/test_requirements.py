"""The rule for tests that need a system tool or a service: skip outside CI, fail in CI."""

from __future__ import annotations

import pytest

from tests.conftest import REQUIREMENTS, require


def test_a_missing_requirement_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no frobnicator here .this test runs in CI"):
        require(False, "no frobnicator here")


@pytest.mark.parametrize("value", ["true", "TRUE"])
def test_a_missing_requirement_fails_in_ci(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI=true, but no frobnicator here"):
        require(False, "no frobnicator here")


def test_a_requirement_that_holds_does_nothing(monkeypatch):
    monkeypatch.setenv("CI", "true")
    require(True, "unused")


def test_every_requirement_has_a_declared_marker(pytestconfig):
    declared = {line.split(":", 1)[0] for line in pytestconfig.getini("markers")}
    assert set(REQUIREMENTS) <= declared


def test_each_check_says_what_is_missing():
    for marker, check in REQUIREMENTS.items():
        ok, why = check()
        assert isinstance(ok, bool)
        assert why, marker
