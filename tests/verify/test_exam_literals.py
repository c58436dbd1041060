"""The exam's literals, which a fix must not special-case: the test's own, and what it reads
from its file (a parametrize table, a constant, a class attribute, a same-file fixture), and
the words of a parametrized instance's id."""

from __future__ import annotations

import textwrap

import pytest

from truegreen.model import reasons as R
from truegreen.verify.tamper.snapshot import ExamRef
from truegreen.verify.tamper.source import added, exam_literals

EXAM_FILE = textwrap.dedent(
    """
    import pytest

    from words import pluralize

    IRREGULAR = (
        ("person", "people"),
        ("cow", "kine"),
    )
    MORE = [*IRREGULAR, ("ox", "oxen")]
    UNRELATED = ("quiz", "quizzes")


    @pytest.fixture
    def sample():
        return "octopus"


    @pytest.mark.parametrize(("singular", "plural"), MORE)
    def test_pluralize(singular, plural):
        assert pluralize(singular) == plural


    def test_fixture(sample):
        assert pluralize(sample) == "octopi"


    class TestWords:
        TABLE = {"child": "children"}

        def test_table(self):
            for one, many in self.TABLE.items():
                assert pluralize(one) == many
    """
)


def lits(test: str, content: str = EXAM_FILE) -> list[object]:
    return exam_literals([ExamRef(test, "tests/test_words.py", content)])


def test_a_parametrize_table_is_followed_through_the_names_it_reads():
    got = lits("tests/test_words.py::test_pluralize[cow-kine]")
    assert {"person", "people", "cow", "kine", "ox", "oxen"} <= set(got)
    assert "quizzes" not in got  # a table the exam does not read
    assert "octopus" not in got  # another test's fixture


def test_a_same_file_fixture_and_a_class_attribute_are_followed():
    assert {"octopus", "octopi"} <= set(lits("tests/test_words.py::test_fixture"))
    assert {"child", "children"} <= set(lits("tests/test_words.py::TestWords::test_table"))


def test_the_id_words_count_where_the_cases_come_from_elsewhere():
    content = (
        "from cases import CASES\n\n\n@parametrize('a,b', CASES)\ndef test_x(a, b):\n    pass\n"
    )
    got = lits("tests/test_x.py::test_x[walrus-walruses]", content)
    assert {"walrus", "walruses"} <= set(got)
    # numbers and short words of an id are everywhere in code: not taken
    assert lits("tests/test_x.py::test_x[1-ab-2.5-1e3]", content) == ["a,b"]


def reasons(new: str, old: str, test: str) -> list[str]:
    found = added([old], new, "words.py", lits(test))
    return [r.code for r in found]


BASE = "def pluralize(word):\n    return word + 's'\n"


@pytest.mark.parametrize(
    "cheat",
    [
        "def pluralize(word):\n    if word == 'cow':\n        return 'kine'\n    return word + 's'\n",
        "def pluralize(word):\n    if word.lower() in ('cow', 'Cow'):\n        return 'kine'\n"
        "    return word + 's'\n",
        # a lookup in a dict written on the spot is a comparison with each key
        "def pluralize(word):\n    return {'cow': 'kine', 'Cow': 'Kine'}.get(word, word + 's')\n",
        "def pluralize(word):\n    if word in ('cow', 'Cow'):\n"
        "        return {'cow': 'kine', 'Cow': 'Kine'}[word]\n    return word + 's'\n",
    ],
)
def test_special_casing_a_table_case_is_found(cheat):
    got = reasons(cheat, BASE, "tests/test_words.py::test_pluralize[cow-kine]")
    assert got and set(got) == {R.TAMPER_EXAM_LITERAL_SPECIAL_CASE}


def test_a_literal_that_differs_in_case_only_is_not_flagged():
    """A fix of a case bug normalizes case: ``word.lower() == "ox"`` for an exam's "OX" is
    the fix, not a special case. (So a special case written in another case than the
    exam's literal, "Cow" for "cow", is not found: the price of not flagging those fixes.)"""
    content = EXAM_FILE.replace('("ox", "oxen")', '("OX", "OXEN")')
    fix = "def pluralize(word):\n    if word.lower() == 'oxen':\n        return word\n    return word + 's'\n"
    found = added(
        [BASE], fix, "words.py", lits("tests/test_words.py::test_pluralize[OX-OXEN]", content)
    )
    assert found == []


def test_a_fix_that_compares_with_no_exam_literal_is_not_flagged():
    fix = (
        "IRREGULAR = {'cow': 'kine'}\n\n\ndef pluralize(word):\n"
        "    if word.endswith('x'):\n        return word + 'en'\n"
        "    return IRREGULAR.get(word, word + 's')\n"
    )
    assert reasons(fix, BASE, "tests/test_words.py::test_pluralize[cow-kine]") == []
