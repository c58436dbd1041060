"""What one cleaned log line says: a table of line shapes, each with the class it points to,
how strongly, and the tool that prints it.

A rule is evidence, not a verdict: the classifier weighs the rules that fire inside the
step that failed, near its exit code, against the tool that step ran. The shapes are the
output formats of the tools themselves (pytest, unittest, ruff, flake8, mypy, pip, npm,
compilers, the CI runners), never strings of one particular project.

Every rule carries ``needles``: literal substrings of which at least one must be in the
line before its regex runs, which keeps a 1 GB log fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    needles: tuple[str, ...]
    pattern: re.Pattern[str]
    cls: str | None  #: the class this line points to (None: a structural marker only)
    weight: float  #: how strongly (1 weak .. 5 decisive)
    kind: str  #: "error" (explains), "summary" (counts), "exit" (a failing exit), "context"
    tool: str | None = None


def _r(
    name: str,
    needles: str | tuple[str, ...],
    pattern: str,
    cls: str | None,
    weight: float,
    kind: str = "error",
    tool: str | None = None,
    flags: int = 0,
) -> Rule:
    if isinstance(needles, str):
        needles = (needles,)
    return Rule(name, needles, re.compile(pattern, flags), cls, weight, kind, tool)


RULES: tuple[Rule, ...] = (
    # --- exit markers: which step failed (structure, no class of their own) -------------
    _r(
        "gha-exit",
        "exit code",
        r"^(?:##\[error\]|Error: )?(?:Process completed|The process '[^']*' failed) with exit code ([1-9]\d*)",
        None,
        0,
        "exit",
    ),
    _r(
        "travis-exit",
        "exited with",
        r'^The command "(.*)" exited with ([1-9]\d*)\.',
        None,
        0,
        "exit",
    ),
    _r(
        "tox3-exit",
        "InvocationError",
        r"ERROR: InvocationError for command (.*?)(?: \(exited with code (\d+)\))?$",
        None,
        0,
        "exit",
        "tox",
    ),
    _r(
        "tox4-exit",
        ": exit ",
        r"^[\w.-]+: exit ([1-9]\d*) \([\d.]+ ?seconds\) (?:\S+> )?(.*?)(?: pid=\d+)?$",
        None,
        0,
        "exit",
        "tox",
    ),
    _r(
        "nox-exit",
        "nox >",
        r"^nox > Command (.*) failed with exit code (\d+)",
        None,
        0,
        "exit",
        "nox",
    ),
    _r(
        "make-exit",
        "***",
        r"^(?:g?make|mingw32-make)(?:\[\d+\])?: \*\*\* .*Error (\d+)",
        None,
        0,
        "exit",
        "make",
    ),
    _r(
        "yarn-exit",
        "exit code",
        r"^(?:error )?Command failed with exit code (\d+)",
        None,
        0,
        "exit",
    ),
    # npm prints "npm ERR!" before version 10 and "npm error" since
    _r(
        "npm-lifecycle", "ELIFECYCLE", r"npm (?:ERR!|error) code ELIFECYCLE", None, 0, "exit", "npm"
    ),
    _r(
        "generic-exit",
        ("non-zero", "exit status", "returned a non-zero", "failed with status"),
        r"(?:returned (?:a )?non-zero (?:exit status|code)|exit(?:ed with)? status [1-9]|^Command failed with status \(([1-9]\d*)\))",
        None,
        0,
        "exit",
    ),
    _r(
        "exit-124",
        ("exited with 124", "exit code 124", "Error 124", "status (124)", "status 124"),
        r"exited with 124\b|exit code 124\b|Error 124\b|status \(?124\b",
        "timeout",
        3,
    ),
    # 126: the command was found and could not be executed (permissions, a bad interpreter)
    _r(
        "exit-126",
        ("exited with 126", "exit code 126", "Error 126"),
        r"exited with 126\b|exit code 126\b|Error 126\b",
        "environment",
        2,
    ),
    # 143: ended by SIGTERM (128 + 15), as a cancelled job's processes are; weak, the lines
    # before it say more when there are any
    _r(
        "exit-143",
        ("exited with 143", "exit code 143", "Error 143"),
        r"exited with 143\b|exit code 143\b|Error 143\b",
        "infrastructure",
        1.5,
    ),
    # 142: ended by SIGALRM (128 + 14), the alarm a script or a test harness sets as its own
    # time limit (`signal.alarm`, `alarm(3)`); bash reports the job as "Alarm clock"
    _r(
        "exit-142",
        ("exited with 142", "exit code 142", "Error 142", "Alarm clock"),
        r"exited with 142\b|exit code 142\b|Error 142\b|: line \d+: +\d+ Alarm clock\b|^Alarm clock$",
        "timeout",
        3,
    ),
    _r(
        "exit-127",
        ("exited with 127", "exit code 127", "Error 127"),
        r"exited with 127\b|exit code 127\b|Error 127\b",
        "environment",
        2,
    ),
    # --- infrastructure -----------------------------------------------------------------
    _r(
        "runner-shutdown",
        "shutdown signal",
        r"runner has received a shutdown signal",
        "infrastructure",
        5,
    ),
    _r(
        "runner-lost",
        ("lost communication", "runner", "Runner"),
        r"lost communication with the server|runner .*(?:did not|stopped|unavailable|offline)|Received request to deprovision",
        "infrastructure",
        5,
    ),
    _r(
        "disk-full",
        ("No space left", "ENOSPC", "not enough space", "disk full", "Disk full"),
        r"No space left on device|ENOSPC(?!: System limit for number of file watchers)|not enough space on the disk|[Dd]isk full",
        "infrastructure",
        5,
    ),
    _r(
        "cancelled",
        ("cancel", "Cancel"),
        r"^(?:##\[error\])?The (?:operation|job|run|build) was cancell?ed|This job was cancell?ed|^Error: The operation was canceled|^Cancell?ing since a higher priority",
        "infrastructure",
        3,
    ),
    _r(
        "oom",
        (
            "Killed",
            "oom",
            "OOM",
            "137",
            "Out of memory",
            "out of memory",
            "MemoryError",
            "bad_alloc",
            "Cannot allocate",
        ),
        r"^Killed$|: line \d+: +\d+ Killed +\S|Killed signal terminated program|oom[-_ ]?kill|OOMKilled|exit code 137|Error 137|Out of memory: Kill|out of memory|^MemoryError|std::bad_alloc|Cannot allocate memory",
        "infrastructure",
        4,
    ),
    _r(
        "runner-error",
        ("runner", "Runner", "GitHub Actions"),
        r"(?:self-hosted runner|hosted runner).*(?:error|fail|lost)|An error occurred while provisioning",
        "infrastructure",
        3,
    ),
    # --- timeout --------------------------------------------------------------------------
    _r(
        "gha-timeout",
        (
            "maximum execution time",
            "took longer than",
            "maximum time of",
            "Too long with no output",
        ),
        r"has exceeded the maximum execution time|execution took longer than \S+ seconds|ran longer than the maximum time of \d+ minutes|Too long with no output \(exceeded",
        "timeout",
        5,
    ),
    _r(
        "travis-timeout",
        ("No output has been received", "maximum time limit"),
        r"No output has been received in the last|exceeded the maximum time limit",
        "timeout",
        5,
    ),
    _r(
        "pytest-timeout",
        "Timeout",
        r"^(?:E\s+)?Failed: Timeout >|^\+{5,} Timeout \+{5,}",
        "timeout",
        5,
        tool="pytest",
    ),
    # go test's -timeout: the test binary panics with the tests still running
    _r("go-test-timeout", "test timed out", r"^panic: test timed out after \d", "timeout", 5),
    # faulthandler.dump_traceback_later (pytest's faulthandler_timeout): the stacks follow
    _r("faulthandler-timeout", "Timeout (", r"\bTimeout \(\d+:\d\d:\d\d\)!$", "timeout", 4),
    _r(
        "timed-out",
        ("timed out", "Timed out", "TIMED OUT", "Timeout", "timeout", "timetrap"),
        r"timetrap_timeout|\b(?:[Tt]est|[Jj]ob|[Ss]tep|[Cc]ommand|[Bb]uild|[Ss]ession|[Pp]rocess|[Aa]ction)s? (?:has )?timed out|\bTimed out after\b|\btimed out after \d|Timeout of \d+ ?ms exceeded|Exceeded timeout of \d+ ?ms for a (?:test|hook)|Test timeout of \d+ ?ms exceeded|\bTIMED OUT\b|Timeout \(\d+(?:\.\d+)?s?\) exceeded|timeout: the monitored command|Killed by timeout|deadline exceeded|\bsession-timeout: [\d.]+ sec exceeded",
        "timeout",
        3,
    ),
    # --- network --------------------------------------------------------------------------
    _r(
        "dns",
        (
            "resolve",
            "name resolution",
            "not known",
            "ENOTFOUND",
            "EAI_AGAIN",
            "servname",
            "gaierror",
        ),
        r"Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|nodename nor servname|socket\.gaierror|Could not resolve proxy|no such host",
        "network",
        4,
    ),
    _r(
        "conn",
        (
            "Connection",
            "connection",
            "ECONN",
            "ETIMEDOUT",
            "unreachable",
            "hung up",
            "Disconnected",
            "handshake",
            "unable to access",
            "connect to",
            "Empty reply",
        ),
        r"Connection (?:reset by peer|refused|timed out|aborted)|ECONNRESET|ECONNREFUSED|ETIMEDOUT|Network is unreachable|remote end hung up|RemoteDisconnected|TLS handshake timeout|Failed to establish a new connection|[Cc]ould not connect to|[Cc]ould not create connection|Failed to connect to|unable to access '\w+://[^']*': (?!The requested URL returned error: 4\d\d)|Empty reply from server|connection (?:was )?closed (?:unexpectedly|by)",
        "network",
        4,
    ),
    _r(
        "py-net-exc",
        ("Error", "Timeout"),
        r"\b(?:requests\.exceptions\.|urllib3\.exceptions\.|httpx\.|aiohttp\.)?(?:ConnectionError|ConnectTimeout|ReadTimeout(?:Error)?|MaxRetryError|NewConnectionError|ProxyError|ConnectError|ClientConnectorError|ServerDisconnectedError)\b",
        "network",
        4,
    ),
    _r(
        "ssl",
        ("SSL", "CERTIFICATE", "certificate"),
        r"SSLError|CERTIFICATE_VERIFY_FAILED|no certificate subject alternative name|SSL: |certificate verify failed|unable to get local issuer certificate|SSL certificate problem|self[- ]signed certificate|certificate has expired|unable to verify the first certificate|server certificate verification failed",
        "network",
        3,
    ),
    _r(
        "http-5xx",
        ("50", "429", "Too Many", "Bad Gateway", "Unavailable", "rate limit"),
        r"\b(?:HTTP(?: Error)?|status(?: code)?:?|returned|error:?)\s*(?:50[0234]|429)\b|Bad Gateway|Service Unavailable|Gateway Time-?out|Too Many Requests|[Rr]ate limit exceeded",
        "network",
        3,
    ),
    _r(
        "npm-net",
        ("npm ERR!", "npm error"),
        r"npm (?:ERR!|error) (?:network|code (?:ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND))",
        "network",
        4,
        tool="npm",
    ),
    _r(
        "pip-retry",
        "Retrying",
        r"Retrying \(Retry\(total=\d+.*(?:NewConnectionError|ReadTimeout|ConnectTimeout|ProtocolError|SSLError)",
        "network",
        2,
        "context",
        "pip",
    ),
    # --- dependency -----------------------------------------------------------------------
    _r(
        "pip-nover",
        ("satisfies the requirement", "No matching distribution"),
        r"Could not find a version that satisfies the requirement|No matching distribution found for",
        "dependency",
        5,
        tool="pip",
    ),
    _r(
        "pip-conflict",
        (
            "ResolutionImpossible",
            "conflicting dependencies",
            "dependency conflict",
            "dependency resolver",
        ),
        r"ResolutionImpossible|conflicting dependencies|dependency conflict|pip's dependency resolver does not currently",
        "dependency",
        4,
        tool="pip",
    ),
    _r(
        "uv-resolve",
        ("No solution found", "version solving failed", "SolverProblemError", "depends on"),
        r"No solution found when resolving|version solving failed|SolverProblemError|Because (?:\S+ )+depends on .* (?:we can conclude|and|is not available)|requirements are unsatisfiable",
        "dependency",
        5,
    ),
    _r(
        "lock-stale",
        ("lock", "Lock"),
        r"poetry\.lock is not consistent|pyproject\.toml changed significantly since poetry\.lock|lock ?file (?:is )?(?:out of date|outdated|needs to be updated)|The lockfile .* needs to be updated|Lock file .* out of date|--frozen-lockfile|npm ci.*can only install packages when your package\.json and package-lock\.json",
        "dependency",
        4,
    ),
    _r(
        "py-missing-module",
        ("No module named", "cannot import name", "DistributionNotFound", "VersionConflict"),
        r"(?:ModuleNotFoundError|ImportError): No module named ['\"]?([\w.]+)|ImportError: cannot import name|DistributionNotFound|VersionConflict",
        "dependency",
        3,
    ),
    _r(
        # `python -m TOOL` where TOOL is not installed in that interpreter
        "py-m-missing",
        "No module named",
        r"^\S*python[\d.]*(?:\.exe)?: No module named ([\w.]+)",
        "dependency",
        4,
    ),
    _r(
        # `pip check`, and pip's resolver warning after an install
        "pip-check",
        ("which is not installed", "but you have"),
        r"^\S+ [\w.!+-]+ (?:requires|has requirement) \S+, (?:which is not installed|but you have)",
        "dependency",
        4,
        tool="pip",
    ),
    _r(
        "wheel-build",
        (
            "Failed building wheel",
            "Failed to build",
            "subprocess-exited-with-error",
            "metadata-generation-failed",
            "legacy-install-failure",
        ),
        r"Failed building wheel for|ERROR: Failed to build|Failed to build installable wheels|subprocess-exited-with-error|metadata-generation-failed|legacy-install-failure|Could not build wheels for",
        "dependency",
        3,
        tool="pip",
    ),
    _r(
        "npm-dep",
        (
            "ERESOLVE",
            "npm ERR!",
            "npm error",
            "Cannot find module",
            "Can't resolve",
            "peer dep",
            "404 Not Found",
            "E404",
        ),
        r"ERESOLVE|npm (?:ERR!|error) (?:code E404|404 Not Found|peer dep|notarget)|Cannot find module '[^.]|Module not found: Error: Can't resolve '[^.]|No matching version found for",
        "dependency",
        4,
        tool="npm",
    ),
    # the headline of npm's error report ("npm error code EUSAGE"): the lines after it say
    # the rest, and its trailers ("A complete log of this run") nothing; the code's class is
    # left to the rules above that know it
    _r(
        "npm-code",
        ("npm ERR! code ", "npm error code "),
        r"^npm (?:ERR!|error) code [A-Z]\w+$",
        None,
        2.5,
    ),
    # the codes whose meaning is documented: a package.json npm cannot parse, a name or tag
    # it rejects (configuration); a Node.js, OS or CPU the package does not support, a file
    # it may not write (environment). Not EUSAGE: npm also says it for `npm ci` without a
    # lockfile.
    _r(
        "npm-code-config",
        ("npm ERR! code E", "npm error code E"),
        r"^npm (?:ERR!|error) code (?:EJSONPARSE|EINVALIDTAGNAME|EINVALIDPACKAGENAME|ENOWORKSPACES)$",
        "configuration",
        4,
        tool="npm",
    ),
    _r(
        "npm-code-env",
        ("npm ERR! code E", "npm error code E"),
        r"^npm (?:ERR!|error) code (?:EBADENGINE|ENOTSUP|EBADPLATFORM|EACCES|EPERM)$",
        "environment",
        4,
        tool="npm",
    ),
    # a checker's report as JSON (ruff, pylint, pyright, mypy, eslint `--format json`): each
    # finding's code or severity line stands for it; the class is the tool's
    _r(
        "json-finding",
        ('": "', '"severity": "error"'),
        r'^\s*"(?:code|messageId)": "[A-Z]+\d+",?$|^\s*"severity": "error",?$',
        None,
        2.5,
    ),
    # a download the server does not have (curl, wget, a package fetcher): a missing artifact
    _r(
        "http-404",
        ("404 Not Found", "ERROR 404", "error: 404"),
        r"^(?:\W*\s)?(?:Failure|Error|ERROR|error|failed)?:? ?404 Not Found\b|^ERROR 404: Not Found|\bThe requested URL returned error: 404\b",
        "dependency",
        3,
    ),
    _r(
        "other-dep",
        (
            "PackagesNotFound",
            "Unsatisfiable",
            "ResolvePackageNotFound",
            "Could not find gem",
            "compatible versions",
            "installable set",
            "Could not resolve",
            "Could not find artifact",
            "go.sum",
            "unknown revision",
            "providing package",
            "select a version",
            "no matching package",
            "NU1",
            "Unable to locate package",
            "MissingSpec",
            "installing Gem",
            "installing gem",
            "while installing",
            "package versions",
            "unresolved dependency",
        ),
        r"PackagesNotFoundError|UnsatisfiableError|ResolvePackageNotFound|Could not find gem|Bundler could not find compatible versions|could not be resolved to an installable set|Could not resolve (?:all )?(?:dependencies|files|artifacts?)|Could not resolve:|Could not find artifact|missing go\.sum entry|unknown revision|cannot find module providing package|failed to select a version|no matching package named|error NU1\d{3}|Unable to locate package|Gem::MissingSpec|An error occurred while installing|error occured while installing|unresolved dependency: |Could not find .* in any of the sources",
        "dependency",
        4,
    ),
    # the loaders of other runtimes not finding a package (not a relative file): Node's ESM
    # loader, Ruby's require, Go's module resolution
    _r(
        "runtime-missing-package",
        ("Cannot find package", "cannot load such file", "no required module provides"),
        r"Cannot find package '[^./'][^']*' imported from|cannot load such file -- [^./\s]\S* \(LoadError\)|no required module provides package",
        "dependency",
        4,
    ),
    _r(
        "native-dep",
        (
            "Could NOT find",
            "required but not available",
            "unavailable",
            "is available",
            "not available",
            "No package '",
        ),
        r"Could NOT find \w+|[Pp]ackage[s]? required but not available|Package [`'‘\"]?\S+[`'’\"]? is unavailable|No version of \S+ .*is available|No package '\S+' found",
        "dependency",
        4,
    ),
    # --- build ----------------------------------------------------------------------------
    _r(
        "compiler-error",
        ("error", "Error", "ERROR"),
        r"^\s*(?:\[error\]\s*)?\S+\.(?:c|cc|cpp|cxx|h|hh|hpp|m|mm|rs|go|java|kt|scala|cs|swift|hs|f90|cu|pyx|d|zig|vala|ts|tsx|js|jsx|mjs|vue|svelte|scss|less|coffee|elm|ex|exs|erl|ml|fs|purs|nim|cr|dart|groovy|php|sass)[:(]\d+(?:[:,]\d+)?\)?:? ?(?:fatal )?(?:[Ee]rror|ERROR)(?! TS\d)",
        "build",
        4,
    ),
    _r(
        "linker",
        ("undefined reference", "ld returned", "Undefined symbols", "LNK"),
        r"undefined reference to|ld returned \d+ exit status|Undefined symbols for architecture|error LNK\d+",
        "build",
        4,
    ),
    _r(
        "build-tool",
        (
            "error[E",
            "could not compile",
            "COMPILATION ERROR",
            "Compilation failed",
            "error CS",
            "failed to solve",
            "returned a non-zero code",
            "Warning, treated as error",
            "ERROR in ",
            "BUILD FAILED",
            "Build failed",
            "Compilation error",
            "error: command",
            "fatal error:",
            "build finished with problems",
            "Compile failed",
            "compilation terminated",
            "Backend subprocess",
            "error during build",
            "Transform failed",
        ),
        r"^ERROR Backend subprocess exited|error during build:|Transform failed with \d+ error|^error\[E\d+\]|could not compile `|COMPILATION ERROR|Compilation (?:failed|error)|error CS\d{4}|failed to solve|returned a non-zero code|Warning, treated as error|^ERROR in |BUILD FAILED|^Build failed|error: command '.*' failed|fatal error: |build finished with problems|Compile failed|compilation terminated",
        "build",
        4,
    ),
    _r(
        "build-generic",
        (
            "BUILD FAILURE",
            "Build failed with an exception",
            "Execution failed for task",
            "[ERROR] Failed to execute goal",
        ),
        r"BUILD FAILURE|Build failed with an exception|Execution failed for task ':\S*(?:compile|assemble|build|jar)|\[ERROR\] Failed to execute goal .*(?:compiler|assembly|jar)",
        "build",
        2,
    ),
    # erlc reports an error as "file.erl:LINE: message" (a warning says "Warning:")
    _r(
        "erlc",
        (".erl:", ".hrl:"),
        r"^\S+\.[eh]rl:\d+:(?:\d+:)? (?![Ww]arning:)\S",
        "build",
        4,
        tool="erlc",
    ),
    _r("syntax", "SyntaxError", r"^\s*(?:E\s+)?(?:File .*)?SyntaxError: ", "build", 2),
    _r("cmake-error", "CMake Error", r"^CMake Error", "build", 2),
    _r(
        "build-misc2",
        (
            "configure: error",
            "compilation failed",
            "Compilation Failed",
            "Installation failed",
            "Werror",
            "treated as errors",
        ),
        r"^configure: error: |\[compilation failed\]|[Cc]ompilation [Ff]ailed|^Installation failed\.|Failing due to -Werror|warnings? (?:being )?treated as errors",
        "build",
        3,
    ),
    _r(
        "jvm-compile",
        "[error]",
        r"^\[error\] (?:/|[A-Za-z]:\\)\S+\.(?:scala|java|kt|groovy):\d+(?::\d+)?:? ",
        "build",
        4,
    ),
    # --- type -----------------------------------------------------------------------------
    _r("mypy-line", ": error:", r"^\S+\.pyi?:\d+(?::\d+)?: error: .*", "type", 4, tool="mypy"),
    _r(
        "mypy-summary",
        "Found ",
        r"^Found \d+ errors? in \d+ files? \(checked \d+",
        "type",
        5,
        "summary",
        "mypy",
    ),
    _r(
        "pyright",
        ("- error", "error:", "errors,"),
        r"^\s*\S+:\d+:\d+ - error: |^\d+ errors?, \d+ warnings?, \d+ (?:informations?|infos?)",
        "type",
        4,
        tool="pyright",
    ),
    _r("tsc", "error TS", r"error TS\d{3,5}:", "type", 4, tool="tsc"),
    # --- lint -----------------------------------------------------------------------------
    _r(
        "flake-code",
        (".py:", ".pyi:"),
        r"^\.?/?[\w./\\-]+\.pyi?:\d+:\d+: (?:[A-Z]{1,3}\d{3,4}|[A-Z]\d{3}) ",
        "lint",
        4,
    ),
    _r(
        "ruff-summary",
        ("Found ", "fixable"),
        r"^Found \d+ errors?\.|^\[\*\] \d+ fixable|fixable with the `--fix` option|No fixes available",
        "lint",
        5,
        "summary",
        "ruff",
    ),
    _r(
        "formatter",
        ("reformat", "Oh no!", "would be left", "Code style issues", "would be reformatted"),
        r"^[Ww]ould reformat|files? would be reformatted|Oh no! |Code style issues found|^\[warn\] .*Code style issues",
        "lint",
        5,
        tool="black",
    ),
    _r(
        "isort",
        ("incorrectly sorted", "isort"),
        r"Imports are incorrectly sorted|isort.*would (?:be )?(?:reformat|sort)|^ERROR: .*isort",
        "lint",
        5,
        tool="isort",
    ),
    _r(
        "pre-commit",
        ("Failed", "hook id", "modified by this hook"),
        r"\.{4,}Failed$|^- hook id: |files were modified by this hook",
        "lint",
        4,
        tool="pre-commit",
    ),
    _r(
        "pylint",
        ("rated at", ".py:"),
        r"Your code has been rated at|^\S+\.py:\d+:\d+: [CRWEF]\d{4}: |^\S+\.py:\d+: \[[CRWEF]\d{4}\(",
        "lint",
        4,
        tool="pylint",
    ),
    _r(
        "eslint",
        ("problem", "error", "✖", "×"),
        r"^\s+\d+:\d+\s+(?:error|✖|×)\s+.+\s\S+$|^✖ \d+ problems? \([1-9]\d* errors?",
        "lint",
        4,
        tool="eslint",
    ),
    _r(
        "other-lint",
        (
            ".rb:",
            ".md:",
            "offense",
            "Checkstyle",
            "checkstyle",
            "SC",
            "MD0",
            "scalastyle",
            "ktlint",
            "golint",
            "gofmt",
            "stylelint",
            "Lint",
            "lint",
            "==>",
        ),
        r"^\S+\.rb:\d+:\d+: [CWEF]: |offenses? detected|reported by Checkstyle|\[checkstyle\]|\bSC\d{4}\b|\S+\.md:\d+(?::\d+)? MD\d{3}|scalastyle.*error|\b(?:ktlint|gofmt|golint|stylelint)\b(?![@/-])|Lint errors? found|lint(?:ing)? (?:failed|errors?)|^\S+:\d+: \S+\s+==> \S",
        "lint",
        3,
    ),
    _r(
        "build-misc",
        (
            "Invalid CSS",
            "CssSyntaxError",
            "Illegal nesting",
            "[build failed]",
            "[setup failed]",
            "SassError",
            "ParseError",
            "Module build failed",
        ),
        r"Error: Invalid CSS after|CssSyntaxError|Illegal nesting|\[build failed\]|\[setup failed\]|SassError|Module build failed",
        "build",
        4,
    ),
    _r(
        "lint-misc",
        ("of PBP", "prettier/", "eslint", "("),
        r"See page \d+ of PBP|^\S+\.(?:js|jsx|ts|tsx|vue|mjs|cjs|coffee):\d+(?::\d+)? .*\((?:prettier/prettier|[\w@-]+/[\w-]+|[a-z]+(?:-[a-z]+)+)\)$",
        "lint",
        3,
    ),
    _r(
        "lint-code-line",
        (": ", "standard: ", "Standard Style"),
        r"^\S+:\s?\d+(?::\d+)?:? (?:[A-Z]{2,}\d{3,4}|MD\d{3})\b|^standard: |JavaScript Standard Style",
        "lint",
        3,
    ),
    # a command-line tool refusing an option it does not know (getopt and its kin)
    _r(
        "cli-usage",
        ("llegal switch", "llegal option", "nvalid option"),
        r"^(?:[\w./-]+: )?(?:Illegal switch '[^']+' specified|[Ii]llegal option (?:-- )?\S|[Ii]nvalid option (?:-- )?\S)",
        "configuration",
        1.5,
    ),
    # an editorconfig checker: "FILE failed PROPERTY: found ..., should be ..."
    _r(
        "editorconfig",
        (
            " failed indent_",
            " failed end_of_line",
            " failed insert_final_newline",
            " failed trim_trailing_whitespace",
            " failed max_line_length",
            " failed charset",
        ),
        r"^\S+ failed (?:indent_style|indent_size|indent_char|tab_width|end_of_line|insert_final_newline|trim_trailing_whitespace|max_line_length|charset)\b",
        "lint",
        4,
    ),
    # a checker of prose or data files (links, spelling, line length, markdown, yaml):
    # compilers do not report locations in these
    _r(
        "doc-location",
        (".md:", ".rst:", ".txt:", ".adoc:", ".org:", ".yml:", ".yaml:", ".json:", ".html:"),
        r"^\s*[\w./-]+\.(?:md|markdown|rst|txt|adoc|org|ya?ml|json|html?):\s?\d+(?::\d+)?:?\s?\S",
        "lint",
        2,
    ),
    # --- configuration --------------------------------------------------------------------
    _r(
        "pytest-usage",
        (
            "usage:",
            "unrecognized arguments",
            "file or directory not found",
            "not found in `markers`",
            "Unknown config option",
            "no tests ran",
            "collected 0 items",
            "INTERNALERROR",
            "Unknown pytest.mark",
            "unknown marker",
            "PytestConfigWarning",
            "flag provided but not defined",
            "nrecognized",
            "nknown option",
        ),
        r"^(?:ERROR: )?usage: |error: unrecognized arguments|^ERROR: file or directory not found|not found in `markers` configuration|Unknown config option|no tests ran|collected 0 items|^INTERNALERROR>|PytestConfigWarning|^flag provided but not defined: |^(?:[\w.-]+: )?(?:error|ERROR|fatal)[:!]? .*[Uu]nrecognized (?:command[- ]line )?option|^[Uu]nrecognized (?:command[- ]line )?option|^(?:error|ERROR): [Uu]nknown option",
        "configuration",
        4,
        tool="pytest",
    ),
    _r(
        # pytest cannot import a plugin named by `-p`, `pytest_plugins` or an entry point
        "pytest-plugin-import",
        "Error importing plugin",
        r"Error importing plugin \"[^\"]+\": (?:No module named|cannot import name)",
        "dependency",
        4,
        tool="pytest",
    ),
    _r(
        "settings",
        (
            "validation error",
            "Settings",
            "environment variable",
            "env var",
            "ImproperlyConfigured",
            "not set",
            "Input required",
            "Missing required",
            "missing required",
        ),
        r"\d+ validation errors? for \w*(?:Settings|Config)\b|ImproperlyConfigured|environment variable\S* .*(?:not set|missing|required|undefined|empty)|(?:env(?:ironment)? ?var(?:iable)?s?|secret|token|key) .*is not set|Missing required (?:environment|env|config|setting|secret|option|input)|Input required and not supplied",
        "configuration",
        5,
    ),
    _r(
        # a script's own refusal to run without a variable: "DEPLOY_TOKEN must be set",
        # "SHOP_API_URL is required" (an upper-case name of the shape of an environment
        # variable, the message ending there: not a test's title that goes on)
        "env-var-required",
        (
            "must be set",
            "is not set",
            "must be defined",
            "needs to be set",
            "has to be set",
            "is required",
            "is missing",
            "is empty",
            "is undefined",
        ),
        r"\b[A-Z][A-Z0-9_]{2,}\b (?:must be set|is not set|must be defined|needs to be set|has to be set)(?=\W*$|[;:,.] )|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b (?:is required|is missing|is empty|is undefined)(?=\W*$|[;:,.] )",
        "configuration",
        4,
    ),
    _r(
        "environ-key",
        ("KeyError", "environ"),
        r"KeyError: '[A-Z][A-Z0-9_]{2,}'|os\.environ\[",
        "configuration",
        3,
    ),
    _r(
        "credentials",
        (
            "credential",
            "Credential",
            "Unauthorized",
            "Bad credentials",
            "Access key",
            "publickey",
            "Authentication failed",
            "authentication failed",
            "401",
        ),
        r"Bad credentials|\b401\b.*Unauthorized|Unauthorized\b.*\b401\b|Access key (?:cannot be null|is missing)|[Nn]o credentials|Permission denied \(publickey|[Aa]uthentication failed|could not read Username|credentials (?:not found|are missing|were not)",
        "configuration",
        4,
    ),
    # the server refuses who the job is (its token, its permissions): the job's secrets or
    # the workflow's `permissions:`, not the network
    _r(
        "http-auth",
        (
            "403",
            "401",
            "Resource not accessible",
            "Permission to ",
            "access to the resource is denied",
            "authentication information",
            "non TTY device",
            "Username and password required",
            "permission_denied",
        ),
        r"\b(?:HTTP(?: Error)?|HTTPError:?|status(?: code)?:?|returned error:|error:?)\s*40[13]\b|\b40[13] (?:Forbidden|Unauthorized)\b|Resource not accessible by (?:integration|personal access token)|Permission to \S+ denied to|requested access to the resource is denied|[Ii]nvalid or non-existent authentication information|Cannot perform an interactive login from a non TTY device|Username and password required|denied: permission_denied",
        "configuration",
        4,
    ),
    # the checkout the job made is not what the step needs: a version taken from the
    # repository's tags in a shallow clone without them (setuptools-scm, `git describe`),
    # no repository at all (no checkout step, or the wrong directory)
    _r(
        "checkout-state",
        ("unable to detect version", "No names found", "not a git repository"),
        r"setuptools-scm was unable to detect version|unable to detect version for|^fatal: No names found, cannot describe anything|^fatal: not a git repository\b",
        "configuration",
        4,
    ),
    _r(
        "config-file",
        (
            "yaml",
            "YAML",
            "config",
            "Config",
            "workflow",
            "tox.ini",
            "setup.cfg",
            "pyproject.toml",
            "mapping values",
            "resolve action",
            "action.y",
        ),
        r"^(?:[\w.-]+: )?[Cc]onfig(?:uration)? error\b|Invalid workflow file|Unable to resolve action|Can't find 'action\.ya?ml'|yaml\.\w+Error|while (?:parsing|scanning) a|mapping values are not allowed|(?:ConfigError|ConfigurationError|InvalidConfig)\b|[Ii]nvalid (?:config|configuration)\b|could not (?:parse|load) (?:config|configuration)|tox\.ini.*(?:error|invalid)|(?:setup\.cfg|pyproject\.toml).*(?:[Ii]nvalid|error)|TOMLDecodeError|Unknown (?:config(?:uration)? )?option",
        "configuration",
        3,
    ),
    # Python's configparser refusing a file (tox.ini, setup.cfg, a tool's .ini), and tox
    # saying it could not load its configuration
    _r(
        "ini-parse",
        ("section", "parsing errors", "failed loading"),
        r"File contains no section headers|Source contains parsing errors|While reading from .*\[line +\d+\]: (?:section|option) |No section: '|No option '[^']+' in section: '|\bfailed loading \S+ due to ",
        "configuration",
        4,
    ),
    # git cannot commit or tag without an identity the job must configure
    _r(
        "git-identity",
        ("ident", "unable to auto-detect"),
        r"Author identity unknown|Committer identity unknown|unable to auto-detect email address|empty ident name",
        "configuration",
        4,
    ),
    _r(
        "missing-task",
        (
            "No Rakefile",
            "Don't know how to build task",
            "Task never defined",
            "Missing script",
            "missing script",
            "Unknown target",
            "No rule to make target",
            "Task '",
            "not found in root project",
            "environments not found",
            "not found: ",
            "No hook with id",
            "does not contain recipe",
        ),
        r"^No hook with id `[^`]+`|[Jj]ustfile does not contain recipe|No Rakefile found|Don't know how to build task|Task never defined|[Mm]issing script: |No rule to make target|Task '\S+' not found in (?:root )?project|[Uu]nknown target|provided environments not found in configuration file|^nox > Sessions? not found: ",
        "configuration",
        4,
    ),
    # a task runner without the file that defines its tasks (nox's noxfile, make's Makefile,
    # just's justfile, ...): the job runs it where that file is not
    _r(
        "task-file-missing",
        ("oxfile", "akefile", "ustfile", "askfile", "ulpfile", "runtfile", "ockerfile"),
        r"\b(?:[Ff]ailed to (?:load|find|read|open)|[Cc]ould not (?:find|load|open|read|locate)|[Cc]annot (?:find|load|open|read|locate)|[Nn]o) (?:[\w./-]+/)?(?:[Nn]oxfile|[Mm]akefile|[Rr]akefile|[Jj]ustfile|[Tt]askfile|[Gg]ulpfile|[Gg]runtfile|[Dd]ockerfile|[Cc]ontainerfile|[Jj]akefile)\b",
        "configuration",
        4,
    ),
    # a command-line parser refusing the arguments it was given (click, argparse): the
    # workflow calls the program with an option it does not have or a value it rejects
    _r(
        "cli-refused",
        (
            "No such option",
            "Missing option",
            "Missing argument",
            "Invalid value for",
            "unexpected extra argument",
            "arguments are required",
            "error: argument ",
        ),
        r"^Error: (?:No such option|Missing option|Missing argument|Invalid value for|Got unexpected extra arguments?)\b|^[\w.-]+: error: (?:argument [-\w/]+: |the following arguments are required)",
        "configuration",
        4,
    ),
    _r(
        # bash's ${VAR:?message} and `set -u`: a variable the script needs is not set
        "shell-unset",
        ("not set", "unbound variable"),
        r"^\S+: line \d+: [A-Za-z_]\w*: (?:parameter null or not set|unbound variable|.*\bnot set\b)",
        "configuration",
        4,
    ),
    _r(
        # a tool that refuses its own configuration (ruff: "ruff failed" / "  Cause: ...")
        "config-cause",
        ("Cause: ", "Caused by: "),
        r"^\s*(?:Cause|Caused by): (?:Unknown rule selector|Failed to parse|TOML parse error|unknown field|[Ii]nvalid (?:value|configuration|option)|Failed to (?:read|load) (?:configuration|settings))",
        "configuration",
        4,
    ),
    _r(
        "missing-script",
        ("No such file or directory", "manifest", "pull access denied"),
        r"^\S+: line \d+: (?:cd: )?[^:]+: No such file or directory$|manifest for \S+ not found|manifest unknown|pull access denied for",
        "configuration",
        3,
    ),
    # --- environment ----------------------------------------------------------------------
    _r(
        "cmd-not-found",
        (
            "not found",
            "not recognized",
            "No such file or directory",
            "not installed",
            " command.",
            "Exec format error",
            "bad interpreter",
            "Unable to locate executable",
        ),
        r"command not found|The program '[\w.+-]+' is currently not installed|: (?:\d+: )?[\w.-]+: not found$|is not recognized as an internal or external command|^(?:/usr)?/bin/\w*sh: .*No such file or directory|exec: \"?[\w.-]+\"?: executable file not found|^Executable `[^`]+` not found|Unable to locate executable file: |\b(?:linker|compiler|assembler|interpreter) [`'\"]?[\w.+/-]+[`'\"]? not found|^\S+: '[\w.-]+' is not a [\w.-]+ command\b|: cannot execute binary file: Exec format error|^\S+: bad interpreter: ",
        "environment",
        4,
    ),
    _r(
        "py-version",
        (
            "requires a different Python",
            "Python",
            "python_requires",
            "not supported",
            "unsupported",
            "architecture",
            "local cache",
        ),
        r"requires a different Python|Python \d\.\d+ is not supported|[Uu]nsupported Python|python_requires|requires-python|The version '[\d.x]+' with architecture '\w+' was not found|Version [\d.x]+ was not found in the local cache|is not available for (?:this|the) (?:platform|architecture)",
        "environment",
        4,
    ),
    # a package's build refusing the interpreter it runs on, in its own words (numba, ...)
    _r(
        "py-refused",
        ("Cannot install on Python", "are supported", "is supported"),
        r"Cannot install on Python version \d|only (?:Python )?versions? [<>=~][^;]* (?:is|are) supported",
        "environment",
        4,
    ),
    _r(
        # an environment manager that cannot find the interpreter a session or env asks
        # for: tox ("could not find python interpreter", tox 3's InterpreterNotFound), nox
        # ("Python interpreter 3.99 not found"), uv ("No interpreter found for Python"), pyenv
        "interpreter-missing",
        ("interpreter", "Interpreter", "pyenv: version"),
        r"could not find python interpreter|InterpreterNotFound|[Pp]ython interpreter \S+ not found|No interpreter found for Python|pyenv: version `\S+' is not installed",
        "environment",
        4,
    ),
    # pkg-config does not know a system library: its development files are not installed
    _r(
        "pkg-config-missing",
        ("pkg-config search path", "' found", "required by '"),
        r"was not found in the pkg-config search path|^No package '[^']+' found|^Package '[^']+', required by '[^']+', not found",
        "environment",
        4,
    ),
    _r(
        "shared-lib",
        ("shared librar", "shared object", "GLIBC", "CXXABI", "dlopen", "DLL load failed"),
        r"error while loading shared libraries|cannot open shared object file|(?:GLIBC|GLIBCXX|CXXABI)_[\d.]+' not found|dlopen\(|DLL load failed",
        "environment",
        4,
    ),
    _r(
        "env-misc",
        (
            "locale",
            "Permission denied",
            "PermissionError",
            "Docker daemon",
            "display",
            "DISPLAY",
            "Unsupported class file",
            "JAVA_HOME",
            "UnsupportedClassVersionError",
            "more recent version of the Java",
            "engine",
            "incompatible",
            "UnicodeEncodeError",
            "read-only file system",
            "Read-only file system",
            "dubious ownership",
            "Unsupported engine",
            "your version of",
            "externally-managed-environment",
            "externally managed",
            "digital envelope routines",
            "ERR_OSSL_EVP_UNSUPPORTED",
            "file watchers",
            "sudo: ",
        ),
        r"^sudo: (?:a terminal is required|a password is required|\S+ is not in the sudoers file)|error: externally-managed-environment|This environment is externally managed|digital envelope routines::unsupported|ERR_OSSL_EVP_UNSUPPORTED|System limit for number of file watchers reached|detected dubious ownership in repository|Unsupported engine|[Nn]ot compatible with your version of (?:node|npm|python|ruby|php|java)|locale\.Error|unsupported locale setting|Permission denied|PermissionError: \[Errno 13\]|Cannot connect to the Docker daemon|cannot open display|\$DISPLAY|Unsupported class file major version|JAVA_HOME is (?:not set|set to an invalid directory|not defined correctly)|UnsupportedClassVersionError|compiled by a more recent version of the Java Runtime|The engine \"\w+\" is incompatible|UnicodeEncodeError: 'ascii'|[Rr]ead-only file system",
        "environment",
        3,
    ),
    # --- test -----------------------------------------------------------------------------
    _r(
        "pytest-section",
        ("= FAILURES =", "= ERRORS ="),
        r"^=+ (?:FAILURES|ERRORS) =+$",
        "test",
        1,
        "context",
        "pytest",
    ),
    _r(
        "pytest-summary-line",
        ("FAILED ", "ERROR "),
        r"^(?:\[gw\d+\] (?:\[\s*\d+%\] )?)?(?:FAILED|ERROR) [\w./\\-]+\.py(?:::\S+)?(?: - .*)?$",
        "test",
        4,
        "error",
        "pytest",
    ),
    _r(
        "pytest-counts",
        ("failed", "error"),
        r"^=*\s*(?:\d+ (?:passed|skipped|deselected|xfailed|xpassed|warnings?|rerun), )*\d+ (?:failed|errors?)\b.* in [\d.]+s",
        "test",
        3,
        "summary",
        "pytest",
    ),
    _r("pytest-E", "E  ", r"^E\s{2,}\S", "test", 2, "error", "pytest"),
    # a strict xfail that passed: the only line of its failure block
    _r(
        "pytest-xpass-strict",
        "XPASS(strict)",
        r"^\[XPASS\(strict\)\] ",
        "test",
        3,
        "error",
        "pytest",
    ),
    _r(
        "unittest-head",
        ("FAIL:", "ERROR:"),
        r"^(?:FAIL|ERROR): \w+ \([\w.]+\)",
        "test",
        4,
        "error",
        "unittest",
    ),
    _r(
        "unittest-summary",
        "FAILED (",
        r"^FAILED \((?:failures|errors)=\d+",
        "test",
        4,
        "summary",
        "unittest",
    ),
    _r(
        "assertion",
        ("AssertionError", "AssertionFailedError", "assert", "Expected", "expected"),
        r"\bAssertionError\b|AssertionFailedError|ComparisonFailure|^\s*[Ee]xpected:? .*(?:but was|[Gg]ot|[Rr]eceived|actual)|expected:<.*> but was:<",
        "test",
        3,
    ),
    _r(
        "other-test",
        (
            "FAIL",
            "failing",
            "Failures",
            "failures",
            "not ok",
            "failed",
            "Failed",
            "✕",
            "✗",
            "There w",
        ),
        r"^\s*--- FAIL: |^\s*FAIL\s+\S(?!.*\[(?:build|setup) failed\])|^\s*\d+ failing$|Tests run: \d+, Failures: [1-9]|Tests run: \d+, Failures: \d+, Errors: [1-9]|test result: FAILED|\[FAIL\]|^not ok \d+|^Failed examples:|\d+ examples?, [1-9]\d* failures?|tests? completed, \d+ failed|There (?:was|were) \d+ (?:failures?|errors?):|^FAILURES!|^Failed tests:|Tests?:\s+\d+ failed|Test Suites: \d+ failed|^\s*[✕✗] ",
        "test",
        3,
    ),
    # a coverage threshold that the tests did not reach (pytest-cov, coverage, jest, nyc)
    _r(
        "coverage-threshold",
        ("coverage", "Coverage"),
        r"Required test coverage of [\d.]+% not reached|Coverage failure: total of [\d.]+ is less than fail-under|coverage threshold for \w+ \([\d.]+%\) not met|[Cc]overage for \w+ \([\d.]+%\) does not meet",
        "test",
        4,
    ),
    # vim's test runner names each failing test before its messages
    _r(
        "vim-test",
        "Found errors in ",
        r"^Found errors in [\w#.:<>]+\(\):$",
        "test",
        4,
    ),
    # karma: a browser that sent nothing for the no-activity timeout is dropped
    _r(
        "karma-disconnect",
        "Disconnected",
        r"Disconnected,? because no message in \d+ ?ms",
        "timeout",
        4,
    ),
    _r("test-exec", "Execution failed for task", r"Execution failed for task ':\S*test", "test", 3),
    _r(
        "test-misc",
        ("FAIL", "[-]", "Expected", "Actual", "failed."),
        r"^(?!\s*Checking )\S.*\s(?:FAIL|FAILED)$|^\s+(?!Checking )\S.*\s(?:FAIL|FAILED)$|^\s*\[-\] |^\s*(?:Expected|Actual)\s*: |Running the tests in .* failed\.",
        "test",
        2,
    ),
    _r(
        "test-lists",
        (") ", "●", "Sanitizer", "Failure:", "Error:", "<<<", "----", "panicked"),
        r"^\s{0,4}\d+\) \S|^\s*(?:Failure|Error):$|<<< (?:FAILURE|ERROR)!|^---- \S+ stdout ----$|thread '(?!main')[^']*' panicked at|^\s+● |==\d+==ERROR: \w*Sanitizer",
        "test",
        3,
    ),
    _r(
        "test-summaries",
        ("FAILED", "failed"),
        r"\| FAILED: [1-9]\d* \]|FAILED:\s+[1-9]\d* Tests?|Running examples in .* failed|checking tests \.\.\. ERROR",
        "test",
        3,
    ),
    # test runners of other ecosystems: the line that names one failing test or assertion
    _r(
        "runner-failed-test",
        (
            "*** FAILED",
            "failed on line",
            "FAILED test case",
            "TEST COMPLETE",
            "Failure/Error",
            "Failed asserting",
            "XCTAssert",
            "XCTFail",
            "failed - ",
            "tests FAILED",
            "tests failed",
            "Tests Failed",
            "Failed: Total",
            "TestsFailedException",
            "Tests unsuccessful",
            "subtests",
            "Result: FAIL",
            "failures /",
            "Failed!",
            "Failed ",
            "Test Failed",
            "operator:",
            "  FAIL",
            "_test.go:",
        ),
        r"\*\*\* FAILED \*\*\*|^\S+ failed on line \d+$|\*\*\* FAILED test case|TEST COMPLETE, \d+ ok, [1-9]\d* failed"
        r"|Failure/Error: |^\s*Failed asserting that |\bXCT(?:Assert\w*|Fail) failed|: error: -\[\S+ \S+\] : "
        r"|The following tests FAILED:|\d+% tests passed, [1-9]\d* tests? failed|Failed: Total \d+, Failed [1-9]"
        r"|TestsFailedException|Tests unsuccessful|Failed \d+/\d+ (?:subtests|test programs)|^Result: FAIL"
        r"|\d+ successes? / [1-9]\d* failures?|^(?:Test Run )?Failed!\s+-\s+Failed:\s+[1-9]|^\s+Failed \S+ \[[\d.< ]+m?s\]$"
        r"|^\s+operator: \w+$|^\s{2,}\S.*:\s+FAIL(?: \([\d.]+s\))?$|Test Failed\b|^\s+\w+_test\.go:\d+: \S",
        "test",
        4,
    ),
    # a format or API check that prints what it would change: `git diff --exit-code` after a
    # formatter, binary-compatibility checkers (MiMa, japicmp, revapi)
    _r(
        "diff-check",
        ("diff --git", "Binary compatibility", "binary compatibility", "correspondent in"),
        r"^diff --git a/\S+ b/|[Bb]inary compatibility check failed|does not have a correspondent in (?:current|other|new) version",
        "lint",
        3,
    ),
    # warnings that fail a build (-Werror, warnings as errors): the first one is the cause
    _r(
        "compiler-warning",
        ("arning:",),
        r"^\s*\S+\.(?:c|cc|cpp|cxx|h|hpp|m|mm|rs|go|java|kt|scala|cs|swift|hs|coffee|f90|cu|pyx|d|zig):\d+(?::\d+)?:? [Ww]arning:",
        "build",
        1.5,
    ),
    # --- generic --------------------------------------------------------------------------
    _r(
        "gha-annotation",
        ("::error", "##[error]"),
        r"^(?:::error(?: [^:]*)?::|##\[error\])(?!Process completed with exit code)",
        None,
        1.5,
    ),
    _r("elixir-exc", "** (", r"^\*\* \([\w.]+\) ", None, 1.5),
    # the exception that ends a traceback (Python, and JavaScript's "TypeError: ...") when
    # no rule gives it a class: the line that says what went wrong
    _r(
        "exception-line",
        ("Error: ", "Exception: ", "Exit: ", "Interrupt: ", "Failure: ", "Timeout: "),
        r"^ {0,8}(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Timeout): \S",
        None,
        3,
    ),
    # a tool's own error line: "xcodebuild: error: ...", "ld: error: ...", "tar: Error ..."
    _r(
        "tool-error",
        ("error", "ERROR", "Error"),
        r"^[\w.+-]+: (?:[\w ]+: )?(?:fatal )?(?:error|ERROR|Error)[:!] \S",
        None,
        2,
    ),
    # a test runner's count line in its own words: "failed 3 and passed 120 tests",
    # "Tests: 2 failed, 40 passed", "1 test failed"
    _r(
        "test-counts",
        ("failed", "failing", "failures", "Failed", "FAILED"),
        r"(?i)^(?=.*\b(?:pass(?:ed|ing|es)?|ok|tests?|specs?|examples?|assertions?)\b)"
        r".*(?:\b[1-9]\d* (?:tests? )?(?:failed|failing|failures?)\b|\bfailed:? [1-9]\d*\b(?! times))",
        "test",
        3,
        "summary",
    ),
    _r("xcpretty-error", "❌", r"^(?:nl)?❌\s", None, 2.5),
    # a process that crashed says so in the words of its OS or runtime; it is what happened
    # whatever the step was doing, so it names no class
    _r(
        "crash",
        (
            "Segmentation fault",
            "core dumped",
            "ccess violation",
            "Bus error",
            "Illegal instruction",
            "panicked at",
            "Abort trap",
        ),
        r"Segmentation fault|\(core dumped\)|\b[Aa]ccess violation\b|^Bus error\b|Illegal instruction|^thread 'main' panicked at|Abort trap",
        None,
        2,
    ),
    _r(
        "generic-error",
        (
            "rror",
            "RROR",
            "fatal",
            "Fatal",
            "FATAL",
            "aborted",
            "panic",
            "Traceback",
            "xception",
            "FAIL",
            "failed",
            "Failed",
        ),
        r"^(?:(?:\w[\w.]*)?(?:Error|Exception)\b|\s+[A-Z]\w*(?:Error|Exception): |error:|ERROR\b|\[ERROR\]|Error:|fatal:|FATAL|[Ff]atal error|\S+ aborted!|panic:|Traceback \(most recent call last\)|(?!.*recipe for target '.*' failed$).*\b(?:[Ff]ailed|FAILED)\b)",
        None,
        1,
    ),
)


# Short stems, case-insensitive, such that every needle contains one: one regex pass over a
# line finds the stems present, and only the rules behind them are tried.
_STEMS = [
    "rror",
    "err",
    "fail",
    "exit",
    "xcept",
    "time",
    "found",
    "denied",
    "connect",
    "conn",
    "resol",
    "requir",
    "module",
    "assert",
    "expect",
    "fatal",
    "abort",
    "panic",
    "trace",
    "reformat",
    "sort",
    "rated",
    "usage",
    "cancel",
    "kill",
    "space",
    "runner",
    "lock",
    "valid",
    "config",
    "setting",
    "environ",
    "not ",
    "unable",
    "cannot",
    "could",
    "version",
    "python",
    "warn",
    "***",
    "::",
    "50",
    "429",
    "137",
    "e  ",
    ".py:",
    "==>",
]


def _build_index() -> tuple[tuple[str, ...], dict[str, list[int]]]:
    stems = list(_STEMS)
    index: dict[str, set[int]] = {}
    for k, rule in enumerate(RULES):
        for needle in rule.needles:
            low = needle.lower()
            stem = next((s for s in stems if s in low), None)
            if stem is None:
                stem = low
                stems.append(stem)
            index.setdefault(stem, set()).add(k)
    return tuple(index), {s: sorted(v) for s, v in index.items()}


_STEM_LIST, _BY_STEM = _build_index()


#: A count of zero ("0 failed", "Failures: 0", "Errors 0") says nothing failed.
_ZERO_COUNT = re.compile(
    r"\b0 (?:failed|failures?|errors?)\b|\b(?:[Ff]ailed|[Ff]ailures?|[Ee]rrors?):? 0\b(?![.\d])"
)
_GENERIC = {"generic-error"}
#: A log level a build tool puts before every line (sbt, maven, gradle, loggers): the
#: tool's own line follows it.
_LEVEL_PREFIX = re.compile(r"^\[(?:info|error|warn|warning|debug|INFO|ERROR|WARN|WARNING)\]\s?")


def match_line(text: str) -> list[tuple[Rule, re.Match[str]]]:
    """The rules that fire on one cleaned line (and on it without a log-level prefix)."""
    hits = _match(text)
    if text.startswith("[") and text[1:2].isalpha():
        m = _LEVEL_PREFIX.match(text)
        if m and m.end() < len(text):
            names = {r.name for r, _ in hits}
            hits += [(r, mm) for r, mm in _match(text[m.end() :]) if r.name not in names]
    if hits and ("0" in text) and any(r.name in _GENERIC for r, _ in hits):
        rest = _ZERO_COUNT.sub("", text)
        if rest != text:
            hits = [
                (r, mm)
                for r, mm in hits
                if r.name not in _GENERIC or r.pattern.search(rest) is not None
            ]
    return hits


def _match(text: str) -> list[tuple[Rule, re.Match[str]]]:
    low = text.lower()
    todo: set[int] = set()
    for stem in _STEM_LIST:
        if stem in low:
            todo.update(_BY_STEM[stem])
    if not todo:
        return []
    hits: list[tuple[Rule, re.Match[str]]] = []
    for k in sorted(todo):
        rule = RULES[k]
        for needle in rule.needles:
            if needle in text:
                m = rule.pattern.search(text)
                if m:
                    hits.append((rule, m))
                break
    return hits
