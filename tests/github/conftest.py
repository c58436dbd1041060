from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.github.fake import FakeGitHub
from truegreen.github.auth import TokenAuth
from truegreen.github.client import GitHubClient


class Clock:
    """A clock the tests move by hand (installation tokens expire on it)."""

    def __init__(self, now: float = 1_893_456_000.0) -> None:  # 2030-01-01T00:00:00Z
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(gh: FakeGitHub, clock: Clock) -> Iterator[GitHubClient]:
    with GitHubClient(api=gh.url, auth=TokenAuth("ghs_test"), sleep=gh.sleep, clock=clock) as c:
        yield c
