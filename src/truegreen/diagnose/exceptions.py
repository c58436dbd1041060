"""What a Python exception says about a failure: a taxonomy by the exception's type, the
module that defines it, its message (an errno, a codec, a host) and where it was raised.

The same table serves the failing tests' own exceptions and the uncaught exception that
ends a script, a tool or a build step. They differ in one way: an exception that a test
raises about its own data (a JSON file it reads) is the test's, while the same exception
ending a program that reads its configuration at start-up is the configuration's.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from truegreen.run.signature import is_library_path

#: standard-library modules: one missing means the interpreter (its version, its build)
STDLIB: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    # added after the oldest interpreters a job may run, or removed from the newest
    "tomllib", "zoneinfo", "graphlib", "distutils", "imp", "asynchat", "asyncore", "smtpd",
}  # fmt: skip

#: a line that is an exception as Python prints it last in a traceback: `pkg.mod.Type: msg`
#: (or a bare `MemoryError`)
_EXC_LINE = re.compile(r"^\s{0,8}(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:: ?(?P<msg>.*))?$")
#: the names an exception type ends with (``socket.gaierror`` and ``locale.Error`` too)
_EXC_NAME = re.compile(
    r"(?:Error|Exception|Exit|Expired|Interrupt|Timeout|Warning|error|herror|timeout)$"
)
_BARE = {"MemoryError", "TimeoutError", "KeyboardInterrupt"}

#: the modules of HTTP and socket clients: what they raise is about the network
_NETWORK_MODULES = (
    "requests.", "urllib3.", "httpx.", "httpcore.", "aiohttp.", "http.client.", "urllib.error.",
    "smtplib.", "ftplib.", "poplib.", "imaplib.", "ssl.", "websockets.", "botocore.exceptions.",
    "grpc.", "pip._vendor.requests.", "pip._vendor.urllib3.",
)  # fmt: skip
_NETWORK_TYPES = {
    "ConnectionError", "ConnectTimeout", "ReadTimeout", "ReadTimeoutError", "MaxRetryError",
    "NewConnectionError", "NameResolutionError", "gaierror", "herror", "SSLError",
    "SSLCertVerificationError", "CertificateError", "ConnectError", "ProxyError",
    "ClientConnectorError", "RemoteDisconnected", "ConnectionResetError",
    "ConnectionRefusedError", "ConnectionAbortedError", "HTTPError", "URLError",
    "ServerDisconnectedError", "IncompleteRead", "ProtocolError", "RemoteProtocolError",
    "ChunkedEncodingError", "TooManyRedirects", "HTTPStatusError", "TransportError",
    "NetworkError", "EndpointConnectionError", "SMTPConnectError", "SMTPServerDisconnected",
}  # fmt: skip
#: what an HTTP client raises for a URL it cannot use: the URL (a setting) is wrong
_BAD_URL = {
    "MissingSchema",
    "InvalidSchema",
    "InvalidURL",
    "UnsupportedProtocol",
    "LocationParseError",
}
#: decoders of configuration formats
_CONFIG_DECODE = {"JSONDecodeError", "TOMLDecodeError", "TomlDecodeError"}
_CONFIG_MODULES = ("configparser.", "yaml.", "tomllib.", "tomli.", "toml.", "ruamel.yaml.")
_SETTINGS_TYPES = {
    "SettingsError", "ImproperlyConfigured", "EnvError", "UndefinedValueError",
    "MissingSectionHeaderError", "DuplicateSectionError", "DuplicateOptionError",
    "NoSectionError", "NoOptionError", "InterpolationSyntaxError", "InterpolationMissingOptionError",
    "InterpolationDepthError", "InterpolationError", "ParsingError",
}  # fmt: skip
#: where a configuration is read: an exception raised there is about the configuration
_CONFIG_READERS = re.compile(
    r"/configparser\.py$|/tomllib/|/tomli/|/json/decoder\.py$|/yaml/|/pydantic_settings/|"
    r"/decouple\.py$|/environs/|/dotenv/"
)
_ERRNO = re.compile(r"^\[Errno (\d+)\]")
#: errno values: the machine ran out (infrastructure) or refuses (environment)
_ERRNO_INFRA = {
    28: "No space left on device",
    12: "Cannot allocate memory",
    122: "Disk quota exceeded",
}
_ERRNO_ENV = {1, 13, 24, 30}  # EPERM, EACCES, EMFILE, EROFS


#: a source line that reads a setting: the environment, a settings or config object
_READS_SETTING = re.compile(
    r"\bos\.environ\b|\bgetenv\(|\benviron(?:\.get)?\s*[\[(]|\b(?:settings|config|conf|cfg)\s*(?:\[|\.get\w*\()"
)
#: "No such file or directory" for a settings file (`.env`, `settings.yaml`, `app.ini`)
_CONFIG_PATH = re.compile(
    r"No such file or directory: '(?:[^']*/)?(?:\.env(?:\.\w+)?|[^'/]*\.(?:ya?ml|toml|ini|cfg|conf|env))'$"
)
#: the exceptions a setting of the wrong shape raises where it is read and converted
_CONVERSION = {"ValueError", "TypeError", "KeyError", "IndexError"}
#: a tool's error that names the exception it stopped on: "Could not install packages due
#: to an OSError: [Errno 13] Permission denied: ...", "caused by: ConnectionError: ..."
_WRAPPED = re.compile(
    r"\b(?:due to an?|[Cc]aused by:?|[Rr]eason:) (?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Timeout)): (?P<msg>\S.*)$"
)


def wrapped_exception(text: str) -> tuple[str, str] | None:
    """(type, message) of the exception a tool's error line says it stopped on, or None."""
    if "ause" not in text and "due to" not in text and "eason:" not in text:
        return None
    m = _WRAPPED.search(text)
    return (m["type"], m["msg"].strip()) if m else None


def parse_exception_line(text: str) -> tuple[str, str] | None:
    """(type, message) when ``text`` is an exception line as a traceback ends with."""
    if not text or len(text) > 2000:
        return None
    m = _EXC_LINE.match(text)
    if not m:
        return None
    name = m["type"]
    last = name.rsplit(".", 1)[-1]
    if m["msg"] is None and last not in _BARE:
        return None
    if not _EXC_NAME.search(last) or not last[:1].isalpha():
        return None
    if last in ("Error", "error") and "." not in name:
        return None  # "Error: ..." is any tool's own prefix, not an exception
    return name, (m["msg"] or "").strip()


#: a native library the job's interpreter or a package links to is missing or too old
_SHARED_LIBRARY = re.compile(
    r"cannot open shared object file|DLL load failed|(?:GLIBC|GLIBCXX|CXXABI)_[\d.]+' not found|undefined symbol"
)
_IMPORT_ERRORS = ("ModuleNotFoundError", "ImportError")
_NO_MODULE = re.compile(r"No module named '?([\w.]+)")
_CANNOT_IMPORT = re.compile(r"cannot import name '\w+' from '([\w.]+)'(?: \((.+)\))?")
#: Exceptions whose type alone names the class (once a missing native library, which any
#: exception may report, has been ruled out).
_BY_TYPE: dict[str, str] = {
    # importlib.metadata / pkg_resources: a distribution is missing or conflicts
    "PackageNotFoundError": "dependency",
    "DistributionNotFound": "dependency",
    "VersionConflict": "dependency",
    # an HTTP client's refusal of the URL it was given: the URL (a setting) is wrong
    **dict.fromkeys(_BAD_URL, "configuration"),
}
_HTTP_ERRORS = ("HTTPError", "HTTPStatusError", "ClientResponseError")
#: the server refuses the job's credentials (401, 403)
_REFUSED_CREDENTIALS = re.compile(
    r"^(?:HTTP Error )?40[13]\b|\b40[13] (?:Client Error|Unauthorized|Forbidden)\b"
)
_LOOPBACK = re.compile(r"localhost|127\.0\.0\.1|\[::1\]|::1\b")
#: a connection that was never answered (ETIMEDOUT), not a time limit that ran out
_UNANSWERED = re.compile(r"\[Errno 110\]|Connection timed out|handshake")
#: what name resolution, a connection or a certificate check says when they fail
_NETWORK_MESSAGE = re.compile(
    r"Name or service not known|Temporary failure in name resolution|Max retries exceeded|"
    r"Failed to establish a new connection|nodename nor servname|CERTIFICATE_VERIFY_FAILED"
)
#: a settings model that refuses what it was given (pydantic-settings and friends)
_SETTINGS_VALIDATION = re.compile(r"Settings|Config\b|Field required")
#: ``os.environ["SOME_VAR"]``: a KeyError naming an environment variable
_ENV_KEY = re.compile(r"'[A-Z][A-Z0-9_]{2,}'")
_NAMES_VARIABLE = re.compile(r"environment variable|env var\b|is not set\b", re.IGNORECASE)
#: a codec that cannot encode the output: the job's locale is not UTF-8
_NARROW_CODEC = re.compile(r"'(?:ascii|charmap|latin-1)' codec")
#: a bare file name missing (``FileNotFoundError: ... 'tzdata'``): a program or data file
#: the machine lacks, not a path the test built
_BARE_FILE_MISSING = re.compile(r"No such file or directory: '[\w.-]+'$")


@dataclass(frozen=True)
class _Raised:
    """An exception as the log shows it, with where it was raised."""

    exc_type: str
    #: the type's own name, without its module
    name: str
    message: str
    project: set[str]
    in_test: bool
    raised_in: str | None
    source: str | None

    def own(self) -> str | None:
        """A failure of the project's own code: the test's, when a test raised it; a
        program's own exception says nothing in particular."""
        return "test" if self.in_test else None


def exception_class(
    exc_type: str,
    message: str,
    project: set[str] | None = None,
    *,
    in_test: bool = True,
    raised_in: str | None = None,
    source: str | None = None,
) -> str | None:
    """The class an exception points to, or None when its type says nothing in particular
    (then a test's failure is the test's: the caller decides).

    ``in_test``: raised by a failing test (not by a program a step ran). ``raised_in``: the
    file of the innermost traceback frame, when the log shows it; ``source``: the source
    line Python printed under that frame.

    The steps, in order (the first that answers decides): a missing native library; an
    import that failed; the type alone (:data:`_BY_TYPE`); then :data:`_RULES`, each one
    kind of cause read from the type and the message; last, for a program (not a test),
    what its own configuration looks like when it is wrong (:func:`_program_class`)."""
    exc = _Raised(
        exc_type,
        exc_type.rsplit(".", 1)[-1],
        message or "",
        project or set(),
        in_test,
        raised_in,
        source,
    )
    if _SHARED_LIBRARY.search(exc.message):
        return "environment"
    if exc.name in _IMPORT_ERRORS:
        return _import_class(exc)
    if exc.name in _BY_TYPE:
        return _BY_TYPE[exc.name]
    for rule in _RULES:
        cls = rule(exc)
        if cls is not None:
            return cls
    return "test" if in_test else _program_class(exc)


def own_missing_module(message: str, project: set[str]) -> str | None:
    """The module of the project's own that an import did not find (``No module named
    'pkg.nosuch'``, ``...; 'pkg' is not a package``): its top-level package is one of
    ``project``'s. None for any other message or module."""
    m = _NO_MODULE.search(message)
    if m and m[1].split(".")[0] in project:
        return m[1]
    return None


def _import_class(exc: _Raised) -> str | None:
    """An import that failed: a module of the project's own is the project's failure; a
    standard module missing is the interpreter's (older or newer than the code supports);
    any other is a package to install."""
    msg = exc.message
    m = _NO_MODULE.search(msg)
    if m:
        if own_missing_module(msg, exc.project):
            # the project's own code imports a module of its own that is not there: a
            # wrong import or a missing file, nothing to install; the project's code
            # failed, whether a test or a program of its own ran it
            return "test"
        return "environment" if m[1].split(".")[0] in STDLIB else "dependency"
    m = _CANNOT_IMPORT.search(msg)
    if m and m[2] and m[2] != "unknown location":
        # Python names the file it imported from: a library's or the project's own
        return "dependency" if is_library_path(m[2]) else exc.own()
    if m and m[1].split(".")[0] in exc.project:
        return exc.own()
    if "cannot import name" in msg and not exc.project:
        return "dependency"
    return exc.own()


def _credentials(exc: _Raised) -> str | None:
    """The server refuses the job's credentials: its secrets."""
    if exc.name in _HTTP_ERRORS and _REFUSED_CREDENTIALS.search(exc.message):
        return "configuration"
    return None


def _local_service(exc: _Raised) -> str | None:
    """A service the job should have started is not listening."""
    if _LOOPBACK.search(exc.message) and (
        "Connection" in exc.name or "refused" in exc.message.lower()
    ):
        return "environment"
    return None


def _timeouts(exc: _Raised) -> str | None:
    """A time limit that ran out, told from a connection never answered (the network's)."""
    if exc.name == "TimeoutError" and _UNANSWERED.search(exc.message):
        return "network"
    if exc.name == "TimeoutExpired" or (
        exc.name == "TimeoutError" and not exc.exc_type.startswith(_NETWORK_MODULES)
    ):
        return "timeout"
    return None


def _network(exc: _Raised) -> str | None:
    """What an HTTP or socket client raises, or a message only the network gives."""
    if (
        exc.name in _NETWORK_TYPES
        or exc.exc_type.startswith(_NETWORK_MODULES)
        or _NETWORK_MESSAGE.search(exc.message)
    ):
        return "network"
    return None


def _other_timeouts(exc: _Raised) -> str | None:
    """pytest-timeout's ``Failed: Timeout``, and the ``Timeout`` types of libraries not
    about the network (those of HTTP clients are the network's, above)."""
    if exc.name == "Failed" and exc.message.startswith("Timeout"):
        return "timeout"
    if exc.name in ("Timeout", "TimeoutException"):
        return "timeout"
    return None


def _settings(exc: _Raised) -> str | None:
    """A settings object that refuses its values, or a variable that is not set."""
    if (
        exc.name == "ValidationError" and _SETTINGS_VALIDATION.search(exc.message)
    ) or exc.name in _SETTINGS_TYPES:
        return "configuration"
    if exc.name == "KeyError" and _ENV_KEY.fullmatch(exc.message.strip()):
        return "configuration"  # os.environ["SOME_VAR"]
    if _NAMES_VARIABLE.search(exc.message):
        return "configuration"
    return None


def _machine(exc: _Raised) -> str | None:
    """The machine ran out (memory, disk: infrastructure) or refuses (environment)."""
    if exc.name == "MemoryError":
        return "infrastructure"
    msg = exc.message
    errno = _ERRNO.match(msg)
    code = int(errno[1]) if errno else None
    if code in _ERRNO_INFRA or any(v in msg for v in _ERRNO_INFRA.values()):
        return "infrastructure"
    if exc.name == "PermissionError" or code in _ERRNO_ENV:
        return "environment"
    return None


def _runner_setup(exc: _Raised) -> str | None:
    """What the runner lacks: a time zone database, a locale, a UTF-8 output encoding, a
    program to run."""
    t = exc.name
    if t == "ZoneInfoNotFoundError":
        return "environment"  # the runner has no time zone database (tzdata)
    if t == "Error" and exc.exc_type.startswith("locale."):
        return "environment"  # locale.Error: the runner lacks the locale
    if t in ("UnicodeEncodeError", "UnicodeDecodeError") and _NARROW_CODEC.search(exc.message):
        return "environment"  # the job's locale or output encoding is not UTF-8
    if t == "FileNotFoundError":
        if exc.raised_in and exc.raised_in.endswith("subprocess.py"):
            return "environment"  # the program to run is not installed
        if exc.in_test and _BARE_FILE_MISSING.search(exc.message):
            return "environment"
    return None


#: The causes an exception's type and message name, in the order they are tried: the
#: first that answers decides (a ``TimeoutError`` about a connection is the network's
#: before it is a time limit; an HTTP client's ``Timeout`` is the network's before it is
#: a timeout).
_RULES: tuple[Callable[[_Raised], str | None], ...] = (
    _credentials,
    _local_service,
    _timeouts,
    _network,
    _other_timeouts,
    _settings,
    _machine,
    _runner_setup,
)


def _program_class(exc: _Raised) -> str | None:
    """A program's uncaught exception that no rule explains: its configuration when it
    stopped on it at start-up (a settings file missing, a setting of the wrong shape, a
    file it parses); else nothing in particular."""
    t = exc.name
    if t in ("FileNotFoundError", "OSError", "IOError") and _CONFIG_PATH.search(exc.message):
        return "configuration"  # the program's own settings file is not where it looks
    if t in _CONVERSION and exc.source and _READS_SETTING.search(exc.source):
        # `int(os.environ["WORKERS"])`, `settings["port"]`: the line that failed reads a
        # setting, and the value it found (or did not find) is the wrong one
        return "configuration"
    # a program that stops at start-up on a file it parses: its configuration
    if (
        t in _CONFIG_DECODE
        or exc.exc_type.startswith(_CONFIG_MODULES)
        or (exc.raised_in and _CONFIG_READERS.search(exc.raised_in.replace("\\", "/")))
    ):
        return "configuration"
    return None
