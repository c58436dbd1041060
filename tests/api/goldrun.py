"""Scenarios whose command-line output is kept as gold files (tests/api/gold/).

Each scenario builds its fixture (the demo repository, a few logs) under a directory it is
given, runs ``truegreen ...`` in-process, and returns what the commands printed: ``NAME.json``
(stdout of ``--json``), ``NAME.out`` and ``NAME.err`` (stdout, stderr). What legitimately
varies from one machine or run to the next is scrubbed (:func:`scrub`): the temporary
directory, the interpreter and its versions, durations, and the values derived from the
environment (exam ids, receipt hashes: the exam records the interpreter it was sealed with).

The gold files were written by the command line as it was before the engine API of #34
(``python tests/api/make_gold.py``); test_gold.py proves the outputs did not change.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLD = HERE / "gold"
CORPUS = HERE.parent / "diagnose" / "corpus"

#: logs of the diagnose corpus whose output is kept (a test failure, a lint failure)
LOGS = ("test-02-gha.log", "lint-00-gha.log")

#: keys whose values are measurements or facts about the interpreter, not results;
#: ``tokens`` (the size of localize's context) counts the paths in it, which hold pytest's
#: temporary directory
VARYING_KEYS = frozenset(
    {"duration", "python_version", "pytest_version", "pytest", "distributions_sha256", "tokens"}
)


def run_cli(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """``truegreen ARGS`` in-process: (exit status, stdout, stderr)."""
    from truegreen.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = None
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                code = exc.code
    finally:
        sys.stdin = saved
    return (code if isinstance(code, int) else 0), out.getvalue(), err.getvalue()


def scrub(text: str, tmp: Path) -> str:
    """``text`` with what varies between machines and runs replaced by placeholders."""
    keys = "|".join(sorted(VARYING_KEYS))
    text = re.sub(rf'("(?:{keys})": )("[^"]*"|[-0-9.eE+]+)', r'\1"<varies>"', text)
    for path in sorted({str(tmp), str(tmp.resolve())}, key=len, reverse=True):
        text = text.replace(path, "<tmp>")
    text = text.replace(str(CORPUS), "<corpus>")
    for path in sorted(
        {sys.executable, str(Path(sys.executable).resolve()), sys.prefix}, key=len, reverse=True
    ):
        text = text.replace(path, "<python>")
    ids: dict[str, str] = {}
    text = re.sub(
        r"ex-[0-9a-f]{16}", lambda m: ids.setdefault(m.group(0), f"<exam-{len(ids) + 1}>"), text
    )
    # the receipt and ledger hashes cover the environment the exam was sealed in
    text = re.sub(
        r'("(?:sha256|head|entry_hash|actual|recorded)": )"[0-9a-f]{64}"', r'\1"<sha>"', text
    )
    text = re.sub(r"receipt sha256(:? `?)[0-9a-f]{64}", r"receipt sha256\1<sha>", text)
    text = re.sub(r"distributions [0-9a-f]{12}", "distributions <dist>", text)
    text = re.sub(r"ledger entry #(\d+)  [0-9a-f]{16}", r"ledger entry #\1  <hash>", text)
    text = re.sub(
        r"truegreen-([a-z]+-)?p\d+\.[0-9a-f]+\.[0-9a-f]+-[a-z0-9_]+", "truegreen-<dir>", text
    )
    return text


@contextlib.contextmanager
def _home(tmp: Path) -> Iterator[str]:
    """A ledger of the scenario's own; its URL."""
    import os

    saved = os.environ.get("TRUEGREEN_HOME")
    os.environ["TRUEGREEN_HOME"] = str(tmp / "home")
    try:
        yield f"sqlite:///{tmp / 'ledger.db'}"
    finally:
        if saved is None:
            os.environ.pop("TRUEGREEN_HOME", None)
        else:
            os.environ["TRUEGREEN_HOME"] = saved


def _demo(tmp: Path) -> Path:
    from truegreen.demo.scenario import build

    root = tmp / "invoicekit"
    build(root)
    return root


def _keep(outputs: dict[str, str], name: str, result: tuple[int, str, str], json_out: bool) -> None:
    code, out, err = result
    outputs[f"{name}.{'json' if json_out else 'out'}"] = out
    outputs[f"{name}.err"] = f"exit {code}\n{err}"


def _seal(tmp: Path, repo: Path, db: str, outputs: dict[str, str]) -> str:
    from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST

    result = run_cli(
        "seal", EXAM_TEST, "--repo", str(repo), "--rev", "main", "--test-file", str(EXAM_FILE),
        "--issue", "42", "--sandbox", "none", "--python", sys.executable, "--db", db, "--json",
    )  # fmt: skip
    _keep(outputs, "seal", result, True)
    return str(json.loads(result[1])["id"])


def seal_and_verify(tmp: Path) -> dict[str, str]:
    """seal, verify (a head rev, with a report), the ledger and receipt commands."""
    outputs: dict[str, str] = {}
    with _home(tmp) as db:
        repo = _demo(tmp)
        exam = _seal(tmp, repo, db, outputs)
        common = ("--repo", str(repo), "--sandbox", "none", "--python", sys.executable, "--db", db)
        report = tmp / "report"
        result = run_cli(
            "verify", "--base", "main", "--head", "real-fix", "--exam", exam, "--report",
            str(report), *common, "--json",
        )  # fmt: skip
        _keep(outputs, "verify-real-fix", result, True)
        _keep(outputs, "verify-real-fix-human", run_cli(
            "verify", "--base", "main", "--head", "break-and-delete", *common
        ), False)  # fmt: skip
        _keep(outputs, "exams-list", run_cli("exams", "list", "--db", db, "--json"), True)
        _keep(outputs, "exams-show", run_cli("exams", "show", exam, "--db", db, "--json"), True)
        _keep(outputs, "exams-show-human", run_cli("exams", "show", exam, "--db", db), False)
        _keep(outputs, "ledger-verify", run_cli("ledger", "verify", "--db", db, "--json"), True)
        _keep(outputs, "receipt-verify", run_cli(
            "receipt", "verify", str(report / "receipt.json"), "--json"
        ), True)  # fmt: skip
        outputs["report.md"] = (report / "report.md").read_text(encoding="utf-8")
    return outputs


def patch_and_strength(tmp: Path) -> dict[str, str]:
    """verify --patch (a cheat, escalated) and strength."""
    from truegreen.repo.git import GitRepo

    outputs: dict[str, str] = {}
    with _home(tmp) as db:
        repo = _demo(tmp)
        exam = _seal(tmp, repo, db, outputs)
        common = ("--repo", str(repo), "--sandbox", "none", "--python", sys.executable, "--db", db)
        patch = tmp / "special.diff"
        patch.write_text(GitRepo(repo).diff("main", "special-case"), encoding="utf-8")
        _keep(outputs, "verify-patch", run_cli(
            "verify", "--patch", str(patch), "--exam", exam, *common, "--json"
        ), True)  # fmt: skip
        _keep(outputs, "strength", run_cli(
            "strength", "--exam", exam, "--base", "main", "--head", "real-fix", *common, "--json"
        ), True)  # fmt: skip
    return outputs


def run_and_localize(tmp: Path) -> dict[str, str]:
    """run (failing, passing) and localize of the demo's bug in its checkout."""
    from truegreen.demo.scenario import EXAM_FILE, EXAM_PATH, EXAM_TEST

    outputs: dict[str, str] = {}
    with _home(tmp):
        repo = _demo(tmp)
        (repo / EXAM_PATH).write_text(EXAM_FILE.read_text(encoding="utf-8"), encoding="utf-8")
        common = ("--repo", str(repo), "--sandbox", "none", "--python", sys.executable)
        _keep(outputs, "run-failing", run_cli("run", EXAM_TEST, *common, "--json"), True)
        _keep(outputs, "run-failing-human", run_cli("run", EXAM_TEST, *common), False)
        _keep(outputs, "run-passing", run_cli(
            "run", "tests/test_money.py", "--repeat", "2", *common, "--json"
        ), True)  # fmt: skip
        _keep(outputs, "localize", run_cli("localize", EXAM_TEST, *common, "--json"), True)
    return outputs


def diagnose(tmp: Path) -> dict[str, str]:
    """diagnose of corpus logs, as a file and on stdin, as JSON and as text."""
    outputs: dict[str, str] = {}
    for name in LOGS:
        stem = Path(name).stem
        log = CORPUS / name
        _keep(outputs, f"diagnose-{stem}", run_cli("diagnose", str(log), "--json"), True)
        _keep(outputs, f"diagnose-{stem}-human", run_cli("diagnose", str(log)), False)
    data = (CORPUS / LOGS[0]).read_bytes()
    _keep(outputs, "diagnose-stdin", run_cli("diagnose", "-", "--json", stdin=data), True)
    return outputs


SCENARIOS: dict[str, Callable[[Path], dict[str, str]]] = {
    "seal_and_verify": seal_and_verify,
    "patch_and_strength": patch_and_strength,
    "run_and_localize": run_and_localize,
    "diagnose": diagnose,
}


def outputs_of(name: str, tmp: Path) -> dict[str, str]:
    """Scenario ``name``'s outputs, scrubbed, by gold file name."""
    return {k: scrub(v, tmp) for k, v in SCENARIOS[name](tmp).items()}
