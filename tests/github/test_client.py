"""The REST client against the loopback fake: headers, pagination, rate limits, retries,
GitHub App tokens, errors, reads, and the issues a pull request links."""

from __future__ import annotations

from functools import cache

import jwt
import pytest

from tests.github.conftest import Clock
from tests.github.fake import Reply, recorded
from truegreen.errors import GitHubError
from truegreen.github.auth import AppAuth
from truegreen.github.client import API_VERSION, GitHubClient, api_url
from truegreen.github.records import IssueRef, linked_issues

PULL = "/repos/acme/shop/pulls/7"


@cache
def private_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def test_every_request_pins_the_api_version_and_sends_the_token(gh, client):
    gh.serve(PULL, "pull_7.json")
    pr = client.pull("acme/shop", 7)
    assert (pr.number, pr.base_ref, pr.head_repo, pr.fork) == (7, "main", "contributor/shop", True)
    seen = gh.requests[0]
    assert (seen.version, seen.authorization) == (API_VERSION, "Bearer ghs_test")


def test_the_base_url_comes_from_github_api_url_as_actions_sets_it(monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.example/api/v3/")
    monkeypatch.setenv("TRUEGREEN_GITHUB_API", "http://elsewhere")
    assert api_url() == "https://ghe.example/api/v3"
    monkeypatch.delenv("GITHUB_API_URL")
    assert api_url() == "http://elsewhere"
    assert api_url("http://given") == "http://given"


def test_pagination_follows_the_link_header(gh, client):
    files = f"{PULL}/files"
    gh.script(
        "GET",
        files,
        Reply(
            200,
            recorded("pull_7_files_page1.json"),
            {
                "Link": f'<{gh.url}{files}?per_page=100&page=2>; rel="next", <{gh.url}{files}?per_page=100&page=2>; rel="last"'
            },
        ),
        Reply(
            200,
            recorded("pull_7_files_page2.json"),
            {"Link": f'<{gh.url}{files}?per_page=100&page=1>; rel="first"'},
        ),
    )
    names = [f.filename for f in client.pull_files("acme/shop", 7)]
    assert names == ["src/shop/cart.py", "tests/test_cart.py", "docs/cart.md"]
    pages = [r.query for r in gh.requests]
    assert pages == [{"per_page": ["100"]}, {"per_page": ["100"], "page": ["2"]}]


def test_a_secondary_rate_limit_is_waited_out_as_retry_after_says(gh, client):
    gh.script(
        "GET",
        PULL,
        Reply(429, {"message": "You have exceeded a secondary rate limit."}, {"Retry-After": "7"}),
        Reply(200, recorded("pull_7.json")),
    )
    assert client.pull("acme/shop", 7).number == 7
    assert gh.slept == [7.0] and len(gh.requests) == 2


def test_a_secondary_rate_limit_without_retry_after_waits_a_minute(gh, client):
    gh.script(
        "GET",
        PULL,
        Reply(403, {"message": "You have exceeded a secondary rate limit. Please wait."}),
        Reply(200, recorded("pull_7.json")),
    )
    client.pull("acme/shop", 7)
    assert gh.slept == [60.0]


def test_a_primary_rate_limit_waits_for_its_reset_or_says_when(gh, client, clock: Clock):
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(clock.now) + 30)}
    gh.script(
        "GET",
        PULL,
        Reply(403, {"message": "API rate limit exceeded"}, headers),
        Reply(200, recorded("pull_7.json")),
    )
    client.pull("acme/shop", 7)
    assert gh.slept == [31.0]
    far = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(clock.now) + 3000)}
    gh.script("GET", PULL, Reply(403, {"message": "API rate limit exceeded"}, far))
    with pytest.raises(GitHubError) as exc:
        client.pull("acme/shop", 7)
    assert "rate limit lasts another 3001 s" in exc.value.message
    assert exc.value.hint == "try again after 00:50:01 UTC"


def test_a_5xx_is_retried_with_backoff_then_named(gh, client):
    gh.script("GET", PULL, Reply(502), Reply(503), Reply(200, recorded("pull_7.json")))
    assert client.pull("acme/shop", 7).title == "Round totals half-up"
    assert gh.slept == [1.0, 2.0]
    gh.slept.clear()
    gh.script("GET", PULL, Reply(500, {"message": "Server Error"}))
    with pytest.raises(GitHubError) as exc:
        client.pull("acme/shop", 7)
    assert exc.value.status == 500 and "HTTP 500 for pull request acme/shop#7" in str(exc.value)
    assert gh.slept == [1.0, 2.0, 4.0]


@pytest.mark.parametrize(
    ("status", "said", "hint"),
    [
        (404, "GitHub has no pull request acme/shop#7 (HTTP 404)", "check OWNER/REPO"),
        (
            403,
            "GitHub refused pull request acme/shop#7 (HTTP 403: Resource not accessible by integration)",
            "GITHUB_TOKEN",
        ),
        (401, "GitHub refused pull request acme/shop#7 (HTTP 401: Bad credentials)", "valid token"),
    ],
)
def test_errors_are_one_clear_line_with_what_to_do(gh, client, status, said, hint):
    message = {401: "Bad credentials", 403: "Resource not accessible by integration"}.get(
        status, "Not Found"
    )
    gh.script("GET", PULL, Reply(status, {"message": message}))
    with pytest.raises(GitHubError) as exc:
        client.pull("acme/shop", 7)
    assert exc.value.message == said and hint in (exc.value.hint or "")
    assert gh.slept == []  # a refusal is not retried


def test_an_unreachable_api_is_named_after_one_more_try():
    with (
        GitHubClient(api="http://127.0.0.1:9", sleep=lambda s: None) as c,
        pytest.raises(GitHubError) as exc,
    ):
        c.pull("acme/shop", 7)
    assert "cannot reach the GitHub API at http://127.0.0.1:9" in exc.value.message


def test_an_app_signs_a_jwt_and_refreshes_its_installation_token_before_expiry(gh, clock: Clock):
    gh.serve(PULL, "pull_7.json")
    gh.token_lifetime = "2030-01-01T01:00:00Z"  # an hour after clock.now
    auth = AppAuth("Iv1.app", private_key(), 42)
    with GitHubClient(api=gh.url, auth=auth, sleep=gh.sleep, clock=clock) as c:
        c.pull("acme/shop", 7)
        c.pull("acme/shop", 7)
        assert auth.fetched == 1  # kept while fresh
        exchange = gh.requests[0]
        assert exchange.path == "/app/installations/42/access_tokens"
        claims = jwt.decode(
            exchange.authorization.removeprefix("Bearer "), options={"verify_signature": False}
        )
        assert claims == {"iss": "Iv1.app", "iat": int(clock.now) - 60, "exp": int(clock.now) + 540}
        assert gh.requests[1].authorization == "Bearer ghs_installation0001"
        clock.now += 3600 - 200  # within the refresh margin: a new token before it expires
        c.pull("acme/shop", 7)
        assert auth.fetched == 2 and gh.requests[-1].authorization == "Bearer ghs_installation0002"
        assert auth.permissions() == {
            "checks": "write",
            "pull_requests": "write",
            "issues": "write",
        }


def test_an_expired_installation_token_is_replaced_and_the_call_retried(gh, clock: Clock):
    gh.serve(PULL, "pull_7.json")
    auth = AppAuth("12345", private_key(), 42)
    with GitHubClient(api=gh.url, auth=auth, sleep=gh.sleep, clock=clock) as c:
        c.pull("acme/shop", 7)
        gh.tokens["ghs_installation0001"] = False  # GitHub revoked it early
        assert c.pull("acme/shop", 7).number == 7
    assert [r.authorization for r in gh.requests if r.path == PULL] == [
        "Bearer ghs_installation0001",
        "Bearer ghs_installation0001",
        "Bearer ghs_installation0002",
    ]


def test_a_bad_app_key_is_one_clear_line(gh, clock: Clock):
    with (
        GitHubClient(api=gh.url, auth=AppAuth("1", "not a key", 42), clock=clock) as c,
        pytest.raises(Exception) as exc,
    ):
        c.pull("acme/shop", 7)
    assert "private key cannot sign" in str(exc.value)


def test_reads_issue_comments_runs_and_jobs(gh, client):
    gh.serve("/repos/acme/shop/issues/12", "issue_12.json")
    gh.serve("/repos/acme/shop/issues/12/comments", "issue_12_comments.json")
    gh.serve("/repos/acme/shop/actions/runs/99", "run_99.json")
    gh.serve("/repos/acme/shop/actions/runs/99/jobs", "run_99_jobs.json")
    issue = client.issue("acme/shop", 12)
    assert (issue.title, issue.is_pull) == ("Cart total is off by one cent", False)
    assert [c.user for c in client.issue_comments("acme/shop", 12)] == ["maintainer"]
    run = client.workflow_run("acme/shop", 99)
    assert (run.failed, run.run_attempt) == (True, 2)
    jobs = client.run_jobs("acme/shop", 99)
    assert [(j.name, j.failed, j.failed_steps) for j in jobs] == [
        ("build", False, ()),
        ("pytest", True, ("Run pytest -q",)),
    ]
    assert gh.requests[-1].query == {"per_page": ["100"], "filter": ["latest"]}


def test_a_log_download_never_carries_the_token_past_the_redirect(gh, client):
    gh.script(
        "GET",
        "/repos/acme/shop/actions/jobs/12/logs",
        Reply(302, None, {"Location": "/storage/12.txt"}),
    )
    gh.script(
        "GET",
        "/storage/12.txt",
        Reply(200, raw=b"line one\nline two\n", headers={"Content-Type": "text/plain"}),
    )
    with client.job_log("acme/shop", 12) as f:
        assert f.read() == b"line one\nline two\n"
    assert [(r.path, r.authorization) for r in gh.requests] == [
        ("/repos/acme/shop/actions/jobs/12/logs", "Bearer ghs_test"),
        ("/storage/12.txt", None),
    ]


def test_linked_issues_come_from_the_title_body_and_commits(gh, client):
    gh.serve(PULL, "pull_7.json")
    gh.serve(f"{PULL}/commits", "pull_7_commits.json")
    pr = client.pull("acme/shop", 7)
    assert client.linked_issues(pr) == [
        IssueRef("acme/shop", 12),
        IssueRef("acme/docs", 3),
        IssueRef("acme/shop", 15),
    ]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # GitHub's keywords, any case, with or without a colon
        ("Fixes #1", [1]),
        ("closes #2; RESOLVED: #3", [2, 3]),
        ("fix #4 and Close #4", [4]),
        # a mention is not a fix
        ("See #5, refs #6, prefix#7, fixes#8", []),
        ("Fixes other/repo#9", ["other/repo#9"]),
        ("resolves https://github.com/acme/shop/issues/10", [10]),
        # the pull request URL form is not an issue link
        ("fixes https://github.com/acme/shop/pull/11", []),
    ],
)
def test_linked_issue_keywords(text, found):
    refs = linked_issues([text], "acme/shop")
    assert [r.number if r.repo == "acme/shop" else str(r) for r in refs] == found


def test_a_rate_limit_that_never_lifts_ends_the_call(gh, client):
    gh.script("GET", PULL, Reply(429, {"message": "slow down"}, {"Retry-After": "2"}))
    with pytest.raises(GitHubError) as exc:
        client.pull("acme/shop", 7)
    assert gh.slept == [2.0] * 4 and len(gh.requests) == 5
    assert exc.value.status == 429 and "HTTP 429" in exc.value.message


def test_the_session_signs_in_as_the_environment_says(tmp_path, monkeypatch):
    from truegreen.errors import UsageError
    from truegreen.github import session
    from truegreen.github.auth import NoAuth, TokenAuth

    for name in (
        "TRUEGREEN_APP_ID",
        "TRUEGREEN_APP_PRIVATE_KEY",
        "TRUEGREEN_APP_INSTALLATION_ID",
        "GITHUB_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    with session(api="http://127.0.0.1:9") as c:
        assert isinstance(c.auth, NoAuth)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_env")
    with session(api="http://127.0.0.1:9", granted={}) as c:
        assert (
            isinstance(c.auth, TokenAuth)
            and c.auth.token == "ghs_env"
            and c.auth.permissions() == {}
        )
    key = tmp_path / "app.pem"
    key.write_text(private_key())
    monkeypatch.setenv("TRUEGREEN_APP_ID", "Iv1.app")
    monkeypatch.setenv("TRUEGREEN_APP_PRIVATE_KEY", str(key))
    monkeypatch.setenv("TRUEGREEN_APP_INSTALLATION_ID", "42")
    with session(api="http://127.0.0.1:9") as c:
        assert isinstance(c.auth, AppAuth) and c.auth.installation_id == 42
        assert c.auth.private_key.startswith("-----BEGIN PRIVATE KEY-----")
    monkeypatch.setenv("TRUEGREEN_APP_INSTALLATION_ID", "forty-two")
    with pytest.raises(UsageError, match="TRUEGREEN_APP_INSTALLATION_ID \\(a number\\)"):
        session()
    monkeypatch.setenv("TRUEGREEN_APP_INSTALLATION_ID", "42")
    monkeypatch.setenv("TRUEGREEN_APP_PRIVATE_KEY", str(tmp_path / "missing.pem"))
    with pytest.raises(UsageError, match="cannot read the GitHub App's key"):
        session()
