"""What truegreen reads from GitHub, as typed records made from the REST API's JSON (only
the fields truegreen uses; ``raw`` keeps the rest), and the issues a pull request says it
fixes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


def _s(value: Any) -> str:
    return "" if value is None else str(value)


@dataclass(frozen=True)
class PullRequest:
    repo: str
    number: int
    title: str
    body: str
    state: str
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    #: OWNER/REPO the head branch lives in ("" when the fork was deleted)
    head_repo: str
    html_url: str
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @property
    def fork(self) -> bool:
        """The head is in another repository: its job gets a read-only token."""
        return self.head_repo.lower() != self.repo.lower()

    @classmethod
    def of(cls, data: dict[str, Any], repo: str | None = None) -> PullRequest:
        base, head = data.get("base") or {}, data.get("head") or {}
        base_repo = _s((base.get("repo") or {}).get("full_name")) or _s(repo)
        return cls(
            repo=base_repo,
            number=int(data["number"]),
            title=_s(data.get("title")),
            body=_s(data.get("body")),
            state=_s(data.get("state")),
            base_ref=_s(base.get("ref")),
            base_sha=_s(base.get("sha")),
            head_ref=_s(head.get("ref")),
            head_sha=_s(head.get("sha")),
            head_repo=_s((head.get("repo") or {}).get("full_name")),
            html_url=_s(data.get("html_url")),
            raw=data,
        )


@dataclass(frozen=True)
class PullFile:
    filename: str
    status: str
    additions: int
    deletions: int
    previous_filename: str | None = None

    @classmethod
    def of(cls, data: dict[str, Any]) -> PullFile:
        return cls(
            filename=_s(data.get("filename")),
            status=_s(data.get("status")),
            additions=int(data.get("additions") or 0),
            deletions=int(data.get("deletions") or 0),
            previous_filename=data.get("previous_filename"),
        )


@dataclass(frozen=True)
class Commit:
    sha: str
    message: str

    @classmethod
    def of(cls, data: dict[str, Any]) -> Commit:
        return cls(_s(data.get("sha")), _s((data.get("commit") or {}).get("message")))


@dataclass(frozen=True)
class Issue:
    repo: str
    number: int
    title: str
    body: str
    state: str
    #: a pull request is an issue too, to the issues API
    is_pull: bool

    @classmethod
    def of(cls, data: dict[str, Any], repo: str) -> Issue:
        return cls(
            repo=repo,
            number=int(data["number"]),
            title=_s(data.get("title")),
            body=_s(data.get("body")),
            state=_s(data.get("state")),
            is_pull="pull_request" in data,
        )


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    user: str

    @classmethod
    def of(cls, data: dict[str, Any]) -> Comment:
        return cls(int(data["id"]), _s(data.get("body")), _s((data.get("user") or {}).get("login")))


#: a run or a job that did not succeed
FAILED = frozenset({"failure", "timed_out", "cancelled", "startup_failure"})


@dataclass(frozen=True)
class Job:
    id: int
    name: str
    conclusion: str
    failed_steps: tuple[str, ...]

    @property
    def failed(self) -> bool:
        return self.conclusion in FAILED

    @classmethod
    def of(cls, data: dict[str, Any]) -> Job:
        steps = tuple(
            _s(s.get("name")) for s in data.get("steps") or () if s.get("conclusion") in FAILED
        )
        return cls(int(data["id"]), _s(data.get("name")), _s(data.get("conclusion")), steps)


@dataclass(frozen=True)
class WorkflowRun:
    id: int
    name: str
    event: str
    status: str
    conclusion: str
    head_sha: str
    run_attempt: int
    html_url: str

    @property
    def failed(self) -> bool:
        return self.conclusion in FAILED

    @classmethod
    def of(cls, data: dict[str, Any]) -> WorkflowRun:
        return cls(
            id=int(data["id"]),
            name=_s(data.get("name")),
            event=_s(data.get("event")),
            status=_s(data.get("status")),
            conclusion=_s(data.get("conclusion")),
            head_sha=_s(data.get("head_sha")),
            run_attempt=int(data.get("run_attempt") or 1),
            html_url=_s(data.get("html_url")),
        )


# -- "Fixes #N" ------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class IssueRef:
    """An issue a pull request says it closes: ``repo`` OWNER/REPO, ``number``."""

    repo: str
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"


# GitHub's closing keywords (docs: "Linking a pull request to an issue"), a colon allowed,
# then #N, OWNER/REPO#N or the issue's URL
_LINK = re.compile(
    r"(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+"
    r"(?:(?P<repo>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100})?#(?P<n>\d+)"
    r"|https?://[^/\s]+/(?P<urlrepo>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100})"
    r"/issues/(?P<urln>\d+))"
)


def linked_issues(texts: list[str] | tuple[str, ...], repo: str) -> list[IssueRef]:
    """The issues ``texts`` (a pull request's title, body, commit messages) say are fixed,
    in the order first named, each once; ``#N`` is an issue of ``repo``."""
    found: dict[IssueRef, None] = {}
    for text in texts:
        for m in _LINK.finditer(text or ""):
            other = m.group("repo") or m.group("urlrepo")
            number = m.group("n") or m.group("urln")
            ref = IssueRef((other or repo).removesuffix(".git"), int(number))
            found.setdefault(ref, None)
    return list(found)
