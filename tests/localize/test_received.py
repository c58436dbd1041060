"""A value the assertion rejected that code makes everywhere (True, None, 0, an empty
list): the project function that returned it to the test is evidence among tied lines."""

from __future__ import annotations

import pytest

from tests.localize.helpers import localized, ranked_in
from truegreen.localize.values import received


def _ret(seq: int, line: int, value, func: str = "f", to_test: bool = True) -> dict:
    r = {"file": "m.py", "line": line, "func": func, "value": value, "seq": seq}
    if to_test:
        r["to_test"] = True
    return r


def test_a_trivial_operand_is_traced_to_the_last_return_the_test_received():
    failing = {
        "compared": [{"op": "==", "values": [False, True]}],
        "returns": [
            _ret(1, 10, False),
            _ret(2, 20, False, to_test=False),  # returned inside the project
            _ret(3, 30, False),
            _ret(4, 40, True),
        ],
    }
    # the right operand is the assertion's literal: only False is looked for
    got = received(failing, [False, True])
    assert got == [{"value": False, "received": True, "produced_at": {"file": "m.py", "line": 30}}]


def test_pytest_explanation_names_the_function_and_its_value():
    message = (
        "assert not <re.Match object; span=(2, 4), match='ab'>\n"
        " +  where <re.Match object; span=(2, 4), match='ab'> = match(Command(x='ab'))\n"
        " +    where Command(x='ab') = Command(x='ab')"
    )
    failing = {
        "returns": [
            _ret(1, 5, {"type": "Match"}, func="match"),
            _ret(2, 9, {"type": "Command"}, func="__init__"),
            _ret(3, 7, {"type": "Match"}, func="other"),
        ]
    }
    # the deeper `where` explains an argument: its constructor is not the answer
    assert [d["produced_at"]["line"] for d in received(failing, (), message)] == [5]
    message = "assert False\n +  where False = <function is_tag at 0x7f>('v1')"
    failing = {"returns": [_ret(1, 3, False, func="is_tag"), _ret(2, 4, True, func="is_tag")]}
    assert [d["produced_at"]["line"] for d in received(failing, (), message)] == [3]


def test_nothing_without_a_return_to_the_test():
    failing = {
        "compared": [{"op": "==", "values": [None, "x"]}],
        "returns": [_ret(1, 10, None, to_test=False)],
    }
    assert received(failing, [False, True]) == []
    assert received({"returns": [_ret(1, 10, None)]}, (), "assert 1 == 2") == []
    # a value that is not trivial is rejected()'s business
    failing = {"compared": [{"op": "==", "values": ["abc", "abd"]}], "returns": [_ret(1, 2, "abc")]}
    assert received(failing, [False, True]) == []


TAGS = {
    "tags/__init__.py": "",
    "tags/core.py": """
        def is_version_tag(name):
            prefix = "v"
            if not name:
                return False
            digits = name[len(prefix):]
            return name.startswith(prefix) and "-" in digits and digits[:1].isdigit()
        """,
    "tests/test_tags.py": """
        from tags.core import is_version_tag


        def test_empty():
            assert not is_version_tag("")


        def test_not_a_tag():
            assert not is_version_tag("x1.2")


        def test_plain_tag():
            assert is_version_tag("v1.2")
        """,
}


@pytest.mark.slow
def test_the_predicate_that_answered_wrong_leads_its_tie(make_project):
    """test_not_a_tag runs every line test_plain_tag runs: the spectrum ties them. pytest
    says ``where False = is_version_tag('v1.2')``: the return that gave the test its False
    leads (the fault: ``"-" in digits`` should be ``not in``)."""
    doc = localized(make_project, TAGS, "tests/test_tags.py::test_plain_tag")
    core = ranked_in(doc, "tags/core.py")
    assert (core[6]["rank"], core[6]["ties"]) == (1, 1), doc["ranking"]
    assert core[6]["evidence"] == ["returned to the test the value its assertion rejected"]
    # prefix = "v" ties with `if not name:` by coverage; the condition's false branch
    # (line 5, which the failing test and one passing test ran) ranks it higher
    assert core[3]["rank"] < core[2]["rank"], doc["ranking"]
    assert core[2]["rank"] > 1
    assert doc["values"]["rejected"][-1]["received"] is True
