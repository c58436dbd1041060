"""Shapes found on real projects (more-itertools) that the corpus did not have."""

from __future__ import annotations

from truegreen.verify.tamper import ChangeSnapshot, analyze

A = b"""
class NthTests:
    def test_basic(self):
        assert sum([1, 2]) == 3
"""

B = b"""
class NthTests:
    def test_basic(self):
        self_check = [x for x in range(3)]
        assert len(self_check) == 3
"""


def test_a_gone_test_is_not_moved_onto_a_same_named_test_that_was_already_there():
    # test_b.py stops being collected (its import breaks); test_a.py, unchanged, has a test
    # with the same class and name. That one is another test, not the gone one moved.
    base = {"tests/test_a.py": A, "tests/test_b.py": B}
    head = {"tests/test_a.py": A, "tests/test_b.py": b"import no_such_module\n" + B}
    ids = {"tests/test_a.py::NthTests::test_basic", "tests/test_b.py::NthTests::test_basic"}
    snap = ChangeSnapshot(
        base, head, base_collected=ids, head_collected={"tests/test_a.py::NthTests::test_basic"}
    )
    reasons = analyze(snap)
    assert {(r.code, r.file) for r in reasons} == {("tamper.test_deleted", "tests/test_b.py")}
