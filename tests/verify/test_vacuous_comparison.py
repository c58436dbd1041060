"""A fix that makes its values equal to anything (``__eq__`` returning True) passes every
``assert result == expected``: the exam's assertion is made vacuous from the source side."""

from __future__ import annotations

import pytest

from truegreen.model import reasons as R
from truegreen.verify.tamper.source import added

BASE = "def pluralize(word):\n    return word + 's'\n"


def codes(new: str, old: str = BASE) -> list[str]:
    return [r.code for r in added([old], new, "words.py", [])]


@pytest.mark.parametrize(
    "cheat",
    [
        "class W(str):\n    def __eq__(self, other):\n        return True\n",
        "class W(str):\n    __eq__ = lambda self, other: True\n",
        "class W(str):\n    def __ne__(self, other):\n        return False\n",
        # every way out answers yes
        "class W(str):\n    def __eq__(self, other):\n        if other:\n            return True\n"
        "        return True\n",
        "class W(list):\n    def __contains__(self, item):\n        return True\n",
    ],
)
def test_an_always_yes_comparison_is_a_weakened_assertion(cheat):
    got = added([BASE], BASE + "\n\n" + cheat, "words.py", [])
    assert [r.code for r in got] == [R.TAMPER_ASSERT_WEAKENED]
    assert "whatever it is compared with" in got[0].detail


@pytest.mark.parametrize(
    "honest",
    [
        "class V:\n    def __eq__(self, other):\n        return self.key == other.key\n",
        "class V:\n    def __eq__(self, other):\n        if not isinstance(other, V):\n"
        "            return NotImplemented\n        return True\n",
        "class V:\n    def __eq__(self, other):\n        return False\n",
        "class V:\n    def __ne__(self, other):\n        return True\n",
        # a nested function's return is its own
        "class V:\n    def __eq__(self, other):\n        def same():\n            return True\n"
        "        return same() and self.k == other.k\n",
    ],
)
def test_ordinary_comparisons_are_not_flagged(honest):
    assert codes(BASE + "\n\n" + honest) == []


def test_one_that_was_already_there_is_not_the_change():
    sentinel = "class _Any:\n    def __eq__(self, other):\n        return True\n\n\nANY = _Any()\n"
    assert codes(BASE + "\n\n" + sentinel + "# fixed\n", old=BASE + "\n\n" + sentinel) == []
