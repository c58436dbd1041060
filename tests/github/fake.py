"""A loopback fake of the GitHub REST API: a threaded HTTP server on 127.0.0.1 serving
recorded JSON (``tests/github/recorded/``), scripted replies (rate limits, 5xx), and a
small state for what truegreen writes (issue comments, check runs, labels), every request
recorded.

    with FakeGitHub() as gh:
        gh.script("GET", "/repos/acme/shop/pulls/7", Reply(502), Reply(200, {...}))
        client = GitHubClient(api=gh.url, auth=TokenAuth("ghs_test"), sleep=gh.sleep)
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

RECORDED = Path(__file__).parent / "recorded"


def recorded(name: str) -> Any:
    return json.loads((RECORDED / name).read_text(encoding="utf-8"))


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    authorization: str | None
    version: str | None
    body: Any


class FakeGitHub:
    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.routes: dict[tuple[str, str], list[Reply]] = {}
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self.check_runs: list[dict[str, Any]] = []
        self.labels: dict[str, list[str]] = {}
        #: installation tokens issued and whether GitHub still takes them
        self.tokens: dict[str, bool] = {}
        self.token_lifetime = "2030-01-01T01:00:00Z"
        #: the token every non-app request must carry (None: any or none)
        self.require_token: str | None = None
        self.slept: list[float] = []
        self._next_id = 1000
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- for tests ----------------------------------------------------------------------------

    def script(self, method: str, path: str, *replies: Reply) -> None:
        """Replies to ``method path``, one per request; the last one stays."""
        self.routes[(method, path)] = list(replies)

    def serve(self, path: str, name: str) -> None:
        """``GET path`` answers the recorded response ``name``."""
        self.script("GET", path, Reply(200, recorded(name)))

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    @property
    def writes(self) -> list[Seen]:
        """Every request that would change something on GitHub (token exchanges aside)."""
        return [
            r for r in self.requests if r.method != "GET" and not r.path.endswith("/access_tokens")
        ]

    # -- the server ----------------------------------------------------------------------------

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else b""
                body = json.loads(data) if data else None
                seen = Seen(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    self.headers.get("Authorization"),
                    self.headers.get("X-GitHub-Api-Version"),
                    body,
                )
                with fake._lock:
                    fake.requests.append(seen)
                    reply = fake._reply(seen)
                payload = reply.raw
                if payload is None:
                    payload = b"" if reply.body is None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                if "Content-Type" not in reply.headers:
                    self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _answer

        return Handler

    def _reply(self, seen: Seen) -> Reply:
        if seen.path.endswith("/access_tokens") and seen.method == "POST":
            if not (seen.authorization or "").startswith("Bearer ey"):
                return Reply(401, {"message": "A JSON web token could not be decoded"})
            token = f"ghs_installation{len(self.tokens) + 1:04d}"
            self.tokens[token] = True
            return Reply(
                201,
                {
                    "token": token,
                    "expires_at": self.token_lifetime,
                    "permissions": {"checks": "write", "pull_requests": "write", "issues": "write"},
                },
            )
        bearer = (seen.authorization or "").removeprefix("Bearer ")
        if bearer in self.tokens and not self.tokens[bearer]:
            return Reply(401, {"message": "Bad credentials"})
        if (
            self.require_token is not None
            and bearer != self.require_token
            and bearer not in self.tokens
        ):
            return Reply(401, {"message": "Bad credentials"})
        scripted = self.routes.get((seen.method, seen.path))
        if scripted:
            return scripted.pop(0) if len(scripted) > 1 else scripted[0]
        return self._state(seen)

    def _state(self, seen: Seen) -> Reply:
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", seen.path)
        if m:
            comments = self.comments.setdefault(f"{m[1]}#{m[2]}", [])
            if seen.method == "GET":
                return Reply(200, comments)
            comment = {
                "id": self._new_id(),
                "body": seen.body["body"],
                "user": {"login": "github-actions[bot]"},
                "html_url": f"https://github.com/{m[1]}/pull/{m[2]}#issuecomment-{self._next_id}",
            }
            comments.append(comment)
            return Reply(201, comment)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", seen.path)
        if m and seen.method == "PATCH":
            for comments in self.comments.values():
                for comment in comments:
                    if comment["id"] == int(m[2]):
                        comment["body"] = seen.body["body"]
                        return Reply(200, comment)
            return Reply(404, {"message": "Not Found"})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/commits/([0-9a-f]+)/check-runs", seen.path)
        if m:
            runs = [r for r in self.check_runs if r["head_sha"] == m[2]]
            return Reply(200, {"total_count": len(runs), "check_runs": runs})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/check-runs", seen.path)
        if m and seen.method == "POST":
            run = {
                **seen.body,
                "id": self._new_id(),
                "html_url": f"https://github.com/{m[1]}/runs/{self._next_id}",
            }
            run["output"] = {
                **run["output"],
                "annotations": list(run["output"].get("annotations", [])),
            }
            self.check_runs.append(run)
            return Reply(201, run)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/check-runs/(\d+)", seen.path)
        if m and seen.method == "PATCH":
            for run in self.check_runs:
                if run["id"] == int(m[2]):
                    run["output"]["annotations"] += seen.body["output"].get("annotations", [])
                    return Reply(200, run)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/labels/(.+)", seen.path)
        if m and seen.method == "DELETE":
            labels = self.labels.setdefault(f"{m[1]}#{m[2]}", [])
            name = unquote(m[3])
            if name not in labels:
                return Reply(404, {"message": "Label does not exist"})
            labels.remove(name)
            return Reply(200, [{"name": n} for n in labels])
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/labels", seen.path)
        if m:
            labels = self.labels.setdefault(f"{m[1]}#{m[2]}", [])
            if seen.method == "POST":
                labels += [name for name in seen.body["labels"] if name not in labels]
            return Reply(200, [{"name": name} for name in labels])
        return Reply(
            404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
        )
