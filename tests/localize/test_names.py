"""localize.names: lines inside the function or class a failing test's name names go first
among lines nothing else tells apart."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.localize.helpers import localized, ranked_by_text
from truegreen.localize import names
from truegreen.localize.ranking import rank
from truegreen.localize.spectrum import Statements

F = frozenset


@pytest.mark.parametrize(
    "name, expected",
    [
        ("get_real_name", ("get", "real", "name")),
        ("getRealName", ("get", "real", "name")),
        ("HTTPServer", ("http", "server")),
        ("TestHebrewLocale", ("test", "hebrew", "locale")),
        ("_private__helper", ("private", "helper")),
    ],
)
def test_a_names_words(name, expected):
    assert names.words(name) == expected


def test_a_test_ids_words_are_its_class_and_function_without_parameters():
    got = names.test_words("tests/test_x.py::TestParser::test_split_lines[a_b-c]")
    assert got == [("test", "parser"), ("test", "split", "lines")]


def test_a_name_matches_only_its_words_in_a_row():
    tests = names.test_words("t.py::test_get_real_name_multi_part_dotted")
    assert names.named_by("get_real_name", tests)
    assert names.named_by("getRealName", tests)
    assert not names.named_by("get_name", tests)  # not in a row
    assert not names.named_by("real_name_get", tests)
    klass = names.test_words("t.py::TestHebrewLocale::test_plurals")
    assert names.named_by("HebrewLocale", klass)
    assert not names.named_by("Locale", names.test_words("t.py::test_plurals"))


def test_dunders_and_short_names_never_match():
    tests = names.test_words("t.py::test_init_of_a_b_with_eq")
    assert not names.named_by("__init__", tests)
    assert not names.named_by("__eq__", tests)
    assert not names.named_by("a_b", tests)  # two letters
    assert names.named_by("init", tests)


def test_named_lines_are_those_inside_a_named_function_or_class(tmp_path: Path):
    (tmp_path / "m.py").write_text(
        textwrap.dedent(
            """\
            def tidy(s):
                return s.strip()

            class Slug:
                def make(self, s):
                    return tidy(s).replace(" ", "-")

            def slugify(s):
                return Slug().make(s)
            """
        )
    )
    stmts = Statements(tmp_path)
    ran = [("m.py", n) for n in (2, 6, 9)]
    got = names.named_lines(["tests/test_m.py::test_slugify_joins_words"], ran, stmts)
    assert got == {("m.py", 9): "slugify"}
    got = names.named_lines(["tests/test_m.py::TestSlug::test_make"], ran, stmts)
    assert got == {("m.py", 6): "make"}  # the innermost named scope
    assert names.named_lines(["tests/test_m.py::test_other"], ran, stmts) == {}
    assert names.named_lines([], ran, stmts) == {}


def test_a_name_breaks_ties_only_after_evidence_and_never_overrides_a_score():
    a = [("a.py", n) for n in (1, 2, 3, 4)]
    failing = [F(a)]
    passing = [F(a[1:]), F(a[1:])]
    plain = rank(failing, passing)
    assert [(r.line, r.rank, r.ties) for r in plain] == [(1, 1, 1), (2, 4, 3), (3, 4, 3), (4, 4, 3)]
    named = rank(failing, passing, named=F({a[2]}))
    assert [(r.line, r.rank) for r in named] == [(1, 1), (3, 2), (2, 4), (4, 4)]
    # evidence first: a line with evidence stays above a named one of equal score
    ev = {a[3]: (1, ("in the failing traceback",))}
    both = rank(failing, passing, evidence=ev, named=F({a[2]}))
    assert [(r.line, r.rank) for r in both] == [(1, 1), (4, 2), (3, 3), (2, 4)]
    # the higher score stays first even when another line is named
    assert rank(failing, passing, named=F({a[1]}))[0].line == 1


CSV = {
    "csvish/__init__.py": "",
    "csvish/fields.py": """
        def strip_all(parts):
            cleaned = [p.strip() for p in parts]
            return cleaned

        def count_fields(line):
            parts = line.split(",")
            cleaned = strip_all(parts)
            return len(cleaned) - 1
        """,
    "tests/test_fields.py": """
        from csvish.fields import count_fields

        def test_never_negative():
            assert count_fields("a") >= 0

        def test_count_fields_of_one_line():
            assert count_fields("a,b,c") == 3
        """,
}


@pytest.mark.slow
def test_the_function_the_failing_test_names_leads_its_tie(make_project):
    """Every line ran in both tests: the spectrum ties them all, and ``strip_all``, first
    in the file, would lead the tie; the failing test names ``count_fields``."""
    doc = localized(make_project, CSV, "tests/test_fields.py::test_count_fields_of_one_line")
    ranked = ranked_by_text(doc, "csvish/fields.py")
    helper = ranked["cleaned = [p.strip() for p in parts]"]
    named = ranked['parts = line.split(",")']
    assert helper["counts"] == named["counts"]
    note = "in count_fields, which the failing test's name names"
    assert note in named["evidence"] and note not in helper["evidence"]
    assert named["rank"] < helper["rank"]
    assert ranked["cleaned = strip_all(parts)"]["rank"] < helper["rank"]
