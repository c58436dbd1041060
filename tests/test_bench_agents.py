"""The agents benchmark's faulty statement: the first line of the statement holding the
mutated line, as the ranking names it (a multi-line header counts as one statement)."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from bench_agents import statement_start

from truegreen.localize.spectrum import Statements

SOURCE = textwrap.dedent(
    """\
    def f(a,
          b=True,
          c=None):
        if (
            a and
            b
        ):
            x = (1 +
                 2)
        elif (a or
              c):
            pass
        for i in range(
            3):
            pass
        with open(a,
                  b) as h:
            pass
        return x


    class C(object,
            metaclass=type):
        FLAG = True
    """
)


@pytest.mark.parametrize(
    ("line", "start"),
    [
        (2, 1), (3, 1),  # a default value: the def's header
        (5, 4), (6, 4),  # a condition over lines: the if
        (8, 8), (9, 8),  # a statement over lines
        (10, 10), (11, 10),  # elif
        (13, 13), (14, 13),  # for
        (16, 16), (17, 16),  # with
        (19, 19),
        (23, 22),  # class keywords
        (24, 24),
    ],
)  # fmt: skip
def test_a_line_maps_to_the_statement_the_ranking_names(
    line: int, start: int, tmp_path: Path
) -> None:
    assert statement_start(ast.parse(SOURCE), line) == start
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    assert Statements(tmp_path).line("m.py", line) == start
