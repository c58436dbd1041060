"""``policy explain`` / ``policy check``: the effective policy of a repository, read as
``verify`` reads it (at a revision, or from the files on disk), with where each value
came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from truegreen import config
from truegreen.errors import UsageError
from truegreen.policy.settings import DEFAULT, RULES, Policy

#: what no setting can change (shown by ``policy explain``)
FIXED = (
    "the default is escalate: a change is approved only when every rule is satisfied",
    "a refuted verification (a tampered change, a failing exam, a new failure) is rejected",
    "evidence that was not collected never counts as a pass (policy.missing_evidence)",
    "an error inside the policy escalates (policy.error)",
)

CONFIG_FILES = ("pyproject.toml", "truegreen.toml")


def policy_of(texts: dict[str, str | None]) -> Policy:
    """The policy the two files' texts set (DEFAULT when neither has a policy table)."""
    _settings, tables = config.parse(texts.get("pyproject.toml"), texts.get("truegreen.toml"))
    policy = tables.get("policy", DEFAULT)
    assert isinstance(policy, Policy)
    return policy


def explain(
    policy: Policy, *, repo: str, rev: str | None, files: tuple[str, ...]
) -> dict[str, Any]:
    """The fields of :class:`truegreen.model.results.PolicyExplanation`."""
    rules = [
        {
            "id": rule,
            "what": what,
            "decision": "reject" if rule in policy.reject else "escalate",
        }
        for rule, what in RULES.items()
    ]
    # codes other than the rules that the policy's reject turns into a rejection
    rules += [
        {"id": code, "what": "a finding that escalates by default", "decision": "reject"}
        for code in policy.reject
        if code not in RULES
    ]
    return {
        "repo": repo,
        "rev": rev,
        "files": files,
        "settings": [
            {"key": key, "value": value, "source": policy.source(key)}
            for key, value in policy.values().items()
        ],
        "rules": rules,
        "fixed": FIXED,
    }


def texts_of_file(file: Path) -> dict[str, str | None]:
    """``{name: text}`` for one configuration file given by path (policy check --file)."""
    if file.name not in CONFIG_FILES:
        raise UsageError(
            f"{file} is neither a pyproject.toml nor a truegreen.toml",
            hint="give the project's pyproject.toml or truegreen.toml",
            field="file",
        )
    text = config.read_file(file)
    if text is None:
        raise UsageError(f"{file} does not exist or is not a file", field="file")
    return {file.name: text}


def texts_on_disk(root: Path) -> dict[str, str | None]:
    return {name: config.read_file(root / name) for name in CONFIG_FILES}
