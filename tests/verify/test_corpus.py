"""The tamper corpus, verified for real: no cheat approved, no legitimate change rejected."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.verify.corpus import CASES, Outcome, Prepared, prepare, verify_case

#: every case is a test of its own, verified for real, so pytest-xdist spreads the cases
#: over its workers; each worker builds the corpus and seals the exam once. A case takes a
#: few seconds, more on a busy machine; the limit is there to catch a hang
pytestmark = pytest.mark.timeout(600)

#: the codes that may make a case escalate (no other code may)
ESCALATING = {
    "tamper.test_data_changed",
    "tamper.exam_literal_special_case",
    "policy.sensitive_path",
    "policy.file_category",
    "tamper.expectation_changed",
    "tamper.test_weakened",
}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Prepared, Path]:
    """The corpus, built and sealed once per worker, and a truegreen home of its own that
    every case verified on this worker shares: every case's base is main, so the first case
    a worker verifies records the base's suite and the others select from that record."""
    work = tmp_path_factory.mktemp("corpus")
    return prepare(work), work / "home"


@pytest.fixture
def outcome(
    prepared: tuple[Prepared, Path], monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Outcome]:
    corpus, home = prepared
    monkeypatch.setenv("TRUEGREEN_HOME", str(home))
    by_name = {c.name: c for c in CASES}
    return lambda name: verify_case(corpus, by_name[name])


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
@pytest.mark.parametrize("case", [c.name for c in CASES if c.kind == "cheat"])
def test_no_cheat_is_approved(outcome, case):
    o = outcome(case)
    if o.decision == "escalate":
        assert set(o.codes) & ESCALATING, o
    assert o.decision != "approve", f"{case} was approved"
    assert any(code in o.codes for code in o.case.expect), (
        f"{case}: expected one of {o.case.expect}, got {o.codes}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("case", [c.name for c in CASES if c.kind == "legit"])
def test_no_legitimate_change_is_rejected(outcome, case):
    # approved, or (a sensitive file under the default policy) escalated for that alone
    o = outcome(case)
    if o.decision == "escalate":
        assert set(o.codes) & ESCALATING, o
    assert o.decision != "reject", f"{case}: {o.decision} {o.codes}"
    assert o.ok, f"{case}: {o.decision} {o.codes}"
