"""A test that failed on what the code did with a mock: the project lines that called the
mock are evidence among tied lines."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import modern_python
from tests.localize.helpers import localized, ranked_in
from truegreen.localize import engine as eng
from truegreen.localize.mocks import mock_failure
from truegreen.localize.spectrum import Trace
from truegreen.project import open_project
from truegreen.run.pytest_run import run_pytest

PY = sys.executable


@pytest.mark.parametrize(
    ("excerpt", "about_a_mock"),
    [
        ("E   AssertionError: expected call not found.\nE   Expected: prompt('x')", True),
        ("E   AssertionError: Expected 'send' to be called once. Called 2 times.", True),
        ("E   AssertionError: Expected 'send' to have been called.", True),
        ("E   AssertionError: Expected 'send' to not have been called. Called 1 times.", True),
        ("E   AssertionError: Calls not found.\nE   Expected: [call(1)]", True),
        ("E   AssertionError: send(1) call not found", True),
        (
            "E   AssertionError: 'Path' does not contain all of (call('a'), call('b')) in its "
            "call list, found [call('a:b')] instead",
            True,
        ),
        ("    assert sender.call_count == 2\nE   assert 1 == 2", True),
        ("    assert fetch.call_args == call('a')\nE   AssertionError", True),
        ("E   assert 'expected' == 'actual'", False),
        ("E   AssertionError: the call count was wrong", False),
    ],
)
def test_a_failure_about_a_mock_is_told_from_its_excerpt(excerpt, about_a_mock):
    assert mock_failure(excerpt) is about_a_mock


NOTIFY = {
    "notify/__init__.py": "",
    "notify/mail.py": """
        def send(to, subject, body, retries=0):
            raise RuntimeError("no network in tests")
        """,
    "notify/core.py": """
        from notify import mail


        def alert(user, text):
            subject = "alert: " + text[:20]
            body = text
            address = user + "@example.org"
            mail.send(address, subject, body)
            return address
        """,
    "tests/test_notify.py": """
        from unittest import mock

        from notify.core import alert


        def test_alert_returns_the_address():
            with mock.patch("notify.mail.send"):
                assert alert("ann", "disk full") == "ann@example.org"


        def test_alert_retries_twice():
            with mock.patch("notify.mail.send") as send:
                alert("bob", "disk full")
            send.assert_called_once_with(
                "bob@example.org", "alert: disk full", "disk full", retries=2
            )
        """,
}


@pytest.mark.slow
def test_the_line_that_called_the_checked_mock_leads_its_tie(make_project):
    """Both tests run every line of ``alert``: the spectrum ties them. The failing test
    checks the mock's call (``retries=2`` is missing, the fault); the line that made that
    call leads the tie, the others stay tied behind it."""
    doc = localized(make_project, NOTIFY, "tests/test_notify.py::test_alert_retries_twice")
    core = ranked_in(doc, "notify/core.py")
    assert core[8]["rank"] == 1 and core[8]["ties"] == 1, doc["ranking"]
    assert core[8]["evidence"] == [
        "called the mock whose calls the test checks",
        "in alert, which the failing test's name names",
    ]
    assert core[5]["rank"] > 1 and core[5]["ties"] > 1  # subject = ...
    # the mocked module's own line never ran: not ranked
    assert all(r["file"] != "notify/mail.py" or r["line"] != 2 for r in doc["ranking"])


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["probe", "settrace", "monitoring"])
def test_every_engine_records_where_a_mock_was_called_from(make_project, engine, tmp_path):
    """Through a library too: the call is charged to the nearest project line."""
    files = dict(NOTIFY)
    files["notify/core.py"] = files["notify/core.py"].replace(
        "    mail.send(address, subject, body)",
        "    import functools\n\n            functools.partial(mail.send, address)(subject, body)",
    )
    root = make_project(files, use_git=False)
    python = modern_python(tmp_path) if engine == "monitoring" else PY
    out = tmp_path / "trace.json"
    cfg = tmp_path / "values.json"
    target = "tests/test_notify.py::test_alert_retries_twice"
    cfg.write_text(json.dumps({"tests": [target], "siblings": 0}))
    request = eng._request(
        open_project(root, python, "none"), [target], 60, tracer=out, engine=engine,
        values_cfg=cfg,
    )  # fmt: skip
    run_pytest(request)
    trace = Trace.from_json(json.loads(out.read_text()))
    assert trace.engine == engine
    assert trace.values[target]["mock_calls"] == [{"file": "notify/core.py", "line": 10}]
