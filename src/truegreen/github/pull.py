"""``truegreen verify OWNER/REPO#N``: a pull request fetched and verified locally, exactly as
``truegreen ci`` verifies it in the pull request's own workflow.

The pull request's base and head shas come from the API; the repository is cloned once
into the cache (``clones/OWNER/REPO`` in the data directory) and fetched into afterwards:
the base branch, and the head as GitHub keeps it for every pull request
(``refs/pull/N/head``, also a fork's). The clone's URL is ``clone_url`` with ``{repo}``
replaced, default ``$TRUEGREEN_CLONE_URL``, else https://github.com/{repo}.git (tests give
a local bare repository). ``post`` writes the report through the write gate (live).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from truegreen.github.ci import PullEvent, verify_pull

if TYPE_CHECKING:
    from truegreen.events import Listener
    from truegreen.exam.store import Ledger
    from truegreen.github.client import GitHubClient
    from truegreen.model.requests import PullVerifyRequest
    from truegreen.model.results import CiResult
    from truegreen.repo.git import GitRepo
    from truegreen.run.executor import Cancellation, Executor

DEFAULT_CLONE_URL = "https://github.com/{repo}.git"


def clone_url(request: PullVerifyRequest) -> str:
    template = request.clone_url or os.environ.get("TRUEGREEN_CLONE_URL") or DEFAULT_CLONE_URL
    return template.replace("{repo}", request.repository)


def cache_dir(request: PullVerifyRequest) -> Path:
    if request.cache is not None:
        return request.cache
    from truegreen.exam.db import data_dir

    return data_dir() / "clones"


def checkout(
    request: PullVerifyRequest, base_ref: str, executor: Executor | None = None
) -> GitRepo:
    """The cached clone of the repository, with the pull request's base branch and head."""
    from truegreen.repo.git import clone_or_fetch

    owner, name = request.repository.split("/")
    return clone_or_fetch(
        clone_url(request),
        cache_dir(request) / owner / name,
        (
            f"+refs/heads/{base_ref}:refs/truegreen/base/{base_ref}",
            f"+refs/pull/{request.number}/head:refs/truegreen/pull/{request.number}",
        ),
        executor,
    )


def verify_pull_request(
    request: PullVerifyRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
    client: GitHubClient | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> CiResult:
    from truegreen.github import session
    from truegreen.github.client import check_repo

    check_repo(request.repository, field="target")
    own = client is None
    client = client or session(api=request.api_url)
    try:
        pr = client.pull(request.repository, request.number)
        git = checkout(request, pr.base_ref, executor)
        event = PullEvent(
            repo=pr.repo,
            number=pr.number,
            title=pr.title,
            body=pr.body,
            base_sha=pr.base_sha,
            head_sha=pr.head_sha,
            head_repo=pr.head_repo,
        )
        return verify_pull(
            request,
            event,
            git,
            listener=listener,
            cancel=cancel,
            executor=executor,
            ledger=ledger,
            client=client,
            log=log,
        )
    finally:
        if own:
            client.close()
