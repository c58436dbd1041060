"""Credentials for the GitHub API: none, a token, or a GitHub App installation.

A GitHub App signs a JWT (RS256, ``iat`` 60 s in the past, ``exp`` 9 minutes ahead, ``iss``
the app's client id or numeric id) and trades it for an installation token
(``POST /app/installations/{id}/access_tokens``), which lasts an hour. The token is kept
and fetched again :data:`REFRESH_BEFORE` seconds before it expires, or at once when GitHub
answers 401 to it (:meth:`Auth.invalidate`). The token's ``permissions`` are what the
write gate checks before it writes.

The JWT needs PyJWT with its crypto extra: ``pip install 'truegreen[github]'``; it is
imported only when an App signs in.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from truegreen.errors import GitHubError, UsageError

if TYPE_CHECKING:
    from truegreen.github.client import GitHubClient

#: an installation token is fetched again this many seconds before it expires
REFRESH_BEFORE = 300.0


class Auth(Protocol):
    def header(self, client: GitHubClient) -> str | None:
        """The ``Authorization`` header's value (None: send none)."""

    def invalidate(self) -> bool:
        """GitHub refused the credentials: forget what can be fetched again; True when a
        retry could succeed."""

    def permissions(self) -> dict[str, str] | None:
        """What the credentials may do (``{"checks": "write", ...}``), None when unknown."""


class NoAuth:
    def header(self, client: GitHubClient) -> str | None:
        return None

    def invalidate(self) -> bool:
        return False

    def permissions(self) -> dict[str, str] | None:
        return {}


class TokenAuth:
    """A personal access token or the ``GITHUB_TOKEN`` of an Actions job.

    ``granted`` is what the token may do when the caller knows it (a job on a fork's pull
    request gets a read-only token: ``{}``); None means: find out by trying.
    """

    def __init__(self, token: str, granted: dict[str, str] | None = None) -> None:
        self.token = token
        self.granted = granted

    def header(self, client: GitHubClient) -> str | None:
        return f"Bearer {self.token}"

    def invalidate(self) -> bool:
        return False

    def permissions(self) -> dict[str, str] | None:
        return self.granted


def _app_jwt(app_id: str, private_key: str, now: float) -> str:
    try:
        import jwt
    except ImportError:
        raise UsageError(
            "signing in as a GitHub App needs PyJWT", hint="pip install 'truegreen[github]'"
        ) from None
    payload = {"iat": int(now) - 60, "exp": int(now) + 540, "iss": app_id}
    try:
        return str(jwt.encode(payload, private_key, algorithm="RS256"))
    except (ValueError, TypeError, jwt.PyJWTError) as exc:
        raise UsageError(
            f"the GitHub App's private key cannot sign: {exc}",
            hint="give the PEM file GitHub made for the app",
        ) from None


def _parse_time(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class AppAuth:
    """A GitHub App, signed in to one installation."""

    def __init__(self, app_id: str, private_key: str, installation_id: int) -> None:
        self.app_id = str(app_id)
        self.private_key = private_key
        self.installation_id = installation_id
        self._token: str | None = None
        self._expires = 0.0
        self._permissions: dict[str, str] | None = None
        #: how many installation tokens were fetched (tests count refreshes)
        self.fetched = 0

    @classmethod
    def from_env(cls) -> AppAuth | None:
        """``TRUEGREEN_APP_ID``, ``TRUEGREEN_APP_PRIVATE_KEY`` (the PEM, or a path to it)
        and ``TRUEGREEN_APP_INSTALLATION_ID``; None when the app id is not set."""
        app_id = os.environ.get("TRUEGREEN_APP_ID")
        if not app_id:
            return None
        key = os.environ.get("TRUEGREEN_APP_PRIVATE_KEY", "")
        installation = os.environ.get("TRUEGREEN_APP_INSTALLATION_ID", "")
        if not key or not installation.isdigit():
            raise UsageError(
                "TRUEGREEN_APP_ID is set, but not TRUEGREEN_APP_PRIVATE_KEY and "
                "TRUEGREEN_APP_INSTALLATION_ID (a number)",
                hint="set all three, or none to use GITHUB_TOKEN",
            )
        if "-----BEGIN" not in key:
            try:
                key = Path(key).read_text(encoding="utf-8")
            except OSError as exc:
                raise UsageError(
                    f"cannot read the GitHub App's key {key}: {exc.strerror}",
                    hint="give the PEM's text or its path in TRUEGREEN_APP_PRIVATE_KEY",
                ) from None
        return cls(app_id, key, int(installation))

    def jwt(self, now: float) -> str:
        return _app_jwt(self.app_id, self.private_key, now)

    def header(self, client: GitHubClient) -> str | None:
        now = client.clock()
        if self._token is None or now >= self._expires - REFRESH_BEFORE:
            self._fetch(client, now)
        return f"Bearer {self._token}"

    def _fetch(self, client: GitHubClient, now: float) -> None:
        response = client.request(
            "POST",
            f"/app/installations/{self.installation_id}/access_tokens",
            auth=False,
            what=f"an installation token for installation {self.installation_id}",
            extra_headers={"Authorization": f"Bearer {self.jwt(now)}"},
        )
        body = response.json()
        try:
            self._token = str(body["token"])
            self._expires = _parse_time(str(body["expires_at"]))
        except (KeyError, TypeError, ValueError):
            raise GitHubError(
                "GitHub sent an unreadable installation token", hint="try again"
            ) from None
        self._permissions = {str(k): str(v) for k, v in (body.get("permissions") or {}).items()}
        self.fetched += 1

    def invalidate(self) -> bool:
        self._token = None
        return True

    def permissions(self) -> dict[str, str] | None:
        return self._permissions
