"""Failures the sandbox caused: a test that fails only because it was confined.

``classify(exc_type, message)`` names the reason as a stable code, or ``None`` when the
failure does not look like the sandbox's doing. The verify layer turns such a failure
into *inconclusive* (never *refuted*): the sandbox must not weaken a verdict.

    sandbox.blocked_network   no network inside (refused, unreachable, no DNS)
    sandbox.blocked_write     a read-only file system, or a write the sandbox uid may not make
    sandbox.resource_limit    memory, file size, processes or open files hit their limit

The match is on the exception's type (qualified names are accepted: the last component
counts) and on the message's errno or text, so it works on what the probe reports.
"""

from __future__ import annotations

import re

from truegreen.model.reasons import SANDBOX_BLOCKED_NETWORK as BLOCKED_NETWORK
from truegreen.model.reasons import SANDBOX_BLOCKED_WRITE as BLOCKED_WRITE
from truegreen.model.reasons import SANDBOX_RESOURCE_LIMIT as RESOURCE_LIMIT

REASONS = (BLOCKED_NETWORK, BLOCKED_WRITE, RESOURCE_LIMIT)

_NETWORK_TYPES = {
    "ConnectionRefusedError",
    "ConnectionResetError",
    "ConnectionAbortedError",
    "gaierror",
    "herror",
    "NameResolutionError",
    "NewConnectionError",
    "MaxRetryError",
    "ConnectError",
    "ConnectTimeout",
    "ConnectTimeoutError",
}
_NETWORK_TEXT = re.compile(
    r"Network is unreachable|ENETUNREACH|\[Errno 101\]|\[Errno 111\]|Connection refused"
    r"|ECONNREFUSED|Temporary failure in name resolution|Name or service not known"
    r"|No address associated with hostname|nodename nor servname|\[Errno -3\]|\[Errno -2\]"
    r"|\[Errno -5\]|Cannot assign requested address|\[Errno 99\]|No route to host"
    r"|\[Errno 113\]|getaddrinfo failed|Failed to establish a new connection"
    r"|Could not resolve host",
    re.IGNORECASE,
)
_WRITE_TEXT = re.compile(r"Read-only file system|EROFS|\[Errno 30\]", re.IGNORECASE)
_PERMISSION_TEXT = re.compile(r"Permission denied|\[Errno 13\]|EACCES|\[Errno 1\]|EPERM")
_LIMIT_TYPES = {"MemoryError"}
_LIMIT_TEXT = re.compile(
    r"File too large|EFBIG|\[Errno 27\]|Too many open files|EMFILE|\[Errno 24\]"
    r"|Cannot allocate memory|ENOMEM|\[Errno 12\]",
    re.IGNORECASE,
)
_FORK_TEXT = re.compile(
    r"Resource temporarily unavailable|EAGAIN|\[Errno 11\]|can't start new thread",
    re.IGNORECASE,
)


def classify(exc_type: str, message: str) -> str | None:
    """The ``sandbox.*`` reason for a failure, or ``None`` if it is not the sandbox's doing."""
    name = (exc_type or "").strip().rsplit(".", 1)[-1]
    text = message or ""
    if name in _LIMIT_TYPES or _LIMIT_TEXT.search(text):
        return RESOURCE_LIMIT
    if name == "BlockingIOError" or (
        name in ("OSError", "RuntimeError") and _FORK_TEXT.search(text)
    ):
        return RESOURCE_LIMIT
    if name in _NETWORK_TYPES or _NETWORK_TEXT.search(text):
        return BLOCKED_NETWORK
    if name in ("TimeoutError", "timeout", "socket.timeout") and re.search(
        r"connect", text, re.IGNORECASE
    ):
        return BLOCKED_NETWORK
    if _WRITE_TEXT.search(text):
        return BLOCKED_WRITE
    if name == "PermissionError" or (name == "OSError" and _PERMISSION_TEXT.search(text)):
        return BLOCKED_WRITE
    return None


__all__ = ["BLOCKED_NETWORK", "BLOCKED_WRITE", "REASONS", "RESOURCE_LIMIT", "classify"]
