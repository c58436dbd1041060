"""Fetching a failed job's log from the GitHub REST API (stdlib only).

    GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs   -> 302 -> plain text
    GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs   -> the run's jobs (pick failed ones)
    GET /repos/{owner}/{repo}/actions/runs/{run_id}/logs   -> 302 -> a zip of job logs

The token comes from ``GITHUB_TOKEN`` and is sent to the API only: it is never forwarded
on the redirect to the storage host that serves the log. The base URL is
``$TRUEGREEN_GITHUB_API`` (default https://api.github.com), so tests point it at a
loopback fake.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import IO, Any

from truegreen.diagnose.reader import LogInput, text_input, zip_inputs
from truegreen.errors import UsageError

DEFAULT_API = "https://api.github.com"
#: Largest log accepted from the network.
MAX_DOWNLOAD = 4 << 30
_REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
_FAILED = {"failure", "timed_out", "cancelled", "startup_failure"}


@dataclass
class Fetched:
    inputs: list[LogInput]
    failed_steps: list[str] = field(default_factory=list)
    conclusions: dict[str, str] = field(default_factory=dict)
    _files: list[IO[bytes]] = field(default_factory=list)

    def close(self) -> None:
        for log in self.inputs:
            log.stream.close()
        for f in self._files:
            f.close()


def api_base() -> str:
    return os.environ.get("TRUEGREEN_GITHUB_API", DEFAULT_API).rstrip("/")


def _request(url: str, token: str | None, accept: str) -> Any:
    req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "truegreen"})
    req.add_header("X-GitHub-Api-Version", "2022-11-28")
    if token:
        # unredirected: the signed storage URL a log redirects to must not get the token
        req.add_unredirected_header("Authorization", f"Bearer {token}")
    return urllib.request.urlopen(req, timeout=60)


def _open(
    url: str, token: str | None, what: str, accept: str = "application/vnd.github+json"
) -> Any:
    try:
        return _request(url, token, accept)
    except urllib.error.HTTPError as exc:
        code = exc.code
        exc.close()
        if code in (401, 403):
            hint = "set GITHUB_TOKEN to a token that can read Actions in this repository"
            if not token:
                hint = "set GITHUB_TOKEN (the logs API needs a token even for public repositories)"
            raise UsageError(f"GitHub refused to give {what} (HTTP {code})", hint=hint) from exc
        if code == 404:
            raise UsageError(
                f"GitHub has no {what} (HTTP 404)",
                hint="check OWNER/REPO and the run or job id (and that the token can see the repository)",
            ) from exc
        if code == 410:
            raise UsageError(
                f"{what} expired on GitHub (HTTP 410)", hint="logs are kept 90 days at most"
            ) from exc
        raise UsageError(f"GitHub answered HTTP {code} for {what}", hint="try again later") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UsageError(
            f"cannot reach the GitHub API at {api_base()}: {reason}",
            hint="check the network, or TRUEGREEN_GITHUB_API",
        ) from exc


def _download(url: str, token: str | None, what: str) -> IO[bytes]:
    with _open(url, token, what) as resp:
        spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=64 << 20)  # noqa: SIM115
        copied = 0
        while True:
            try:
                block = resp.read(1 << 20)
            except OSError as exc:
                spool.close()
                raise UsageError(
                    f"the download of {what} broke off: {exc}", hint="try again"
                ) from exc
            if not block:
                break
            copied += len(block)
            if copied > MAX_DOWNLOAD:
                spool.close()
                raise UsageError(
                    f"{what} is larger than {MAX_DOWNLOAD >> 30} GB",
                    hint="download it and pass the file",
                )
            spool.write(block)
    spool.seek(0)
    return spool


def fetch(repo: str, run_id: int | None, job_id: int | None, token: str | None = None) -> Fetched:
    """The log(s) of a failed job, or of a run's failed jobs."""
    if not _REPO.match(repo):
        raise UsageError(
            f"{repo!r} is not OWNER/REPO", hint="for example: pallets/flask", field="github"
        )
    if run_id is None and job_id is None:
        raise UsageError(
            "needs the run's id (and optionally one job's)",
            hint="the ids are in the run's URL",
            field="run_id",
        )
    token = token if token is not None else os.environ.get("GITHUB_TOKEN") or None
    base = f"{api_base()}/repos/{repo}/actions"
    if job_id is not None:
        spool = _download(f"{base}/jobs/{job_id}/logs", token, f"the log of job {job_id}")
        return Fetched([text_input(spool, f"{repo} job {job_id}")], _files=[spool])
    assert run_id is not None
    jobs: list[dict[str, Any]] = []
    with _open(
        f"{base}/runs/{run_id}/jobs?per_page=100&filter=latest", token, f"the jobs of run {run_id}"
    ) as resp:
        try:
            jobs = list(json.load(resp).get("jobs", []))
        except (ValueError, AttributeError) as exc:
            raise UsageError(
                f"GitHub sent an unreadable job list for run {run_id}", hint="try again"
            ) from exc
    failed = [j for j in jobs if j.get("conclusion") in _FAILED] or jobs
    if not failed:
        raise UsageError(f"run {run_id} has no jobs", hint="check the run id")
    steps = [
        str(s.get("name"))
        for j in failed
        for s in j.get("steps", []) or []
        if s.get("conclusion") in _FAILED
    ]
    conclusions = {str(j.get("name")): str(j.get("conclusion")) for j in failed}
    spool = _download(f"{base}/runs/{run_id}/logs", token, f"the logs of run {run_id}")
    names = {str(j.get("name")) for j in failed}
    try:
        inputs = zip_inputs(spool, f"{repo} run {run_id}", only=names)
    except UsageError:
        # not a zip: fall back to each failed job's own log
        spool.close()
        files: list[IO[bytes]] = []
        inputs = []
        try:
            for j in failed[:10]:
                f = _download(f"{base}/jobs/{j['id']}/logs", token, f"the log of job {j['id']}")
                files.append(f)
                inputs.append(text_input(f, f"{repo} job {j['id']} ({j.get('name')})"))
        except UsageError:
            for f in files:
                f.close()
            raise
        return Fetched(inputs, steps, conclusions, files)
    return Fetched(inputs, steps, conclusions, [spool])
