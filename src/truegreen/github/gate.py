"""The one door every write to GitHub goes through.

    gate = WriteGate(client, "acme/shop", mode="live", log=print)
    gate.sticky_comment(7, markdown, key="acme/shop#7@<head sha>")
    gate.check_run(head_sha, "truegreen", "failure", title, summary, annotations, key=...)
    gate.labels(7, ["truegreen: refuted"], key=...)

Before anything is written, in this order:

1. **Mode.** ``shadow`` (the default for a repository truegreen has not been told to write
   to) logs what would be written and writes nothing: no request at all. ``live`` writes.
   The mode is the caller's, else the one remembered for the repository
   (:meth:`WriteLog.set_mode`), else shadow.
2. **Idempotency.** Every write carries a key (the job's repository, pull request, head
   and run). A key already written is skipped, locally (:class:`WriteLog`) and on GitHub,
   where the key travels with what was written (a hidden marker in a comment, a check
   run's ``external_id``): a retried job on a fresh runner finds it there and posts
   nothing twice.
3. **Secrets.** Outgoing text is scanned: token shapes (GitHub, Slack, AWS, OpenAI, JWTs,
   private keys), ``secret = "..."`` assignments, and the literal values of this process's
   credentials are replaced by ``<redacted>``, and the log says so.
4. **Permission.** When the credentials' permissions are known (a GitHub App's token, a
   fork's read-only ``GITHUB_TOKEN``), a write they do not allow is refused without a
   request; otherwise GitHub's 403 is the answer, and the write is refused the same way.

A write that fails does not raise: its :class:`WriteOutcome` says what happened, so that a
job still reports everything it found (the step summary shows it all).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from truegreen.errors import GitHubError, UsageError
from truegreen.github.client import GitHubClient

Mode = Literal["shadow", "live"]
MODES: tuple[Mode, ...] = ("shadow", "live")
#: GitHub takes at most 50 annotations per check-run request
ANNOTATIONS_PER_REQUEST = 50
#: the longest output.summary / a comment GitHub accepts
MAX_TEXT = 65535
STICKY = "<!-- truegreen:sticky -->"

#: the permission (and level) each kind of write needs; any one of them will do
NEEDS: dict[str, tuple[str, ...]] = {
    "comment": ("pull_requests", "issues"),
    "check_run": ("checks",),
    "labels": ("pull_requests", "issues"),
}


@dataclass(frozen=True)
class WriteOutcome:
    """What became of one write: ``action`` is ``shadow`` (logged, not written),
    ``created``, ``updated``, ``duplicate`` (its key was written before), ``refused``
    (no permission) or ``failed``."""

    kind: str
    key: str
    action: str
    detail: str
    url: str | None = None
    redacted: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "key": self.key,
            "action": self.action,
            "detail": self.detail,
            "url": self.url,
            "redacted": self.redacted,
        }


def _marker(key: str) -> str:
    return f"<!-- truegreen:key={hashlib.sha256(key.encode()).hexdigest()[:32]} -->"


def external_id(key: str) -> str:
    return "truegreen-" + hashlib.sha256(key.encode()).hexdigest()[:32]


class WriteLog:
    """The keys written and the mode of each repository, in a small SQLite file (default:
    ``github-writes.sqlite`` in truegreen's data directory)."""

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            from truegreen.exam.db import data_dir

            path = data_dir() / "github-writes.sqlite"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS writes (key TEXT PRIMARY KEY, kind TEXT, action TEXT, url TEXT)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS modes (repo TEXT PRIMARY KEY, mode TEXT)")
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(
                f"cannot open the GitHub write log {path}: {exc}",
                hint="set TRUEGREEN_HOME to a writable directory",
            ) from None

    def close(self) -> None:
        self._db.close()

    def written(self, kind: str, key: str) -> str | None:
        """The URL of what ``key`` wrote of ``kind`` ("" when none), None when it wrote none."""
        row = self._db.execute(
            "SELECT url FROM writes WHERE key = ?", (f"{kind} {key}",)
        ).fetchone()
        return None if row is None else str(row[0] or "")

    def record(self, outcome: WriteOutcome) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO writes VALUES (?, ?, ?, ?)",
            (f"{outcome.kind} {outcome.key}", outcome.kind, outcome.action, outcome.url),
        )

    def mode(self, repo: str) -> Mode | None:
        row = self._db.execute("SELECT mode FROM modes WHERE repo = ?", (repo.lower(),)).fetchone()
        return row[0] if row is not None and row[0] in MODES else None

    def set_mode(self, repo: str, mode: Mode) -> None:
        self._db.execute("INSERT OR REPLACE INTO modes VALUES (?, ?)", (repo.lower(), mode))


def _env_secrets() -> list[str]:
    """The values of this process's credentials: never sent back out in text."""
    names = ("TOKEN", "SECRET", "PASSWORD", "PRIVATE_KEY", "API_KEY")
    return [v for k, v in os.environ.items() if any(n in k.upper() for n in names) and len(v) >= 8]


def scrub(text: str, secrets: Iterable[str] = ()) -> tuple[str, int]:
    """``text`` with secrets replaced by ``<redacted>``, and how many were."""
    from truegreen.localize.redact import REDACTED, Scrubber

    count = 0
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret and secret in text:
            count += text.count(secret)
            text = text.replace(secret, REDACTED)
    cleaned = Scrubber().text(text)
    count += cleaned.count(REDACTED) - text.count(REDACTED)
    return cleaned, count


@dataclass
class WriteGate:
    client: GitHubClient
    repo: str
    mode: Mode | None = None
    store: WriteLog | None = None
    log: Callable[[str], None] = lambda line: None
    secrets: Sequence[str] = field(default_factory=_env_secrets)
    outcomes: list[WriteOutcome] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.mode is None:
            self.mode = (self.store.mode(self.repo) if self.store else None) or "shadow"
        elif self.mode not in MODES:
            raise UsageError(
                f"unknown write mode {self.mode!r}", hint="use shadow or live", field="writes"
            )

    # -- the checks every write passes -----------------------------------------------------

    def _done(self, outcome: WriteOutcome) -> WriteOutcome:
        self.outcomes.append(outcome)
        where = f" {outcome.url}" if outcome.url else ""
        self.log(f"github: {outcome.kind} {outcome.action}: {outcome.detail}{where}")
        if self.store is not None and outcome.action in ("created", "updated"):
            self.store.record(outcome)
        return outcome

    def _allowed(self, kind: str) -> bool:
        granted = self.client.auth.permissions()
        if granted is None:
            return True  # unknown: GitHub's answer decides
        return any(granted.get(p) == "write" for p in NEEDS[kind])

    def _gate(self, kind: str, key: str, what: str) -> WriteOutcome | None:
        """The outcome when the write must not be made (shadow, a duplicate, no permission)."""
        if self.mode == "shadow":
            return self._done(WriteOutcome(kind, key, "shadow", f"would write {what}"))
        before = self.store.written(kind, key) if self.store is not None else None
        if before is not None:
            return self._done(
                WriteOutcome(
                    kind, key, "duplicate", f"{what}: written before (same key)", before or None
                )
            )
        if not self._allowed(kind):
            return self._done(
                WriteOutcome(
                    kind,
                    key,
                    "refused",
                    f"{what}: the token may not write {' or '.join(NEEDS[kind])} "
                    "(a pull request from a fork gets a read-only token)",
                )
            )
        return None

    def _clean(self, text: str) -> tuple[str, int]:
        cleaned, n = scrub(text, self.secrets)
        if n:
            self.log(f"github: {n} secret(s) redacted from outgoing text")
        if len(cleaned) > MAX_TEXT:
            cleaned = cleaned[: MAX_TEXT - 40] + "\n\n(cut at GitHub's length limit)"
        return cleaned, n

    def _failed(self, kind: str, key: str, what: str, exc: GitHubError) -> WriteOutcome:
        action = "refused" if exc.status in (401, 403, 404) else "failed"
        return self._done(WriteOutcome(kind, key, action, f"{what}: {exc.message}"))

    # -- the writes -------------------------------------------------------------------------

    def sticky_comment(self, number: int, body: str, *, key: str) -> WriteOutcome:
        """The one truegreen comment on pull request ``number``: created once, then
        updated in place (found by its hidden marker), never repeated."""
        what = f"the comment on {self.repo}#{number}"
        stop = self._gate("comment", key, what)
        if stop is not None:
            return stop
        text, redacted = self._clean(body)
        text = f"{STICKY}\n{_marker(key)}\n{text}"
        try:
            mine = [
                c
                for c in self.client.paginate(
                    f"/repos/{self.repo}/issues/{number}/comments", what=what
                )
                if STICKY in str(c.get("body") or "")
            ]
            if mine and str(mine[0].get("body")) == text:
                url = str(mine[0].get("html_url") or "")
                return self._done(
                    WriteOutcome(
                        "comment", key, "duplicate", f"{what}: already says this", url or None
                    )
                )
            # the first truegreen comment is the sticky one: updated, never a second
            method, path, action = (
                ("PATCH", f"/repos/{self.repo}/issues/comments/{mine[0]['id']}", "updated")
                if mine
                else ("POST", f"/repos/{self.repo}/issues/{number}/comments", "created")
            )
            done = self.client.request(method, path, json={"body": text}, what=what)
        except GitHubError as exc:
            return self._failed("comment", key, what, exc)
        posted = str(done.json().get("html_url") or "") or None
        return self._done(WriteOutcome("comment", key, action, what, posted, redacted))

    def check_run(
        self,
        head_sha: str,
        name: str,
        conclusion: str,
        title: str,
        summary: str,
        annotations: Sequence[dict[str, Any]] = (),
        *,
        key: str,
    ) -> WriteOutcome:
        """A completed check run on ``head_sha`` with the decision and its annotations (50
        per request: the first 50 with the run, the rest appended by updates)."""
        what = f"the check run {name!r} on {head_sha[:12]}"
        stop = self._gate("check_run", key, what)
        if stop is not None:
            return stop
        ext = external_id(key)
        summary, redacted = self._clean(summary)
        title, n = self._clean(title)
        redacted += n
        notes = [{**a, "message": self._clean(str(a.get("message", "")))[0]} for a in annotations]
        batches = [
            notes[i : i + ANNOTATIONS_PER_REQUEST]
            for i in range(0, len(notes), ANNOTATIONS_PER_REQUEST)
        ] or [[]]
        try:
            existing = self.client.get_json(
                f"/repos/{self.repo}/commits/{head_sha}/check-runs",
                {"check_name": name, "per_page": 100},
                what=what,
            )
            for run in (existing or {}).get("check_runs", []):
                if run.get("external_id") == ext:
                    url = str(run.get("html_url") or "") or None
                    return self._done(
                        WriteOutcome(
                            "check_run", key, "duplicate", f"{what}: written before (same key)", url
                        )
                    )
            output = {"title": title, "summary": summary, "annotations": batches[0]}
            created = self.client.request(
                "POST",
                f"/repos/{self.repo}/check-runs",
                json={
                    "name": name,
                    "head_sha": head_sha,
                    "status": "completed",
                    "conclusion": conclusion,
                    "external_id": ext,
                    "output": output,
                },
                what=what,
            ).json()
            for batch in batches[1:]:
                self.client.request(
                    "PATCH",
                    f"/repos/{self.repo}/check-runs/{created['id']}",
                    json={"output": {"title": title, "summary": summary, "annotations": batch}},
                    what=what,
                )
        except GitHubError as exc:
            return self._failed("check_run", key, what, exc)
        url = str(created.get("html_url") or "") or None
        detail = f"{what}: {conclusion}, {len(notes)} annotation(s) in {len(batches)} request(s)"
        return self._done(WriteOutcome("check_run", key, "created", detail, url, redacted))

    def labels(
        self, number: int, labels: Sequence[str], *, key: str, replace: str | None = None
    ) -> WriteOutcome:
        """Add ``labels`` to issue or pull request ``number``; the labels it has are kept,
        except those starting with ``replace`` (a verdict's label replaces the last one)."""
        what = f"the labels {', '.join(labels)} on {self.repo}#{number}"
        stop = self._gate("labels", key, what)
        if stop is not None:
            return stop
        path = f"/repos/{self.repo}/issues/{number}/labels"
        try:
            have = {str(label.get("name")) for label in self.client.paginate(path, what=what)}
            stale = sorted(h for h in have - set(labels) if replace and h.startswith(replace))
            if set(labels) <= have and not stale:
                return self._done(
                    WriteOutcome("labels", key, "duplicate", f"{what}: already there")
                )
            for name in stale:
                self.client.request(
                    "DELETE",
                    f"{path}/{quote(name, safe='')}",
                    what=f"the label {name!r}",
                    ok=(404,),
                )
            if not set(labels) <= have:
                self.client.request("POST", path, json={"labels": list(labels)}, what=what)
        except GitHubError as exc:
            return self._failed("labels", key, what, exc)
        removed = f" (removed {', '.join(stale)})" if stale else ""
        return self._done(WriteOutcome("labels", key, "created", what + removed))
