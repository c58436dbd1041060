"""The engine API for a project a test has already opened (``open_project``): the request
made from the project's root, interpreter and sandbox, and the other fields as given."""

from __future__ import annotations

from typing import Any

from truegreen import api
from truegreen.project import Project


def _where(project: Project) -> dict[str, Any]:
    return {
        "repo": project.root,
        "python": str(project.interpreter.path),
        "sandbox": project.sandbox,
    }


def seal_exam(project: Project, test_id: str, **fields: Any) -> api.SealResult:
    return api.seal(api.SealRequest(**_where(project), test_id=test_id, **fields))


def verify_fix(project: Project, **fields: Any) -> dict[str, Any]:
    """The ``truegreen.verification/1`` document, as a dict."""
    return api.verify(api.VerifyRequest(**_where(project), **fields)).to_json()
