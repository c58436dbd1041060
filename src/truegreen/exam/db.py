"""The database under the ledger: where it is, its schema and migrations, transactions.

The only module that knows SQL dialects. SQLite by default (``<data dir>/truegreen.db``),
PostgreSQL with the same code through ``--db URL`` / ``TRUEGREEN_DB``
(``postgresql+psycopg://user@host:5432/db``).

Schema (version 1; the DDL is in :func:`_v1`):

    schema_version(version)          one row: the schema version below
    ledger(seq, kind, payload, payload_sha256, prev_hash, entry_hash, recorded_at)
        seq            1, 2, 3, ... without gaps, assigned by the appender
        kind           exam.sealed | exam.imported | verification | ...
        payload        canonical JSON text (truegreen.canonical.dumps)
        payload_sha256 sha256 of the payload's UTF-8 bytes
        prev_hash      entry_hash of entry seq-1 (64 zeros for entry 1); UNIQUE, so two
                       appenders racing on the same head cannot both win
        entry_hash     digest({"seq", "kind", "payload_sha256", "prev_hash"}); UNIQUE
        recorded_at    UTC time of the append: informational, NOT covered by any hash
    exams(id, seq, repo, test, rev, hidden, signature, issue)
        an index of the exams in the ledger: exam id -> the entry that holds it (seq)

Both ledger and exams are append-only: triggers in the database refuse UPDATE and DELETE
(and TRUNCATE on PostgreSQL), whoever runs them.

If you change the schema: add a function to MIGRATIONS that takes version N to N+1,
increment SCHEMA_VERSION, and describe the change above. A database whose version is
newer than SCHEMA_VERSION is refused (StoreError): an older truegreen must not write it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url

from truegreen.errors import StoreError

SCHEMA_VERSION = 1

#: The tables the append-only triggers guard.
GUARDED = ("ledger", "exams")

# An arbitrary constant: the PostgreSQL advisory lock taken while migrating.
_MIGRATION_LOCK = 0x7472_7565_6772  # "truegr"

metadata = sa.MetaData()

ledger_table = sa.Table(
    "ledger",
    metadata,
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("payload_sha256", sa.Text, nullable=False),
    sa.Column("prev_hash", sa.Text, nullable=False),
    sa.Column("entry_hash", sa.Text, nullable=False),
    sa.Column("recorded_at", sa.Text),
)

exams_table = sa.Table(
    "exams",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("repo", sa.Text, nullable=False),
    sa.Column("test", sa.Text, nullable=False),
    sa.Column("rev", sa.Text, nullable=False),
    sa.Column("hidden", sa.Boolean, nullable=False),
    sa.Column("signature", sa.Text),
    sa.Column("issue", sa.Text),
)


# -- where ------------------------------------------------------------------------------


def data_dir() -> Path:
    """``$TRUEGREEN_HOME``, else the platform's user data directory."""
    home = os.environ.get("TRUEGREEN_HOME")
    if home:
        return Path(home).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("truegreen", appauthor=False))


def resolve_url(url: str | None) -> URL:
    """An explicit URL, else ``$TRUEGREEN_DB``, else SQLite in the data directory.

    A bare path is a SQLite file; ``postgresql://`` means the psycopg (3) driver.
    """
    text = url or os.environ.get("TRUEGREEN_DB") or ""
    if not text:
        home = data_dir()
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the data directory {home}: {exc.strerror}",
                hint="set TRUEGREEN_HOME to a writable directory",
            ) from None
        return URL.create("sqlite", database=str(home / "truegreen.db"))
    if "://" not in text:
        return URL.create("sqlite", database=str(Path(text).expanduser()))
    try:
        parsed = make_url(text)
    except Exception:
        raise StoreError(
            f"{text!r} is not a database URL",
            hint="give sqlite:///path/to/file.db or postgresql+psycopg://user@host:5432/db",
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StoreError(
            f"unsupported database {parsed.get_backend_name()!r} in {describe(parsed)}",
            hint="use SQLite (the default) or PostgreSQL (postgresql+psycopg://...)",
        )
    return parsed


def describe(url: URL) -> str:
    """The URL for messages, without its password."""
    return url.render_as_string(hide_password=True)


def create_engine(url: URL) -> Engine:
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            parent = Path(url.database).parent
            if not parent.is_dir():
                raise StoreError(
                    f"cannot open the ledger {url.database}: {parent} does not exist",
                    hint="create the directory, or give another database",
                    field="db",
                )
        engine = sa.create_engine(url)
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    try:
        return sa.create_engine(url, connect_args={"connect_timeout": 10}, pool_pre_ping=True)
    except ImportError as exc:
        raise StoreError(
            f"cannot use {describe(url)}: {exc}",
            hint="install the PostgreSQL driver: pip install 'truegreen[postgres]'",
        ) from None


def _sqlite_connect(dbapi_conn: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event emit BEGIN, so writers can take the lock up front
    # (BEGIN IMMEDIATE) instead of upgrading a read lock and failing with "locked".
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout = 30000")
    cur.execute("PRAGMA foreign_keys = ON")
    cur.close()


def _sqlite_begin(conn: Connection) -> None:
    write = conn.get_execution_options().get("truegreen_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


# -- transactions -----------------------------------------------------------------------


@contextmanager
def translate(url: URL) -> Iterator[None]:
    """Database errors become StoreError naming the database; nothing else is touched."""
    try:
        yield
    except sa.exc.DBAPIError as exc:
        detail = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else str(exc)
        if "file is not a database" in detail or "malformed" in detail:
            raise StoreError(
                f"{describe(url)} is not a truegreen ledger, or is damaged ({detail})",
                hint="give the right database; restore the file from a backup",
                field="db",
            ) from None
        if isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError):
            raise StoreError(
                f"cannot use the database {describe(url)}: {detail}",
                hint="check the database URL (or TRUEGREEN_DB) and that the server is running",
                field="db",
            ) from None
        raise StoreError(
            f"the database {describe(url)} refused an operation: {detail}",
            hint="run `truegreen ledger verify` to check the ledger",
        ) from None


@contextmanager
def read(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn, conn.begin():
        yield conn


@contextmanager
def write(engine: Engine) -> Iterator[Connection]:
    """A transaction that holds the ledger's write lock: appends are serialized.

    Leaving the block by any exception, KeyboardInterrupt included, rolls back.
    """
    with engine.connect() as conn:
        conn.execution_options(truegreen_write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                # Conflicts with itself and with INSERT, not with readers.
                conn.exec_driver_sql("LOCK TABLE ledger IN SHARE ROW EXCLUSIVE MODE")
            yield conn


# -- schema and migrations --------------------------------------------------------------


def _v1(dialect: str) -> list[str]:
    seq = "BIGINT" if dialect == "postgresql" else "INTEGER"
    hidden = "BOOLEAN"
    statements = [
        f"""CREATE TABLE ledger (
            seq            {seq} PRIMARY KEY CHECK (seq > 0),
            kind           TEXT NOT NULL,
            payload        TEXT NOT NULL,
            payload_sha256 TEXT NOT NULL,
            prev_hash      TEXT NOT NULL UNIQUE,
            entry_hash     TEXT NOT NULL UNIQUE,
            recorded_at    TEXT
        )""",
        f"""CREATE TABLE exams (
            id        TEXT PRIMARY KEY,
            seq       {seq} NOT NULL UNIQUE REFERENCES ledger (seq),
            repo      TEXT NOT NULL,
            test      TEXT NOT NULL,
            rev       TEXT NOT NULL,
            hidden    {hidden} NOT NULL,
            signature TEXT,
            issue     TEXT
        )""",
        "CREATE INDEX exams_by_repo ON exams (repo)",
    ]
    return statements + guard_statements(dialect)


def guard_statements(dialect: str) -> list[str]:
    """The triggers that make ``ledger`` and ``exams`` append-only."""
    if dialect == "postgresql":
        statements = [
            """CREATE OR REPLACE FUNCTION truegreen_append_only() RETURNS trigger
            LANGUAGE plpgsql AS $fn$
            BEGIN
                RAISE EXCEPTION USING MESSAGE = 'truegreen: ' || TG_OP || ' on ' || TG_TABLE_NAME
                    || ' refused: the ledger is append-only';
            END
            $fn$"""
        ]
        for table in GUARDED:
            statements += [
                f"""CREATE OR REPLACE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
                FOR EACH ROW EXECUTE FUNCTION truegreen_append_only()""",
                f"""CREATE OR REPLACE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
                FOR EACH STATEMENT EXECUTE FUNCTION truegreen_append_only()""",
            ]
        return statements
    statements = []
    for table in GUARDED:
        for op in ("UPDATE", "DELETE"):
            statements.append(
                f"""CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table}
                BEGIN
                    SELECT RAISE(ABORT, 'truegreen: {op} on {table} refused: the ledger is append-only');
                END"""
            )
    return statements


def guard_names(dialect: str) -> set[str]:
    if dialect == "postgresql":
        return {f"{t}_{kind}" for t in GUARDED for kind in ("append_only", "no_truncate")}
    return {f"{t}_no_{op}" for t in GUARDED for op in ("update", "delete")}


def missing_guards(conn: Connection) -> list[str]:
    """The append-only triggers that are not in the database (someone dropped them)."""
    dialect = conn.dialect.name
    if dialect == "postgresql":
        rows = conn.execute(
            sa.text(
                "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE c.oid IN (to_regclass('ledger'), to_regclass('exams')) AND NOT t.tgisinternal"
            )
        )
    else:
        rows = conn.execute(sa.text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
    present = {r[0] for r in rows}
    return sorted(guard_names(dialect) - present)


#: MIGRATIONS[n] takes the schema from version n to n+1.
MIGRATIONS: list[Callable[[str], list[str]]] = [_v1]
assert len(MIGRATIONS) == SCHEMA_VERSION


def _version(conn: Connection) -> int:
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    value = conn.execute(sa.text("SELECT MAX(version) FROM schema_version")).scalar()
    return int(value or 0)


def _check_not_newer(version: int, url: URL) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the ledger {describe(url)} has schema version {version}, newer than this "
            f"truegreen knows ({SCHEMA_VERSION})",
            hint="upgrade truegreen to read it",
        )


def migrate(engine: Engine, url: URL) -> None:
    """Bring the schema to SCHEMA_VERSION (creating it in an empty database), atomically."""
    with translate(url):
        with read(engine) as conn:
            version = _version(conn)
        _check_not_newer(version, url)
        if version == SCHEMA_VERSION:
            return
        with engine.connect() as conn:
            conn.execution_options(truegreen_write=True)
            with conn.begin():
                dialect = conn.dialect.name
                if dialect == "postgresql":
                    conn.execute(
                        sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK}
                    )
                version = _version(conn)  # again: someone may have migrated meanwhile
                _check_not_newer(version, url)
                if version == 0:
                    conn.exec_driver_sql("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                    conn.exec_driver_sql("INSERT INTO schema_version (version) VALUES (0)")
                for step in MIGRATIONS[version:]:
                    for statement in step(dialect):
                        conn.exec_driver_sql(statement)
                conn.execute(
                    sa.text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION}
                )


def restore_guards(engine: Engine, url: URL) -> None:
    """Re-create missing append-only triggers (after someone dropped them)."""
    with translate(url), write(engine) as conn:
        for statement in guard_statements(conn.dialect.name):
            conn.exec_driver_sql(statement)
