"""Ctrl-C cancels the command's engine calls before it unwinds: their processes are killed
at once, also those a worker thread runs (which never see the interrupt), and the command
ends with status 130."""

from __future__ import annotations

import signal

import pytest

from truegreen.cli import _app, main


def test_ctrl_c_cancels_every_call_of_the_command_and_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens = []

    def command(**_: object) -> None:
        tokens.append(_app.call()["cancel"])
        tokens.append(_app.call()["cancel"])
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while the calls run
        raise AssertionError("the interrupt did not end the command")

    monkeypatch.setattr(_app.app, "main", command)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        with pytest.raises(SystemExit) as exc:
            main(["run", "x"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, previous)
    assert exc.value.code == 130
    assert "interrupted" in capsys.readouterr().err
    assert len(tokens) == 2 and all(t.cancelled for t in tokens)


def test_a_caller_that_handles_ctrl_c_itself_keeps_its_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def mine(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_app.app, "main", lambda **_: 0)
    previous = signal.signal(signal.SIGINT, mine)
    try:
        with pytest.raises(SystemExit):
            main(["doctor"])
        assert signal.getsignal(signal.SIGINT) is mine
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sigterm_cancels_every_call_like_ctrl_c_and_exits_143(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`timeout`, a CI cancellation, a service stop: SIGTERM unwinds as Ctrl-C does (the
    same clean-up), and a second one while it cleans up does not cut that short."""
    tokens = []

    def command(**_: object) -> None:
        tokens.append(_app.call()["cancel"])
        try:
            signal.raise_signal(signal.SIGTERM)
        finally:
            signal.raise_signal(signal.SIGTERM)  # again, during the clean-up: ignored
        raise AssertionError("SIGTERM did not end the command")

    monkeypatch.setattr(_app.app, "main", command)
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)  # as a process starts
    try:
        with pytest.raises(SystemExit) as exc:
            main(["run", "x"])
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # put back
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert exc.value.code == 143
    assert "terminated (SIGTERM)" in capsys.readouterr().err
    assert len(tokens) == 1 and tokens[0].cancelled
