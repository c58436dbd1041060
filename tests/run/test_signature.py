"""The one normalisation behind every signature, and the legacy signature old exams carry."""

from __future__ import annotations

import pytest

from truegreen.run.signature import (
    Frame,
    legacy_signature,
    make_signature,
    normalize_message,
    signature_message,
)

TEST = Frame("tests/test_x.py", 5, "test_x")
HELPER = Frame("tests/test_x.py", 9, "check")
EXPLAINED = (
    "assert [3, 2, 3] == [2, 2, 3]\n  \n  At index 0 diff: 3 != 2\n  Use -v to get more diff"
)

MESSAGES = [
    # -- a rewritten assertion: what every report shows, not the comparison's explanation
    ("explanation dropped", "AssertionError", EXPLAINED, "assert [3, 2, 3] == [2, 2, 3]"),
    (
        "-v's full diff dropped too",
        "AssertionError",
        "assert [3] == [2]\n  \n  At index 0 diff: 3 != 2\n  \n  Full diff:\n  - [2]\n  + [3]",
        "assert [3] == [2]",
    ),
    (
        "where lines kept",
        "AssertionError",
        "assert 4 == 3\n +  where 4 = add(1, 2)\n +    and 3 = three()",
        "assert 4 == 3\n +  where 4 = add(1, 2)\n +    and 3 = three()",
    ),
    (
        "the assertion's own message kept, all its lines",
        "AssertionError",
        "add is off\n  by one\nassert 5 == 4\n  \n  some explanation",
        "add is off\n  by one\nassert 5 == 4",
    ),
    ("builtins. prefix", "builtins.AssertionError", EXPLAINED, "assert [3, 2, 3] == [2, 2, 3]"),
    # -- anything else: the whole message
    (
        "unittest's message has no assert line",
        "AssertionError",
        "Lists differ: [1] != [2]\n\nFirst differing element 0:\n1\n2",
        "Lists differ: [1] != [2]\n\nFirst differing element 0:\n1\n2",
    ),
    (
        "an indented assert is not pytest's",
        "AssertionError",
        "checks failed:\n  assert x\n  detail",
        "checks failed:\n  assert x\n  detail",
    ),
    ("another type", "ValueError", "bad\nassert 1 == 2\nmore", "bad\nassert 1 == 2\nmore"),
    ("notes stay", "ValueError", "boom\nwhile reading item 7", "boom\nwhile reading item 7"),
]


@pytest.mark.parametrize(
    "etype, message, kept", [r[1:] for r in MESSAGES], ids=[r[0] for r in MESSAGES]
)
def test_signature_message(etype, message, kept):
    assert signature_message(etype, message) == kept


def test_an_explanation_does_not_change_the_signature_but_the_assert_line_does():
    short = (
        "assert [3, 2, 3] == [2, 2, 3]\n  \n  At index 0 diff: 3 != 2\n  Use -v to get more diff"
    )
    full = "assert [3, 2, 3] == [2, 2, 3]\n  \n  Full diff:\n  - [2, 2, 3]\n  + [3, 2, 3]"
    assert make_signature("AssertionError", short, [TEST]) == make_signature(
        "AssertionError", full, [TEST]
    )
    assert make_signature("AssertionError", "assert 'ab' == 'ac'", [TEST]) != make_signature(
        "AssertionError", "assert 'ab' == 'ad'", [TEST]
    )


def test_a_hidden_frame_is_not_the_signatures():
    hidden = Frame(HELPER.path, HELPER.line, HELPER.function, hidden=True)
    sig = make_signature("AssertionError", "assert 2 == 1", [TEST, hidden])
    assert sig == make_signature("AssertionError", "assert 2 == 1", [TEST])
    assert sig.startswith("AssertionError@tests/test_x.py:test_x#")
    # all hidden: better the deepest of them than none
    assert make_signature("ValueError", "x", [hidden]).startswith(
        "ValueError@tests/test_x.py:check#"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/home/runner/work/shop/shop/data/x.txt",
        "/home/travis/build/org/shop/data/x.txt",
        "/builds/org/shop/data/x.txt",
        "/github/workspace/data/x.txt",
    ],
)
def test_a_ci_checkout_in_a_message_reads_as_the_root(path):
    assert normalize_message(f"No such file: '{path}'") == "No such file: 'data/x.txt'"
    assert normalize_message("No such file: '/srv/x/data/x.txt'", "/srv/x") == (
        "No such file: 'data/x.txt'"
    )


#: what truegreen computed before the normalisation (pinned: exams sealed then carry these)
LEGACY = [
    ("AssertionError", EXPLAINED, [TEST], "AssertionError@tests/test_x.py:test_x#97a4d17215eb"),
    (
        "AssertionError",
        "assert 2 == 1",
        [TEST, Frame(HELPER.path, HELPER.line, HELPER.function, hidden=True)],
        "AssertionError@tests/test_x.py:check#521e23dcc5be",
    ),
    (
        "FileNotFoundError",
        "[Errno 2] No such file or directory: '/home/runner/work/a/a/data/x.txt'",
        [TEST],
        "FileNotFoundError@tests/test_x.py:test_x#36da6ae2eac6",
    ),
    ("ValueError", "boom", [TEST], "ValueError@tests/test_x.py:test_x#50f90d893055"),
]


@pytest.mark.parametrize("etype, message, frames, old", LEGACY)
def test_legacy_signature_is_the_one_made_before(etype, message, frames, old):
    assert legacy_signature(etype, message, frames) == old
    new = make_signature(etype, message, frames)
    # only what the normalisation changed differs
    assert (new == old) == (etype == "ValueError")
