"""The engine API's functions and the parts a caller can pass them: the executor, the
ledger, ``record=False``; errors that name their field; the fixer's view of an exam."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.api.conftest import EXAM_TEST, exam_file, where
from tests.conftest import cli
from truegreen import api
from truegreen.exam import store
from truegreen.run.executor import Command, Completed, SubprocessExecutor


class Recording:
    """An executor that runs every command for real and records it; bound to a call's
    token, its copy records into the same list (as the api binds what it is given)."""

    def __init__(self, commands: list[Command] | None = None, cancel: object = None) -> None:
        self.commands: list[Command] = [] if commands is None else commands
        self.cancel = cancel
        self._real = SubprocessExecutor()

    def with_cancel(self, cancel: api.Cancellation) -> Recording:
        return Recording(self.commands, cancel)

    def run(self, command: Command) -> Completed:
        assert self.cancel is not None, "the api runs through the executor bound to its call"
        self.commands.append(command)
        return self._real.with_cancel(self.cancel).run(command)  # type: ignore[arg-type]


def test_every_process_of_a_call_goes_through_the_executor_it_is_given(
    calc_project: Callable[..., Path],
) -> None:
    root = calc_project()
    executor = Recording()
    cancel = api.Cancellation()
    result = api.reproduce(
        api.RunRequest(**where(root), test_ids=("tests/test_calc.py::test_mul",)),
        executor=executor,
        cancel=cancel,
    )
    assert result.not_passed == ()
    argvs = [list(c.argv) for c in executor.commands]
    assert ["git", "rev-parse", "--show-toplevel"] in argvs  # the repository found
    assert any(a[1:3] == ["-m", "pytest"] and a[-1].endswith("::test_mul") for a in argvs)
    assert not cancel.cancelled and not cancel.running


def test_a_fake_executor_stands_in_for_every_process(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    fake = api.FakeExecutor(lambda c: Completed(tuple(c.argv), 0, "", "", 0.01))
    heard: list[api.Event] = []
    built = api.build_env(
        api.EnvBuildRequest(repo=tmp_path, python="/usr/bin/python3", extras=("test",)),
        executor=fake,
        listener=heard.append,
    )
    assert built.created and built.extras == ("test",)
    assert [c.argv[1:3] for c in fake.commands] == [["-m", "venv"], ["-m", "pip"], ["-m", "pip"]]
    assert [e.message for e in heard][-1] == "truegreen: env build: pip install -e .[test] pytest"
    assert {(e.operation, e.layer, e.phase) for e in heard} == {("env", "env", "note")}


@pytest.fixture
def ledgers_opened(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The db of every Ledger opened from here on."""
    opened: list[str | None] = []
    real = store.Ledger.__init__

    def counting(self: store.Ledger, db_url: str | None = None) -> None:
        opened.append(db_url)
        real(self, db_url)

    monkeypatch.setattr(store.Ledger, "__init__", counting)
    return opened


def test_a_call_opens_the_ledger_once_or_uses_the_one_it_is_given(
    calc_project: Callable[..., Path], tmp_path: Path, ledgers_opened: list[str | None]
) -> None:
    root = calc_project()
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    sealed = api.seal(
        api.SealRequest(**where(root), db=url, test_id=EXAM_TEST, test_file=exam_file(root))
    )
    assert ledgers_opened == [url]
    request = api.VerifyRequest(
        **where(root), db=url, base="main", head="fix", exams=(sealed.exam.id,), runs=1,
        strength=False,
    )  # fmt: skip
    verification = api.verify(request)
    assert ledgers_opened == [url, url]  # once for the exams and the record, not twice
    with api.open_ledger(url) as ledger:
        again = api.verify(request, ledger=ledger)
        assert len(ledgers_opened) == 3  # the caller's, and no other
        assert [r.verification.receipt.sha256 for r in api.list_verifications(ledger=ledger)] == [
            verification.receipt.sha256,
            again.receipt.sha256,
        ]


def test_a_trial_enters_nothing_into_the_ledger(
    calc_project: Callable[..., Path], tmp_path: Path
) -> None:
    root = calc_project()
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    seal = api.SealRequest(**where(root), db=url, test_id=EXAM_TEST, test_file=exam_file(root))
    trial = api.seal(seal, record=False)
    assert not trial.recorded and trial.seq is None and trial.exam.test == EXAM_TEST
    assert api.list_exams(api.ExamsListRequest(db=url)).exams.exams == []
    with pytest.raises(api.UsageError) as info:
        api.seal(seal.model_copy(update={"export": tmp_path / "out"}), record=False)
    assert info.value.field == "export"
    sealed = api.seal(seal)
    assert sealed.recorded and sealed.exam.id == trial.exam.id  # the same exam, now kept
    request = api.VerifyRequest(
        **where(root), db=url, base="main", head="fix", exams=(sealed.exam.id,), runs=1,
        strength=False, report_dir=tmp_path / "report",
    )  # fmt: skip
    verification = api.verify(request, record=False)
    assert verification.verdict == "verified"
    assert (tmp_path / "report" / "receipt.json").is_file()  # its evidence, still written
    assert api.list_verifications(db=url) == []
    with api.open_ledger(url) as ledger:
        assert [e.kind for e in ledger.entries()] == ["exam.sealed"]


def test_a_fixer_never_sees_a_hidden_exam_s_content(
    calc_project: Callable[..., Path], tmp_path: Path
) -> None:
    root = calc_project()
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    request = api.SealRequest(
        **where(root), db=url, test_id=EXAM_TEST, test_file=exam_file(root), runs=1
    )
    hidden = api.seal(request.model_copy(update={"hidden": True})).exam
    shown = api.seal(request).exam
    view = api.exam_for_fixer(hidden.id, db=url)
    assert view.hidden and view.test == EXAM_TEST and view.signature == hidden.signature
    assert [(f.path, f.sha256, f.content) for f in view.files] == [
        (f.path, f.sha256, None) for f in hidden.files
    ]
    assert "assert add(2, 3) == 5" not in str(view.to_json())
    open_view = api.exam_for_fixer(shown.id, db=url)
    assert not open_view.hidden and "assert add(2, 3) == 5" in (open_view.files[0].content or "")
    with pytest.raises(ValueError, match="carry no content"):
        api.FixerExam(**{**view.model_dump(), "files": open_view.model_dump()["files"]})


def test_list_verifications_by_repository_time_and_number(
    calc_project: Callable[..., Path], tmp_path: Path
) -> None:
    from datetime import UTC, datetime, timedelta

    root = calc_project()
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with api.open_ledger(url) as ledger:
        exam = api.seal(
            api.SealRequest(**where(root), test_id=EXAM_TEST, test_file=exam_file(root)),
            ledger=ledger,
        ).exam
        request = api.VerifyRequest(
            **where(root), base="main", head="fix", exams=(exam.id,), runs=1, strength=False
        )
        docs = [api.verify(request, ledger=ledger) for _ in range(3)]
        mine = api.repo_identity(root)
        got = api.list_verifications(mine, ledger=ledger)
        assert [r.verification.receipt.sha256 for r in got] == [d.receipt.sha256 for d in docs]
        assert [r.seq for r in got] == sorted(r.seq for r in got)  # oldest first
        assert [r.seq for r in api.list_verifications(mine, limit=2, ledger=ledger)] == [
            r.seq for r in got[1:]
        ]
        assert api.list_verifications("another-repository", ledger=ledger) == []
        later = datetime.now(UTC) + timedelta(minutes=5)
        assert api.list_verifications(since=later, ledger=ledger) == []
        naive_past = datetime.now() - timedelta(days=1)  # naive: read as UTC
        assert len(api.list_verifications(since=naive_past, ledger=ledger)) == 3
        assert got[0].to_json()["verification"] == docs[0].to_json()


def test_the_cli_names_the_option_an_engine_error_is_about(
    calc_project: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = calc_project()
    common = ("--python", str(where(root)["python"]), "--sandbox", "none")
    code, out, err = cli(capsys, "run", "t::x", "--repo", str(tmp_path / "nowhere"), *common)
    assert code == 2 and out == ""
    assert err == (
        f"truegreen: error: --repo: {str(tmp_path / 'nowhere')!r} does not exist; "
        "give the path of the project's repository\n"
    )
    code, out, err = cli(capsys, "verify", "--repo", str(root), "--head", "fix", *common)
    assert code == 2
    assert err.startswith("truegreen: error: --base: is required with a head revision")
    code, out, err = cli(capsys, "localize", EXAM_TEST, "--repo", str(root), "--formula", "x")
    assert code == 2 and err.startswith("truegreen: error: --formula: unknown formula 'x'")
    code, out, err = cli(capsys, "diagnose", "--run", "3")
    assert code == 2 and err.startswith("truegreen: error: --run: needs a GitHub repository")


def test_an_error_as_data_for_an_adapter_that_answers_in_json() -> None:
    error = api.UsageError(
        "does not exist", hint="commit it", field="test_id", suggest={"test_file": "t.py"}
    )
    assert error.to_json() == {
        "slug": "usage",
        "field": "test_id",
        "message": "does not exist",
        "hint": "commit it",
        "suggest": {"test_file": "t.py"},
    }
    assert str(error) == "test_id: does not exist; commit it: test_file t.py"
    assert error.render(lambda f: f"--{f.replace('_', '-')}") == (
        "--test-id: does not exist; commit it: --test-file t.py"
    )


def test_diagnose_reads_a_file_a_text_or_a_stream_alike(tmp_path: Path) -> None:
    import gzip
    import io

    log = f"============ FAILURES ============\nFAILED {EXAM_TEST} - assert -1 == 5\n"
    (tmp_path / "job.log.gz").write_bytes(gzip.compress(log.encode()))
    from_file = api.diagnose(api.DiagnoseRequest(log=str(tmp_path / "job.log.gz")))
    from_text = api.diagnose(api.DiagnoseRequest(text=log))
    from_stream = api.diagnose_stream(io.BytesIO(gzip.compress(log.encode())), name="job")
    for diagnosis in (from_file, from_text, from_stream):
        assert diagnosis.failing_tests == [EXAM_TEST]
        assert diagnosis.to_json()["class"] == "test"
    with pytest.raises(api.UsageError) as info:
        api.diagnose(api.DiagnoseRequest(log=str(tmp_path / "nope.log")))
    assert "nope.log" in info.value.message


@pytest.mark.parametrize(
    "args",
    [
        ("run", "--", "--collect-only"),
        ("run", "tests", "--", "--rootdir=/tmp"),
        ("run", "--", "-p", "no:python"),
        ("flaky", "--", "--collect-only"),
        ("localize", "--", "--collect-only"),
    ],
)
def test_an_option_given_as_a_test_id_never_reaches_pytest(
    calc_project: Callable[..., Path], capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    root = calc_project()
    common = ("--repo", str(root), "--python", str(where(root)["python"]), "--sandbox", "none")
    command, *rest = args
    code, out, err = cli(capsys, command, *common, *rest)
    assert code == 2 and out == ""
    assert err.startswith("truegreen: error: TEST_ID: '-")
    assert "is not a test id: starts with '-': pytest would read it as an option" in err
    assert err.count("\n") == 1  # one line


def test_the_engine_refuses_an_option_as_a_test_id_whatever_its_caller(
    calc_project: Callable[..., Path],
) -> None:
    """A request made without validation (``model_construct``) still cannot pass an
    option: reproduce and flaky check the ids themselves, before anything runs."""
    root = calc_project()
    executor = Recording()
    run = api.RunRequest.model_construct(
        **where(root), test_ids=("--collect-only",), repeat=1, timeout=None
    )
    with pytest.raises(api.UsageError) as info:
        api.reproduce(run, executor=executor)
    assert info.value.field == "test_ids" and "an option" in info.value.message
    flaky = api.FlakyRequest.model_construct(
        **where(root), test_ids=("--co",), repeat=2, timeout=None
    )
    with pytest.raises(api.UsageError) as info:
        api.flaky(flaky, executor=executor)
    assert info.value.field == "test_ids" and "an option" in info.value.message
    assert not any(list(c.argv)[1:3] == ["-m", "pytest"] for c in executor.commands)


@pytest.mark.slow
def test_paths_and_parametrized_node_ids_still_run(
    make_project: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(
        {
            "tests/test_p.py": "import pytest\n\n\n"
            "@pytest.mark.parametrize('v', ['-1', 'a b/c=d'])\n"
            "def test_p(v):\n    assert v\n"
        }
    )
    common = ("--repo", str(root), "--python", str(where(root)["python"]), "--sandbox", "none")
    for ids in (["tests"], ["tests/test_p.py"], ["tests/test_p.py::test_p[a b/c=d]"]):
        code, out, err = cli(capsys, "run", *common, "--json", "--", *ids)
        assert code == 0, err
    code, out, err = cli(capsys, "run", *common, "--json", "tests/test_p.py::test_p[-1]")
    assert code == 0, err


def test_other_bad_inputs_name_their_option(
    calc_project: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = calc_project()
    common = ("--repo", str(root), "--python", str(where(root)["python"]), "--sandbox", "none")
    code, out, err = cli(capsys, "flaky", *common, "--timeout", "-5")
    assert code == 2 and err.startswith("truegreen: error: --timeout: must be more than 0")
    code, out, err = cli(capsys, "run", *common, EXAM_TEST, "--timeout", "0")
    assert code == 2 and err.startswith("truegreen: error: --timeout: must be more than 0")
    code, out, err = cli(capsys, "localize", *common, "tests/test_calc.py::test_mul",
                         "--scope", "nonexistent_dir")  # fmt: skip
    assert code == 2
    assert err.startswith("truegreen: error: --scope: 'nonexistent_dir' does not exist in ")
    code, out, err = cli(capsys, "localize", *common, EXAM_TEST, "--scope", "tests,-k")
    assert code == 2 and err.startswith("truegreen: error: --scope: '-k' is not a test id")
    code, out, err = cli(capsys, "diagnose", "")
    assert code == 2 and err.startswith("truegreen: error: LOG: the path is empty")


def test_an_unknown_exam_id_names_the_input_that_gave_it(
    calc_project: Callable[..., Path], tmp_path: Path
) -> None:
    root = calc_project()
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    calls = [
        lambda: api.fix_task(api.FixTaskRequest(repo=root, db=url, exam="nosuchexam")),
        lambda: api.exam_status(api.ExamStatusRequest(repo=root, db=url, exam="ex-0000")),
        lambda: api.show_exam(api.ExamShowRequest(db=url, exam="ex-0000")),
        lambda: api.exam_for_fixer("ex-0000", db=url),
    ]
    for call in calls:
        with pytest.raises(api.UsageError) as info:
            call()
        assert info.value.field == "exam"
        assert "exam id" in info.value.message
