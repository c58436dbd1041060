"""From a scan to a diagnosis: which step failed, what it ran, what the lines before its exit
say, what the failing tests' own exceptions are; a class, a calibrated confidence, ranked
evidence, the failing tests with signatures, a flaky suspicion and a next step."""

from __future__ import annotations

import bisect
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

from truegreen.diagnose import pytest_parse as pp
from truegreen.diagnose.exceptions import (
    exception_class,
    own_missing_module,
    parse_exception_line,
    wrapped_exception,
)
from truegreen.diagnose.scanner import Candidate, ScanResult, Step
from truegreen.run.signature import is_library_path

CLASSES = (
    "test", "lint", "type", "build", "dependency", "network", "timeout",
    "configuration", "environment", "infrastructure", "unknown",
)  # fmt: skip

#: Runner messages that decide a job wherever they are (they are not test output).
_JOB_LEVEL_RULES = {"runner-shutdown", "runner-lost", "cancelled", "gha-timeout", "travis-timeout"}
MAX_EVIDENCE = 8
#: Lines before the first error of a class within which a cause (network, OOM) explains it.
CAUSE_REACH = 60
EARLY_BONUS = 0.4
_FAILING_HEADER = re.compile(r"^\s*\d+ failing$")

# (command shape, tool, class the tool's failure usually is)
_COMMAND_TOOLS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(p), t, c)
    for p, t, c in (
        (r"\b(?:pytest|py\.test)\b", "pytest", "test"),
        (r"-m unittest\b|\bunittest\b|manage\.py test\b|\bnose2?\b|\bstestr\b", "unittest", "test"),
        (r"\bruff format\b", "ruff", "lint"),
        (r"\bruff\b", "ruff", "lint"),
        (r"\bflake8\b|\bpycodestyle\b|\bpydocstyle\b|\bpyflakes\b", "flake8", "lint"),
        (r"\bblack\b", "black", "lint"),
        (r"\bisort\b", "isort", "lint"),
        (r"\bpylint\b", "pylint", "lint"),
        (r"\bpre-commit\b|\bprek\b", "pre-commit", "lint"),
        (r"\beslint\b|\bprettier\b|\bstylelint\b|\brubocop\b|\bgolangci-lint\b|\bshellcheck\b|\bcodespell\b|\bmarkdownlint|\bclippy\b|\bcargo fmt\b|\bswiftlint\b|\bhlint\b|\bcredo\b|\bscalafmtCheck|\bscalastyle\b|\bclang-format\b|\bclang-tidy\b|\bcppcheck\b|\bhadolint\b|\byamllint\b|\bvint\b|\bluacheck\b|\bphpcs\b|\bdetekt\b|\bspotlessCheck\b|\beditorconfig-checker\b|\bgofmt\b|\bcheckstyle\b|\bktlint\b|\blint\b", "linter", "lint"),
        (r"\bmypy\b|\bdmypy\b", "mypy", "type"),
        (r"\bpyright\b|\bbasedpyright\b|\bpytype\b|\bpyre\b", "pyright", "type"),
        (r"\btsc\b|\bvue-tsc\b|\btypecheck\b|\btype-check\b|\bphpstan\b|\bpsalm\b|\bflow check\b", "tsc", "type"),
        (r"\bpip3? install\b|-m pip install\b|\bpip-sync\b|\bpip-compile\b", "pip", "dependency"),
        (r"\buv (?:sync|pip install|lock|add)\b|\buv venv\b", "uv", "dependency"),
        (r"\bpoetry (?:install|lock|update|add)\b|\bpdm (?:install|sync|lock)\b|\bpipenv (?:install|sync)\b|\bhatch env create\b", "poetry", "dependency"),
        (r"\b(?:npm (?:ci|install|i)|yarn(?: install)?$|pnpm (?:install|i)|bundle install|composer (?:install|update)|conda (?:install|create|env)|mamba (?:install|create)|apt(?:-get)? install|brew install|go mod download|cargo fetch|dotnet restore|mvn dependency)\b", "installer", "dependency"),
        (r"\b(?:npm (?:run )?test|yarn test|pnpm test|jest|mocha|vitest|karma|rspec|rake(?: test| spec)?$|go test|cargo test|ctest|swift test|stack test|cabal test|busted|prove|R CMD check|lein test|make (?:test|check)|phpunit|dotnet test|gradlew? test|mvn (?:-\S+ )*test|mvn (?:-\S+ )*verify|sbt test|mix test|tox|nox|behave|bats)\b", "test-runner", "test"),
        (r"\b(?:python -m build|setup\.py (?:build|bdist|sdist|install)|make(?: all| build)?$|cmake|ninja|gcc|clang|cargo build|go build|mvn (?:-\S+ )*(?:compile|package|install)|gradlew? (?:build|assemble)|dotnet build|msbuild|sphinx-build|mkdocs build|hugo|jekyll build|gatsby build|next build|docker build|webpack|vite build|npm run build|yarn build|hatch build|flit build|maturin|twine check)\b", "build-tool", "build"),
        # git's commands on the checkout itself: what makes them fail is the job's set-up
        # (a shallow clone without tags, no identity, a ref not fetched); not `git status`
        # or `git diff`, which CI scripts run as a check that generated files are committed
        (r"\bgit (?:describe|rev-parse|rev-list|commit|tag|config|checkout|switch|lfs|worktree|merge-base|submodule)\b", "git", "configuration"),
    )
)  # fmt: skip

#: a command that builds or installs the project in the working directory (`pip install
#: -e .`, `pip wheel .`): a wheel that fails to build there is the project's, not a dependency's
_LOCAL_BUILD = re.compile(
    r"\b(?:pip3?|uv pip) (?:install|wheel)\b(?: -{1,2}[\w-]+(?:=\S+)?)* (?:-e |--editable )?\.(?:\[[\w,.-]+\])?(?=\s|$)"
)

_PROJECT_SKIP = {"tests", "test", "testing", "src", "lib", "docs", "scripts", "."}


@dataclass
class Decision:
    cls: str
    confidence: float
    reasons: list[str]
    step: Step | None
    tool: str | None
    evidence: list[Candidate]
    failing_tests: list[str]
    signatures: list[dict[str, str]]
    flaky: dict[str, object]
    next_step: str
    packages: list[str] = field(default_factory=list)


def command_tool(command: str | None) -> tuple[str, str] | None:
    """(tool, class) that a step's command names, or None."""
    if not command:
        return None
    for line in command.splitlines()[::-1]:
        if _PRINTS.match(line):
            continue
        for pattern, tool, cls in _COMMAND_TOOLS:
            if pattern.search(line):
                return tool, cls
    return None


_COMMAND_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), c)
    for p, c in (
        (r"(?:^|[\W_])(?:tests?|specs?|e2e|testing)(?:$|[\W_])", "test"),
        (r"(?:^|[\W_])(?:lint|check|style|format|fmt|vet|validate|verify)", "lint"),
        (r"(?:^|[\W_])(?:build|compile|dist|package|bundle)(?:$|[\W_])", "build"),
    )
)


#: the shell's own `test` builtin (`test -z "$x"`, `test -f file`)
_SHELL_TEST = re.compile(r"(?:^|[;&|(!{]\s*|\bif\s+)test -[a-zA-Z]\b")
#: a script line that prints or comments (its words are a message, not a command)
_PRINTS = re.compile(r"^\s*(?:echo|printf|#|:\s|::|Write-(?:Host|Output))")


def command_hint(command: str | None) -> str | None:
    """The class a command's own words suggest (``./ci/check-links.sh``, ``make ct-fast``),
    when it names no known tool; a weak prior."""
    if not command:
        return None
    for line in command.splitlines()[::-1]:
        if _PRINTS.match(line):
            continue  # `echo "checking the API"`: words the script prints, not its command
        line = _SHELL_TEST.sub(" ", line)  # the shell's `test -z`, no test runner
        for pattern, cls in _COMMAND_HINTS:
            if pattern.search(line):
                return cls
    return None


# -- the vote: weights and thresholds ----------------------------------------------------
#
# decide() lets the evidence of a failing step vote for classes. A line's vote is its
# weight (rules.py, scanner.py) times its nearness to the failing exit (_proximity); the
# facts below add fixed votes. The scale: 3 is what one clear line of a known shape near
# the exit gives, the mark of a step that explains itself.

#: a class with this many votes explains the step (the steps are tried in job order until
#: one does)
EXPLAINS = 3
#: the least votes a class needs to be named at all; below it the log is "unknown"
AT_LEAST = 1.5
#: failing steps tried before the one that explains most is taken
STEPS_TRIED = 6
#: a rule repeated on many lines counts as at most RULE_CAP_LINES of its heaviest lines,
#: each at RULE_CAP_NEARNESS (about the nearest a line can be to the exit): a log that
#: repeats one error a thousand times is not a thousand times surer
RULE_CAP_LINES = 2.5
RULE_CAP_NEARNESS = 1.5
#: a runner's message about the whole job (lost runner, cancelled, time limit): it
#: decides the job wherever it is, over anything a step printed
JOB_LEVEL_VOTE = 6
#: the failing command is a tool of known kind (pytest -> test, mypy -> type): a strong
#: prior, but less than one line of that kind of failure plus another
TOOL_VOTE = 3
#: ... when the tool printed nothing of its own kind and something else (at least
#: OTHER_CAUSE) says why it stopped: it did not get to do its job; only a hint
TOOL_HINT_VOTE = 1.4
OTHER_CAUSE = 1.5
#: pytest exited with 4 (its usage error: options, ini values, config file), no test failed
PYTEST_USAGE_VOTE = 4.5
#: the command ran under GNU timeout, which exited 124 (time out) or 137 (had to KILL)
GNU_TIMEOUT_VOTE = 5
#: the failing tests' own exceptions, shared among the classes they point to: what the
#: tests raised outweighs any line about them
TEST_EXCEPTIONS_VOTE = 8
#: failing tests in the log, whose exceptions the log does not show
FAILING_TESTS_VOTE = 4
#: nothing has a known shape, and the failing command's name says a little (check-*,
#: *test*, build-*): just enough to be named (over AT_LEAST), never to be sure
COMMAND_NAME_VOTE = 1.6

# -- confidence ----------------------------------------------------------------------------
#
# confidence = FLOOR + SPAN * share * strength * (1 - MARGIN_SHARE + MARGIN_SHARE * margin):
# share, the winner's part of all votes; strength, its votes over FULL_STRENGTH (capped at
# 1); margin, its lead over the second as a part of its votes. Calibrated on the corpora
# (bench/bench_diagnose.py reports the median confidence of right and wrong answers).

CONFIDENCE_FLOOR = 0.25
CONFIDENCE_SPAN = 0.7
#: votes from which the winner is as strong as it gets (a failing test's exception)
FULL_STRENGTH = 8.0
MARGIN_SHARE = 0.5
#: no failing step and no failing test: the class is from the whole log
NO_STEP_FACTOR = 0.85
#: no failing step explained itself; the class is from the rest of the log
FALLBACK_FACTOR = 0.7
#: only the tool's usual kind, a command's name or an error's words say the class
UNBACKED_CAP = 0.45
#: "unknown": no candidate line at all, or some that say nothing known
UNKNOWN_EMPTY = 0.1
UNKNOWN_CONFIDENCE = 0.2
#: never 0 or 1: a diagnosis reads a log, it does not know
CONFIDENCE_RANGE = (0.05, 0.97)


@dataclass
class _Job:
    """What decide reads of a scan, worked out once for every step it tries."""

    scan: ScanResult
    steps: list[Step]
    #: the failing steps, in the order to explain the job by
    failed: list[Step]
    #: runner messages about the whole job
    job_level: list[Candidate]
    project: set[str]
    tests: list[str]
    #: the failing tests that reported (not cut short when the process ended)
    reported: list[str]
    parsed: list[tuple[pp.FailureBlock, pp.Parsed]]
    signatures: list[dict[str, str]]
    #: each failing test -> the class its exception points to
    test_classes: dict[str, str]
    #: every candidate: the scan's, the failure blocks', the programs' exceptions'
    cands: list[Candidate]
    last: int
    #: the lines of pytest's failure blocks that end in an exception
    in_blocks: list[tuple[int, int]]


@dataclass
class _Tally:
    """The votes with ``primary`` as the failing step, why, and its tool."""

    primary: Step | None
    votes: dict[str, float]
    reasons: list[str]
    tool: str | None
    #: the steps whose lines explain ``primary``
    region: set[int]


def decide(scan: ScanResult, hinted_step: str | None = None) -> Decision:
    """The diagnosis of a scan: the failing step that explains the job (:func:`_choose`),
    a vote among the classes its lines, its command and the failing tests point to
    (:func:`_tally`), a calibrated confidence (:func:`_class_and_confidence`), the
    evidence ranked (:func:`_rank`), a flaky suspicion and a next step."""
    job = _read(scan, hinted_step)
    chosen, fallback = _choose(job)
    primary, reasons = chosen.primary, chosen.reasons
    _lean_on_command_name(chosen)
    cls, confidence = _class_and_confidence(job, chosen, fallback)
    if primary is not None:
        reasons.insert(0, f"step '{_one_line(primary.name)}' exited with {primary.exit_code}")
    # when only their words said the class, the lines that said it are the evidence
    topical = (
        {n for n, k in _topic_lines(job.cands, primary, chosen.region).items() if k == cls}
        if any(r.startswith("the lines before the failing exit speak of") for r in reasons)
        else set()
    )
    evidence = _rank(job.cands, cls, chosen.region, primary, job.last, scan.details, topical)
    low, high = CONFIDENCE_RANGE
    decision = Decision(
        cls=cls,
        confidence=round(max(low, min(high, confidence)), 2),
        reasons=reasons,
        step=primary,
        tool=chosen.tool,
        evidence=evidence,
        failing_tests=job.tests,
        signatures=job.signatures,
        flaky=_flaky(scan, job.tests, job.test_classes, job.parsed),
        next_step="",
        packages=sorted(job.project),
    )
    decision.next_step = next_step(decision, evidence)
    return decision


def _read(scan: ScanResult, hinted_step: str | None) -> _Job:
    """The failing steps, the failing tests and their exceptions, and every candidate line
    (the scan's, plus the failure blocks' and the uncaught exceptions')."""
    steps = scan.steps
    failed = _job_order([s for s in steps if s.exit_code is not None])
    if hinted_step:
        named = [s for s in steps if hinted_step in s.name]
        failed = named[:1] + [s for s in failed if s not in named[:1]]
    project = _project_packages(scan)
    tests = _failing_tests(scan)
    # a test cut short when the process ended (a kill, a timeout) says nothing of the class
    unfinished = {pp.relative(t, scan.root) for t in scan.unfinished}
    parsed = _parsed_blocks(scan)
    signatures, test_classes = _signatures(scan, tests, parsed, project)
    # the lines of pytest's failure blocks that end in an exception: what a test printed is
    # classed by that exception, not line by line
    in_blocks = [span for span, p in _block_spans(parsed) if p.exc_type]
    return _Job(
        scan=scan,
        steps=steps,
        failed=failed,
        job_level=[c for c in scan.candidates if c.rule in _JOB_LEVEL_RULES],
        project=project,
        tests=tests,
        reported=[t for t in tests if t not in unfinished],
        parsed=parsed,
        signatures=signatures,
        test_classes=test_classes,
        cands=_candidates(scan, parsed, test_classes, project),
        last=scan.lines or 1,
        in_blocks=in_blocks,
    )


def _block_spans(
    parsed: list[tuple[pp.FailureBlock, pp.Parsed]],
) -> list[tuple[tuple[int, int], pp.Parsed]]:
    """Each failure block's (first, last) line, in order, with its parse."""
    return sorted(
        (((b.first_line, b.lines[-1][0] if b.lines else b.first_line), p) for b, p in parsed),
        key=lambda t: t[0],
    )


def _candidates(
    scan: ScanResult,
    parsed: list[tuple[pp.FailureBlock, pp.Parsed]],
    test_classes: dict[str, str],
    project: set[str],
) -> list[Candidate]:
    """The scan's candidate lines, the failure blocks' headers and exceptions, and the
    uncaught exceptions of programs outside them."""
    extra = _block_candidates(scan, parsed, test_classes)
    spans = [span for span, _ in _block_spans(parsed)]
    programs, superseded = _program_exceptions(scan, project, spans)
    extra += programs
    # a rule's reading of an exception line that the exception table reads better (a
    # standard module missing is the interpreter's, not a package to install) gives way
    return [
        *(c for c in scan.candidates if not (c.line in superseded and c.rule in _REFINED)),
        *extra,
    ]


def _top(votes: dict[str, float]) -> float:
    return max(votes.values(), default=0.0)


def _choose(job: _Job) -> tuple[_Tally, bool]:
    """The first failing step that explains itself; else the one that explains most; else
    the whole log (with less confidence: True)."""
    options: list[_Tally] = []
    tried: list[Step | None] = [*job.failed[:STEPS_TRIED]] or [None]
    for step in tried:
        options.append(_tally(job, step))
        if _top(options[-1].votes) >= EXPLAINS:
            break
    explained = [o for o in options if _top(o.votes) >= EXPLAINS]
    chosen = explained[0] if explained else max(options, key=lambda o: _top(o.votes))
    if chosen.primary is not None and _top(chosen.votes) < AT_LEAST:
        whole = _tally(job, None)
        if _top(whole.votes) >= EXPLAINS:
            reasons = [
                *whole.reasons,
                "no failing step explains itself; this is from the rest of the log",
            ]
            return _Tally(chosen.primary, whole.votes, reasons, whole.tool, whole.region), True
    return chosen, False


def _tally(job: _Job, primary: Step | None) -> _Tally:
    """The votes with ``primary`` as the failing step (None: the whole log), in order:
    its lines' rules, the runner's job-level messages, the words of its last lines (when
    nothing else explains it), its command's tool, an exit status with a meaning, the
    failing tests; last, a cause that came first takes the effects after it."""
    region = _region(primary, job.steps)
    # GNU timeout exits 124 when the time ran out, 137 when it had to KILL (-k): its
    # exit status, not the kernel's OOM killer
    under_timeout = bool(
        primary is not None
        and primary.exit_code in (124, 137)
        and _GNU_TIMEOUT.search(_innermost(primary) or "")
    )
    votes = _rule_votes(job, primary, region, under_timeout)
    reasons: list[str] = []
    for c in job.job_level:
        votes[c.cls or "infrastructure"] = (
            votes.get(c.cls or "infrastructure", 0.0) + JOB_LEVEL_VOTE
        )
    if _top(votes) < EXPLAINS:
        _topic_vote(job, primary, region, votes, reasons)
    tool = _tool_vote(job, primary, region, votes, reasons)
    if under_timeout and primary is not None:
        votes["timeout"] = votes.get("timeout", 0.0) + GNU_TIMEOUT_VOTE
        reasons.append(f"the command ran under GNU timeout, which exited {primary.exit_code}")
    _tests_vote(job, votes, reasons)
    _precedence(votes, job.cands, region, reasons)
    return _Tally(primary, votes, reasons, tool, region)


def _rule_votes(
    job: _Job, primary: Step | None, region: set[int], under_timeout: bool
) -> dict[str, float]:
    """Each class's votes from the lines of a known shape in ``region`` (each rule's
    capped: RULE_CAP_LINES)."""
    local_build = bool(_LOCAL_BUILD.search(_innermost(primary) or ""))
    per_rule: dict[tuple[str, str], float] = {}
    for c in job.cands:
        if not c.cls or not _votes_here(job, c, primary, region, under_timeout):
            continue
        cls = c.cls
        if c.rule == "wheel-build" and local_build:
            cls = "build"  # the wheel that failed is the project's own
        key = (cls, c.rule)
        per_rule[key] = per_rule.get(key, 0.0) + c.weight * _proximity(c, primary, job.last)
    votes: dict[str, float] = {}
    for (cls, rule), total in per_rule.items():
        heaviest = max((c.weight for c in job.cands if c.rule == rule), default=1.0)
        cap = RULE_CAP_LINES * heaviest * RULE_CAP_NEARNESS
        votes[cls] = votes.get(cls, 0.0) + min(total, cap)
    return votes


def _votes_here(
    job: _Job, c: Candidate, primary: Step | None, region: set[int], under_timeout: bool
) -> bool:
    """Whether line ``c`` votes for ``primary``: not the exit of a GNU timeout (its
    status is read on its own), not test output the failing tests' exceptions speak for,
    not a line of another step (a job-level message excepted)."""
    if under_timeout and primary is not None and c.line == primary.exit_line:
        return False
    if job.test_classes and (c.rule in _TEST_STRUCTURE or _inside(c.line, job.in_blocks)):
        return False
    return c.step in region or c.rule in _JOB_LEVEL_RULES


def _topic_vote(
    job: _Job, primary: Step | None, region: set[int], votes: dict[str, float], reasons: list[str]
) -> None:
    """Nothing explains the step: what its last lines talk about is a weak vote."""
    topic = _topic_votes(job.cands, primary, region)
    for k, v in topic.items():
        votes[k] = votes.get(k, 0.0) + v
    if topic:
        top_topic = max(sorted(topic), key=lambda k: topic[k])
        reasons.append(
            f"the lines before the failing exit speak of a {top_topic} problem"
            " (their words only: weak evidence)"
        )


def _tool_vote(
    job: _Job, primary: Step | None, region: set[int], votes: dict[str, float], reasons: list[str]
) -> str | None:
    """The failing command's tool votes for its usual kind of failure, and pytest's exit
    status 4 for the configuration; the step's tool (else the tool seen most in it)."""
    tool: str | None = None
    ct = command_tool(_innermost(primary))
    if ct:
        tool, prior = ct
        own = votes.get(prior, 0.0)
        other = max((v for k, v in votes.items() if k != prior), default=0.0)
        if own == 0 and other >= OTHER_CAUSE and not job.test_classes and not job.reported:
            # the tool printed nothing of its own kind of failure and something else
            # says why it stopped: it did not get to do its job (its configuration, its
            # environment, the network); what it is cannot be more than a hint
            votes[prior] = votes.get(prior, 0.0) + TOOL_HINT_VOTE
            reasons.append(f"the failing step ran {tool}, which reported no {prior} failure")
        else:
            votes[prior] = votes.get(prior, 0.0) + TOOL_VOTE
            reasons.append(f"the failing step ran {tool}")
    step_tools: dict[str, float] = {}
    for s in job.steps:
        if s.index in region:
            for k, v in s.tools.items():
                step_tools[k] = step_tools.get(k, 0) + v
    if tool == "pytest" and primary is not None and primary.exit_code == 4 and not job.reported:
        # pytest's exit status 4 is a usage error: its options, ini values or config file
        votes["configuration"] = votes.get("configuration", 0.0) + PYTEST_USAGE_VOTE
        reasons.append("pytest exited with 4, its usage error (options or configuration)")
    elif step_tools:
        tool = max(sorted(step_tools), key=lambda k: step_tools[k])
    return tool


def _tests_vote(job: _Job, votes: dict[str, float], reasons: list[str]) -> None:
    """The failing tests: their exceptions' classes share TEST_EXCEPTIONS_VOTE (the most
    common takes its share); failing tests without exceptions vote for "test"."""
    if job.test_classes:
        shares = Counter(job.test_classes.values())
        top, n = shares.most_common(1)[0]
        votes[top] = votes.get(top, 0.0) + TEST_EXCEPTIONS_VOTE * n / len(job.test_classes)
        if top != "test":
            reasons.append(f"{n} of {len(job.test_classes)} failing tests raised a {top} error")
        else:
            reasons.append(f"{len(job.test_classes)} failing test(s) in the log")
    elif job.reported:
        votes["test"] = votes.get("test", 0.0) + FAILING_TESTS_VOTE
        reasons.append(f"{len(job.reported)} failing test(s) in the log")


def _lean_on_command_name(chosen: _Tally) -> None:
    """Nothing in the output has a known shape: what the command is called says a little
    (a script named check-*, *test*, build-*), just enough to lean on."""
    inner = _innermost(chosen.primary)
    hint = command_hint(inner) if inner and not command_tool(inner) else None
    if hint and _top(chosen.votes) < AT_LEAST:
        chosen.votes[hint] = chosen.votes.get(hint, 0.0) + COMMAND_NAME_VOTE
        chosen.reasons.append(f"the failing command's name suggests a {hint} step")


def _class_and_confidence(job: _Job, chosen: _Tally, fallback: bool) -> tuple[str, float]:
    """The class with the most votes (ties: in CLASSES order), "unknown" under AT_LEAST,
    and how sure (not yet clamped to CONFIDENCE_RANGE)."""
    votes, reasons = chosen.votes, chosen.reasons
    total = sum(votes.values())
    if votes:
        ranked = sorted(votes.items(), key=lambda kv: (-kv[1], CLASSES.index(kv[0])))
        cls, best = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
    else:
        cls, best, second = "unknown", 0.0, 0.0
    if best < AT_LEAST:
        cls = "unknown"
    if cls == "unknown":
        reasons.append("no known failure shape in the failing part of the log")
        return cls, UNKNOWN_EMPTY if not job.scan.candidates else UNKNOWN_CONFIDENCE
    share = best / total if total else 0.0
    strength = min(1.0, best / FULL_STRENGTH)
    margin = (best - second) / best if best else 0.0
    confidence = CONFIDENCE_FLOOR + CONFIDENCE_SPAN * share * strength * (
        1 - MARGIN_SHARE + MARGIN_SHARE * margin
    )
    if chosen.primary is None and not job.tests:
        confidence *= NO_STEP_FACTOR
    if fallback:
        confidence *= FALLBACK_FACTOR
    if not _backed(cls, job.cands, chosen.region, job.test_classes, reasons):
        # only the tool's usual kind, a command's name or an error's words say so
        confidence = min(confidence, UNBACKED_CAP)
    return cls, confidence


#: a command run under GNU timeout (its last line: the command that failed)
_GNU_TIMEOUT = re.compile(r"(?:^|[;&|(]\s*|\n\s*)timeout(?: -[-\w]+(?:[ =][\w.]+)?)* \d+[smhd]? \S")

#: a GitHub Actions step that runs an action (`uses: owner/repo@ref`), not a script
_ACTION_STEP = re.compile(r"^Run [\w.-]+/[\w./-]+@\S+$")


def _job_order(failed: list[Step]) -> list[Step]:
    """The failing steps in the order to explain the job by. GitHub Actions runs a step after
    a failed one only when the failed one may fail (`continue-on-error`) or the later one
    runs anyway (`if: always()`, mostly an action such as upload-artifact): so of several
    failing `run:` steps, the last one failed the job, and failing actions come last."""
    gha = [s for s in failed if s.name.startswith("Run ")]
    if len(gha) < 2 or len(gha) != len(failed):
        return failed
    scripts = [s for s in gha if not _ACTION_STEP.match(s.name)]
    return scripts[::-1] + [s for s in gha if _ACTION_STEP.match(s.name)]


def _backed(
    cls: str,
    cands: list[Candidate],
    region: set[int],
    test_classes: dict[str, str],
    reasons: list[str],
) -> bool:
    """Whether a line of a known shape (or a failing test's exception, or an exit status
    with a documented meaning) says ``cls``, beyond the tool's usual kind and words."""
    if cls in test_classes.values() or any(r.startswith(_STATUS_REASONS) for r in reasons):
        return True
    if cls == "test" and any(r.endswith("failing test(s) in the log") for r in reasons):
        return True
    return any(
        c.cls == cls and c.weight >= 2 and (c.step in region or c.rule in _JOB_LEVEL_RULES)
        for c in cands
    )


_STATUS_REASONS = ("the command ran under GNU timeout", "pytest exited with 4")


def _innermost(step: Step | None) -> str | None:
    """The command that failed: the script a runner echoed last inside the step (``npm
    test`` running ``> eslint .``), else the step's own command."""
    if step is None:
        return None
    return step.sub_command or step.command


def _inside(line: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``line`` is in one of the sorted ``spans`` (first, last)."""
    k = bisect.bisect_right(spans, (line, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= line <= spans[k][1]


def _region(primary: Step | None, steps: list[Step]) -> set[int]:
    """The steps whose lines explain ``primary``: itself and the steps that began inside it
    before it exited (a command echoed by a script runner, `$ jest` under `$ yarn test`)."""
    if primary is None:
        return {s.index for s in steps}
    end = primary.exit_line if primary.exit_line is not None else primary.start
    return {primary.index} | {
        s.index for s in steps[primary.index + 1 :] if primary.start < s.start < end
    }


_TEST_STRUCTURE = {
    "pytest-summary-line", "pytest-outcome", "pytest-counts", "pytest-E", "unittest-head", "unittest-summary",
    "pytest-section", "pytest-block", "pytest-exception",
}  # fmt: skip
#: Causes that show up as other failures after them: a network error during an install
#: surfaces as "no matching distribution"; a killed compiler as a build error.
_CAUSES = (
    (
        {"disk-full", "oom", "runner-shutdown", "runner-lost"},
        "infrastructure",
        {"build", "dependency", "test", "lint", "type", "unknown", "environment", "network"},
    ),
    (
        {"gha-timeout", "travis-timeout", "pytest-timeout", "go-test-timeout"},
        "timeout",
        {"infrastructure", "test"},
    ),
    (
        {"dns", "conn", "py-net-exc", "npm-net", "pip-retry", "ssl", "http-5xx"},
        "network",
        {"dependency", "build", "configuration", "environment"},
    ),
    ({"compiler-error", "jvm-compile", "linker", "build-tool"}, "build", {"test"}),
    # a program the step needs is not installed: the hook, build or check that ran it failed
    # because of that (pre-commit's `language: system` hook, a Makefile's tool)
    ({"cmd-not-found"}, "environment", {"lint", "type", "build"}),
    # a build that stops on its configuration (a version from tags it has not got, a
    # configuration its tool refuses) fails because of it
    ({"checkout-state", "ini-parse", "config-cause"}, "configuration", {"build"}),
    # an interpreter a package's build refuses, or one the job cannot find: the install or
    # the build that then fails follows from it (not pip's "require a different python" for
    # versions it skipped: the version it could not find is the failure)
    ({"py-refused", "interpreter-missing"}, "environment", {"dependency", "build"}),
)


#: What a missing download or clone shows up as in a later step.
_SWALLOWED_EFFECTS = {"configuration", "environment", "build", "dependency"}


def _precedence(
    votes: dict[str, float], cands: list[Candidate], region: set[int], reasons: list[str]
) -> None:
    if not votes:
        return
    winner = max(sorted(votes), key=lambda k: votes[k])
    inside = [c for c in cands if c.step in region or c.rule in _JOB_LEVEL_RULES]
    effect_lines = [c.line for c in inside if c.cls == winner]
    first_effect = min(effect_lines, default=0)
    for rules, cause, effects in _CAUSES:
        if winner not in effects or winner == cause:
            continue
        # a cause explains what comes right after it (or after it at all), not errors that
        # happened long after it recovered
        near = [c for c in inside if c.rule in rules and c.line >= first_effect - CAUSE_REACH]
        if cause == "build":
            # code that does not compile fails the tests that would have run on it: the
            # compiler's error must come first
            near = [c for c in near if c.line <= first_effect]
        if not near and winner in _SWALLOWED_EFFECTS and cause != "environment":
            # (a program missing in an earlier step that went on is no cause: the step that
            # failed did not run it)
            # a step that did not fail can still have lost what a later one needs: a failed
            # clone or download right before "No such file" in the step that failed
            near = [
                c
                for c in cands
                if c.rule in rules and first_effect - CAUSE_REACH <= c.line < first_effect
            ]
        if near:
            votes[cause] = max(votes.get(cause, 0.0), votes[winner] + 1)
            reasons.append(
                f"a {cause} error came first; the {winner} errors after it follow from it"
            )
            region.update(c.step for c in near)
            return


def _one_line(text: str) -> str:
    return text.splitlines()[0][:120] if text else ""


#: How near a line is to where the job failed, as a factor of its weight: (lines before the
#: failing exit of its step, factor), nearest first; beyond the last, 1.0. What a step
#: printed right before it failed is most often why.
NEAR_EXIT: tuple[tuple[int, float], ...] = ((40, 1.6), (400, 1.25))
#: no failing step (the whole log): the lines near the end of the log, where it stopped
NEAR_END = (300, 1.3)
#: a line with no failing exit after it in its step, when a failing step is known
AWAY_FROM_EXIT = 0.9


def _proximity(c: Candidate, primary: Step | None, last: int) -> float:
    """The factor of a line's weight for its nearness to the failure (:data:`NEAR_EXIT`)."""
    if primary is not None and c.exit_distance is not None:
        d = c.exit_distance
        return next((factor for reach, factor in NEAR_EXIT if d <= reach), 1.0)
    if primary is None:
        reach, factor = NEAR_END
        return factor if last - c.line <= reach else 1.0
    return AWAY_FROM_EXIT


_NODE_ID = re.compile(r"^[\w./-]+\.py(?:::[^\s:][^\n\r\x00]*)?$")


def _failing_tests(scan: ScanResult) -> list[str]:
    tests: list[str] = []
    for test in scan.failing:
        t = pp.relative(test, scan.root)
        if _NODE_ID.match(t) and t not in tests:
            tests.append(t)
    return tests[:200]


def _parsed_blocks(scan: ScanResult) -> list[tuple[pp.FailureBlock, pp.Parsed]]:
    return [(b, b.parse(scan.root)) for b in scan.blocks]


#: a frame's file in a pytest traceback (``src/pkg/mod.py:12: in f``, ``parse.py:90: in``)
_TB_FILE = re.compile(r"^([\w./-]+\.py):\d+")
#: a file a pytest line names (``ERROR collecting tests/x.py``, ``ImportError while
#: importing test module '/root/tests/x.py'``)
_NAMED_FILE = re.compile(r"(?:collecting |test module ')([\w./-]+\.py)\b")
#: a version at the end of a directory's name (an sdist's ``packaging-24.2``, a
#: ``attrs-23.1.0rc1`` or ``tool-v2``): the project's name is what comes before it
_VERSION_SUFFIX = re.compile(
    r"[-_]v?\d+(?:\.\d+)*(?:[-_.]?(?:a|b|rc|c|dev|post)\.?\d*)*$", re.IGNORECASE
)
#: a name that is no Python module (a directory of data, a file with dots or a dash)
_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*$")


def _project_packages(scan: ScanResult) -> set[str]:
    """The project's own top-level modules and packages, from every path the log shows
    under its root: the rootdir's name (without a version suffix: an sdist's
    ``packaging-24.2`` is ``packaging``), and the files of pytest's and Python's
    tracebacks, of the collection errors and of the test ids: ``src/NAME/...`` or
    ``NAME/...`` is the package ``NAME``, ``NAME.py`` at the root the module ``NAME``.
    Libraries' files and paths outside the root are not the project's."""
    names: set[str] = set()
    paths: list[str] = []
    for b in scan.blocks[:50]:
        for text in (b.header_text, *(t for _, t in b.lines)):
            m = _TB_FILE.match(text) or _NAMED_FILE.search(text)
            if m:
                paths.append(m[1])
    paths += [f for _, f in scan.py_frames[-200:]]
    paths += [t.split("::", 1)[0] for t in list(scan.failing)[:200]]
    paths += [t.split("::", 1)[0] for t in list(scan.outcomes)[:200]]
    for path in paths:
        name = _own_module(pp.relative(path, scan.root))
        if name:
            names.add(name)
    if scan.root:
        base = scan.root.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        base = _VERSION_SUFFIX.sub("", base).replace("-", "_")
        for name in (base, base.lower()):
            if _MODULE_NAME.match(name):
                names.add(name)
    return names


def _own_module(path: str) -> str | None:
    """The top-level module a file under the project's root belongs to, if any."""
    if not path.endswith(".py") or path.startswith(("/", "../")) or is_library_path(path):
        return None
    parts = path.removeprefix("./").split("/")
    parts = parts[1:] if parts[0] == "src" and len(parts) > 1 else parts
    name = parts[0] if len(parts) > 1 else parts[0][:-3]
    if name in _PROJECT_SKIP or not _MODULE_NAME.match(name):
        return None
    return name


def _signatures(
    scan: ScanResult,
    tests: list[str],
    parsed: list[tuple[pp.FailureBlock, pp.Parsed]],
    project: set[str],
) -> tuple[list[dict[str, str]], dict[str, str]]:
    by_test: dict[str, pp.Parsed] = {}
    for _, parsed_block in parsed:
        if parsed_block.test and parsed_block.test not in by_test:
            by_test[parsed_block.test] = parsed_block
    sigs: list[dict[str, str]] = []
    classes: dict[str, str] = {}
    for test in tests:
        p = by_test.get(test) or _match_block(test, by_test)
        exc: str | None = None
        msg = ""
        sig: str | None = None
        causes: list[tuple[str, str]] = []
        if p is not None and p.exc_type:
            exc, msg, sig, causes = p.exc_type, p.message, p.signature(), p.causes
        else:
            # only the summary line (-rf, --tb=line, --tb=no): the exception, but no frame
            # and so no signature (one without its frame never compares with run's)
            summary = scan.summary_messages.get(test)
            if summary:
                m = re.match(
                    r"^([\w.]+(?:Error|Exception|Exit|Failed|Failure|Timeout|Interrupt)?)(?::\s?(.*))?$",
                    summary,
                )
                if m and (m[2] is not None or m[1].endswith(("Error", "Exception"))):
                    exc, msg = m[1], (m[2] or "")
                elif summary.startswith("assert"):
                    exc, msg = "AssertionError", summary
        if exc:
            classes[test] = _chain_class(exc, msg, causes, project)
            if sig:
                sigs.append(
                    {"test": test, "signature": sig, "exception": exc, "message": msg[:300]}
                )
        elif test.endswith(".py"):
            classes[test] = "test"
    # failure blocks whose test did not reach the summary (no -r, truncated log)
    tails = {t.split("::", 1)[-1] for t in tests}
    for name, p in by_test.items():
        if name.split("::", 1)[-1] in tails:
            continue
        if name not in classes and p.exc_type and len(classes) < 200:
            classes[name] = _chain_class(p.exc_type, p.message, p.causes, project)
            sig = p.signature()
            if sig and _NODE_ID.match(name):
                tests.append(name)
                sigs.append(
                    {
                        "test": name,
                        "signature": sig,
                        "exception": p.exc_type,
                        "message": p.message[:300],
                    }
                )
    return sigs, classes


def _chain_class(exc: str, msg: str, causes: list[tuple[str, str]], project: set[str]) -> str:
    """The class of a test's exception; where it says nothing particular (the project
    re-raised it in its own words), the class of its cause earlier in the chain."""
    cls = exception_class(exc, msg, project) or "test"
    for cause in reversed(causes):
        if cls != "test":
            break
        cls = exception_class(cause[0], cause[1], project) or "test"
    return cls


def _match_block(test: str, by_test: dict[str, pp.Parsed]) -> pp.Parsed | None:
    tail = test.split("::", 1)[-1]
    for name, p in by_test.items():
        if name.split("::", 1)[-1] == tail:
            return p
    return None


#: A pytest failure block's header and the exception it ends with are evidence of their
#: test's class, above any rule's line (4): the block says which test failed and why.
#: Only the first five blocks; each later one weighs less (1 / (1 + BLOCK_DECAY k)).
BLOCK_HEADER_WEIGHT = 4.2
BLOCK_EXCEPTION_WEIGHT = 4.6
BLOCK_DECAY = 0.3
#: the uncaught exception of a program a step ran, classed by the exception table
PROGRAM_EXCEPTION_WEIGHT = 4.0


def _block_candidates(
    scan: ScanResult,
    parsed: list[tuple[pp.FailureBlock, pp.Parsed]],
    test_classes: dict[str, str],
) -> list[Candidate]:
    out: list[Candidate] = []
    index = {c.line: c for c in scan.candidates}
    for k, (block, p) in enumerate(parsed[:5]):
        step = (
            index[block.first_line].step
            if block.first_line in index
            else _step_of(scan, block.first_line)
        )
        cls = test_classes.get(p.test or "", "test")
        decay = 1.0 / (1 + BLOCK_DECAY * k)
        out.append(
            Candidate(
                block.first_line,
                block.header_text or block.header,
                "pytest-block",
                cls,
                BLOCK_HEADER_WEIGHT * decay,
                "error",
                step,
            )
        )
        if p.exc_line is not None:
            text = next((t for n, t in block.lines if n == p.exc_line), "")
            out.append(
                Candidate(
                    p.exc_line,
                    text,
                    "pytest-exception",
                    cls,
                    BLOCK_EXCEPTION_WEIGHT * decay,
                    "error",
                    step,
                )
            )
    return out


#: What an error message is about, in its own words: read only on the lines a failing step
#: printed last (its last block before the exit, its own error lines near the exit) and only
#: when no known shape explains the failure; a weak vote (a tool nobody wrote a rule for).
_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (c, re.compile(p, re.IGNORECASE))
    for c, p in (
        (
            "configuration",
            r"(?:\b(?:config(?:uration)?|settings?|options?|parameters?|env file|[\w.-]+\.(?:ini|toml|cfg|ya?ml|conf))|(?<![\w.])\.env)\b"
            r".*\b(?:invalid|unknown|unrecognized|not (?:found|set|defined|valid|allowed)|missing|does(?:n't| not) exist|malformed|(?:cannot|can't|could not|couldn't|unable to|failed to) (?:parse|load|read|find|open))"
            r"|\b(?:cannot|can't|could not|couldn't|unable to|failed to) (?:parse|load|read|find|open) (?:the )?(?:config(?:uration)?|settings?|options?) file"
            r"|\b[Nn]o (?:config(?:uration)?|settings) file\b|\b[Nn]o value for required (?:variable|input|argument|parameter)\b"
            # a schema's verdict on a setting (jsonschema, compose, ansible, pydantic)
            r"|\bmust be an? (?:string|array|list|integer|number|boolean|mapping|object|dict)\b|\bis not of type\b"
            r"|\b[Aa]dditional properties are not allowed\b|\bis a required property\b|\bis required but (?:was )?not (?:set|given|provided)\b"
            r"|\b(?:invalid|unknown|unrecognized|missing|malformed) (?:config(?:uration)?|settings?|option|key|value|parameter|section|field)s?\b"
            # a manifest or settings file a tool cannot parse (package.json, composer.json)
            r"|\b(?:invalid|malformed|(?:cannot|can't|could not|unable to|failed to) parse):? [`'\"]?[\w./-]*\.(?:json|toml|ya?ml|ini|cfg)\b"
            # a URL or path the job gave that cannot be used (an unset variable in it)
            r"|\b(?:bad|illegal|malformed|invalid|missing) (?:URL|URI|endpoint|host ?name)\b|\bURL using bad\b|\binvalid path\b"
            # a refusal that names the setting to change ("use allowlist_externals to allow it")
            r"|\bnot (?:allowed|permitted)\b.*\b(?:use|set|add|enable)\s+[a-z]+_[a-z_]+\b",
        ),
        (
            "environment",
            r"\bnot installed\b|\bnot (?:found )?(?:on|in) (?:the |your )?PATH\b|\b(?:command|program|executable|binary|interpreter) not found\b"
            r"|\bpermission denied\b|\boperation not permitted\b|\bread-only file ?system\b"
            r"|\b(?:unsupported|not supported on this) (?:platform|architecture|operating system|OS)\b",
        ),
        (
            "network",
            r"\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:connect|resolve|reach|download|fetch)\b"
            r"|\bconnection (?:refused|reset|closed|failed|timed out)\b|\b(?:host|network) (?:is )?unreachable\b",
        ),
        (
            "dependency",
            r"\b(?:lock ?file|requirements?|dependenc(?:y|ies)|packages?|versions?)\b.*"
            r"\b(?:no matching|(?:could not|cannot|can't|unable to) (?:find|resolve|satisfy)|conflicts?|incompatible|out of date|outdated|not (?:in sync|up to date))",
        ),
        (
            "timeout",
            r"\btimed? ?out\b|\bdeadline exceeded\b|\btime ?limit\b"
            # a wait that ran out: "did not become ready within 30 seconds", "gave up waiting"
            r"|\b(?:not|never|still)\b.*\b(?:within|after|in) \d+(?:\.\d+)? ?(?:ms|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b"
            r"|\b(?:gave|giving) up (?:waiting|after)\b|\bwaited too long\b"
            # a health check that kept failing until its retries ran out (compose --wait)
            r"|\bcontainer \S+ is unhealthy\b|\bnever became (?:healthy|ready)\b",
        ),
    )
)
#: each line whose words speak of a class votes TOPIC_VOTE for it (over AT_LEAST: enough to
#: be named), all of them together at most TOPIC_CAP (under EXPLAINS: never sure)
TOPIC_VOTE = 1.6
TOPIC_CAP = 2.4
#: the lines whose words are read: the first lines of the last block before the exit
#: (scanner.BEFORE_EXIT_WEIGHT less a few steps), a tool's error lines this near the exit
TOPIC_BLOCK_WEIGHT = 0.7
TOPIC_REACH = 40
#: the rules whose line is a tool's own error in words no rule knows (no class of its own)
_WORDS_RULES = {"before-exit", "tool-error", "generic-error", "exception-line", "log-end"}


def _topic_votes(
    cands: list[Candidate], primary: Step | None, region: set[int]
) -> dict[str, float]:
    """Weak votes from what the failing step's last lines talk about (_TOPICS)."""
    votes: dict[str, float] = {}
    for cls in _topic_lines(cands, primary, region).values():
        votes[cls] = min(TOPIC_CAP, votes.get(cls, 0.0) + TOPIC_VOTE)
    return votes


def _topic_lines(cands: list[Candidate], primary: Step | None, region: set[int]) -> dict[int, str]:
    """The failing step's last lines that speak of a class in their words: line -> class."""
    out: dict[int, str] = {}
    for c in cands:
        if c.cls is not None or c.rule not in _WORDS_RULES or c.step not in region:
            continue
        near = (
            c.weight >= TOPIC_BLOCK_WEIGHT
            if c.rule == "before-exit"
            else (c.exit_distance is not None and c.exit_distance <= TOPIC_REACH)
            or (primary is None and c.rule == "log-end")
        )
        if not near:
            continue
        wrapped = wrapped_exception(c.text)
        text = wrapped[1] if wrapped else c.text  # what the exception says, not the wrapper
        for cls, pattern in _TOPICS:
            if pattern.search(text):
                out[c.line] = cls
                break
    return out


#: lines between a traceback's innermost frame and its exception line (the source line,
#: the ``^^^^`` markers, a chained message)
_FRAME_REACH = 12


#: rules whose class the exception table may correct on the same line
_REFINED = {"py-missing-module"}


def _program_exceptions(
    scan: ScanResult, project: set[str], spans: list[tuple[int, int]]
) -> tuple[list[Candidate], set[int]]:
    """The uncaught exceptions of programs a step ran (a script, a tool, a build backend)
    outside pytest's failure blocks, classed by their type, message and the file that
    raised them (exceptions.py); an exception whose type says nothing gets no class."""
    out: list[Candidate] = []
    superseded: set[int] = set()
    keys = [n for n, _ in scan.py_frames]
    seen: set[int] = set()
    for c in scan.candidates:
        if (
            (c.cls is not None and c.rule not in _REFINED)
            or c.kind == "exit"
            or c.line in seen
            or _inside(c.line, spans)
        ):
            continue
        exc = parse_exception_line(c.text)
        raised_in = source = None
        if exc is None:
            # a tool's own error naming the exception it stopped on (pip's "... due to an
            # OSError: [Errno 13] ..."): that exception, with no traceback of its own
            exc = wrapped_exception(c.text)
            if exc is None:
                continue
        else:
            k = bisect.bisect_left(keys, c.line) - 1
            if k >= 0 and c.line - keys[k] <= _FRAME_REACH:
                raised_in = scan.py_frames[k][1]
                source = scan.frame_source.get(keys[k])
        seen.add(c.line)
        cls = exception_class(
            exc[0], exc[1], project, in_test=False, raised_in=raised_in, source=source
        )
        if c.cls is not None:
            if cls and cls != c.cls:
                superseded.add(c.line)
            else:
                continue
        if cls:
            out.append(
                Candidate(
                    c.line,
                    c.text,
                    "py-exception",
                    cls,
                    PROGRAM_EXCEPTION_WEIGHT,
                    "error",
                    c.step,
                    c.exit_distance,
                )
            )
    return out, superseded


def _step_of(scan: ScanResult, line: int) -> int:
    idx = 0
    for s in scan.steps:
        if s.start <= line:
            idx = s.index
    return idx


# -- ranking the evidence: how a line's score is made --------------------------------------
#
# score = weight * nearness to the exit / (1 + RANK_REPEAT * k), k the repeats of its rule
# before it; times RANK_AGREES when its class is the one decided (or its words said it),
# RANK_OTHER_CLASS when it has another class, RANK_OTHER_STEP outside the failing step.

#: each earlier line of the same rule divides a line's score by a quarter more: the first
#: of a run of like lines is where one reads
RANK_REPEAT = 0.25
RANK_AGREES = 1.6
RANK_OTHER_CLASS = 0.8
RANK_OTHER_STEP = 0.3
#: an exit line says that the step failed, not why: never above this score
RANK_EXIT_CAP = 0.8
#: a count ("3 failed") says that it failed; the lines it counts say why
RANK_SUMMARY = 0.75
#: mocha's full report of a failure (after "N failing") over its brief live copy
RANK_FULL_REPORT = 1.5


def _rank(
    cands: list[Candidate],
    cls: str,
    region: set[int],
    primary: Step | None,
    last: int,
    details: dict[int, int] | None = None,
    topical: set[int] | None = None,
) -> list[Candidate]:
    """The evidence: every candidate scored (:func:`_scored`), the earlier lines of the
    class first, the full reports over live copies; the best MAX_EVIDENCE of different
    texts, each text at its first copy, then a failure's other copy and a header's
    detail moved up."""
    scored = _scored(cands, cls, region, primary, last, topical)
    scored = _early_first(scored, cls, region)
    scored = _full_reports_first(scored)
    scored.sort(key=lambda t: (-t[0], t[1]))
    ranked = [c for _, _, c in scored]
    return _with_detail(_with_other_copy(_picked(scored), ranked), ranked, details or {})


def _scored(
    cands: list[Candidate],
    cls: str,
    region: set[int],
    primary: Step | None,
    last: int,
    topical: set[int] | None,
) -> list[tuple[float, int, Candidate]]:
    """(score, line, candidate) of each candidate (not the lines the failing step printed
    after its exit), in line order."""
    seen_rule: Counter[str] = Counter()
    scored: list[tuple[float, int, Candidate]] = []
    for c in sorted(cands, key=lambda c: c.line):
        if (
            primary is not None
            and primary.exit_line is not None
            and c.step == primary.index
            and c.line > primary.exit_line
        ):
            continue
        # repeats of a rule count less; not the lines before an exit, whose weight already
        # says where they stand in the block
        k = 0 if c.rule == "before-exit" and c.weight > 0.5 else seen_rule[c.rule]
        seen_rule[c.rule] += 1
        s = c.weight * _proximity(c, primary, last) / (1 + RANK_REPEAT * k)
        if (c.cls == cls and cls != "unknown") or (topical and c.line in topical):
            s *= RANK_AGREES
        elif c.cls and cls != "unknown":
            s *= RANK_OTHER_CLASS
        if c.step not in region and c.rule not in _JOB_LEVEL_RULES:
            s *= RANK_OTHER_STEP
        if c.kind == "exit":
            s = min(s, RANK_EXIT_CAP)
        elif c.kind == "summary":
            s *= RANK_SUMMARY
        scored.append((s, c.line, c))
    return scored


def _early_first(
    scored: list[tuple[float, int, Candidate]], cls: str, region: set[int]
) -> list[tuple[float, int, Candidate]]:
    """People read a failure from its first line: among the lines of the class that won,
    in the failing part, the earlier ones rank higher (up to EARLY_BONUS)."""
    ours = sorted(
        c.line for _, _, c in scored if c.cls == cls and c.step in region and c.kind != "summary"
    )
    if len(ours) <= 1:
        return scored
    order = {line: i for i, line in enumerate(ours)}
    return [
        (s * (1.0 + EARLY_BONUS * (1 - order[c.line] / (len(ours) - 1))), line, c)
        if c.line in order and c.cls == cls
        else (s, line, c)
        for s, line, c in scored
    ]


def _full_reports_first(
    scored: list[tuple[float, int, Candidate]],
) -> list[tuple[float, int, Candidate]]:
    """mocha and friends list each failure twice: briefly while running, in full after
    "N failing"; the full one is the one to read."""
    details_from = min(
        (c.line for _, _, c in scored if _FAILING_HEADER.match(c.text)), default=None
    )
    if details_from is None:
        return scored
    return [
        (s * RANK_FULL_REPORT, line, c)
        if c.rule == "test-lists" and c.line > details_from
        else (s, line, c)
        for s, line, c in scored
    ]


def _picked(scored: list[tuple[float, int, Candidate]]) -> list[Candidate]:
    """The best MAX_EVIDENCE lines of different texts. The same text printed twice (live,
    then again in a summary or by a later command): the first copy is where it happened,
    and where people point."""
    first: dict[str, Candidate] = {}
    for _, _, c in sorted(scored, key=lambda t: t[1]):
        first.setdefault(c.text.strip(), c)
    picked: list[Candidate] = []
    texts: set[str] = set()
    lines: set[int] = set()
    for _, _, c in scored:
        key = c.text.strip()
        c = first.get(key, c)
        if key in texts or c.line in lines:
            continue
        texts.add(key)
        lines.add(c.line)
        picked.append(c)
        if len(picked) >= MAX_EVIDENCE:
            break
    return picked


def _with_detail(
    picked: list[Candidate], cands: list[Candidate], details: dict[int, int]
) -> list[Candidate]:
    """A failing test's header that names no cause ("tables: FAIL") at the top: the line
    that says why follows it (after the header's other copy, if any)."""
    if not picked or picked[0].line not in details:
        return picked
    want = details[picked[0].line]
    detail = next((c for c in cands if c.line == want), None)
    if detail is None:
        return picked
    at = 2 if len(picked) > 1 and _words(picked[1]) == _words(picked[0]) else 1
    rest = [c for c in picked if c.line != want]
    return [*rest[:at], detail, *rest[at:]][:MAX_EVIDENCE]


def _words(c: Candidate) -> str:
    return _NOT_WORDS.sub(" ", c.text).strip().lower()


#: what tells two copies of one message apart: bullets, colours, indentation, punctuation
_NOT_WORDS = re.compile(r"\W+")


def _with_other_copy(picked: list[Candidate], cands: list[Candidate]) -> list[Candidate]:
    """A failure printed twice (live while running, then in the runner's summary of
    failures): both copies follow each other at the top, since either is where one reads
    it. Only for the first line: the rest of the top stays for other facts."""
    if not picked:
        return picked
    top = picked[0]
    key = _words(top)
    if len(key) < 12:
        return picked
    copies = [c for c in cands if c.line != top.line and _words(c) == key]
    if not copies:
        return picked
    other = max(copies, key=lambda c: abs(c.line - top.line))
    rest = [c for c in picked[1:] if c.line != other.line]
    return [top, other, *rest][:MAX_EVIDENCE]


_FLAKY_SHAPES = re.compile(
    r"Address already in use|database is locked|Too many open files|Resource temporarily unavailable|"
    r"worker '?gw\d+'? crashed|node down|Connection reset by peer|Timeout|timed out|TimeoutError|"
    r"ConnectionError|ConnectTimeout|ReadTimeout|MaxRetryError|503 Service Unavailable",
)


def _flaky(
    scan: ScanResult,
    tests: list[str],
    test_classes: dict[str, str],
    parsed: list[tuple[pp.FailureBlock, pp.Parsed]],
) -> dict[str, object]:
    evidence: list[str] = []
    suspects: list[str] = []
    for test, outs in scan.outcomes.items():
        bad = [o for o in outs if o in ("failed", "error")]
        if "passed" in outs and (bad or "rerun" in outs):
            suspects.append(pp.relative(test, scan.root))
            state = "passed after a rerun" if "rerun" in outs else "both passed and failed"
            evidence.append(
                f"{pp.relative(test, scan.root)} {state} in this log ({', '.join(outs)})"
            )
        elif "rerun" in outs and bad:
            evidence.append(
                f"{pp.relative(test, scan.root)} failed again after a rerun ({', '.join(outs)})"
            )
    for _, p in parsed:
        if (
            p.test
            and p.test in tests
            and p.test not in suspects
            and p.exc_type
            and _FLAKY_SHAPES.search(p.exc_type + ": " + p.message)
        ):
            suspects.append(p.test)
            evidence.append(
                f"{p.test} failed with {p.exc_type}, a shape that is often flaky "
                "(timing, network, shared resources)"
            )
    return {
        "suspected": bool(suspects),
        "tests": suspects[:50],
        "evidence": evidence[:20],
        "note": "a suspicion from this log, not a verdict; confirm with: truegreen run TEST --repeat 5",
    }


def _quote_ids(tests: list[str]) -> str:
    return " ".join(shlex.quote(t) for t in tests[:5])


def _own_missing(d: Decision, evidence: list[Candidate]) -> str | None:
    """The project's own module that the first evidence lines say an import did not find."""
    for c in evidence[:3]:
        name = own_missing_module(c.text, set(d.packages))
        if name:
            return name
    return None


def next_step(d: Decision, evidence: list[Candidate]) -> str:
    """One plain sentence: what to do first."""
    flaky_tests = d.flaky.get("tests") or []
    if d.flaky.get("suspected") and isinstance(flaky_tests, list) and flaky_tests:
        return (
            f"this looks flaky: {flaky_tests[0]} passed and failed in the same log; "
            f"check it with: truegreen run {shlex.quote(str(flaky_tests[0]))} --repeat 5"
        )
    text = " ".join(c.text for c in evidence[:3])
    cmd = d.step.command.splitlines()[-1].strip() if d.step and d.step.command else None
    if d.cls == "test":
        own = _own_missing(d, evidence)
        if own:
            rerun = "python -m pytest " + _quote_ids(d.failing_tests) if d.failing_tests else cmd
            then = f"; then rerun: {rerun}" if rerun else ""
            if "." not in own:
                return (
                    f"make the project's own package {own} importable where the tests run "
                    f"(install it: pip install -e ., or put its directory on the path){then}"
                )
            return (
                f"fix the import of {own}: {own.split('.')[0]} is the project's own module, "
                f"so the module's name or its file is wrong, not a dependency{then}"
            )
        if d.failing_tests:
            return "rerun locally with: python -m pytest " + _quote_ids(d.failing_tests)
        return f"rerun the failing tests locally{': ' + cmd if cmd else ''}, then read the first failure"
    if d.cls == "lint":
        if d.tool in ("black", "ruff") and re.search(
            r"[Ww]ould reformat|would be reformatted", text
        ):
            return f"run the formatter locally ({'ruff format' if d.tool == 'ruff' else 'black'} .) and commit the result"
        return (
            f"run the linter locally{' (' + cmd + ')' if cmd else ''} and fix the lines it reports"
        )
    if d.cls == "type":
        return (
            f"run the type checker locally{' (' + cmd + ')' if cmd else ''} and fix the first error"
        )
    if d.cls == "dependency":
        m = re.search(
            r"(?:satisfies the requirement|distribution found for|No module named) '?([A-Za-z0-9][\w.\-\[\]]*)",
            text,
        )
        if m:
            name = re.sub(r"[\[\]].*", "", m[1])
            return f"pin {name} to a version that exists and fits the others, or declare it in the project's dependencies; then reinstall from a clean environment"
        return "reproduce the install in a clean environment and pin the package the resolver names"
    if d.cls == "network":
        return "rerun the job (a network error reached an external host); if tests call the network, mock those calls"
    if d.cls == "timeout":
        return "find the test or step that hangs: rerun it locally with a per-test timeout (pytest --timeout=60 --durations=20)"
    if d.cls == "configuration":
        return "set the missing or wrong setting (CI secret, environment variable, option or config file) named in the evidence"
    if d.cls == "environment":
        return "check the runner's toolchain: the interpreter version, system packages and commands the step expects"
    if d.cls == "infrastructure":
        return "rerun the job: the runner failed (lost, out of disk or memory, or cancelled), not the code"
    if d.cls == "build":
        return (
            f"reproduce the build locally{' (' + cmd + ')' if cmd else ''} and fix the first error"
        )
    return "read the evidence lines: no known failure shape was found"
