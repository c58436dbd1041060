"""Fetching a failed job's log from the GitHub REST API, through :mod:`truegreen.github`.

    GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs   -> 302 -> plain text
    GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs   -> the run's jobs (pick failed ones)
    GET /repos/{owner}/{repo}/actions/runs/{run_id}/logs   -> 302 -> a zip of job logs

The token comes from ``GITHUB_TOKEN`` (or a GitHub App, :func:`truegreen.github.session`)
and is sent to the API only: it is never forwarded on the redirect to the storage host
that serves the log. The base URL is ``$GITHUB_API_URL`` (as Actions sets it), else
``$TRUEGREEN_GITHUB_API``, else https://api.github.com, so tests point it at a loopback
fake.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from truegreen.diagnose.reader import LogInput, text_input, zip_inputs
from truegreen.errors import GitHubError, UsageError
from truegreen.github.client import GitHubClient, check_repo


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


def fetch(
    repo: str,
    run_id: int | None,
    job_id: int | None,
    token: str | None = None,
    *,
    client: GitHubClient | None = None,
) -> Fetched:
    """The log(s) of a failed job, or of a run's failed jobs."""
    check_repo(repo)
    if run_id is None and job_id is None:
        raise UsageError(
            "needs the run's id (and optionally one job's)",
            hint="the ids are in the run's URL",
            field="run_id",
        )
    if client is None:
        from truegreen.github import session

        with session(token) as own:
            return _fetch(own, repo, run_id, job_id)
    return _fetch(client, repo, run_id, job_id)


def _fetch(client: GitHubClient, repo: str, run_id: int | None, job_id: int | None) -> Fetched:
    if job_id is not None:
        spool = client.job_log(repo, job_id)
        return Fetched([text_input(spool, f"{repo} job {job_id}")], _files=[spool])
    assert run_id is not None
    jobs = client.run_jobs(repo, run_id)
    failed = [j for j in jobs if j.failed] or jobs
    if not failed:
        raise UsageError(f"run {run_id} has no jobs", hint="check the run id")
    steps = [s for j in failed for s in j.failed_steps]
    conclusions = {j.name: j.conclusion for j in failed}
    spool = client.run_logs(repo, run_id)
    try:
        inputs = zip_inputs(spool, f"{repo} run {run_id}", only={j.name for j in failed})
    except UsageError:
        # not a zip: fall back to each failed job's own log
        spool.close()
        files: list[IO[bytes]] = []
        inputs = []
        try:
            for j in failed[:10]:
                f = client.job_log(repo, j.id)
                files.append(f)
                inputs.append(text_input(f, f"{repo} job {j.id} ({j.name})"))
        except (UsageError, GitHubError):
            for f in files:
                f.close()
            raise
        return Fetched(inputs, steps, conclusions, files)
    return Fetched(inputs, steps, conclusions, [spool])
