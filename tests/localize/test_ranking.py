"""Ranking math on exact fractions: formulas, worst-case ties, evidence only inside ties."""

from __future__ import annotations

from fractions import Fraction

import pytest

from truegreen.localize.ranking import Counts, by_history, rank, score


@pytest.mark.parametrize(
    ("formula", "counts", "value", "text"),
    [
        # Ochiai is kept squared: ef^2 / ((ef+nf)(ef+ep))
        ("ochiai", Counts(ef=1, nf=0, ep=0, np=3), Fraction(1), "sqrt(1/1)"),
        ("ochiai", Counts(ef=1, nf=0, ep=3, np=0), Fraction(1, 4), "sqrt(1/4)"),
        ("ochiai", Counts(ef=2, nf=1, ep=1, np=5), Fraction(4, 9), "sqrt(4/9)"),
        ("ochiai", Counts(ef=0, nf=1, ep=1, np=0), Fraction(0), "sqrt(0/1)"),
        # DStar(2): ef^2 / (ep + nf)
        ("dstar", Counts(ef=2, nf=1, ep=3, np=0), Fraction(1), "1/1"),
        ("dstar", Counts(ef=3, nf=0, ep=2, np=0), Fraction(9, 2), "9/2"),
        # Tarantula: (ef/F) / (ef/F + ep/P)
        ("tarantula", Counts(ef=1, nf=1, ep=1, np=3), Fraction(2, 3), "2/3"),
        # no passing test at all: ep/P reads as 0
        ("tarantula", Counts(ef=1, nf=0, ep=0, np=0), Fraction(1), "1/1"),
    ],
)
def test_formula_values_are_exact(formula, counts, value, text):
    s = score(formula, counts)
    assert s.value == value and not s.infinite
    assert s.text() == text


def test_dstar_with_a_zero_denominator_is_the_largest_score():
    s = score("dstar", Counts(ef=2, nf=0, ep=0, np=4))
    assert s.infinite and s.text() == "inf"
    assert s.key() > score("dstar", Counts(ef=2, nf=0, ep=1, np=3)).key()


def test_scores_that_floats_would_tie_are_ordered_exactly():
    # 1/sqrt(3) vs 577/1000 squared: floats of the roots are within 1e-4; squares are exact
    a = score("ochiai", Counts(ef=1, nf=0, ep=2, np=0))
    assert a.value == Fraction(1, 3)
    assert a.key() > (0, Fraction(577, 1000) ** 2)


F = frozenset


def test_ties_get_the_worst_case_rank_and_their_size():
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 3)})]
    passing = [F({("a.py", 3)}), F({("a.py", 3)})]
    ranking = rank(failing, passing)
    top = [r for r in ranking if r.scores["ochiai"].value == 1]
    assert [(r.line, r.rank, r.ties) for r in top] == [(1, 2, 2), (2, 2, 2)]
    last = ranking[-1]
    assert (last.line, last.rank, last.ties) == (3, 3, 1)


def test_only_lines_a_failing_test_executed_are_ranked():
    ranking = rank([F({("a.py", 1)})], [F({("a.py", 1), ("b.py", 9)})])
    assert [(r.file, r.line) for r in ranking] == [("a.py", 1)]


def test_evidence_breaks_ties_but_never_overrides_a_score():
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 3)})]
    passing = [F({("a.py", 3)})]
    ev = {("a.py", 2): (4, ("crash frame",)), ("a.py", 3): (4, ("crash frame",))}
    ranking = rank(failing, passing, evidence=ev)
    assert [(r.line, r.rank, r.ties) for r in ranking] == [(2, 1, 1), (1, 2, 1), (3, 3, 1)]
    assert ranking[0].evidence_notes == ("crash frame",)


def test_a_condition_whose_branch_scores_higher_leads_its_tie_and_only_its_tie():
    # lines 1 (a condition) and 2 tie; the condition's branch, line 5, ran in the failing
    # test only; line 4 scores higher on its own and stays above the condition
    a = ("a.py", 1), ("a.py", 2), ("a.py", 4), ("a.py", 5)
    failing = [F(a)]
    passing = [F(a[:3]), F(a[:2])]
    plain = rank(failing, passing)
    assert [(r.line, r.rank) for r in plain] == [(5, 1), (4, 2), (1, 4), (2, 4)]
    ranking = rank(failing, passing, outcomes={a[0]: (a[3],), a[1]: ()})
    assert [(r.line, r.rank, r.ties) for r in ranking] == [
        (5, 1, 1),
        (4, 2, 1),
        (1, 3, 1),
        (2, 4, 1),
    ]
    assert ranking[2].evidence_notes == (
        "the branch to line 5 scores sqrt(1/1), above the condition",
    )
    # evidence still comes first among equal scores
    ev = {a[1]: (2, ("crash frame",))}
    ranking = rank(failing, passing, evidence=ev, outcomes={a[0]: (a[3],)})
    assert [r.line for r in ranking] == [5, 4, 2, 1]
    # a branch that scores no higher than its condition changes nothing
    ranking = rank(failing, passing, outcomes={a[0]: (a[1],)})
    assert [(r.line, r.rank, r.evidence_notes) for r in ranking][2:] == [(1, 4, ()), (2, 4, ())]


def test_multiple_failing_tests_formulas_disagree_and_the_chosen_one_orders():
    failing = [F({("m.py", 1), ("m.py", 2)}), F({("m.py", 1)})]
    passing = [*(F({("m.py", 1)}) for _ in range(3)), F({("m.py", 3)})]
    by_ochiai = rank(failing, passing, "ochiai")
    by_dstar = rank(failing, passing, "dstar")
    # m.py:1 ef=2 ep=3; m.py:2 ef=1 ep=0: Ochiai 4/10 vs 1/2; DStar 4/3 vs 1/1
    assert by_ochiai[0].line == 2
    assert by_dstar[0].line == 1


def test_the_crash_site_goes_first_and_nearness_breaks_ties_only():
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 3), ("a.py", 4)})]
    passing = [F({("a.py", 3)})]
    # a.py:3 ran in a passing test too (lower score) but is where the exception came from
    ranking = rank(failing, passing, first=F({("a.py", 3)}), order={("a.py", 2): 5})
    assert [(r.line, r.rank, r.ties) for r in ranking] == [
        (3, 1, 1),
        (2, 2, 1),
        (1, 4, 2),
        (4, 4, 2),
    ]
    # a guard of the crash site comes right after it, before every score
    ranking = rank(failing, passing, first=F({("a.py", 3)}), second=F({("a.py", 4)}))
    assert [(r.line, r.rank) for r in ranking][:2] == [(3, 1), (4, 2)]


def _near(tmp_path, failure):
    from truegreen.localize.engine import _near_crash, _Source
    from truegreen.localize.spectrum import Statements

    (tmp_path / "m.py").write_text(
        "def f(xs):\n"  # 1
        "    n = len(xs)\n"  # 2
        "    k = n + 1\n"  # 3
        "    return xs[k]\n"  # 4
        "\n"
        "def g(xs):\n"  # 6
        "    if not xs:\n"  # 7
        "        raise ValueError(xs)\n"  # 8
        "    return f(xs)\n"  # 9
        "\n"
        "def h():\n"  # 11
        "    return 1\n"  # 12
    )
    lines = frozenset(("m.py", n) for n in (2, 3, 4, 7, 8, 9, 12))
    return _near_crash([failure], Statements(tmp_path), _Source(tmp_path), lines)


def _frames(*lines):
    return [{"file": "m.py", "line": n, "function": "?", "project": True} for n in lines]


def test_near_crash_promotes_the_raising_statement_and_orders_by_distance(tmp_path):
    first, second, order = _near(tmp_path, {"type": "IndexError", "frames": _frames(9, 4)})
    assert first == {("m.py", 4)} and second == frozenset()
    # in the crashing function, nearest first; then the caller's function; h() not at all
    assert order[("m.py", 4)] > order[("m.py", 3)] > order[("m.py", 2)] > order[("m.py", 7)]
    assert order[("m.py", 7)] == order[("m.py", 9)]
    assert ("m.py", 12) not in order


def test_an_explicit_raise_or_a_recursion_error_is_not_put_first(tmp_path):
    first, second, _ = _near(tmp_path, {"type": "ValueError", "frames": _frames(8)})
    # the condition that let the `raise` run comes second
    assert first == frozenset() and second == {("m.py", 7)}
    first, second, _ = _near(tmp_path, {"type": "RecursionError", "frames": _frames(9, 4)})
    assert first == second == frozenset()


def test_a_call_into_the_tests_own_code_that_raised_is_not_a_crash_site(tmp_path):
    """A retry loop calls the test's function, which raises on purpose: the project line
    that made the call did not fail, so it is not put before every score (nor its guard);
    it is in the failing traceback like its callers."""
    from truegreen.localize.values import CRASH, TRACEBACK, evidence

    callback = {"file": "tests/test_m.py", "line": 5, "function": "flaky", "project": False}
    failure = {"type": "IndexError", "frames": [*_frames(9, 4), callback]}
    first, second, order = _near(tmp_path, failure)
    assert first == second == frozenset()
    assert order[("m.py", 4)] > order[("m.py", 3)]  # still the function that was running
    ev = evidence([failure], [], [])
    assert ev[("m.py", 4)] == (TRACEBACK, ("called the test code that raised",))
    # raised inside a library the project called (json.loads): still the crash site
    library = {**callback, "file": "<library>"}
    failure = {"type": "IndexError", "frames": [*_frames(9, 4), library]}
    assert _near(tmp_path, failure)[0] == {("m.py", 4)}
    assert evidence([failure], [], [])[("m.py", 4)] == (CRASH, ("crash frame",))


def test_headers_go_after_every_other_line_but_not_before_the_crash_site():
    # a.py:1 is a `def` only the failing test calls (ep=0), a.py:2 its body, a.py:5 a
    # statement a passing test runs too (lower score), a.py:3 a `try:`
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 3), ("a.py", 5)})]
    passing = [F({("a.py", 3), ("a.py", 5)}), F({("a.py", 3)})]
    headers = F({("a.py", 1), ("a.py", 3)})
    ranking = rank(failing, passing, headers=headers)
    assert [(r.line, r.rank, r.ties) for r in ranking] == [
        (2, 1, 1),
        (5, 2, 1),
        (1, 3, 1),
        (3, 4, 1),
    ]
    # without the set, the header ties with its body on score
    assert [r.line for r in rank(failing, passing)][:3] == [1, 2, 5]
    # the crash site and its guard keep their places, header or not
    ranking = rank(failing, passing, headers=headers, first=F({("a.py", 3)}))
    assert [r.line for r in ranking] == [3, 2, 5, 1]
    ranking = rank(failing, passing, headers=headers, second=F({("a.py", 1)}))
    assert [r.line for r in ranking] == [1, 2, 5, 3]


def test_a_line_every_passing_test_ran_does_not_outrank_a_header_by_being_a_body_line():
    # a.py:1 `def f(x=True):`, a default value only the failing test's call used (ep=0);
    # a.py:4 module code every test ran (np=0); a.py:2 the body, which a passing test ran
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 4)})]
    passing = [F({("a.py", 2), ("a.py", 4)}), F({("a.py", 4)})]
    headers = F({("a.py", 1)})
    ranking = rank(failing, passing, headers=headers)
    assert [(r.line, r.rank) for r in ranking] == [(2, 1), (1, 2), (4, 3)]
    # with no passing test at all, every line ran in all of them: headers go last again
    assert [r.line for r in rank(failing, [], headers=headers)] == [2, 4, 1]


def test_a_line_whose_mutants_made_the_failing_test_pass_leads_the_lines_of_its_kind():
    # a.py:1 scores highest; a.py:2 and a.py:3 lower, and were mutated
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 3)})]
    passing = [F({("a.py", 2), ("a.py", 3)}), F({("a.py", 9)})]
    passed = {("a.py", 2): Fraction(1, 2), ("a.py", 3): Fraction(7, 6)}
    assert [r.line for r in rank(failing, passing, mutation=passed)] == [3, 1, 2]
    # a score of 1/2 at most (changed the failure, made nothing pass) breaks ties only
    changed = {("a.py", 2): Fraction(0), ("a.py", 3): Fraction(1, 2)}
    assert [r.line for r in rank(failing, passing, mutation=changed)] == [1, 3, 2]
    # it does not pass the crash site
    assert [r.line for r in rank(failing, passing, mutation=passed, first=F({("a.py", 2)}))] == [
        2,
        3,
        1,
    ]


def test_history_splits_tie_groups_only():
    # a.py:1 and a.py:2 tie on every key; a.py:3 scores lower but changed most recently
    failing = [F({("a.py", 1), ("a.py", 2), ("a.py", 3)})]
    passing = [F({("a.py", 3)})]
    ranking = rank(failing, passing)
    assert [(r.line, r.rank, r.ties) for r in ranking] == [(1, 2, 2), (2, 2, 2), (3, 3, 1)]
    recent = {("a.py", 1): (100, "old"), ("a.py", 2): (200, "new"), ("a.py", 3): (300, "newest")}
    ordered = by_history(ranking, recent)
    assert [(r.line, r.rank, r.ties) for r in ordered] == [(2, 1, 1), (1, 2, 1), (3, 3, 1)]
    # the note is given where the history told lines apart, not to a line it did not order
    assert ordered[0].evidence_notes == ("new",) and ordered[1].evidence_notes == ("old",)
    assert ordered[2].evidence_notes == ()
    # a line without history goes after those with one; equal times stay tied
    ordered = by_history(ranking, {("a.py", 1): (100, "old")})
    assert [(r.line, r.rank, r.ties) for r in ordered] == [(1, 1, 1), (2, 2, 1), (3, 3, 1)]
    same = {("a.py", 1): (100, "x"), ("a.py", 2): (100, "x")}
    assert by_history(ranking, same) == ranking
    # a group further down keeps its places: ranks count from where the group starts
    failing = [F({("a.py", n) for n in range(1, 6)})]
    passing = [F({("a.py", 4), ("a.py", 5)}), F({("a.py", 1)}), F({("a.py", 1)})]
    ranking = rank(failing, passing)
    assert [(r.line, r.rank, r.ties) for r in ranking] == [
        (2, 2, 2),
        (3, 2, 2),
        (4, 4, 2),
        (5, 4, 2),
        (1, 5, 1),
    ]
    ordered = by_history(ranking, {("a.py", 5): (9, "n"), ("a.py", 4): (1, "o")})
    assert [(r.line, r.rank, r.ties) for r in ordered] == [
        (2, 2, 2),
        (3, 2, 2),
        (5, 3, 1),
        (4, 4, 1),
        (1, 5, 1),
    ]
