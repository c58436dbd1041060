"""Mutants of the changed lines (exam strength)."""

from __future__ import annotations

from truegreen.verify.mutate import mutants_for

SOURCE = """\
def cap(exponent, top, mult, base):
    if (
        mult > 0
        and top > 0
        and exponent
        > log(top, base)
        - log(mult, base)
    ):
        return top
    return min(mult * base**exponent, top)
"""


def test_a_comparison_the_fix_wrote_over_several_lines_is_mutated() -> None:
    """The fix changed lines 5-7, one comparison written over three lines: its operators
    are mutated (the strength was 'not measured' for such a fix)."""
    mutants = mutants_for("w.py", SOURCE, [5, 6, 7])
    described = {(m.line, m.description) for m in mutants}
    assert (5, "> -> >=") in described
    assert (6, "Sub -> Add") in described
    for m in mutants:
        compile(m.source, "w.py", "exec")  # every mutant is valid Python
        assert m.source != SOURCE


def test_an_expression_with_unchanged_lines_is_not_mutated() -> None:
    """The whole condition spans lines 3-7 of which only 5-7 changed: flipping its `and`
    would not be a mutant of the changed lines."""
    mutants = mutants_for("w.py", SOURCE, [5, 6, 7])
    assert not any(m.description == "And -> Or" for m in mutants)
    assert mutants_for("w.py", SOURCE, [10]) != []
    assert all(m.line == 10 for m in mutants_for("w.py", SOURCE, [10]))
