"""Requests: what a queue job carries. JSON in and out, validated when made, an invalid one
a UsageError naming its field, and the command line's defaults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest

from truegreen import api
from truegreen.cli import app

PATCH = b"diff --git a/x b/x\n\xff\x00 not utf-8\n"


@pytest.mark.parametrize(
    "request_",
    [
        api.VerifyRequest(repo=Path("p"), patch=PATCH, exams=("ex-1",), report_dir=Path("r")),
        api.VerifyRequest(base="main", head="fix", runs=5, strength=False, db="sqlite:///x"),
        api.SealRequest(test_id="tests/test_x.py::test_y", hidden=True, test_file=Path("t.py")),
        api.LocalizeRequest(test_ids=("a::b",), scope=("suite",), formula="dstar"),
        api.RunRequest(test_ids=("a::b", "c::d"), repeat=3, timeout=2.5),
        api.RunRequest(test_ids=("tests", "tests/test_x.py::test_y[-1 a/b=c]")),
        api.FlakyRequest(test_ids=("tests/test_x.py",)),
        api.DiagnoseRequest(github="o/r", run_id=7),
        api.StrengthRequest(exams=("ex-1",), base="a", head="b"),
        api.LedgerVerifyRequest(expect_head="3:" + "a" * 64),
    ],
    ids=lambda r: type(r).__name__,
)
def test_a_request_goes_through_json_and_back(request_: api.Request) -> None:
    doc = request_.to_json()
    text = json.dumps(doc)  # plain JSON: what a queue stores
    assert type(request_).from_json(text) == request_
    assert type(request_).from_json(json.loads(text)) == request_


def test_a_patch_travels_as_base64_and_comes_back_byte_for_byte() -> None:
    request = api.VerifyRequest(patch=PATCH)
    doc = request.to_json()
    assert isinstance(doc["patch"], str) and "\x00" not in doc["patch"]
    assert api.VerifyRequest.from_json(doc).patch == PATCH
    assert request.base_rev == "HEAD"  # a patch applies to HEAD unless a base is given


@pytest.mark.parametrize(
    "make, field, message",
    [
        (lambda: api.VerifyRequest(base="main", head="x", runs=0), "runs", "at least 1, not 0"),
        (lambda: api.VerifyRequest(head="x", patch=b"p"), "patch", "not both"),
        (lambda: api.VerifyRequest(), "head", "give the revision with the fix, or a patch"),
        (lambda: api.VerifyRequest(head="x"), "base", "is required with a head revision"),
        (lambda: api.VerifyRequest(base="m", head="x", bogus=1), "bogus", "not a field of"),
        (lambda: api.VerifyRequest(base="m", head="x", runs="many"), "runs", "valid integer"),
        (lambda: api.SealRequest(), "test_id", "is required"),
        (lambda: api.LocalizeRequest(test_ids=()), "test_ids", "at least 1 item"),
        (lambda: api.LocalizeRequest(test_ids=("a",), budget_tokens=10), "budget_tokens", "50"),
        (lambda: api.LocalizeRequest(test_ids=("a",), budget_seconds=0), "budget_seconds", "0"),
        (lambda: api.RunRequest(test_ids=("-v",)), "test_ids", "starts with '-'"),
        (lambda: api.RunRequest(test_ids=("a::b", "-p", "no:python")), "test_ids", "'-p'"),
        (lambda: api.RunRequest(test_ids=("a::b",), timeout=0), "timeout", "more than 0"),
        (lambda: api.FlakyRequest(test_ids=("-x",)), "test_ids", "an option"),
        (lambda: api.FlakyRequest(timeout=-5), "timeout", "more than 0"),
        (lambda: api.LocalizeRequest(test_ids=("-x",)), "test_ids", "starts with '-'"),
        (lambda: api.LocalizeRequest(test_ids=("a",), scope=("-k",)), "scope", "an option"),
        (lambda: api.LocalizeRequest(test_ids=("a",), timeout=-1), "timeout", "more than 0"),
        (lambda: api.RunRequest(test_ids=("/tmp/t.py",)), "test_ids", "relative"),
        (lambda: api.DiagnoseRequest(), "log", "no log given"),
        (lambda: api.DiagnoseRequest(log=""), "log", "the path is empty"),
        (lambda: api.DiagnoseRequest(log="  "), "log", "the path is empty"),
        (lambda: api.DiagnoseRequest(text=""), "text", "is empty"),
        (lambda: api.DiagnoseRequest(log="x", text="y"), "text", "give one log"),
        (lambda: api.DiagnoseRequest(log="x", run_id=3), "run_id", "GitHub repository"),
        (lambda: api.ExamsListRequest(repo=Path("."), repo_id="x"), "repo_id", "not both"),
        (lambda: api.ExamsImportRequest(), "file", "one of them"),
        (lambda: api.LedgerVerifyRequest(expect_head="12"), "expect_head", "not SEQ:HASH"),
        (lambda: api.VerificationsQuery(limit=0), "limit", "at least 1"),
    ],
)
def test_an_invalid_request_is_a_usage_error_naming_its_field(
    make: Any, field: str, message: str
) -> None:
    with pytest.raises(api.UsageError) as info:
        make()
    assert info.value.field == field
    assert message in info.value.message
    assert "--" not in info.value.message  # no command-line option: adapters name it


def test_a_request_from_json_is_validated_the_same_way() -> None:
    with pytest.raises(api.UsageError) as info:
        api.RunRequest.from_json({"test_ids": ["a::b"], "repeat": -1})
    assert info.value.field == "repeat"
    with pytest.raises(api.UsageError):
        api.RunRequest.from_json("[not json")
    with pytest.raises(api.UsageError) as info:
        api.VerifyRequest.from_json({"head": "x"})
    assert info.value.field == "base"


#: request field -> the command's parameter that gives it, where the names differ
RENAMED = {"exams": "exam", "report_dir": "report", "strength": "no_strength"}


@pytest.mark.parametrize(
    "command, model",
    [
        (("seal",), api.SealRequest),
        (("verify",), api.VerifyRequest),
        (("strength",), api.StrengthRequest),
        (("localize",), api.LocalizeRequest),
        (("run",), api.RunRequest),
        (("env", "build"), api.EnvBuildRequest),
        (("doctor",), api.DoctorRequest),
        (("exams", "list"), api.ExamsListRequest),
        (("ledger", "verify"), api.LedgerVerifyRequest),
    ],
)
def test_a_request_s_defaults_are_the_command_line_s(
    command: tuple[str, ...], model: type[api.Request]
) -> None:
    cmd: click.Command = app
    for name in command:
        assert isinstance(cmd, click.Group)
        cmd = cmd.commands[name]
    params = {p.name: p for p in cmd.params}
    ctx = click.Context(cmd)
    compared = 0
    for field, info in model.model_fields.items():
        param = params.get(RENAMED.get(field, field))
        if param is None or info.is_required():
            continue
        default = param.get_default(ctx)
        if field == "regression":
            # not given on the command line: the request's own default (ci's differs)
            assert default is None
            continue
        if field == "strength":
            default = not default  # --no-strength
        if getattr(param, "multiple", False) and not (isinstance(default, tuple) and default):
            default = ()  # a repeatable option given no value (click: None, or unset)
        if isinstance(info.default, Path) and default is not None:
            default = Path(default)
        assert info.default == default, (field, info.default, default)
        compared += 1
    assert compared >= 2


def test_a_flaky_check_needs_two_repeats_at_least() -> None:
    """One run cannot show a flip: the request says which field is wrong."""
    assert api.FlakyRequest().repeat == 5
    assert api.FlakyRequest().test_ids == ()  # the suite
    with pytest.raises(api.UsageError) as info:
        api.FlakyRequest(repeat=1)
    assert info.value.field == "repeat"
