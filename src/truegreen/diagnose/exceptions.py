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
    line Python printed under that frame."""
    project = project or set()
    t = exc_type.rsplit(".", 1)[-1]
    msg = message or ""
    low = msg.lower()
    if re.search(
        r"cannot open shared object file|DLL load failed|(?:GLIBC|GLIBCXX|CXXABI)_[\d.]+' not found|undefined symbol",
        msg,
    ):
        return "environment"
    if t in ("ModuleNotFoundError", "ImportError"):
        m = re.search(r"No module named '?([\w.]+)", msg)
        if m:
            top = m[1].split(".")[0]
            if top in project:
                return "test" if in_test else None
            # a standard module missing: the job's interpreter is older (or newer) than the
            # code supports, not a package to install
            return "environment" if top in STDLIB else "dependency"
        m = re.search(r"cannot import name '\w+' from '([\w.]+)'(?: \((.+)\))?", msg)
        if m and m[2] and m[2] != "unknown location":
            # Python names the file it imported from: a library's or the project's own
            return "dependency" if is_library_path(m[2]) else ("test" if in_test else None)
        if m and m[1].split(".")[0] in project:
            return "test" if in_test else None
        if "cannot import name" in msg and not project:
            return "dependency"
        return "test" if in_test else None
    if t in ("PackageNotFoundError", "DistributionNotFound", "VersionConflict"):
        return "dependency"  # importlib.metadata / pkg_resources: a distribution is missing
    if t in _BAD_URL:
        return "configuration"
    if t in ("HTTPError", "HTTPStatusError", "ClientResponseError") and re.search(
        r"^(?:HTTP Error )?40[13]\b|\b40[13] (?:Client Error|Unauthorized|Forbidden)\b", msg
    ):
        return "configuration"  # the server refuses the job's credentials: its secrets
    if re.search(r"localhost|127\.0\.0\.1|\[::1\]|::1\b", msg) and (
        "Connection" in t or "refused" in low
    ):
        return "environment"  # a service the job should have started is not listening
    if t == "TimeoutError" and re.search(r"\[Errno 110\]|Connection timed out|handshake", msg):
        return "network"  # a connection that was never answered (ETIMEDOUT), not a time limit
    if t in ("TimeoutExpired",) or (
        t == "TimeoutError" and not exc_type.startswith(_NETWORK_MODULES)
    ):
        return "timeout"
    if (
        t in _NETWORK_TYPES
        or exc_type.startswith(_NETWORK_MODULES)
        or re.search(
            r"Name or service not known|Temporary failure in name resolution|Max retries exceeded|"
            r"Failed to establish a new connection|nodename nor servname|CERTIFICATE_VERIFY_FAILED",
            msg,
        )
    ):
        return "network"
    if t == "Failed" and msg.startswith("Timeout"):
        return "timeout"
    if t in ("Timeout", "TimeoutException"):
        return "timeout"
    if (t == "ValidationError" and re.search(r"Settings|Config\b|Field required", msg)) or (
        t in _SETTINGS_TYPES
    ):
        return "configuration"
    if t == "KeyError" and re.fullmatch(r"'[A-Z][A-Z0-9_]{2,}'", msg.strip()):
        return "configuration"  # os.environ["SOME_VAR"]
    if re.search(r"environment variable|env var\b|is not set\b", msg, re.IGNORECASE):
        return "configuration"
    if t == "MemoryError":
        return "infrastructure"
    errno = _ERRNO.match(msg)
    code = int(errno[1]) if errno else None
    if code in _ERRNO_INFRA or any(v in msg for v in _ERRNO_INFRA.values()):
        return "infrastructure"
    if t == "PermissionError" or code in _ERRNO_ENV:
        return "environment"
    if t == "ZoneInfoNotFoundError":
        return "environment"  # the runner has no time zone database (tzdata)
    if t == "Error" and exc_type.startswith("locale."):
        return "environment"  # locale.Error: the runner lacks the locale
    if t in ("UnicodeEncodeError", "UnicodeDecodeError") and re.search(
        r"'(?:ascii|charmap|latin-1)' codec", msg
    ):
        return "environment"  # the job's locale or output encoding is not UTF-8
    if t == "FileNotFoundError":
        if raised_in and raised_in.endswith("subprocess.py"):
            return "environment"  # the program to run is not installed
        if in_test and re.search(r"No such file or directory: '[\w.-]+'$", msg):
            return "environment"
    if not in_test:
        if t in ("FileNotFoundError", "OSError", "IOError") and _CONFIG_PATH.search(msg):
            return "configuration"  # the program's own settings file is not where it looks
        if t in _CONVERSION and source and _READS_SETTING.search(source):
            # `int(os.environ["WORKERS"])`, `settings["port"]`: the line that failed reads a
            # setting, and the value it found (or did not find) is the wrong one
            return "configuration"
        # a program that stops at start-up on a file it parses: its configuration
        if (
            t in _CONFIG_DECODE
            or exc_type.startswith(_CONFIG_MODULES)
            or (raised_in and _CONFIG_READERS.search(raised_in.replace("\\", "/")))
        ):
            return "configuration"
        return None
    return "test"
