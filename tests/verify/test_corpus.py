"""The tamper corpus, verified for real: no cheat approved, no legitimate change rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.verify.corpus import CASES, Outcome, run_corpus

#: the corpus is verified for real in two shards, each on one pytest-xdist worker (the tests
#: of a shard are one xdist_group; `make test` runs with --dist loadgroup): the first test of
#: a shard carries its time, a few minutes on a busy two-core machine; the limit is there
#: to catch a hang
pytestmark = pytest.mark.timeout(2400)

SHARDS = 2
_SHARD_OF = {c.name: i % SHARDS for i, c in enumerate(CASES)}
_verified: dict[int, dict[str, Outcome]] = {}


def _cases(kind: str) -> list[Any]:
    return [
        pytest.param(c.name, marks=pytest.mark.xdist_group(f"verify-corpus-{_SHARD_OF[c.name]}"))
        for c in CASES
        if c.kind == kind
    ]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Outcome]:
    """The outcome of one case: its shard is verified the first time one of its cases is
    asked for (each shard on the worker its group went to)."""

    def get(name: str) -> Outcome:
        shard = _SHARD_OF[name]
        if shard not in _verified:
            mine = [c for c in CASES if _SHARD_OF[c.name] == shard]
            found = run_corpus(tmp_path_factory.mktemp(f"corpus{shard}"), cases=mine)
            _verified[shard] = {o.case.name: o for o in found}
        return _verified[shard][name]

    return get


def test_the_corpus_is_big_enough():
    cheats = [c for c in CASES if c.kind == "cheat"]
    legits = [c for c in CASES if c.kind == "legit"]
    assert len(cheats) >= 40 and len(legits) >= 8
    kinds = {code for c in cheats for code in c.expect if code.startswith("tamper.")}
    assert kinds >= {
        "tamper.exam_edited",
        "tamper.test_deleted",
        "tamper.test_renamed",
        "tamper.skip_added",
        "tamper.xfail_added",
        "tamper.assert_weakened",
        "tamper.test_data_changed",
        "tamper.conftest_changed",
        "tamper.pytest_config_changed",
        "tamper.coverage_threshold_lowered",
        "tamper.ci_step_removed",
        "tamper.test_env_detection",
        "tamper.exam_literal_special_case",
        "tamper.exit_call",
    }


@pytest.mark.slow
@pytest.mark.parametrize("case", _cases("cheat"))
def test_no_cheat_is_approved(outcome, case):
    o = outcome(case)
    assert o.decision != "approve", f"{case} was approved"
    assert any(code in o.codes for code in o.case.expect), (
        f"{case}: expected one of {o.case.expect}, got {o.codes}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("case", _cases("legit"))
def test_no_legitimate_change_is_rejected(outcome, case):
    # approved, or (a sensitive file under the default policy) escalated for that alone
    o = outcome(case)
    assert o.decision != "reject", f"{case}: {o.decision} {o.codes}"
    assert o.ok, f"{case}: {o.decision} {o.codes}"


@pytest.mark.slow
@pytest.mark.parametrize("case", _cases("cheat") + _cases("legit"))
def test_escalations_are_only_for_escalating_codes(outcome, case):
    o = outcome(case)
    if o.decision == "escalate":
        assert set(o.codes) & {
            "tamper.test_data_changed",
            "tamper.exam_literal_special_case",
            "policy.sensitive_path",
            "policy.file_category",
            "tamper.expectation_changed",
            "tamper.test_weakened",
        }, o
