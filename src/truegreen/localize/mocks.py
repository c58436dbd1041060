"""A test that failed on what the code did with a mock.

``mock.assert_called_once_with(...)`` fails with "expected call not found" (or "Expected
'prompt' to be called once", "Calls not found", ...) in the test's own frame: no project
line is on the traceback, and the value the test rejected is the mock's record of a call,
which the code never returned. The call was made by a project line: the tracer records,
for the watched tests, the project line each call of a ``unittest.mock`` object came from
(``mock_calls``). When the failure is about a mock, those lines are evidence among tied
lines: a wrong argument, a missing keyword, a call that should not have been made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from truegreen.localize.spectrum import Line, Statements

#: unittest.mock's own failure messages, and a test that reads a mock's record itself
_MOCK_FAILURE = re.compile(
    r"expected call not found|Calls not found|call not found"
    r"|does not contain all of .* in its call list"
    r"|Expected '[^']*' to (?:be|have been|not have been) (?:called|awaited)"
    r"|Expected (?:mock|call)s?:|Actual call:"
    r"|\.(?:assert_(?:called|any_call|has_calls|not_called|awaited)\w*"
    r"|call_args(?:_list)?|call_count|mock_calls|method_calls|await_args)\b"
)


def mock_failure(excerpt: str) -> bool:
    """Whether a failure's excerpt (message and traceback) is about a mock's calls."""
    return _MOCK_FAILURE.search(excerpt) is not None


def mock_call_lines(
    failing: Mapping[str, Any],
    stmts: Statements,
    accept: Callable[[str], bool] = lambda f: True,
) -> set[Line]:
    """The statements that called a mock object in the failing run."""
    out: set[Line] = set()
    for call in failing.get("mock_calls", ()):
        f = str(call.get("file"))
        if accept(f):
            out.add((f, stmts.line(f, int(call.get("line", 0)))))
    return out
