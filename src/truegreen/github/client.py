"""A small typed client over the GitHub REST API, on httpx2.

    client = GitHubClient(auth=TokenAuth(os.environ["GITHUB_TOKEN"]))
    pr = client.pull("acme/shop", 7)
    for f in client.pull_files("acme/shop", 7): ...

What every request gets, in one place (:meth:`GitHubClient.request`):

* the pinned ``X-GitHub-Api-Version`` (:data:`API_VERSION`) and ``Accept`` headers;
* the credentials of its :class:`~truegreen.github.auth.Auth` (a token, or a GitHub App's
  installation token, fetched again when it expires or GitHub says it has);
* retries with backoff: a 5xx, a dropped connection, a secondary rate limit
  (``retry-after``, or 60 s when GitHub names none), a primary rate limit whose reset is
  near (``x-ratelimit-reset``); past ``max_wait`` the call fails with the time it resets;
* errors mapped to one clear :class:`~truegreen.errors.GitHubError` line (401, 403, 404,
  410, 422...), with what to do.

Pagination follows the ``Link: <...>; rel="next"`` header. The API's base URL is
``api_url``, else ``$GITHUB_API_URL`` (as GitHub Actions sets it, also on GitHub
Enterprise), else ``$TRUEGREEN_GITHUB_API``, else https://api.github.com: a test points it
at a loopback fake.

Writes are not made here by callers: they go through :mod:`truegreen.github.gate`.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

import httpx2

from truegreen import __version__
from truegreen.errors import GitHubError, UsageError
from truegreen.github.auth import Auth, NoAuth
from truegreen.github.records import (
    Comment,
    Commit,
    Issue,
    IssueRef,
    Job,
    PullFile,
    PullRequest,
    WorkflowRun,
    linked_issues,
)

DEFAULT_API = "https://api.github.com"
#: pinned: 2022-11-28 is supported until at least 2028-03 (shared/ECOSYSTEM.md §3)
API_VERSION = "2022-11-28"
JSON = "application/vnd.github+json"
#: largest log accepted from the network
MAX_DOWNLOAD = 4 << 30
_RETRY_STATUSES = frozenset({500, 502, 503, 504})
#: waits for a rate limit before one call gives up (each at most ``max_wait``)
RATE_LIMIT_WAITS = 4
#: GitHub's advice when a secondary limit names no retry-after: wait at least a minute
SECONDARY_WAIT = 60.0
_REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


def api_url(given: str | None = None) -> str:
    """The REST API's base URL: ``given``, ``$GITHUB_API_URL``, ``$TRUEGREEN_GITHUB_API``,
    else api.github.com."""
    url = (
        given
        or os.environ.get("GITHUB_API_URL")
        or os.environ.get("TRUEGREEN_GITHUB_API")
        or DEFAULT_API
    )
    return url.rstrip("/")


def check_repo(repo: str, field: str = "github") -> str:
    """``repo`` when it is OWNER/REPO, else a UsageError."""
    if not _REPO.match(repo):
        raise UsageError(
            f"{repo!r} is not OWNER/REPO", hint="for example: pallets/flask", field=field
        )
    return repo


@dataclass(frozen=True)
class RateLimit:
    """What a response said of the primary rate limit (None when it said nothing)."""

    remaining: int | None
    reset: float | None

    @classmethod
    def of(cls, response: httpx2.Response) -> RateLimit:
        def number(name: str) -> int | None:
            value = response.headers.get(name)
            return int(value) if value is not None and value.isdigit() else None

        reset = number("x-ratelimit-reset")
        return cls(number("x-ratelimit-remaining"), float(reset) if reset is not None else None)


class GitHubClient:
    """The REST API, with retries, backoff, pagination and clear errors.

    ``transport`` (an ``httpx2`` transport) is for tests; ``sleep`` and ``clock`` make the
    backoff deterministic there. ``max_wait`` is the longest one wait for a rate limit may
    be; ``retries`` how many times a 5xx or a dropped connection is tried again.
    """

    def __init__(
        self,
        *,
        auth: Auth | None = None,
        api: str | None = None,
        transport: httpx2.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_wait: float = 120.0,
        retries: int = 3,
        timeout: float = 30.0,
    ) -> None:
        self.api = api_url(api)
        self.auth = auth or NoAuth()
        self.sleep = sleep
        self.clock = clock
        self.max_wait = max_wait
        self.retries = retries
        self.waited = 0.0
        self._http = httpx2.Client(
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
            headers={"User-Agent": f"truegreen/{__version__}", "X-GitHub-Api-Version": API_VERSION},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the one place requests are made ------------------------------------------------

    def _url(self, path: str) -> str:
        return path if "://" in path else f"{self.api}/{path.lstrip('/')}"

    def _wait(self, seconds: float, why: str) -> None:
        if seconds > self.max_wait:
            raise GitHubError(
                f"GitHub's {why} lasts another {int(seconds)} s",
                status=429,
                hint=f"try again after {time.strftime('%H:%M:%S UTC', time.gmtime(self.clock() + seconds))}",
            )
        self.waited += seconds
        self.sleep(seconds)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
        accept: str = JSON,
        auth: bool = True,
        what: str | None = None,
        ok: tuple[int, ...] = (),
        extra_headers: Mapping[str, str] | None = None,
    ) -> httpx2.Response:
        """One API call: retried on a 5xx, a dropped connection or a rate limit, its error
        mapped to a :class:`GitHubError` (``what`` names the thing asked for). A status in
        ``ok`` comes back instead of raising (``404`` for "is there one?")."""
        url = self._url(path)
        what = what or f"{method} {path}"
        attempt = 0
        limited = 0
        refreshed = False
        while True:
            headers = {"Accept": accept, **(extra_headers or {})}
            if auth:
                header = self.auth.header(self)
                if header:
                    headers["Authorization"] = header
            try:
                response = self._http.request(
                    method, url, params=dict(params) if params else None, json=json, headers=headers
                )
            except httpx2.TransportError as exc:
                # nobody listening is tried once more; a connection that broke, as often
                # as a 5xx
                tries = 1 if isinstance(exc, httpx2.ConnectError) else self.retries
                if attempt < tries:
                    attempt += 1
                    self._wait(2.0**attempt / 2, "connection trouble")
                    continue
                raise GitHubError(
                    f"cannot reach the GitHub API at {self.api}: {exc}",
                    hint="check the network, or GITHUB_API_URL",
                ) from None
            status = response.status_code
            if status < 300 or status in ok or (status in (301, 302, 307) and method == "GET"):
                return response
            response.read()
            if status == 401 and auth and not refreshed and self.auth.invalidate():
                refreshed = True  # an installation token expired early: fetch a new one
                continue
            delay = self._rate_limit_delay(response)
            if delay is not None and limited < RATE_LIMIT_WAITS:
                limited += 1
                self._wait(delay, "rate limit")
                continue
            if status in _RETRY_STATUSES and attempt < self.retries:
                attempt += 1
                self._wait(2.0**attempt / 2, f"HTTP {status}")
                continue
            raise self._error(response, what)

    def _rate_limit_delay(self, response: httpx2.Response) -> float | None:
        """Seconds to wait before trying again, when ``response`` is a rate limit."""
        if response.status_code not in (403, 429):
            return None
        retry_after = response.headers.get("retry-after")
        if retry_after is not None and retry_after.strip().isdigit():
            return float(retry_after)  # a secondary rate limit says how long
        limit = RateLimit.of(response)
        if limit.remaining == 0 and limit.reset is not None:
            return max(0.0, limit.reset - self.clock()) + 1.0
        if "secondary rate limit" in _message(response).lower():
            return SECONDARY_WAIT
        if response.status_code == 429:
            return SECONDARY_WAIT
        return None

    def _error(self, response: httpx2.Response, what: str) -> GitHubError:
        status = response.status_code
        detail = _message(response)
        said = f": {detail}" if detail else ""
        if status == 401:
            hint = "give a valid token (GITHUB_TOKEN), or check the GitHub App's key and id"
            if isinstance(self.auth, NoAuth):
                hint = "set GITHUB_TOKEN (this API needs a token)"
            return GitHubError(f"GitHub refused {what} (HTTP 401{said})", status=401, hint=hint)
        if status == 403:
            hint = "set GITHUB_TOKEN to a token that can read Actions in this repository"
            if isinstance(self.auth, NoAuth):
                hint = "set GITHUB_TOKEN (the logs API needs a token even for public repositories)"
            elif response.request.method != "GET":
                hint = (
                    "the token lacks the permission to write this (see the workflow's permissions:)"
                )
            return GitHubError(f"GitHub refused {what} (HTTP 403{said})", status=403, hint=hint)
        if status == 404:
            return GitHubError(
                f"GitHub has no {what} (HTTP 404)",
                status=404,
                hint="check OWNER/REPO and the number or id (and that the token can see the repository)",
            )
        if status == 410:
            return GitHubError(
                f"{what} is gone on GitHub (HTTP 410)",
                status=410,
                hint="logs are kept 90 days at most",
            )
        if status == 422:
            return GitHubError(
                f"GitHub did not accept {what} (HTTP 422{said})",
                status=422,
                hint="this is a bug in truegreen if it persists: report it",
            )
        return GitHubError(
            f"GitHub answered HTTP {status} for {what}{said}", status=status, hint="try again later"
        )

    # -- JSON, pages, downloads ---------------------------------------------------------

    def get_json(
        self, path: str, params: Mapping[str, str | int] | None = None, *, what: str | None = None
    ) -> Any:
        response = self.request("GET", path, params=params, what=what)
        return _json(response, what or path)

    def paginate(
        self,
        path: str,
        params: Mapping[str, str | int] | None = None,
        *,
        key: str | None = None,
        what: str | None = None,
        limit: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every item of a listing, page after page (``key``: the list's key when a page
        is an object, as ``{"total_count": n, "jobs": [...]}``); at most ``limit``."""
        url: str | None = path
        query: Mapping[str, str | int] | None = {"per_page": 100, **(params or {})}
        count = 0
        while url is not None:
            response = self.request("GET", url, params=query, what=what)
            page = _json(response, what or path)
            items = page.get(key, []) if key is not None and isinstance(page, dict) else page
            if not isinstance(items, list):
                raise GitHubError(
                    f"GitHub sent an unreadable page of {what or path}", hint="try again"
                )
            for item in items:
                if limit is not None and count >= limit:
                    return
                count += 1
                yield item
            match = _NEXT.search(response.headers.get("link", ""))
            url, query = (match.group(1), None) if match else (None, None)

    def download(self, path: str, what: str) -> IO[bytes]:
        """A file the API redirects to (a job's log, a run's zip), spooled to disk past
        64 MB. The token goes to the API only, never to the host the redirect names."""
        response = self.request("GET", path, what=what)
        if response.status_code in (301, 302, 307):
            location = response.headers.get("location")
            response.close()
            if not location:
                raise GitHubError(f"GitHub redirected {what} nowhere", hint="try again")
            return self._spool(str(httpx2.URL(self.api).join(location)), what)
        return _spooled_body(response, what)

    def _spool(self, url: str, what: str) -> IO[bytes]:
        try:
            with self._http.stream("GET", url, headers={"Accept": "*/*"}) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._error(response, what)
                return _spooled_body(response, what)
        except httpx2.TransportError as exc:
            raise GitHubError(
                f"the download of {what} broke off: {exc}", hint="try again"
            ) from None

    # -- reads ------------------------------------------------------------------------------

    def pull(self, repo: str, number: int) -> PullRequest:
        data = self.get_json(f"/repos/{repo}/pulls/{number}", what=f"pull request {repo}#{number}")
        return PullRequest.of(data, repo)

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        what = f"the files of pull request {repo}#{number}"
        return [
            PullFile.of(f) for f in self.paginate(f"/repos/{repo}/pulls/{number}/files", what=what)
        ]

    def pull_commits(self, repo: str, number: int) -> list[Commit]:
        what = f"the commits of pull request {repo}#{number}"
        return [
            Commit.of(c) for c in self.paginate(f"/repos/{repo}/pulls/{number}/commits", what=what)
        ]

    def issue(self, repo: str, number: int) -> Issue:
        data = self.get_json(f"/repos/{repo}/issues/{number}", what=f"issue {repo}#{number}")
        return Issue.of(data, repo)

    def issue_comments(self, repo: str, number: int) -> list[Comment]:
        what = f"the comments of {repo}#{number}"
        return [
            Comment.of(c)
            for c in self.paginate(f"/repos/{repo}/issues/{number}/comments", what=what)
        ]

    def linked_issues(self, pr: PullRequest, commits: list[Commit] | None = None) -> list[IssueRef]:
        """The issues ``pr`` says it fixes ("Fixes #N", "Closes owner/repo#N"), in its title,
        body and commit messages."""
        if commits is None:
            commits = self.pull_commits(pr.repo, pr.number)
        return linked_issues([pr.title, pr.body, *(c.message for c in commits)], pr.repo)

    def workflow_run(self, repo: str, run_id: int) -> WorkflowRun:
        data = self.get_json(f"/repos/{repo}/actions/runs/{run_id}", what=f"run {run_id} of {repo}")
        return WorkflowRun.of(data)

    def workflow_runs(
        self, repo: str, *, limit: int = 100, **params: str | int
    ) -> list[WorkflowRun]:
        what = f"the workflow runs of {repo}"
        runs = self.paginate(
            f"/repos/{repo}/actions/runs", params, key="workflow_runs", what=what, limit=limit
        )
        return [WorkflowRun.of(r) for r in runs]

    def run_jobs(self, repo: str, run_id: int) -> list[Job]:
        what = f"the jobs of run {run_id}"
        jobs = self.paginate(
            f"/repos/{repo}/actions/runs/{run_id}/jobs", {"filter": "latest"}, key="jobs", what=what
        )
        return [Job.of(j) for j in jobs]

    def job_log(self, repo: str, job_id: int) -> IO[bytes]:
        """A job's log: plain text, through the API's redirect."""
        return self.download(
            f"/repos/{repo}/actions/jobs/{job_id}/logs", f"the log of job {job_id}"
        )

    def run_logs(self, repo: str, run_id: int) -> IO[bytes]:
        """A run's logs: a zip of one text file per job."""
        return self.download(
            f"/repos/{repo}/actions/runs/{run_id}/logs", f"the logs of run {run_id}"
        )

    def repository(self, repo: str) -> dict[str, Any]:
        data = self.get_json(f"/repos/{repo}", what=f"the repository {repo}")
        return data if isinstance(data, dict) else {}


def _spooled_body(response: httpx2.Response, what: str) -> IO[bytes]:
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=64 << 20)  # noqa: SIM115
    copied = 0
    try:
        for block in response.iter_bytes(1 << 20):
            copied += len(block)
            if copied > MAX_DOWNLOAD:
                raise GitHubError(
                    f"{what} is larger than {MAX_DOWNLOAD >> 30} GB",
                    hint="download it and pass the file",
                )
            spool.write(block)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def _message(response: httpx2.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("message", "")) if isinstance(body, dict) else ""


def _json(response: httpx2.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise GitHubError(f"GitHub sent unreadable JSON for {what}", hint="try again") from None
