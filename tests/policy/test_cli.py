"""``truegreen policy explain`` / ``policy check`` on real repositories: the effective
policy with where each value came from, read at a revision as verify reads the base's;
a malformed policy is one line and exit 2."""

from __future__ import annotations

import json

from tests.conftest import cli, git, write_files
from truegreen import api
from truegreen.verify.pipeline import change_evidence, graded_config

PYPROJECT = """\
[project]
name = "p"

[tool.truegreen.policy]
broad-files = 4
extend-sensitive-paths = ["src/p/billing/"]
reject = ["policy.sensitive_path"]
"""


def test_explain_says_each_value_and_where_it_came_from(make_project, capsys) -> None:
    root = make_project({"pyproject.toml": PYPROJECT, "src/p/m.py": "x = 1\n"})
    code, out, err = cli(capsys, "policy", "explain", "--repo", str(root), "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.policy/1"
    assert doc["files"] == ["pyproject.toml"] and doc["rev"] is None
    settings = {s["key"]: (s["value"], s["source"]) for s in doc["settings"]}
    assert settings["broad-files"] == (4, "pyproject.toml [tool.truegreen]")
    assert settings["broad-lines"] == (800, "default")
    assert settings["extend-sensitive-paths"] == (
        ["src/p/billing/"],
        "pyproject.toml [tool.truegreen]",
    )
    rules = {r["id"]: r["decision"] for r in doc["rules"]}
    assert rules["policy.sensitive_path"] == "reject"
    assert rules["policy.broad_diff"] == "escalate"
    # the text form says the same
    code, out, _ = cli(capsys, "policy", "explain", "--repo", str(root))
    assert code == 0
    assert "broad-files            = 4  (pyproject.toml [tool.truegreen])" in out
    assert "policy.sensitive_path -> reject" in out


def test_explain_at_a_revision_reads_that_revision_not_the_disk(make_project, capsys) -> None:
    root = make_project({"pyproject.toml": PYPROJECT})
    base = git(root, "rev-parse", "HEAD")
    (root / "truegreen.toml").write_text("[policy]\nbroad-files = 9\n", encoding="utf-8")
    on_disk = api.policy_explain(api.PolicyRequest(repo=root))
    at_base = api.policy_explain(api.PolicyRequest(repo=root, rev="HEAD"))
    assert {s.key: s.value for s in on_disk.settings}["broad-files"] == 9
    assert on_disk.files == ("pyproject.toml", "truegreen.toml")
    assert {s.key: s.value for s in at_base.settings}["broad-files"] == 4
    assert at_base.rev == base


def test_check_passes_a_valid_policy_and_names_what_is_configured(make_project, capsys) -> None:
    root = make_project({"pyproject.toml": PYPROJECT})
    code, out, err = cli(capsys, "policy", "check", "--repo", str(root))
    assert code == 0 and err == ""
    assert out.strip().endswith("on disk: extend-sensitive-paths, broad-files, reject")


def test_check_refuses_a_malformed_policy_in_one_line(make_project, capsys) -> None:
    root = make_project({"pyproject.toml": PYPROJECT.replace("broad-files = 4", "broad-file = 4")})
    code, out, err = cli(capsys, "policy", "check", "--repo", str(root))
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "unknown key 'broad-file'" in err and "known keys:" in err


def test_check_a_file_by_path_and_refuse_other_files(tmp_path, capsys) -> None:
    good = tmp_path / "truegreen.toml"
    good.write_text('[policy]\nmin-strength = "medium"\n', encoding="utf-8")
    code, out, _ = cli(capsys, "policy", "check", "--file", str(good))
    assert code == 0 and out.strip() == f"ok: {good}: min-strength"
    bad = tmp_path / "policy.toml"
    bad.write_text("x = 1\n", encoding="utf-8")
    code, out, err = cli(capsys, "policy", "check", "--file", str(bad))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "neither a pyproject.toml nor a truegreen.toml" in err
    code, _, err = cli(capsys, "policy", "check", "--file", str(tmp_path / "pyproject.toml"))
    assert code == 2 and "does not exist" in err


def test_an_unknown_revision_is_one_line(make_project, capsys) -> None:
    root = make_project({"pyproject.toml": PYPROJECT})
    code, out, err = cli(capsys, "policy", "explain", "--repo", str(root), "--rev", "nope")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--rev" in err


def test_verify_grades_under_the_base_policy_and_lists_the_change(make_project) -> None:
    # the change's own edit of the policy is not obeyed: the base's is
    root = make_project({"pyproject.toml": PYPROJECT, "src/p/m.py": "x = 1\n"})
    base = git(root, "rev-parse", "HEAD")
    write_files(
        root,
        {
            "pyproject.toml": PYPROJECT.replace("broad-files = 4", "broad-files = 99"),
            "src/p/m.py": "x = 2\ny = 3\n",
            "src/p/img.bin": "",
        },
    )
    (root / "src/p/img.bin").write_bytes(b"\x00\x01")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    head = git(root, "rev-parse", "HEAD")
    from truegreen.repo.git import GitRepo

    repo = GitRepo(root)
    _settings, policy, gates = graded_config(repo, base)
    assert gates.tools == ()
    assert policy.broad_files == 4
    change = change_evidence(repo, base, head)
    assert [(f.path, f.added, f.removed) for f in change.files] == [
        ("pyproject.toml", 1, 1),
        ("src/p/img.bin", 0, 0),
        ("src/p/m.py", 2, 1),
    ]
