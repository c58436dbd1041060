"""`truegreen diagnose --github` against a loopback fake of the REST API, serving recorded
responses (job list, a 302 to a plain-text job log, a 302 to a run's zip)."""

from __future__ import annotations

import io
import json
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from truegreen.cli import main

JOB_LOG = (
    "2024-05-01T10:00:00.0000000Z ##[group]Run pytest -q\n"
    "2024-05-01T10:00:00.0000000Z pytest -q\n"
    "2024-05-01T10:00:00.0000000Z ##[endgroup]\n"
    "2024-05-01T10:00:01.0000000Z FAILED tests/test_api.py::test_get - AssertionError: assert 500 == 200\n"
    "2024-05-01T10:00:01.0000000Z 1 failed, 9 passed in 0.20s\n"
    "2024-05-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
)
LINT_LOG = (
    "2024-05-01T10:00:00.0000000Z ##[group]Run ruff check .\n"
    "2024-05-01T10:00:00.0000000Z ruff check .\n"
    "2024-05-01T10:00:00.0000000Z ##[endgroup]\n"
    "2024-05-01T10:00:01.0000000Z src/app.py:3:8: F401 [*] `os` imported but unused\n"
    "2024-05-01T10:00:01.0000000Z Found 1 error.\n"
    "2024-05-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
)


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("0_build.txt", "2024-05-01T10:00:00.0000000Z all good\n")
        z.writestr("1_lint.txt", LINT_LOG)
        z.writestr("lint/3_Run ruff check ..txt", LINT_LOG)
    return buf.getvalue()


JOBS = {
    "total_count": 2,
    "jobs": [
        {"id": 11, "name": "build", "conclusion": "success", "steps": []},
        {"id": 12, "name": "lint", "conclusion": "failure",
         "steps": [{"name": "Run ruff check .", "conclusion": "failure"}]},
    ],
}  # fmt: skip


class FakeGitHub(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str | None]]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        FakeGitHub.seen.append((self.path, self.headers.get("Authorization")))
        routes = {
            "/repos/acme/shop/actions/jobs/7/logs": (302, "/storage/job7.txt"),
            "/repos/acme/shop/actions/runs/99/logs": (302, "/storage/run99.zip"),
        }
        if self.path in routes:
            self.send_response(302)
            self.send_header("Location", routes[self.path][1])
            self.end_headers()
            return
        if self.path.startswith("/repos/acme/shop/actions/runs/99/jobs"):
            self._send(200, json.dumps(JOBS).encode(), "application/json")
        elif self.path == "/storage/job7.txt":
            self._send(200, JOB_LOG.encode(), "text/plain")
        elif self.path == "/storage/run99.zip":
            self._send(200, _zip(), "application/zip")
        elif self.path.startswith("/repos/acme/private/"):
            self._send(
                403, b'{"message": "Must have admin rights to Repository."}', "application/json"
            )
        else:
            self._send(404, b'{"message": "Not Found"}', "application/json")

    def _send(self, code: int, body: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeGitHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("TRUEGREEN_GITHUB_API", url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_fake")
    FakeGitHub.seen = []
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    captured = capsys.readouterr()
    code = exc.value.code if isinstance(exc.value.code, int) else 0
    return code, captured.out, captured.err


def test_a_job_log_is_fetched_through_the_redirect(api, capsys):
    code, out, _ = cli(
        capsys, "diagnose", "--github", "acme/shop", "--run", "99", "--job", "7", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["class"] == "test"
    assert doc["failing_tests"] == ["tests/test_api.py::test_get"]
    assert doc["evidence"][0]["line"] == 4
    # the token goes to the API, never to the storage host the log redirects to
    assert ("/repos/acme/shop/actions/jobs/7/logs", "Bearer ghs_fake") in FakeGitHub.seen
    assert ("/storage/job7.txt", None) in FakeGitHub.seen


def test_a_run_reads_the_failed_jobs_from_the_zip(api, capsys):
    code, out, _ = cli(capsys, "diagnose", "--github", "acme/shop", "--run", "99", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["class"] == "lint"
    assert doc["source"]["jobs"] == [] or all("lint" in j for j in doc["source"]["jobs"])
    assert doc["evidence"][0]["text"].startswith("src/app.py:3:8: F401")


def test_api_refusals_are_one_line_and_exit_2(api, capsys):
    code, out, err = cli(capsys, "diagnose", "--github", "acme/private", "--run", "1")
    assert code == 2 and out == "" and "HTTP 403" in err and "GITHUB_TOKEN" in err
    code, _, err = cli(capsys, "diagnose", "--github", "acme/shop", "--run", "1")
    assert code == 2 and "HTTP 404" in err


def test_an_unreachable_api_is_named(monkeypatch, capsys):
    monkeypatch.setenv("TRUEGREEN_GITHUB_API", "http://127.0.0.1:9")
    code, _, err = cli(capsys, "diagnose", "--github", "acme/shop", "--job", "7")
    assert code == 2 and "cannot reach the GitHub API" in err
