"""A statement whose string literal wrote the text a failure rejected is evidence above
the producer of the whole value (localize.texts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.localize.helpers import localized, ranked_by_text
from truegreen.localize import texts
from truegreen.localize.spectrum import Statements


def test_constant_parts_are_the_text_between_template_fields():
    assert texts.constant_parts("efter {0}") == ["efter "]
    assert texts.constant_parts("%(count)d items in %s total") == [" items in ", " total"]
    assert texts.constant_parts("{name!r:>10} was removed") == [" was removed"]
    # too short, or no letter: says nothing about where the text came from
    assert texts.constant_parts("{0}: {1}") == []
    assert texts.constant_parts("om {0}") == []
    assert texts.constant_parts("1234 ----") == []


def test_the_differing_span_is_between_the_common_prefix_and_suffix():
    assert texts.differing_span("efter en time", "om en time") == (0, 5)
    assert texts.differing_span("30 några sekunder", "30 sekunder") == (3, 9)
    assert texts.differing_span("abc", "abc") == (3, 3)
    assert texts.differing_span("ab", "abc") == (2, 2)  # only lacks text: nothing written


def test_the_produced_side_is_the_one_the_test_did_not_write():
    rec = {"compared": [{"op": "==", "values": ["om 3", "efter 3"]}]}
    assert texts.compared_texts(rec, [True, False]) == ("efter 3", "om 3")
    assert texts.compared_texts(rec, [False, True]) == ("om 3", "efter 3")
    assert texts.compared_texts(rec) == ("om 3", "efter 3")
    # texts of several lines: the first line where they differ
    lines = {"op": "==", "values": ["a\nb", "a\nc"], "differs": {"line": 1, "values": ["b", "c"]}}
    assert texts.compared_texts({"compared": [lines]}) == ("b", "c")
    # not two texts, a text too long to keep whole, another comparison
    for values, op in (
        (["a", 1], "=="),
        ([{"type": "str", "len": 500}, "x"], "=="),
        (["a", "b"], "<"),
    ):
        assert texts.compared_texts({"compared": [{"op": op, "values": values}]}) is None


def _catalog(tmp_path: Path) -> Statements:
    (tmp_path / "cat.py").write_text(
        "class Danish:\n"  # 1
        '    past = "for {0} siden"\n'  # 2
        '    future = "efter {0}"\n'  # 3
        '    now = "lige nu"\n'  # 4
        "def warn(w):\n"  # 5
        '    w("call() is deprecated, call the object")\n'  # 6
        '    if w != "efter alt":\n'  # 7
        '        raise ValueError("efter alt")\n'  # 8
    )
    return Statements(tmp_path)


def test_the_literal_over_the_differing_span_wrote_the_text(tmp_path: Path):
    stmts = _catalog(tmp_path)
    ran = {("cat.py", n) for n in range(1, 9)}
    rec = {"compared": [{"op": "==", "values": ["efter en time", "om en time"]}]}

    def writers(rec: dict, message: str = "", test: str = "", **kw: bool) -> dict:
        return texts.rejected_text_writers(
            rec, [False, True], message, test, ran, stmts, lambda f: True, **kw
        )

    # "for {0} siden" and "lige nu" are not in it; "efter alt" (lines 7, 8) is not either
    assert writers(rec) == {("cat.py", 3): "efter "}
    # the test wrote that text itself: it is an input the output echoes
    assert writers(rec, test='assert describe("efter ") == "om en time"') == {}
    # a line the failing test did not run is no writer
    only = texts.rejected_text_writers(
        rec, [False, True], "", "", {("cat.py", 2), ("cat.py", 4)}, stmts, lambda f: True
    )
    assert only == {}
    # a text that differs only where the expected one has more: nothing was written
    short = {"compared": [{"op": "==", "values": ["lige", "lige nu"]}]}
    assert writers(short) == {}


def test_a_message_shows_the_text_a_warning_was_written_with(tmp_path: Path):
    stmts = _catalog(tmp_path)
    ran = {("cat.py", n) for n in range(1, 9)}
    message = (
        "DID NOT WARN. No warnings of type (<class 'DeprecationWarning'>,) were emitted.\n"
        " Emitted warnings: [ UserWarning('call() is deprecated, call the object')]."
    )
    found = texts.rejected_text_writers({}, [], message, "", ran, stmts, lambda f: True)
    assert found == {("cat.py", 6): "call() is deprecated, call the object"}
    # raised in project code: its own raise wrote the message, and found the bad state
    raised = texts.rejected_text_writers(
        {}, [], "efter alt", "", ran, stmts, lambda f: True, raised_in_project=True
    )
    assert raised == {}
    # not raised there: the condition's header and the raise hold it, and "efter {0}" a part
    assert texts.rejected_text_writers({}, [], "efter alt", "", ran, stmts, lambda f: True) == {
        ("cat.py", 3): "efter ",
        ("cat.py", 7): "efter alt",
        ("cat.py", 8): "efter alt",
    }


def test_a_text_written_all_over_says_nothing(tmp_path: Path):
    (tmp_path / "many.py").write_text(
        "".join(f'm{i} = "rejected text" + str({i})\n' for i in range(5))
    )
    stmts = Statements(tmp_path)
    ran = {("many.py", n) for n in range(1, 6)}
    rec = {"compared": [{"op": "==", "values": ["rejected text", "accepted"]}]}
    assert texts.rejected_text_writers(rec, [False, True], "", "", ran, stmts, lambda f: True) == {}
    three = {("many.py", n) for n in range(1, 4)}
    assert (
        len(texts.rejected_text_writers(rec, [False, True], "", "", three, stmts, lambda f: True))
        == 3
    )


RELATIVE = {
    "relt/__init__.py": "",
    "relt/describe.py": """
        def describe(n):
            if n < 0:
                return "{0} timer siden".format(-n)
            unit = "timer" if n > 1 else "time"
            template = "efter {0} {1}"
            return template.format(n, unit)
        """,
    "tests/test_describe.py": """
        from relt.describe import describe

        def test_past():
            assert describe(-3) == "3 timer siden"

        def test_future():
            assert describe(3) == "om 3 timer"
        """,
}


@pytest.mark.slow
def test_the_literal_that_wrote_the_rejected_text_wins_its_tie(make_project):
    doc = localized(make_project, RELATIVE, "tests/test_describe.py::test_future")
    ranked = ranked_by_text(doc, "relt/describe.py")
    literal = ranked['template = "efter {0} {1}"']
    made = ranked["return template.format(n, unit)"]
    assert literal["counts"] == made["counts"]  # the spectrum alone ties them
    assert "produced the value the assertion rejected" in made["evidence"]
    assert (
        "holds the text 'efter ', which the failure shows where it differs" in literal["evidence"]
    )
    assert literal["rank"] == 1 and made["rank"] > 1


WARNS = {
    "warny/__init__.py": "",
    "warny/api.py": """
        import warnings

        def call(f):
            warnings.warn("call() is deprecated: call the object itself")
            return f()
        """,
    "tests/test_api.py": """
        import pytest
        from warny.api import call

        def test_result():
            assert call(lambda: 2) == 2

        def test_call_is_deprecated():
            with pytest.warns(DeprecationWarning):
                call(lambda: 1)
        """,
}


@pytest.mark.slow
def test_the_warning_the_message_names_wins_its_tie(make_project):
    doc = localized(make_project, WARNS, "tests/test_api.py::test_call_is_deprecated")
    assert "DID NOT WARN" in doc["failure"]["message"]
    ranked = ranked_by_text(doc, "warny/api.py")
    warn = ranked['warnings.warn("call() is deprecated: call the object itself")']
    call = ranked["return f()"]
    assert warn["counts"] == call["counts"]
    assert warn["rank"] == 1 and call["rank"] > 1


def test_a_literal_is_wrong_when_no_literal_could_write_the_expected_text(tmp_path: Path):
    (tmp_path / "t.py").write_text(
        'POWERS = ("million", "billion", "googol")\n'  # 1
        'future = "efter {0}"\n'  # 2
    )
    stmts = Statements(tmp_path)
    ran = {("t.py", 1), ("t.py", 2)}
    wrong = {"compared": [{"op": "==", "values": ["efter en time", "om en time"]}]}
    assert texts.literal_is_wrong(wrong, [False, True], ran, stmts, lambda f: True)
    # the table holds the expected word too: the code chose the wrong entry
    chose = {"compared": [{"op": "==", "values": ["1.0 googol", "1.0 billion"]}]}
    assert not texts.literal_is_wrong(chose, [False, True], ran, stmts, lambda f: True)
    # a table the failing test did not run could not have written it
    assert texts.literal_is_wrong(chose, [False, True], {("t.py", 2)}, stmts, lambda f: True)
    # nothing compared, or the expected text only lacks what the code wrote
    assert not texts.literal_is_wrong({}, [], ran, stmts, lambda f: True)
    extra = {"compared": [{"op": "==", "values": ["1.0 googol", "1.0 "]}]}
    assert not texts.literal_is_wrong(extra, [False, True], ran, stmts, lambda f: True)


LOCALES = {
    "loc/__init__.py": "",
    "loc/locales.py": """
        class Locale:
            past = "{0} ago"
            future = "in {0}"

            def describe(self, n):
                if n < 0:
                    return self.past.format(-n)
                return self.future.format(self.number(n))

            def number(self, n):
                return str(n)


        class English(Locale):
            pass


        class Danish(Locale):
            past = "for {0} siden"
            future = "efter {0}"

            def number(self, n):
                return f"{n}"
        """,
    "tests/test_locales.py": """
        from loc.locales import Danish, English

        def test_english_past():
            assert English().describe(-3) == "3 ago"

        def test_english_future():
            assert English().describe(3) == "in 3"

        def test_danish_past():
            assert Danish().describe(-3) == "for 3 siden"

        def test_danish_future():
            assert Danish().describe(3) == "om 3"
        """,
}


@pytest.mark.slow
def test_a_wrong_literal_ranks_above_higher_scores(make_project):
    doc = localized(make_project, LOCALES, "tests/test_locales.py::test_danish_future")
    ranked = ranked_by_text(doc, "loc/locales.py")
    literal = ranked['future = "efter {0}"']
    own = ranked['return f"{n}"']  # only the failing test ran it: the top score
    assert (own["counts"]["ep"], literal["counts"]["ep"]) == (0, 1)
    assert literal["rank"] == 1 and own["rank"] > 1


def test_a_statements_literals_are_found_by_its_first_line_and_only_when_asked_for():
    import ast

    source = (
        'GREETING = "hello {0}"\n'  # 1
        "def f(x):\n"  # 2: a def has no literals of its own
        '    if x == "yes": y = "chosen"\n'  # 3: the header's literal, not its body's
        '    if x: z = "only in the body"\n'  # 4: the header has none: the body's
        '    a = 1; b = "second"\n'  # 5: the first statement there holding one
        "    return [\n"  # 6: a statement of several lines, by its first
        '        "multi",\n'
        "    ]\n"
    )
    tree = ast.parse(source)
    found = texts._Literals(tree)
    assert found.get(1) == ("hello {0}",)
    assert found.get(2) == ()
    assert found.get(3) == ("yes",)
    assert found.get(4) == ("only in the body",)
    assert found.get(5) == ("second",)
    assert found.get(6) == ("multi",)
    assert found.get(7) == () and found.get(99) == ()
    assert texts._literals_by_line(tree) == {
        1: ("hello {0}",),
        3: ("yes",),
        4: ("only in the body",),
        5: ("second",),
        6: ("multi",),
    }
