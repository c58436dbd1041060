"""Fixtures for the exam store: exams built in memory, ledgers in temporary directories."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require, requirement
from truegreen.exam import db
from truegreen.exam.store import Ledger
from truegreen.model.exam import Exam, distributions_digest

TEST_FILE = "def test_total():\n    assert total([1, 2]) == 3\n"


def exam_fields(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "test": "tests/test_total.py::test_total",
        "files": {
            "tests/test_total.py": TEST_FILE,
            "tests/conftest.py": "import pytest\n",
        },
        "rev": "a" * 40,
        "repo": "github.com/acme/invoices",
        "signature": "AssertionError@src/total.py:total#1a2b3c",
        "runs": [{"outcome": "failed", "signature": "AssertionError@src/total.py:total#1a2b3c"}]
        * 3,
        "command": ["python", "-m", "pytest", "tests/test_total.py::test_total"],
        "environment": {
            "python": "3.11.2",
            "pytest": "8.3.1",
            "distributions_sha256": distributions_digest([("pytest", "8.3.1")]),
            "interpreter": "/usr/bin/python3",
        },
        "issue": 42,
    }
    fields.update(overrides)
    return fields


@pytest.fixture
def make_exam() -> Callable[..., Exam]:
    """``make_exam(test=..., ...)``: a valid exam; any field can be overridden."""

    def make(**overrides: Any) -> Exam:
        return Exam.create(**exam_fields(**overrides))

    return make


@pytest.fixture
def ledger() -> Iterator[Ledger]:
    """A ledger in SQLite in the (temporary) data directory."""
    with Ledger() as led:
        yield led


def db_file() -> Path:
    return db.data_dir() / "truegreen.db"


def tamper_sqlite(path: Path, *statements: str) -> None:
    """Edit the database file as an attacker would: drop the guards, edit, put them back."""
    con = sqlite3.connect(path)
    try:
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            con.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            con.execute(statement)
        for statement in db.guard_statements("sqlite"):
            con.execute(statement)
        con.commit()
    finally:
        con.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema, dropped afterwards.

    CI and developers share the server, so every test gets its own schema.
    """
    require(*requirement("postgres"))
    import psycopg

    schema = f"tg_test_{uuid.uuid4().hex[:12]}"
    admin = "postgresql://postgres@127.0.0.1:5432/test"
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute(f"DROP SCHEMA {schema} CASCADE")
