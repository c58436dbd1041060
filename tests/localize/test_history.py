"""Version history as the last tie-break (truegreen.localize.history)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen.localize import LocalizeOptions, localize
from truegreen.localize.history import (
    NOW,
    UNCOMMITTED,
    Change,
    History,
    _merged,
    blame,
    parse_blame,
)
from truegreen.project import open_project
from truegreen.repo.git import GitRepo

A = "a" * 40
B = "b" * 40


def commit(root: Path, message: str, date: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    for args in (("add", "-A"), ("commit", "-q", "-m", message)):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_porcelain_gives_each_line_its_commit_time_and_uncommitted_lines_now():
    # a commit's headers come with its first line only; later lines repeat the sha alone
    porcelain = "\n".join(
        [
            f"{A} 1 1 2",
            "author t",
            "committer-time 1600000000",
            "filename m.py",
            "\tx = 1",
            f"{A} 2 2",
            "\ty = 2",
            f"{B} 3 3 1",
            "committer-time 1700000000",
            "filename m.py",
            "\tz = 3",
            f"{UNCOMMITTED} 4 4 1",
            "committer-time 1800000000",
            "\tw = 4",
        ]
    )
    got = parse_blame(porcelain)
    assert got == {
        1: Change(1600000000, A),
        2: Change(1600000000, A),
        3: Change(1700000000, B),
        4: Change(NOW, UNCOMMITTED),
    }
    assert "on 2020-09-13 in aaaaaaaaaa" in got[1].note()
    assert "not committed" in got[4].note()
    assert parse_blame("") == {}


def test_history_of_a_checkout_keys_statements_by_their_latest_line(make_project):
    root = make_project(
        {
            "m.py": """
            def f(x):
                a = g(x,
                      1)
                b = a + 1
                return b
            """
        }
    )
    (root / "m.py").write_text((root / "m.py").read_text().replace("      1)", "      2)"))
    commit(root, "later", "2023-05-01T00:00:00+0000")
    (root / "m.py").write_text((root / "m.py").read_text().replace("a + 1", "a + 2"))
    (root / "new.py").write_text("x = 1\n")  # untracked: no history
    spans = {
        ("m.py", 1): (1, 1),
        ("m.py", 2): (2, 3),  # its second line changed later
        ("m.py", 4): (4, 4),  # changed in the working tree
        ("m.py", 5): (5, 5),
        ("new.py", 1): (1, 1),
        ("missing.py", 1): (1, 1),
    }
    past = History(GitRepo.discover(root))
    past.start((file, lo, hi) for (file, _line), (lo, hi) in spans.items())
    got = past.recency(spans)
    first = got[("m.py", 1)][0]
    assert got[("m.py", 5)][0] == first
    assert got[("m.py", 2)][0] > first
    assert "on 2023-05-01" in got[("m.py", 2)][1]
    assert got[("m.py", 4)] == (NOW, Change(NOW, UNCOMMITTED).note())
    assert ("new.py", 1) not in got and ("missing.py", 1) not in got


def test_only_the_lines_asked_for_are_blamed_and_ranges_are_merged(make_project):
    root = make_project({"m.py": "".join(f"x{n} = {n}\n" for n in range(1, 21))})
    got = blame(GitRepo.discover(root), "m.py", _merged([(9, 10), (2, 3), (4, 4), (3, 5)]))
    assert sorted(got) == [2, 3, 4, 5, 9, 10]
    assert _merged([(5, 6), (1, 2), (7, 7), (10, 12), (11, 11)]) == [(1, 2), (5, 7), (10, 12)]
    assert blame(GitRepo.discover(root), "m.py", [(30, 31)]) == {}  # past the end: no history


def test_no_repository_no_history(tmp_path):
    past = History(None)
    past.start([("m.py", 1, 1)])
    assert past.recency({("m.py", 1): (1, 1)}) == {}


@pytest.mark.slow
def test_localize_orders_lines_equal_in_all_else_by_their_last_change(make_project):
    root = make_project(
        {
            "calc.py": """
            def check(x):
                a = x + 1
                b = a * 2
                c = b - 3
                return c > 100
            """,
            "tests/test_calc.py": """
            from calc import check


            def test_check():
                assert check(1)
            """,
        }
    )
    calc = root / "calc.py"
    calc.write_text(calc.read_text().replace("a * 2", "a * 3"))
    commit(root, "change", "2021-06-01T00:00:00+0000")
    project = open_project(root, sys.executable, "none")
    test = "tests/test_calc.py::test_check"

    def entries(history: bool) -> dict[int, dict[str, Any]]:
        opts = LocalizeOptions(timeout=60, mutants=False, history=history)
        return {r["line"]: r for r in localize(project, [test], opts)["ranking"]}

    without = entries(False)
    # the three assignments are equal in every key: one tie group
    assert {(without[n]["rank"], without[n]["ties"]) for n in (2, 3, 4)} == {(4, 3)}
    with_history = entries(True)
    assert with_history[3]["rank"] == 2 and with_history[3]["ties"] == 1
    assert (with_history[2]["rank"], with_history[2]["ties"]) == (4, 2)
    assert (with_history[4]["rank"], with_history[4]["ties"]) == (4, 2)
    assert any("on 2021-06-01" in e for e in with_history[3]["evidence"])
    # the history orders ties only: the line with value evidence stays first
    assert with_history[5]["rank"] == without[5]["rank"] == 1
    assert not any("last changed" in e for e in with_history[5]["evidence"])


@pytest.mark.slow
def test_history_is_on_by_default_and_turned_off_on_the_command_line(make_project, capsys):
    from truegreen.cli import main

    root = make_project(
        {
            "calc.py": "def check(x):\n    a = x + 1\n    b = a * 2\n    return b > 100\n",
            "tests/test_calc.py": "from calc import check\n\n\ndef test_check():\n    assert check(1)\n",
        }
    )
    (root / "calc.py").write_text((root / "calc.py").read_text().replace("a * 2", "a * 3"))
    args = ["localize", "tests/test_calc.py::test_check", "--repo", str(root), "--python"]
    args += [sys.executable, "--sandbox", "none", "--no-mutants", "--json"]

    def notes(*more: str) -> list[str]:
        with pytest.raises(SystemExit) as exc:
            main([*args, *more])
        assert exc.value.code in (0, None)
        doc = json.loads(capsys.readouterr().out)
        return [n for r in doc["ranking"] for n in r["evidence"] if "not committed" in n]

    assert notes() and notes("--history") and not notes("--no-history")
