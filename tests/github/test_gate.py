"""The write gate against the loopback fake: shadow mode, idempotency across retried jobs,
one sticky comment updated in place, check-run annotations in batches of 50, secrets
scrubbed, permissions checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.fake import FakeGitHub, Reply
from truegreen.errors import UsageError
from truegreen.github.auth import TokenAuth
from truegreen.github.client import GitHubClient
from truegreen.github.gate import STICKY, WriteGate, WriteLog, external_id, scrub

SHA = "9f2c4d1e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d"
KEY = "acme/shop#7@9f2c4d1e run 99"


def gate(client: GitHubClient, tmp_path: Path, mode: str | None = "live", **kw) -> WriteGate:
    return WriteGate(
        client, "acme/shop", mode=mode, store=WriteLog(tmp_path / "writes.sqlite"), secrets=(), **kw
    )


def test_shadow_mode_is_the_default_and_writes_nothing(gh: FakeGitHub, client, tmp_path):
    lines: list[str] = []
    g = gate(client, tmp_path, mode=None, log=lines.append)
    assert g.mode == "shadow"
    g.sticky_comment(7, "report", key=KEY)
    g.check_run(SHA, "truegreen", "failure", "refuted", "summary", [{"message": "m"}], key=KEY)
    g.labels(7, ["truegreen: refuted"], key=KEY)
    assert gh.requests == []  # not a write, not even a read
    assert [o.action for o in g.outcomes] == ["shadow"] * 3
    assert lines[0] == "github: comment shadow: would write the comment on acme/shop#7"


def test_a_repository_switched_to_live_stays_live(tmp_path, client):
    store = WriteLog(tmp_path / "writes.sqlite")
    store.set_mode("Acme/Shop", "live")
    assert WriteGate(client, "acme/shop", store=store).mode == "live"
    assert WriteGate(client, "acme/other", store=store).mode == "shadow"
    with pytest.raises(UsageError, match="unknown write mode 'loud'"):
        WriteGate(client, "acme/shop", mode="loud")  # type: ignore[arg-type]


def test_a_retried_job_on_a_fresh_runner_posts_exactly_once(gh: FakeGitHub, client, tmp_path):
    for attempt in range(2):  # each attempt has its own (empty) local write log
        g = gate(client, tmp_path / str(attempt))
        g.sticky_comment(7, "VERIFIED -> approve", key=KEY)
        g.check_run(SHA, "truegreen", "success", "verified", "summary", key=KEY)
    posts = [(w.method, w.path) for w in gh.writes]
    assert posts == [
        ("POST", "/repos/acme/shop/issues/7/comments"),
        ("POST", "/repos/acme/shop/check-runs"),
    ]
    assert [o.action for o in g.outcomes] == ["duplicate", "duplicate"]
    assert gh.check_runs[0]["external_id"] == external_id(KEY)


def test_the_same_write_log_skips_a_key_without_asking_github(gh: FakeGitHub, client, tmp_path):
    g = gate(client, tmp_path)
    g.sticky_comment(7, "once", key=KEY)
    before = len(gh.requests)
    assert g.sticky_comment(7, "once", key=KEY).action == "duplicate"
    assert len(gh.requests) == before


def test_the_sticky_comment_is_updated_in_place_never_repeated(gh: FakeGitHub, client, tmp_path):
    gh.comments["acme/shop#7"] = [{"id": 1, "body": "LGTM", "user": {"login": "maintainer"}}]
    first = gate(client, tmp_path).sticky_comment(7, "REFUTED -> reject", key=KEY)
    second = gate(client, tmp_path).sticky_comment(7, "VERIFIED -> approve", key=KEY + " head 2")
    assert (first.action, second.action) == ("created", "updated")
    comments = gh.comments["acme/shop#7"]
    assert len(comments) == 2 and comments[0]["body"] == "LGTM"
    assert comments[1]["body"].startswith(STICKY) and comments[1]["body"].endswith(
        "VERIFIED -> approve"
    )
    assert [w.method for w in gh.writes] == ["POST", "PATCH"]
    assert gh.writes[1].path == f"/repos/acme/shop/issues/comments/{comments[1]['id']}"


def test_a_check_run_sends_at_most_50_annotations_per_request(gh: FakeGitHub, client, tmp_path):
    notes = [
        {
            "path": "src/a.py",
            "start_line": n,
            "end_line": n,
            "annotation_level": "failure",
            "message": f"m{n}",
        }
        for n in range(1, 121)
    ]
    out = gate(client, tmp_path).check_run(
        SHA, "truegreen", "failure", "refuted", "s", notes, key=KEY
    )
    assert out.action == "created" and "120 annotation(s) in 3 request(s)" in out.detail
    sizes = [len(w.body["output"]["annotations"]) for w in gh.writes]
    assert sizes == [50, 50, 20]
    assert [w.method for w in gh.writes] == ["POST", "PATCH", "PATCH"]
    assert [a["message"] for a in gh.check_runs[0]["output"]["annotations"]] == [
        f"m{n}" for n in range(1, 121)
    ]


def test_secrets_are_scrubbed_from_outgoing_text(gh: FakeGitHub, client, tmp_path):
    token = "ghp_" + "A1b2C3d4" * 5
    g = WriteGate(
        client,
        "acme/shop",
        mode="live",
        store=WriteLog(tmp_path / "w.sqlite"),
        secrets=["hunter2-very-secret"],
    )
    body = f"log: token={token}\npassword = 'hunter2-very-secret' and again hunter2-very-secret"
    out = g.sticky_comment(7, body, key=KEY)
    posted = gh.writes[0].body["body"]
    assert token not in posted and "hunter2-very-secret" not in posted
    assert posted.count("<redacted>") == 3 and out.redacted == 3
    assert scrub("nothing to see", ["x" * 10]) == ("nothing to see", 0)


def test_a_read_only_token_is_refused_without_a_request(gh: FakeGitHub, tmp_path):
    with GitHubClient(api=gh.url, auth=TokenAuth("ghs_fork", granted={}), sleep=gh.sleep) as c:
        out = gate(c, tmp_path).sticky_comment(7, "report", key=KEY)
    assert out.action == "refused" and "read-only token" in out.detail
    assert gh.requests == []


def test_a_403_on_a_write_is_a_refusal_not_a_crash(gh: FakeGitHub, client, tmp_path):
    gh.script(
        "POST",
        "/repos/acme/shop/check-runs",
        Reply(403, {"message": "Resource not accessible by integration"}),
    )
    out = gate(client, tmp_path).check_run(SHA, "truegreen", "neutral", "t", "s", key=KEY)
    assert (
        out.action == "refused" and "HTTP 403: Resource not accessible by integration" in out.detail
    )


def test_labels_are_added_once(gh: FakeGitHub, client, tmp_path):
    g = gate(client, tmp_path)
    assert g.labels(7, ["truegreen: verified"], key=KEY).action == "created"
    assert (
        gate(client, tmp_path / "again").labels(7, ["truegreen: verified"], key=KEY).action
        == "duplicate"
    )
    assert gh.labels["acme/shop#7"] == ["truegreen: verified"]
    assert [w.method for w in gh.writes] == ["POST"]


def test_a_new_verdict_label_replaces_the_last_one(gh: FakeGitHub, client, tmp_path):
    gh.labels["acme/shop#7"] = ["bug", "truegreen: refuted"]
    out = gate(client, tmp_path).labels(
        7, ["truegreen: verified"], key=KEY + " head 2", replace="truegreen: "
    )
    assert out.action == "created" and "(removed truegreen: refuted)" in out.detail
    assert gh.labels["acme/shop#7"] == ["bug", "truegreen: verified"]
    assert [(w.method, w.path) for w in gh.writes] == [
        ("DELETE", "/repos/acme/shop/issues/7/labels/truegreen%3A%20refuted"),
        ("POST", "/repos/acme/shop/issues/7/labels"),
    ]
