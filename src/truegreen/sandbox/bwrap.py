"""The ``bwrap`` backend: bubblewrap namespaces plus rlimits, as an unprivileged uid.

The wrapped argv is ``prlimit <limits> -- bwrap <namespaces, mounts> -- [setpriv ...] CMD``.

Two identities, chosen by who runs truegreen:

* **root**, "setpriv" mode. bwrap runs privileged without a user namespace, builds the
  mounts, and the first program inside is ``setpriv`` which becomes the real uid/gid
  65534 with no supplementary groups, an empty bounding set, no inheritable or ambient
  capabilities and no_new_privs. A *real* non-root uid is what makes the kernel enforce
  RLIMIT_NPROC (uid 0 is exempt, also inside a user namespace that maps to it), so a fork
  bomb stops at the limit. Consequence: the tests can write only where uid 65534 may:
  extra writable paths that truegreen created under the temp dir (the probe's report
  dir) are handed to 65534 by :meth:`BwrapBackend.wrap`, and the worktree is opened
  to it (``o+w``) when ``spec.grant_workdir``; a root-owned worktree is otherwise bound
  read-write but the kernel refuses uid 65534's writes there (a test that writes there
  fails with PermissionError, which :mod:`truegreen.sandbox.blocked` classifies).
  When uid 65534 cannot even read the worktree or the interpreter (a 0700 directory),
  or bwrap cannot run privileged here (a container), the run falls back to the
  user-namespace mode below, mapped to root: still no capabilities and no network,
  but the process limit is then not enforced (``last_mode``, and a warning).
* **not root** ("userns" mode). bwrap makes a user namespace in which the caller's uid
  appears as 65534, drops every capability and disables further user namespaces.

Both: new pid, net, ipc, uts and cgroup namespaces (no network: only loopback, with
nothing listening on it), ``--die-with-parent``, ``--new-session``,
read-only ``/usr`` (and the usr-merge symlinks), a few harmless files of ``/etc``, a
private ``/tmp`` (tmpfs, mounted *before* the binds because worktrees live under /tmp),
read-only binds of the interpreter's prefixes and ``spec.readonly``, read-write binds of
``spec.workdir`` and ``spec.writable`` at the same paths, a new ``/proc`` and ``/dev``,
and the sandbox's own root remounted read-only.

The environment inside is the command's (already built from an allow-list by the
runner), with anything that looks like a secret by its name removed, ``HOME`` and
``TMPDIR`` pointed at the private /tmp. It is passed through bwrap rather than rebuilt
with ``--clearenv`` so that the executor's run marker reaches every process inside:
the executor's marker scan is a second way, besides ``--die-with-parent`` and the pid
namespace, to find and kill what a run leaves behind.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import shutil
import stat
import tempfile
from dataclasses import replace
from pathlib import Path

from truegreen.run.executor import Command, default_executor
from truegreen.sandbox import SandboxSpec, scrub_env

SANDBOX_UID = 65534
SANDBOX_GID = 65534
SANDBOX_HOME = "/tmp"

#: Read-only system trees (bound when present).
SYSTEM_DIRS = ("/usr", "/etc/alternatives")
#: Top-level names that are symlinks into /usr on a usr-merged system, dirs otherwise.
USR_MERGE = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Files of /etc without secrets that programs commonly read.
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/mime.types",
)
#: Only for the install phase (network): name resolution and public certificates.
NET_ETC = ("/etc/resolv.conf", "/etc/ssl/certs", "/etc/ca-certificates", "/etc/pki/tls/certs")

_availability: dict[str, tuple[bool, str]] = {}
_log = logging.getLogger("truegreen.sandbox")
#: False once a probe found that bwrap cannot run privileged here (as root)
_privileged: dict[str, bool] = {}


def _is_root() -> bool:
    return os.geteuid() == 0


def _prefixes_of(python: Path) -> list[Path]:
    """Directories the interpreter needs: its venv (if any) and the base installation."""
    found: list[Path] = []
    p = Path(os.path.abspath(python))
    for candidate in (p, p.resolve()):
        parent = candidate.parent
        if parent.name in ("bin", "Scripts"):
            found.append(parent.parent)
        else:
            found.append(parent)
    venv_cfg = found[0] / "pyvenv.cfg"
    if venv_cfg.is_file():
        try:
            for line in venv_cfg.read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    home = Path(value.strip())
                    found.append(home.parent if home.name == "bin" else home)
        except OSError:
            pass
    return found


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def _mine_under_tmp(path: Path) -> bool:
    try:
        st = path.lstat()
    except OSError:
        return False
    tmp = Path(tempfile.gettempdir()).resolve()
    return st.st_uid == os.geteuid() and tmp in path.resolve().parents


def _grant(path: Path, *, recursive: bool) -> None:
    """Hand a truegreen-made temp path to the sandbox uid: the path and its direct
    entries, or (``recursive``) the whole tree. Paths outside the temp dir, or not
    owned by us, are left alone (writes there will be refused)."""
    if not _mine_under_tmp(path):
        return
    targets = [path]
    if path.is_dir():
        with contextlib.suppress(OSError):
            targets += list(path.rglob("*") if recursive else path.iterdir())
    for target in targets:
        with contextlib.suppress(OSError):
            os.chown(target, SANDBOX_UID, SANDBOX_GID, follow_symlinks=False)


def _open_up(path: Path) -> None:
    """Make a disposable worktree writable for the sandbox uid without changing its
    owner (git refuses to work in a repository another uid owns): ``o+w`` on its
    directories and files (git tracks only the executable bit, so ``git status`` does
    not change). Only for a tree of ours under the temp dir."""
    if not _mine_under_tmp(path):
        return
    for target in [path, *path.rglob("*")]:
        with contextlib.suppress(OSError):
            st = target.lstat()
            if stat.S_ISDIR(st.st_mode):
                os.chmod(target, stat.S_IMODE(st.st_mode) | 0o007)
            elif stat.S_ISREG(st.st_mode):
                os.chmod(target, stat.S_IMODE(st.st_mode) | 0o006)


def limits_argv(prlimit: str, spec: SandboxSpec, timeout: float | None) -> list[str]:
    lim = spec.limits
    cpu = lim.cpu_seconds
    if cpu is None:
        cpu = math.ceil(timeout) + 30 if timeout else 3600
    argv = [prlimit]
    if lim.memory_bytes is not None:
        argv.append(f"--as={lim.memory_bytes}")
    argv.append(f"--cpu={cpu}")
    if lim.file_size_bytes is not None:
        argv.append(f"--fsize={lim.file_size_bytes}")
    if lim.open_files is not None:
        argv.append(f"--nofile={lim.open_files}")
    if lim.processes is not None:
        argv.append(f"--nproc={lim.processes}")
    argv += ["--core=0", "--"]
    return argv


class BwrapBackend:
    """Bubblewrap. See the module docstring for what it confines and how."""

    name = "bwrap"

    def __init__(self, *, as_root: bool | None = None) -> None:
        #: None: decide from the effective uid (tests force a mode to check the argv)
        self._as_root = as_root
        #: "setpriv" or "userns": how the last :meth:`wrap` confined its command
        self.last_mode = ""

    @property
    def root_mode(self) -> bool:
        return _is_root() if self._as_root is None else self._as_root

    def identity(self) -> str:
        if self.root_mode:
            return (
                f"works: tests run as uid {SANDBOX_UID} with no capabilities and no network "
                "(setpriv after a privileged bwrap; see docs/sandbox.md)"
            )
        return (
            f"works: tests run as uid {SANDBOX_UID} in a user namespace with no capabilities "
            "and no network (see docs/sandbox.md)"
        )

    def _tools(self) -> tuple[str | None, str | None, str | None]:
        return shutil.which("bwrap"), shutil.which("prlimit"), shutil.which("setpriv")

    def available(self) -> tuple[bool, str]:
        key = "root" if self.root_mode else "user"
        if key not in _availability:
            _availability[key] = self._probe()
        return _availability[key]

    def _probe(self) -> tuple[bool, str]:
        bwrap, prlimit, setpriv = self._tools()
        if bwrap is None:
            return False, "bubblewrap is not installed (apt-get install bubblewrap)"
        if prlimit is None:
            return False, "prlimit is not installed (it is part of util-linux)"
        if not self.root_mode:
            return self._try(bwrap, setpriv=None)
        if setpriv is not None:
            ok, why = self._try(bwrap, setpriv=setpriv)
            if ok:
                _privileged["root"] = True
                return ok, why
        # Root without the privileges bwrap needs (a container?), or no setpriv: the
        # user-namespace identity may still work.
        _privileged["root"] = False
        ok, why = self._try(bwrap, setpriv=None)
        if ok:
            return True, (
                f"works, in a user namespace only (tests run as uid {SANDBOX_UID} mapped to "
                "root, no capabilities, no network; the process limit is not enforced"
                + ("" if setpriv else ": setpriv is missing (util-linux)")
                + ")"
            )
        return ok, why

    def _try(self, bwrap: str, *, setpriv: str | None) -> tuple[bool, str]:
        argv = [bwrap, *self._namespace_args(network=False, setpriv=setpriv is not None)]
        argv += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
        if setpriv is not None:
            argv += [setpriv, *self._setpriv_args()]
        argv += ["/bin/sh", "-c", "exit 0"]
        try:
            done = default_executor().run(
                Command(argv, cwd=Path("/"), env={"PATH": "/usr/bin:/bin"}, timeout=20)
            )
        except Exception as exc:  # ExecutionError and friends: report, never raise
            return False, f"bwrap cannot be started: {exc}"
        if not done.ok:
            detail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            return False, (
                f"bwrap cannot create namespaces here: {detail} "
                "(user namespaces disabled? kernel.unprivileged_userns_clone=0?)"
            )
        return True, self.identity()

    def _namespace_args(self, *, network: bool, setpriv: bool | None = None) -> list[str]:
        if self.root_mode if setpriv is None else setpriv:
            # Privileged bwrap: no user namespace, so setpriv inside can become a real uid.
            args = ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
            if not network:
                args.append("--unshare-net")
        else:
            args = ["--unshare-all", "--unshare-user"]
            if network:
                args.append("--share-net")
            args += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
            args += ["--disable-userns", "--cap-drop", "ALL"]
        args += ["--die-with-parent", "--new-session"]
        return args

    @staticmethod
    def _setpriv_args() -> list[str]:
        return [
            f"--reuid={SANDBOX_UID}",
            f"--regid={SANDBOX_GID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--ambient-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]

    def mounts(self, spec: SandboxSpec) -> list[str]:
        """The filesystem arguments (system, /tmp, interpreter, readonly, writable)."""
        args: list[str] = []
        mounted: list[Path] = []
        created: set[Path] = set()

        def bind(flag: str, p: Path) -> None:
            for anc in reversed(p.parents):
                if anc == Path("/") or anc in created or _under(anc, mounted):
                    continue
                # bwrap would create it 0700 as root: the sandbox uid could not pass.
                args.extend(["--perms", "0755", "--dir", str(anc)])
                created.add(anc)
            args.extend([flag, str(p), str(p)])
            mounted.append(p)

        for name in SYSTEM_DIRS:
            if Path(name).is_dir():
                bind("--ro-bind", Path(name))
        for name in USR_MERGE:
            p = Path(name)
            if p.is_symlink():
                args += ["--symlink", os.readlink(p), name]
            elif p.is_dir():
                bind("--ro-bind", p)
        for name in ETC_FILES + (NET_ETC if spec.network else ()):
            if Path(name).exists():
                bind("--ro-bind", Path(name))
        # /tmp first: worktrees and probe dirs live under it and are bound on top.
        # (Not added to ``mounted``: the dirs above the binds under /tmp must be created
        # explicitly with 0755 on that tmpfs, or bwrap makes them 0700.)
        args += ["--perms", "1777", "--tmpfs", "/tmp"]
        args += ["--proc", "/proc", "--dev", "/dev"]
        mounted += [Path("/proc"), Path("/dev")]

        binds: dict[Path, str] = {}
        readonly = [*_prefixes_of(spec.python), *spec.readonly]
        for path in readonly:
            p = Path(os.path.abspath(path))
            if p.exists() and not _under(p, mounted) and p != Path("/"):
                binds.setdefault(p, "--ro-bind")
        for path in (spec.workdir, *spec.writable):
            p = Path(os.path.abspath(path))
            if p.exists() and p != Path("/"):
                binds[p] = "--bind"  # writable wins over read-only for the same path
        # Parents before children, so a read-only venv inside the worktree stays read-only.
        for p in sorted(binds, key=lambda q: (len(q.parts), str(q))):
            bind(binds[p], p)
        # The sandbox's own root (a tmpfs holding the mount points) read-only as well.
        args += ["--remount-ro", "/"]
        return args

    def environment(self, command: Command) -> dict[str, str]:
        env = scrub_env(command.env)
        env["HOME"] = SANDBOX_HOME
        env["TMPDIR"] = "/tmp"
        env["USER"] = env["LOGNAME"] = "nobody"
        return env

    def uses_setpriv(self, spec: SandboxSpec) -> bool:
        """Whether this run becomes the real uid 65534 (root only), or falls back to the
        user-namespace mode because uid 65534 could not read what the run needs."""
        if not self.root_mode or not _privileged.get("root", True):
            return False
        return self._unreadable(spec) is None

    @staticmethod
    def _unreadable(spec: SandboxSpec) -> Path | None:
        """The first path the run needs that uid 65534 cannot read, or None."""
        needed = [Path(spec.workdir), *_prefixes_of(spec.python), *map(Path, spec.readonly)]
        return next((p for p in needed if not _sandbox_uid_can_read(p)), None)

    def wrap(self, command: Command, spec: SandboxSpec) -> Command:
        bwrap, prlimit, setpriv = self._tools()
        nobody = self.uses_setpriv(spec)
        self.last_mode = "setpriv" if nobody else "userns"
        if self.root_mode and not nobody:
            _log.warning(
                "truegreen: sandbox: uid %d cannot read %s; running as uid %d in a user "
                "namespace mapped to root instead (no capabilities, no network, but the "
                "process limit is not enforced): make it world-readable (chmod o+rx) for "
                "the full sandbox",
                SANDBOX_UID,
                self._unreadable(spec) or spec.workdir,
                SANDBOX_UID,
            )
        argv = limits_argv(prlimit or "prlimit", spec, command.timeout)
        argv += [bwrap or "bwrap", *self._namespace_args(network=spec.network, setpriv=nobody)]
        argv += self.mounts(spec)
        argv += ["--hostname", "sandbox", "--chdir", str(command.cwd)]
        if nobody:
            for path in spec.writable:
                _grant(Path(path), recursive=False)
            if spec.grant_workdir:
                _open_up(Path(spec.workdir))
            argv += ["--", setpriv or "setpriv", *self._setpriv_args()]
        else:
            argv += ["--"]
        argv += [str(a) for a in command.argv]
        return replace(command, argv=tuple(argv), env=self.environment(command))


def _sandbox_uid_can_read(path: Path) -> bool:
    """Whether uid 65534 (not in root's groups) can read ``path`` once it is bound in."""
    try:
        st = path.stat()
    except OSError:
        return True  # absent paths are not bound
    if st.st_uid == SANDBOX_UID:
        return True
    want = 0o005 if stat.S_ISDIR(st.st_mode) else 0o004
    return st.st_mode & want == want


def reset_cache() -> None:
    """Forget probed availability (tests)."""
    _availability.clear()
    _privileged.clear()
