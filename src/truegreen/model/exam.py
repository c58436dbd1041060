"""The sealed exam: the ``truegreen.exam/1`` document.

An exam is everything needed to re-run a failing test somewhere else and to know it is
the same test: its node id, the content of the test file and of the files it depends on
(conftest.py files on its path, test-local helper modules), the base revision, the
environment and exact command it was sealed with, and every sealing run's result.

Its ``id`` is derived from its content (``"ex-" + sha256(canonical content)[:16]``), so
changing one byte of a file, an outcome or a flag gives another id. Run durations are
measurements, not content: they are kept in the document but left out of the id.
:meth:`Exam.check_integrity` re-derives every hash and the id; every use of an exam
calls it and fails closed (:class:`~truegreen.errors.IntegrityError`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from truegreen import canonical
from truegreen.errors import IntegrityError, UsageError

SCHEMA: Final = "truegreen.exam/1"

#: What an exam id looks like: valid in a branch name, a file name and a URL.
EXAM_ID = re.compile(r"^ex-[0-9a-f]{16}$")

#: Outcomes as the runner reports them (DESIGN.md, truegreen.run/1).
Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "no_report"]

_SHA256 = r"^[0-9a-f]{64}$"
#: A full commit id: SHA-1 (40) or SHA-256 (64) repositories.
_REV = r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$"

_HINT = (
    "the exam was edited after it was sealed: seal it again, or import it from a bundle "
    "you trust (`truegreen exams import FILE`)"
)


def _check_rel_path(value: str) -> str:
    """A path relative to the repository root, with forward slashes, inside the root."""
    parts = value.split("/")
    if (
        not value
        or value.startswith("/")
        or "\\" in value
        or re.match(r"^[A-Za-z]:", value)
        or any(p in ("", ".", "..") for p in parts)
    ):
        raise ValueError(
            f"{value!r} is not a path relative to the repository root with forward slashes"
        )
    return value


class _Record(BaseModel):
    # strict: no coercion, so the stored JSON is exactly what was hashed; forbid: a field
    # the id does not cover is never silently carried along.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def _content_not_required(schema: dict[str, Any]) -> None:
    # The stored document always has the content; the one commands print for a hidden
    # exam (Exam.public_json) leaves it out, and the published schema says so.
    schema["required"] = [k for k in schema["required"] if k != "content"]


class ExamFile(_Record):
    """One file of the exam: its path, content and the sha256 of its UTF-8 bytes."""

    model_config = ConfigDict(json_schema_extra=_content_not_required)

    path: str
    sha256: str = Field(pattern=_SHA256)
    content: str = Field(
        description="the file's text; left out of a hidden exam's document as commands "
        "print it (check a copy against sha256)"
    )

    _path = field_validator("path")(_check_rel_path)

    @classmethod
    def of(cls, path: str, content: str | bytes) -> ExamFile:
        """The file at ``path`` with ``content`` (bytes are decoded as UTF-8, newlines kept).

        Read files as bytes (``Path.read_bytes``): ``read_text`` would turn CRLF into LF
        and the hash would no longer be the file's.
        """
        if isinstance(content, bytes):
            try:
                content = content.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UsageError(
                    f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})",
                    hint="an exam can only hold UTF-8 text files; re-encode the file",
                ) from None
        return cls(path=path, sha256=canonical.sha256_text(content), content=content)


class ExamRun(_Record):
    """One sealing run of the test: its outcome and failure signature.

    ``duration`` (seconds, rounded to milliseconds) is informational: not part of the id.
    """

    outcome: Outcome
    signature: str | None = None
    duration: float | None = None

    @field_validator("duration")
    @classmethod
    def _round(cls, value: float | None) -> float | None:
        return None if value is None else round(value, 3)


class ExamEnvironment(_Record):
    """Where the exam was sealed: enough to tell "the same environment" from another."""

    #: the Python version, as ``platform.python_version()`` there
    python: str
    #: pytest's version there
    pytest: str
    #: :func:`distributions_digest` of the installed distributions
    distributions_sha256: str = Field(pattern=_SHA256)
    #: the interpreter's path as given (informational: it differs between machines)
    interpreter: str


class IssueReport(_Record):
    """The bug report an exam was sealed for (``seal --issue-file``): enough to tell that
    a report is the one, not the report itself."""

    #: sha256 of the report file's bytes
    sha256: str = Field(pattern=_SHA256)
    #: its first non-blank line, without a Markdown heading's ``#``s (at most 200 characters)
    title: str = Field(min_length=1, max_length=200)


class Exam(_Record):
    """A sealed exam (``truegreen.exam/1``). Build one with :meth:`Exam.create`."""

    schema_: Literal["truegreen.exam/1"] = Field(default=SCHEMA, alias="schema")
    id: str = Field(pattern=EXAM_ID.pattern)
    #: the pytest node id, relative to the repository root
    test: str
    #: the test file, relative to the repository root (the node id's file part)
    path: str
    #: sha256 of the test file's content (the entry of ``files`` at ``path``)
    sha256: str = Field(pattern=_SHA256)
    #: the test file, conftest.py files on its path and test-local helper modules
    files: list[ExamFile] = Field(min_length=1)
    #: the full commit id of the base the exam was sealed against
    rev: str = Field(pattern=_REV)
    #: the repository's identity (a normalized origin URL, or the root directory's name)
    repo: str = Field(min_length=1)
    #: the failure signature the exam fails with on the base
    signature: str | None
    #: hidden from fixers: no command prints its files' content (:meth:`public_json`), and
    #: a bundle carries it only encoded, marked hidden (:mod:`truegreen.exam.bundle`)
    hidden: bool = False
    #: every sealing run, in order
    runs: list[ExamRun] = Field(min_length=1)
    #: the exact argv the runs used
    command: list[str] = Field(min_length=1)
    environment: ExamEnvironment
    #: the issue the exam is for: a number or a free-text reference
    issue: int | str | None = None
    #: the bug report it was sealed with (``seal --issue-file``). Added after version 1
    #: first shipped: absent from the document (and so from the id) when there is none,
    #: so the exams sealed before keep their ids.
    issue_report: IssueReport | None = None

    model_config = ConfigDict(populate_by_name=True)

    _path = field_validator("path")(_check_rel_path)

    def __hash__(self) -> int:
        # Equal exams have equal ids (the id is derived from the content).
        return hash(self.id)

    # -- building -----------------------------------------------------------------

    @classmethod
    def create(
        cls,
        *,
        test: str,
        files: Mapping[str, str | bytes] | Iterable[ExamFile],
        rev: str,
        repo: str,
        signature: str | None,
        runs: Sequence[ExamRun | Mapping[str, Any]],
        command: Sequence[str],
        environment: ExamEnvironment | Mapping[str, Any],
        hidden: bool = False,
        issue: int | str | None = None,
        issue_report: IssueReport | Mapping[str, Any] | None = None,
    ) -> Exam:
        """Build an exam and derive its hashes and id.

        ``files`` maps paths (relative to the repository root) to contents, and must
        include the test file, the file part of ``test``. Files are kept sorted by path.
        Invalid input raises :class:`~truegreen.errors.UsageError`.
        """
        path = test.split("::", 1)[0]
        if "::" not in test or not path:
            raise UsageError(
                f"{test!r} is not a pytest node id",
                hint="give it as path/to/test_file.py::test_name, relative to the repository root",
            )
        try:
            if isinstance(files, Mapping):
                entries = [ExamFile.of(p, c) for p, c in files.items()]
            else:
                entries = list(files)
            entries.sort(key=lambda f: f.path)
            by_path = {f.path: f for f in entries}
            if len(by_path) != len(entries):
                raise UsageError("the exam lists a file twice", hint="give each path once")
            if path not in by_path:
                raise UsageError(
                    f"the exam's files do not include its test file {path}",
                    hint="pass the test file's content along with its conftest.py files",
                )
            env = (
                environment
                if isinstance(environment, ExamEnvironment)
                else ExamEnvironment.model_validate(dict(environment))
            )
            run_list = [
                r if isinstance(r, ExamRun) else ExamRun.model_validate(dict(r)) for r in runs
            ]
            fields: dict[str, Any] = {
                "schema": SCHEMA,
                "test": test,
                "path": path,
                "sha256": by_path[path].sha256,
                "files": entries,
                "rev": rev,
                "repo": repo,
                "signature": signature,
                "hidden": hidden,
                "runs": run_list,
                "command": list(command),
                "environment": env,
                "issue": issue,
            }
            if issue_report is not None:
                fields["issue_report"] = (
                    issue_report
                    if isinstance(issue_report, IssueReport)
                    else IssueReport.model_validate(dict(issue_report))
                )
            draft = cls.model_validate({**fields, "id": "ex-" + "0" * 16})
        except ValidationError as exc:
            raise UsageError(f"cannot seal this exam: {_first_error(exc)}") from None
        return draft.model_copy(update={"id": draft.compute_id()})

    # -- JSON -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The ``truegreen.exam/1`` document, ``id`` included."""
        doc = self.model_dump(mode="json", by_alias=True)
        if doc["issue_report"] is None:
            del doc["issue_report"]  # a later, optional field: absent, not null (see above)
        return doc

    def public_json(self) -> dict[str, Any]:
        """The document as commands print it: a hidden exam's files without their
        ``content`` (each keeps its ``path`` and ``sha256``, which a copy can be checked
        against). Never parsed back: :meth:`to_json` is the stored document."""
        doc = self.to_json()
        if self.hidden:
            for f in doc["files"]:
                del f["content"]
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> Exam:
        """Parse a ``truegreen.exam/1`` document and check its integrity (fails closed)."""
        if not isinstance(doc, dict):
            raise IntegrityError("an exam document must be a JSON object", hint=_HINT)
        if doc.get("schema") != SCHEMA:
            raise IntegrityError(
                f"not a {SCHEMA} document (schema: {doc.get('schema')!r})",
                hint="export exams with `truegreen exams export`",
            )
        try:
            exam = cls.model_validate(doc)
        except ValidationError as exc:
            ref = doc.get("id") if isinstance(doc.get("id"), str) else "?"
            raise IntegrityError(
                f"exam {ref} is not a valid {SCHEMA} document: {_first_error(exc)}", hint=_HINT
            ) from None
        exam.check_integrity()
        return exam

    # -- integrity ------------------------------------------------------------------

    def content(self) -> dict[str, Any]:
        """What the id covers: the whole document but ``id`` and run durations."""
        doc = self.to_json()
        del doc["id"]
        for run in doc["runs"]:
            del run["duration"]
        return doc

    def compute_id(self) -> str:
        return "ex-" + canonical.digest(self.content())[:16]

    def check_integrity(self) -> None:
        """Raise :class:`IntegrityError` unless every hash and the id match the content."""
        for f in self.files:
            actual = canonical.sha256_text(f.content)
            if actual != f.sha256:
                raise IntegrityError(
                    f"exam {self.id}: {f.path} does not match its sha256 "
                    f"(recorded {f.sha256[:12]}, content {actual[:12]})",
                    hint=_HINT,
                )
        paths = [f.path for f in self.files]
        if len(set(paths)) != len(paths):
            raise IntegrityError(f"exam {self.id} lists a file twice", hint=_HINT)
        test_file = next((f for f in self.files if f.path == self.path), None)
        if test_file is None:
            raise IntegrityError(
                f"exam {self.id} does not hold its test file {self.path}", hint=_HINT
            )
        if test_file.sha256 != self.sha256:
            raise IntegrityError(
                f"exam {self.id}: sha256 does not match its test file {self.path}", hint=_HINT
            )
        if self.test.split("::", 1)[0] != self.path or "::" not in self.test:
            raise IntegrityError(
                f"exam {self.id}: test {self.test!r} is not in its file {self.path}", hint=_HINT
            )
        expected = self.compute_id()
        if expected != self.id:
            raise IntegrityError(
                f"exam {self.id} does not match its content (its content hashes to {expected})",
                hint=_HINT,
            )

    def file(self, path: str) -> ExamFile:
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)


def distributions_digest(distributions: Iterable[tuple[str, str]]) -> str:
    """A fingerprint of installed distributions: sha256 over sorted ``name==version`` lines.

    Names are normalized as in PEP 503 (lower case, runs of ``-_.`` as ``-``), so the same
    set of installed packages gives the same digest however it was listed.
    """
    lines = sorted({f"{re.sub(r'[-_.]+', '-', n).lower()}=={v}" for n, v in distributions})
    return canonical.sha256_text("\n".join(lines) + "\n")


def _first_error(exc: ValidationError) -> str:
    e = exc.errors()[0]
    where = ".".join(str(p) for p in e["loc"]) or "document"
    return f"{where}: {e['msg']}"
