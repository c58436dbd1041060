"""GitHub: a typed REST client (:mod:`.client`, :mod:`.auth`, :mod:`.records`), the one gate
every write goes through (:mod:`.gate`), and what ``truegreen ci`` and ``verify
OWNER/REPO#N`` do with them (:mod:`.ci`, :mod:`.pull`).

Engine-side: nothing here imports an adapter; ``truegreen.api`` is its door.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from truegreen.github.client import GitHubClient


def session(
    token: str | None = None, *, api: str | None = None, granted: dict[str, str] | None = None
) -> GitHubClient:
    """A client signed in the way the environment says: a GitHub App
    (``TRUEGREEN_APP_ID``, ``TRUEGREEN_APP_PRIVATE_KEY``, ``TRUEGREEN_APP_INSTALLATION_ID``),
    else ``token`` or ``$GITHUB_TOKEN``, else anonymous. ``granted``: what the token is
    known to allow (a fork's pull request: ``{}``, read only)."""
    from truegreen.github.auth import AppAuth, Auth, NoAuth, TokenAuth
    from truegreen.github.client import GitHubClient

    auth: Auth
    app = AppAuth.from_env()
    token = token if token is not None else os.environ.get("GITHUB_TOKEN") or None
    if app is not None:
        auth = app
    elif token:
        auth = TokenAuth(token, granted)
    else:
        auth = NoAuth()
    return GitHubClient(auth=auth, api=api)
