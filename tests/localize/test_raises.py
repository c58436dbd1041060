"""A test that expected an exception the code did not raise: the conditions in front of the
raises it expected are evidence among tied lines."""

from __future__ import annotations

import pytest

from tests.localize.helpers import localized
from truegreen.localize.raises import expected_exceptions


@pytest.mark.parametrize(
    ("excerpt", "names"),
    [
        ("E   Failed: DID NOT RAISE <class 'ValueError'>", {"ValueError"}),
        ("E   Failed: DID NOT RAISE ValueError", {"ValueError"}),
        ("E   Failed: DID NOT RAISE any of (KeyError, pkg.errors.Bad)", {"KeyError", "Bad"}),
        (
            "E   Failed: DID NOT RAISE (<class 'KeyError'>, <class 'pkg.errors.Bad'>)",
            {"KeyError", "Bad"},
        ),
        ("E   AssertionError: ValueError not raised", {"ValueError"}),
        ("E   AssertionError: TypeError not raised by parse", {"TypeError"}),
        ("E   AssertionError: assert 1 == 2", set()),
        ("E   ValueError: not raised here", set()),
    ],
)
def test_the_expected_exception_is_read_from_pytest_and_unittest_messages(excerpt, names):
    assert expected_exceptions("tests/test_x.py:3: in test_x\n" + excerpt) == names


BITS = {
    "bits/__init__.py": "",
    "bits/core.py": """
        class BitsError(ValueError):
            pass

        def make(val, len_):
            if val < 0:
                raise BitsError("negative")
            width = len_
            if val > 2 ** width:
                raise BitsError("too big")
            if val == 0:
                return "0" * width
            out = format(val, "b")
            return out.zfill(width)
        """,
    "tests/test_bits.py": """
        import pytest
        from bits.core import make

        def test_fits():
            assert make(3, 2) == "11"

        def test_too_big():
            with pytest.raises(ValueError):
                make(4, 2)
        """,
}


def _top(make_project, files, test_id):
    doc = localized(make_project, files, test_id)
    top = [r for r in doc["ranking"] if r["rank"] == doc["ranking"][0]["rank"]]
    return doc, top


@pytest.mark.slow
def test_the_conditions_of_the_raises_the_test_expected_lead_the_tie(make_project):
    """Both tests run every line but the raises: the spectrum ties them all. The failing
    test expected a ValueError (BitsError is one); the two conditions in front of a
    ``raise BitsError`` it ran without entering lead, the one of the fault among them;
    ``if val == 0`` guards no raise and stays behind."""
    doc, top = _top(make_project, BITS, "tests/test_bits.py::test_too_big")
    assert sorted(r["code"] for r in top) == ["if val < 0:", "if val > 2 ** width:"]
    assert all(
        r["evidence"] == ["decides the BitsError the test expected, which was not raised"]
        for r in top
    )
    by_code = {r["code"]: r for r in doc["ranking"]}
    assert by_code["if val == 0:"]["rank"] > top[0]["rank"]


@pytest.mark.slow
def test_unittest_assert_raises_is_read_the_same_way(make_project):
    files = dict(BITS)
    files["tests/test_bits.py"] = """
        import unittest
        from bits.core import make

        class TestBits(unittest.TestCase):
            def test_fits(self):
                self.assertEqual(make(3, 2), "11")

            def test_too_big(self):
                with self.assertRaises(ValueError):
                    make(4, 2)
        """
    _, top = _top(make_project, files, "tests/test_bits.py::TestBits::test_too_big")
    assert sorted(r["code"] for r in top) == ["if val < 0:", "if val > 2 ** width:"]
