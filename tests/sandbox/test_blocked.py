"""The blocked-by-sandbox classifier: stable reason codes from exception type and message."""

from __future__ import annotations

import pytest

from truegreen.sandbox.blocked import classify


@pytest.mark.parametrize(
    ("exc_type", "message", "reason"),
    [
        ("ConnectionRefusedError", "[Errno 111] Connection refused", "sandbox.blocked_network"),
        ("OSError", "[Errno 101] Network is unreachable", "sandbox.blocked_network"),
        (
            "socket.gaierror",
            "[Errno -3] Temporary failure in name resolution",
            "sandbox.blocked_network",
        ),
        (
            "requests.exceptions.ConnectionError",
            "HTTPSConnectionPool(host='x', port=443): Max retries exceeded "
            "(Caused by NewConnectionError('Failed to establish a new connection'))",
            "sandbox.blocked_network",
        ),
        (
            "urllib.error.URLError",
            "<urlopen error [Errno -2] Name or service not known>",
            "sandbox.blocked_network",
        ),
        ("OSError", "[Errno 30] Read-only file system: '/usr/x'", "sandbox.blocked_write"),
        ("PermissionError", "[Errno 13] Permission denied: '/root/x'", "sandbox.blocked_write"),
        ("MemoryError", "", "sandbox.resource_limit"),
        ("OSError", "[Errno 27] File too large", "sandbox.resource_limit"),
        (
            "BlockingIOError",
            "[Errno 11] Resource temporarily unavailable",
            "sandbox.resource_limit",
        ),
        ("OSError", "[Errno 24] Too many open files", "sandbox.resource_limit"),
        ("RuntimeError", "can't start new thread", "sandbox.resource_limit"),
        ("AssertionError", "assert 1 == 2", None),
        ("ValueError", "invalid literal for int()", None),
        ("KeyError", "'connection'", None),
        ("OSError", "[Errno 2] No such file or directory: 'x'", None),
    ],
)
def test_classify(exc_type, message, reason):
    assert classify(exc_type, message) == reason
