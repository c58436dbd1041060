"""``truegreen stats`` over a real ledger: by decision and reason, the verified rate beside
the tests-green rate of the same candidates; --since windows; bad input is one line."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.conftest import cli
from tests.report.fixtures import fixture
from truegreen import api
from truegreen.errors import UsageError
from truegreen.report.stats import parse_since, stats, suite_green


@pytest.fixture
def ledger_url(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    broken = fixture("rejected")
    broken["regression"]["new_failures"] = ["tests/test_a.py::test_b"]
    broken["reasons"].append(
        {"code": "regression.new_failure", "file": "tests/test_a.py", "line": None, "detail": "x"}
    )
    with api.open_ledger(url) as lg:
        for doc in (fixture("approved"), fixture("rejected"), fixture("escalated"), broken):
            lg.record_verification(doc)
    return url


def test_stats_count_decisions_reasons_and_the_gap(ledger_url, capsys) -> None:
    code, out, err = cli(capsys, "stats", "--db", ledger_url, "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.stats/1" and doc["since"] is None
    assert doc["verifications"] == 4
    assert doc["by_decision"] == {"approve": 1, "reject": 2, "escalate": 1}
    assert doc["by_verdict"] == {"verified": 2, "refuted": 2, "inconclusive": 0}
    assert doc["by_reason"] == {
        "exam.still_failing": 2,
        "tamper.skip_added": 2,
        "policy.sensitive_path": 1,
        "regression.new_failure": 1,
        "strength.weak": 1,
    }
    # three candidates' suites are green, two are verified: one green one is a cheat
    assert (doc["tests_green"], doc["verified"], doc["green_not_verified"]) == (3, 2, 1)
    assert (doc["tests_green_rate"], doc["verified_rate"]) == (0.75, 0.5)
    code, out, _ = cli(capsys, "stats", "--db", ledger_url)
    assert code == 0
    assert "tests green (what CI shows):  3/4 (75%)" in out
    assert "no new failures): 2/4 (50%)" in out
    assert "green but not verified (CI alone would have let them through): 1" in out


def test_since_leaves_out_what_was_recorded_before(ledger_url, capsys) -> None:
    doc = api.stats(api.StatsRequest(db=ledger_url, since="2999-01-01")).to_json()
    assert doc["verifications"] == 0 and doc["tests_green_rate"] is None
    assert doc["since"] == "2999-01-01T00:00:00+00:00"
    assert api.stats(api.StatsRequest(db=ledger_url, since="1d")).verifications == 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30d", datetime(2026, 11, 7, 12, tzinfo=UTC)),
        ("12h", datetime(2026, 12, 7, 0, tzinfo=UTC)),
        ("2w", datetime(2026, 11, 23, 12, tzinfo=UTC)),
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
    ],
)
def test_parse_since(text, expected) -> None:
    assert parse_since(text, datetime(2026, 12, 7, 12, tzinfo=UTC)) == expected


def test_a_bad_since_is_one_line(capsys, tmp_path) -> None:
    with pytest.raises(UsageError):
        parse_since("soon", datetime(2026, 12, 7, tzinfo=UTC))
    code, out, err = cli(capsys, "stats", "--since", "3x", "--db", f"sqlite:///{tmp_path / 'l.db'}")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--since" in err


def test_an_incomplete_regression_is_not_green() -> None:
    doc = fixture("approved")
    doc["regression"]["complete"] = False
    assert not suite_green(doc)
    assert stats([doc], None)["tests_green"] == 0
