"""``truegreen ci``: inside a GitHub Actions job, verify the pull request of the event, or
(``--diagnose``) diagnose the failed jobs of a run.

A pull request (``pull_request``, ``pull_request_target``):

1. the issues it says it fixes ("Fixes #N", "Closes owner/repo#N") in its title, body and
   the commit messages between the merge base and the head (read from the checkout: a
   fork's read-only token needs no API call for it);
2. the exams sealed for those issues, read from ``.truegreen/exams/*.json`` (bundles that
   ``truegreen seal --issue N --export .truegreen/exams/`` writes) **at the base**: never
   from the head, whose copy a contributor could have changed;
3. the head verified against the merge base (as ``truegreen verify`` does, with the
   receipt); with no linked exam, the tamper and regression layers only, and the decision
   is escalate (missing evidence never counts as a pass);
4. the report: the step summary, annotations, and through the write gate
   (:mod:`truegreen.github.gate`) a sticky comment, a check run and a label.

Like ``demo/run.py``, this module calls :mod:`truegreen.api` (verify, diagnose) as an
adapter would: the CI job is the same verification a person runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from truegreen.errors import UsageError
from truegreen.github.records import IssueRef, linked_issues
from truegreen.github.summary import (
    CONCLUSION,
    check_annotations,
    diagnosis_markdown,
    workflow_commands,
)

if TYPE_CHECKING:
    from truegreen.diagnose.model import Diagnosis
    from truegreen.events import Listener
    from truegreen.exam.store import Ledger
    from truegreen.github.client import GitHubClient
    from truegreen.github.gate import Mode
    from truegreen.model.exam import Exam
    from truegreen.model.requests import CiRequest, PullVerifyRequest
    from truegreen.model.results import CiResult
    from truegreen.repo.git import GitRepo
    from truegreen.run.executor import Cancellation, Executor

PULL_EVENTS = ("pull_request", "pull_request_target")
EXIT = {"approve": 0, "reject": 1, "escalate": 3}
CHECK_NAME = "truegreen"


def read_event(path: Path) -> dict[str, Any]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(
            f"cannot read the event file {path}: {exc.strerror}",
            hint="run inside a GitHub Actions job (GITHUB_EVENT_PATH), or give the file",
            field="event_path",
        ) from None
    except ValueError as exc:
        raise UsageError(
            f"the event file {path} is not JSON ({exc})",
            hint="give the event payload as GitHub writes it",
            field="event_path",
        ) from None
    if not isinstance(payload, dict):
        raise UsageError(f"the event file {path} is not a JSON object", field="event_path")
    return payload


@dataclass(frozen=True)
class PullEvent:
    repo: str
    number: int
    title: str
    body: str
    base_sha: str
    head_sha: str
    head_repo: str

    @property
    def fork(self) -> bool:
        return self.head_repo.lower() != self.repo.lower()

    @property
    def key(self) -> str:
        """The idempotency key of everything written for this head: a retried job (a new
        attempt, a redelivery) writes nothing twice."""
        return f"{self.repo}#{self.number}@{self.head_sha}"

    @classmethod
    def of(cls, payload: dict[str, Any], repository: str | None) -> PullEvent:
        pr = payload.get("pull_request")
        if not isinstance(pr, dict):
            raise UsageError(
                "the event has no pull_request",
                hint="truegreen ci verifies pull_request events; use --diagnose for push "
                "and workflow_run",
                field="event_path",
            )
        try:
            repo = repository or str(payload["repository"]["full_name"])
            head_repo = (pr["head"].get("repo") or {}).get("full_name") or ""
            return cls(
                repo=repo,
                number=int(pr["number"]),
                title=str(pr.get("title") or ""),
                body=str(pr.get("body") or ""),
                base_sha=str(pr["base"]["sha"]),
                head_sha=str(pr["head"]["sha"]),
                head_repo=str(head_repo),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(
                f"the pull_request event lacks {exc}",
                hint="give the event payload as GitHub writes it",
                field="event_path",
            ) from None


def exams_at(git: GitRepo, rev: str, directory: str) -> list[tuple[str, Exam]]:
    """(file, exam) for every exam in the bundles under ``directory`` at ``rev``."""
    from truegreen.exam.bundle import parse_bundle

    prefix = directory.strip("/") + "/"
    found: list[tuple[str, Exam]] = []
    for path in git.files(rev):
        if not (path.startswith(prefix) and path.endswith(".json")):
            continue
        text = git.show_text(rev, path) or ""
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise UsageError(
                f"{path} at the base {rev[:12]} is not JSON ({exc})",
                hint="commit the file `truegreen seal --issue N --export DIR` wrote",
            ) from None
        found += [(path, exam) for exam in parse_bundle(doc, f"{path} at the base {rev[:12]}")]
    return found


def _issue_matches(exam: Exam, ref: IssueRef, repo: str) -> bool:
    issue = exam.issue
    if issue is None or ref.repo.lower() != repo.lower():
        return False
    text = str(issue).strip().lower()
    number = str(ref.number)
    return text in (number, f"#{number}", f"{repo.lower()}#{number}") or text.endswith(
        f"/issues/{number}"
    )


def commit_messages(git: GitRepo, base: str, head: str) -> list[str]:
    done = git.git("log", "--format=%B%x00", f"{base}..{head}")
    return [m.strip() for m in done.stdout.split("\0") if m.strip()]


@dataclass
class _Report:
    lines: list[str] = field(default_factory=list)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def verify_pull(
    request: CiRequest | PullVerifyRequest,
    event: PullEvent,
    git: GitRepo,
    *,
    listener: Listener | None,
    cancel: Cancellation | None,
    executor: Executor | None,
    ledger: Ledger | None,
    client: GitHubClient | None,
    log: Callable[[str], None],
) -> CiResult:
    """Verify pull request ``event`` in the checkout ``git`` against the exams its base
    holds for the issues it fixes; the report written through the gate (``request.writes``)."""
    from truegreen import api
    from truegreen.exam.bundle import import_bundle
    from truegreen.model.requests import VerifyRequest
    from truegreen.model.results import CiResult

    base = git.resolve(event.base_sha, field="event_path")
    try:
        head = git.resolve(event.head_sha, field="event_path")
    except UsageError:
        raise UsageError(
            f"the pull request's head {event.head_sha[:12]} is not in the checkout",
            hint="check out with actions/checkout and fetch-depth: 0",
            field="event_path",
        ) from None
    merge_base = git.git("merge-base", base, head).stdout.strip()
    issues = linked_issues(
        [event.title, event.body, *commit_messages(git, merge_base, head)], event.repo
    )
    available = exams_at(git, base, request.exams_dir)
    chosen = [
        (path, exam)
        for path, exam in available
        if any(_issue_matches(exam, ref, event.repo) for ref in issues)
    ]
    exams = sorted({exam.id: exam for _, exam in chosen}.values(), key=lambda e: e.id)
    with api._ledger(ledger, request.db) as lg:
        if exams:
            import_bundle(lg, exams)
        verification = api.verify(
            VerifyRequest(
                repo=git.root,
                python=request.python,
                sandbox=request.sandbox,
                db=request.db,
                base=merge_base,
                head=head,
                exams=tuple(e.id for e in exams),
                without_exams=not exams,
                runs=request.runs,
                strength=request.strength,
                regression=request.regression,
                report_dir=request.report_dir,
            ),
            listener=listener,
            cancel=cancel,
            executor=executor,
            ledger=lg,
        )
    doc = verification.to_json()

    report = _Report()
    report.add(f"## Pull request {event.repo}#{event.number}", "")
    report.add(
        f"- verified: the head `{head[:12]}` against the merge base `{merge_base[:12]}`",
        f"- exams read from `{request.exams_dir}/` at the base `{base[:12]}` (never from the head)",
    )
    if issues:
        named = []
        for ref in issues:
            ids = [e.id for p, e in chosen if _issue_matches(e, ref, event.repo)]
            named.append(f"{ref} ({', '.join(f'exam `{i}`' for i in ids) or 'no exam sealed'})")
        report.add("- linked issues: " + "; ".join(named))
    else:
        report.add('- linked issues: none ("Fixes #N" in the title, body or a commit)')
    if not exams:
        report.add(
            "",
            "### No exam",
            "",
            "No sealed exam is linked to this pull request, so nothing shows that it fixes "
            "what it claims: only the tamper and regression layers ran, and the decision is "
            "**escalate** (a person reviews it). To gate it on an exam, seal a failing test "
            "for the issue and commit the bundle on the base branch:",
            "",
            "    truegreen seal TEST_ID --issue N --export .truegreen/exams/",
        )
    report.add("")

    from truegreen.report.markdown import render

    # what the pull request shows (comment, check run) is what the summary shows, less
    # the account of the writes themselves
    body = render(doc).rstrip("\n") + "\n\n" + report.text()
    commands = workflow_commands(doc["reasons"])
    writes: list[dict[str, Any]] = []
    if request.writes != "off":
        writes = _post(request, event, doc, body, client, log)
    if writes:
        report.add("## Written to GitHub", "")
        if event.fork and any(w["action"] == "refused" for w in writes):
            report.add(
                "A pull request from a fork gets a read-only token: nothing is written to "
                "GitHub, and this summary is the whole report.",
                "",
            )
        report.add(*(f"- {w['kind']}: {w['action']}: {w['detail']}" for w in writes), "")
    summary = render(doc).rstrip("\n") + "\n\n" + report.text()
    decision = str(doc["decision"])
    return CiResult(
        event=request.event_name,
        exit_code=EXIT[decision],
        decision=decision,
        summary=summary,
        commands=tuple(commands),
        linked_issues=tuple(str(r) for r in issues),
        exams=tuple(e.id for e in exams),
        writes=tuple(writes),
        verification=verification,
        diagnosis=None,
    )


def _post(
    request: CiRequest | PullVerifyRequest,
    event: PullEvent,
    doc: dict[str, Any],
    body: str,
    client: GitHubClient | None,
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """The sticky comment, the check run and the label, through the write gate."""
    from truegreen.github import session
    from truegreen.github.gate import WriteGate, WriteLog

    # a fork's pull_request job has a read-only token: said before anything is tried
    granted: dict[str, str] | None = (
        {} if event.fork and request.event_name == "pull_request" else None
    )
    own = client is None
    client = client or session(api=request.api_url, granted=granted)
    store = WriteLog()
    try:
        mode = cast("Mode | None", request.writes if request.writes in ("shadow", "live") else None)
        gate = WriteGate(client, event.repo, mode=mode, store=store, log=log)
        decision = str(doc["decision"])
        gate.sticky_comment(event.number, body, key=event.key)
        gate.check_run(
            event.head_sha,
            CHECK_NAME,
            CONCLUSION[decision],
            f"{doc['verdict']} -> {decision}",
            body,
            check_annotations(doc["reasons"]),
            key=event.key,
        )
        gate.labels(
            event.number, [f"truegreen: {doc['verdict']}"], key=event.key, replace="truegreen: "
        )
        return [o.to_json() for o in gate.outcomes]
    finally:
        store.close()
        if own:
            client.close()


def diagnose_run(
    request: CiRequest,
    payload: dict[str, Any],
    *,
    client: GitHubClient | None,
) -> CiResult:
    """The failed jobs of a run (the ``workflow_run`` of the event, else this job's run),
    diagnosed: the summary says what failed and why."""
    from truegreen import diagnose as engine
    from truegreen.diagnose.github import fetch
    from truegreen.github import session

    repo = request.repository or str((payload.get("repository") or {}).get("full_name") or "")
    if not repo:
        raise UsageError(
            "the event names no repository", hint="set GITHUB_REPOSITORY", field="repository"
        )
    workflow_run = payload.get("workflow_run")
    run_id = request.run_id
    if isinstance(workflow_run, dict) and workflow_run.get("id"):
        run_id = int(workflow_run["id"])
        if workflow_run.get("conclusion") not in ("failure", "timed_out", "startup_failure"):
            text = (
                f"# truegreen diagnose: run {run_id}\n\nThe run ended "
                f"`{workflow_run.get('conclusion')}`: there is no failure to diagnose.\n"
            )
            return _diagnosed(request, text, None)
    if run_id is None:
        raise UsageError(
            "no run to diagnose: the event is not a workflow_run and no run id is given",
            hint="set GITHUB_RUN_ID (GitHub Actions does)",
            field="run_id",
        )
    own = client is None
    client = client or session(api=request.api_url)
    try:
        jobs = [j for j in client.run_jobs(repo, run_id) if j.failed]
        if not jobs:
            text = f"# truegreen diagnose: run {run_id}\n\nNo job of the run has failed (yet).\n"
            return _diagnosed(request, text, None)
        inputs, files = [], []
        try:
            for job in jobs[:10]:
                fetched = fetch(repo, None, job.id, client=client)
                files.append(fetched)
                inputs += fetched.inputs
            steps = [s for j in jobs for s in j.failed_steps]
            diagnosis = engine.diagnose_inputs(inputs, failed_step=steps[0] if steps else None)
        finally:
            for f in files:
                f.close()
    finally:
        if own:
            client.close()
    names = ", ".join(j.name for j in jobs[:10])
    text = diagnosis_markdown(diagnosis.to_json(), f"run {run_id}, failed: {names}")
    return _diagnosed(request, text, diagnosis)


def _diagnosed(request: CiRequest, text: str, diagnosis: Diagnosis | None) -> CiResult:
    from truegreen.model.results import CiResult

    return CiResult(
        event=request.event_name,
        exit_code=0,
        decision=None,
        summary=text,
        commands=(),
        linked_issues=(),
        exams=(),
        writes=(),
        verification=None,
        diagnosis=None if diagnosis is None else diagnosis.to_json(),
    )


def run_ci(
    request: CiRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
    client: GitHubClient | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> CiResult:
    payload = read_event(request.event_path)
    if request.diagnose:
        return diagnose_run(request, payload, client=client)
    if request.event_name not in PULL_EVENTS:
        raise UsageError(
            f"a {request.event_name} event has no pull request to verify",
            hint="run truegreen ci on pull_request events, or add --diagnose to diagnose "
            "a failed run",
            field="event_name",
        )
    from truegreen.repo.git import GitRepo

    event = PullEvent.of(payload, request.repository)
    return verify_pull(
        request,
        event,
        GitRepo.discover(request.repo, executor),
        listener=listener,
        cancel=cancel,
        executor=executor,
        ledger=ledger,
        client=client,
        log=log,
    )
