"""Which values are secrets: every value of a credential's name (``password``, ``api_key``,
``auth``...); under a name that is as often a lexer's or inspect's (``token``,
``signature``), only the strings that could be a credential; nothing else by name
("author" is not "auth"). The tracer and the scrubber of printed text agree."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import pytest

from tests.localize.helpers import localized
from truegreen.localize._tracer import truegreen_trace as tracer
from truegreen.localize.redact import REDACTED, Scrubber

CSRF = "9f8e7d6c5b4a39281706aa"
API = "abcDEF123456ghiJKLmno"


@pytest.fixture
def snapshot() -> Any:
    """The tracer's rendering of the locals of a frame, and the secrets it noted."""
    tracer._secrets.clear()

    def frame_of_locals() -> tuple[dict[str, Any], dict[str, int]]:
        password = "hunter2!"  # noqa: F841 (read from the frame)
        api_token = API  # noqa: F841
        csrf_token = CSRF  # noqa: F841
        token = {"type": "text", "raw": "[link]("}  # noqa: F841
        tokens = ["SELECT", "*", "FROM", "table_name"]  # noqa: F841
        author = "Jane Doe <jane@example.org>"  # noqa: F841
        authority = "user:pw@host"  # noqa: F841
        signature = "(a, b=1) -> int"  # noqa: F841
        settings = {"auth": "Basic dXNlcjpwdw==", "token": CSRF, "page": "[x]"}  # noqa: F841
        return tracer._snapshot(sys._getframe()), dict(tracer._secrets)

    yield frame_of_locals
    tracer._secrets.clear()


def test_a_credentials_name_redacts_its_value_whatever_it_holds(snapshot):
    out, noted = snapshot()
    assert out["password"] == REDACTED
    assert out["authority"] == REDACTED  # may hold user:password@host
    assert out["settings"]["items"]["auth"] == REDACTED
    assert hashlib.sha256(b"hunter2!").hexdigest() in noted


def test_under_token_or_signature_only_an_opaque_string_is_a_secret(snapshot):
    out, noted = snapshot()
    # credentials: long, no whitespace, brackets, quotes or markup
    assert out["api_token"] == REDACTED and out["csrf_token"] == REDACTED
    assert out["settings"]["items"]["token"] == REDACTED
    assert hashlib.sha256(CSRF.encode()).hexdigest() in noted
    # a lexer's tokens are text, and stay readable (and are not scrubbed from the report)
    assert out["token"]["items"] == {"type": "text", "raw": "[link]("}
    assert out["tokens"]["items"] == ["SELECT", "*", "FROM", REDACTED]
    assert hashlib.sha256(b"[link](").hexdigest() not in noted
    assert out["signature"] == "(a, b=1) -> int"
    # an author is not an auth; plain values under plain names are kept
    assert out["author"] == "Jane Doe <jane@example.org>"
    assert out["settings"]["items"]["page"] == "[x]"


def test_the_scrubber_reads_assignments_by_the_same_rules():
    s = Scrubber()
    text = s.text(
        f"token = '[link]('\ncsrf_token = '{CSRF}'\nauthor = 'Jane'\n"
        "auth = 'Basic xyz'\nsignature = '(a, b)'\npassword = 'abc'"
    )
    assert "token = '[link]('" in text and CSRF not in text
    assert "author = 'Jane'" in text and "Basic xyz" not in text
    assert "signature = '(a, b)'" in text and "'abc'" not in text
    assert text.count(REDACTED) == 3


LEXER = {
    "md/__init__.py": "",
    "md/lex.py": """
        def link(text):
            token = {"type": "link", "raw": text[:7]}
            return token["raw"].upper()
        """,
    "tests/test_lex.py": """
        from md.lex import link

        def test_link():
            assert link("[link](x)") == "[LINK]("

        def test_bad():
            assert link("[link](<a>)") == "[link]("
        """,
}


@pytest.mark.slow
def test_a_lexers_token_text_stays_in_the_failure_and_the_values(make_project):
    doc = localized(make_project, LEXER, "tests/test_lex.py::test_bad")
    assert "[LINK](" in doc["failure"]["message"] and REDACTED not in doc["failure"]["message"]
    assert REDACTED not in json.dumps(doc["values"])
    assert "[link](" in json.dumps(doc["values"])


@pytest.mark.slow
def test_a_credential_named_token_never_reaches_the_document(make_project):
    files = dict(LEXER)
    files["md/lex.py"] = f"""
        def link(text):
            access_token = "{API}"
            token = {{"type": "link", "raw": text[:7], "auth": access_token}}
            return token["raw"].upper()
        """
    doc = localized(make_project, files, "tests/test_lex.py::test_bad")
    assert API not in json.dumps(doc)
    assert "[link](" in json.dumps(doc["values"])
