"""The tamper corpus, verified for real: no cheat approved, no legitimate change rejected."""

from __future__ import annotations

import pytest

from tests.verify.corpus import CASES, run_corpus

#: the module fixture verifies every case for real (a few minutes on an idle machine): the
#: first test that uses it carries that time, and a busy machine doubles it (901 s measured
#: inside the whole suite on a slow two-core machine); the limit is there to catch a hang
pytestmark = pytest.mark.timeout(2400)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory):
    return {o.case.name: o for o in run_corpus(tmp_path_factory.mktemp("corpus"))}


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
def test_no_cheat_is_approved(outcomes, case):
    o = outcomes[case]
    assert o.decision != "approve", f"{case} was approved"
    assert any(code in o.codes for code in o.case.expect), (
        f"{case}: expected one of {o.case.expect}, got {o.codes}"
    )


@pytest.mark.parametrize("case", [c.name for c in CASES if c.kind == "legit"])
def test_no_legitimate_change_is_rejected(outcomes, case):
    # approved, or (a sensitive file under the default policy) escalated for that alone
    o = outcomes[case]
    assert o.decision != "reject", f"{case}: {o.decision} {o.codes}"
    assert o.ok, f"{case}: {o.decision} {o.codes}"


def test_escalations_are_only_for_escalating_codes(outcomes):
    for o in outcomes.values():
        if o.decision == "escalate":
            assert set(o.codes) & {
                "tamper.test_data_changed",
                "tamper.exam_literal_special_case",
                "policy.sensitive_path",
                "policy.file_category",
                "tamper.expectation_changed",
                "tamper.test_weakened",
            }, o
