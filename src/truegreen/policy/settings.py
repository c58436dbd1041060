"""The policy's settings: ``[tool.truegreen.policy]`` in pyproject.toml, or ``[policy]`` in
truegreen.toml (which wins, as a whole table), read from the base revision.

Every key, its default and what it does (README.md "Policy rules" shows the same):

``sensitive-paths``
    globs (:mod:`truegreen.policy.paths`) of files a person must look at when a change
    touches them; replaces :data:`DEFAULT_SENSITIVE_PATHS`.
``extend-sensitive-paths``
    globs added to ``sensitive-paths`` (the defaults, or the configured list).
``broad-files`` / ``broad-directories`` / ``broad-lines``
    a change is broad when it touches more files, more directories, or more lines
    (added plus removed) than these.
``auto-approve``
    the file categories (:data:`truegreen.policy.paths.CATEGORIES`) a change may touch
    and still be approved without a person.
``min-strength``
    the least exam strength (``none``, ``weak``, ``medium``, ``strong``) that may be
    approved; ``none`` asks for nothing, ``weak`` asks that strength was measured.
``require-hidden-exam``
    approve only when a hidden exam (one a fixer never saw) was among those passed.
``reject``
    rule ids (``policy.<rule>``) and codes that escalate by default whose finding
    should reject instead. A refuting code rejects already; nothing here can approve.

What no setting can do, by design: make the default approve (a change is approved only
when every rule is satisfied), approve a tampered change or one whose exam fails (a
refuting finding always rejects), or accept a key nothing reads (unknown keys are errors
naming the key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from truegreen.errors import ConfigError
from truegreen.model import reasons as R
from truegreen.policy.paths import CATEGORIES, CI_GLOBS, DEPENDENCY_GLOBS, check_glob

StrengthFloor = Literal["none", "weak", "medium", "strong"]
STRENGTH_FLOORS: tuple[StrengthFloor, ...] = ("none", "weak", "medium", "strong")

#: auth and secrets code
AUTH_GLOBS = (
    "auth/",
    "auth.py",
    "auth_*.py",
    "*_auth.py",
    "authentication*.py",
    "authorization*.py",
    "oauth*.py",
    "security/",
    "security.py",
    "permissions.py",
    "*secret*",
    "*password*",
    "*credential*",
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
)
#: database migrations
MIGRATION_GLOBS = ("migrations/", "alembic/", "alembic.ini")
#: infrastructure files
INFRASTRUCTURE_GLOBS = (
    "Dockerfile*",
    ".dockerignore",
    "docker-compose*.yml",
    "docker-compose*.yaml",
    "compose.yml",
    "compose.yaml",
    "*.tf",
    "*.tfvars",
    "terraform/",
    "k8s/",
    "kubernetes/",
    "helm/",
    "charts/",
    "ansible/",
    "Procfile",
)

#: what ``sensitive-paths`` is when not configured: auth and secrets code, CI
#: configuration, dependency manifests and lock files, migrations, infrastructure
DEFAULT_SENSITIVE_PATHS: tuple[str, ...] = (
    *AUTH_GLOBS,
    *CI_GLOBS,
    *DEPENDENCY_GLOBS,
    *MIGRATION_GLOBS,
    *INFRASTRUCTURE_GLOBS,
)

#: the policy's rules (their ids are ``policy.<rule>``), each with what it checks
RULES: dict[str, str] = {
    R.POLICY_MISSING_EVIDENCE: "evidence a layer should have collected is missing "
    "(an exam that did not run, no tamper analysis, no regression run, the change's "
    "files not listed): never a pass",
    R.POLICY_SENSITIVE_PATH: "the change touches a file that sensitive-paths or "
    "extend-sensitive-paths names",
    R.POLICY_BROAD_DIFF: "the change touches more files, directories or lines than "
    "broad-files, broad-directories or broad-lines",
    R.POLICY_FILE_CATEGORY: "the change touches a file whose category auto-approve does not list",
    R.POLICY_MIN_STRENGTH: "the exam's strength is below min-strength (or was not measured "
    "while min-strength asks for one)",
    R.POLICY_HIDDEN_EXAM: "require-hidden-exam is set and no hidden exam was among the exams",
    R.POLICY_ERROR: "a rule could not be evaluated (an error inside the policy): escalates",
}

#: codes ``reject`` may name: those that escalate by default (a refuting one rejects already)
REJECTABLE = tuple(sorted(c for c, s in R.SEVERITY.items() if s in ("inconclusive", "escalate")))


@dataclass(frozen=True)
class Policy:
    """The effective policy (every value set; :data:`DEFAULT` when nothing is configured)."""

    sensitive_paths: tuple[str, ...] = DEFAULT_SENSITIVE_PATHS
    extend_sensitive_paths: tuple[str, ...] = ()
    broad_files: int = 25
    broad_directories: int = 10
    broad_lines: int = 800
    auto_approve: tuple[str, ...] = ("source", "tests", "docs")
    min_strength: StrengthFloor = "none"
    require_hidden_exam: bool = False
    reject: tuple[str, ...] = ()
    #: key (as written in TOML) -> where its value came from ("default", or the file)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def sensitive(self) -> tuple[str, ...]:
        """Every sensitive glob: the list and its extension."""
        return (*self.sensitive_paths, *self.extend_sensitive_paths)

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")

    def values(self) -> dict[str, Any]:
        """Key (as written in TOML) -> value, JSON-ready, in the order of :data:`KEYS`."""
        out: dict[str, Any] = {}
        for key, attr in KEYS.items():
            value = getattr(self, attr)
            out[key] = list(value) if isinstance(value, tuple) else value
        return out


#: TOML key -> attribute of :class:`Policy`
KEYS: dict[str, str] = {
    f.name.replace("_", "-"): f.name for f in fields(Policy) if f.name != "sources"
}

DEFAULT = Policy()


def _where(origin: str, key: str) -> str:
    if origin.startswith("pyproject.toml"):
        return f"pyproject.toml [tool.truegreen.policy] {key}"
    return f"{origin} [policy] {key}"


def _globs(key: str, value: Any, origin: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"{_where(origin, key)} must be a list of globs",
            hint=f'for example {key} = ["src/pkg/auth/", "*.lock"]',
        )
    for glob in value:
        problem = check_glob(glob)
        if problem:
            raise ConfigError(
                f"{_where(origin, key)}: the glob {glob!r} {problem}",
                hint="write globs relative to the project's root with forward slashes",
            )
    return tuple(value)


def _count(key: str, value: Any, origin: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"{_where(origin, key)} must be a whole number of at least 1, not {value!r}",
            hint=f"for example {key} = {getattr(DEFAULT, KEYS[key])}",
        )
    return value


def _categories(key: str, value: Any, origin: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"{_where(origin, key)} must be a list of file categories",
            hint=f'for example {key} = ["source", "tests", "docs"]',
        )
    for v in value:
        if v not in CATEGORIES:
            raise ConfigError(
                f"{_where(origin, key)}: unknown file category {v!r}",
                hint=f"the categories are {', '.join(CATEGORIES)}",
            )
    return tuple(value)


def _floor(key: str, value: Any, origin: str) -> StrengthFloor:
    for floor in STRENGTH_FLOORS:
        if value == floor:
            return floor
    raise ConfigError(
        f"{_where(origin, key)} must be one of {', '.join(STRENGTH_FLOORS)}, not {value!r}",
        hint=f'for example {key} = "medium"',
    )


def _flag(key: str, value: Any, origin: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(
            f"{_where(origin, key)} must be true or false, not {value!r}",
            hint=f"for example {key} = true",
        )
    return value


def _codes(key: str, value: Any, origin: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"{_where(origin, key)} must be a list of rule ids",
            hint=f'for example {key} = ["{R.POLICY_SENSITIVE_PATH}"]',
        )
    for code in value:
        if R.SEVERITY.get(code) == "refute":
            raise ConfigError(
                f"{_where(origin, key)}: {code} rejects already",
                hint=f"remove {code}; reject lists only codes that escalate by default",
            )
        if code not in REJECTABLE:
            raise ConfigError(
                f"{_where(origin, key)}: unknown rule id {code!r}",
                hint=f"rule ids are {', '.join(RULES)} (or a code that escalates: "
                "truegreen policy explain lists them)",
            )
    return tuple(sorted(set(value)))


_CHECKS = {
    "sensitive-paths": _globs,
    "extend-sensitive-paths": _globs,
    "broad-files": _count,
    "broad-directories": _count,
    "broad-lines": _count,
    "auto-approve": _categories,
    "min-strength": _floor,
    "require-hidden-exam": _flag,
    "reject": _codes,
}


def parse_policy(table: dict[str, Any], origin: str) -> Policy:
    """The policy a ``[tool.truegreen.policy]`` / ``[policy]`` table sets (the rest
    default). A key nothing reads, or a value of the wrong shape, is a ConfigError naming
    the key (the validator :data:`truegreen.config.SUBTABLES` registers)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, value in table.items():
        check = _CHECKS.get(key)
        if check is None:
            raise ConfigError(
                f"{_where(origin, '').rstrip()}: unknown key {key!r}",
                hint=f"known keys: {', '.join(KEYS)}",
            )
        values[KEYS[key]] = check(key, value, origin)
        sources[key] = origin
    return Policy(**values, sources=sources)
