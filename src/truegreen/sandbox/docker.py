"""The ``docker`` backend: ``docker run`` with no network, a read-only root, uid 65534.

The host's worktree, interpreter prefixes and probe dir are mounted at the same paths,
so the image must be able to run the host's interpreter (same libc family): a slim
Debian-based image such as ``python:3.11-slim`` (the default; set ``TRUEGREEN_DOCKER_IMAGE``
or ``SandboxSpec.extra["docker_image"]``). Limits: ``--pids-limit``, ``--memory``,
``--cpus``, ``--ulimit``. Killing the ``docker`` client does not stop a container, so the
command inside runs under ``timeout -s KILL`` (coreutils in the image) at the deadline,
and ``--rm`` removes it.

Not exercised against a real engine in truegreen's own tests (no engine on the
development machines); the argv is unit-tested and ``available()`` probes ``docker info``.
"""

from __future__ import annotations

import math
import os
import shutil
import uuid
from dataclasses import replace
from pathlib import Path

from truegreen.run.executor import Command, default_executor
from truegreen.sandbox import SandboxSpec, scrub_env
from truegreen.sandbox.bwrap import SANDBOX_GID, SANDBOX_HOME, SANDBOX_UID, _prefixes_of

DEFAULT_IMAGE = "python:3.11-slim"
IMAGE_VAR = "TRUEGREEN_DOCKER_IMAGE"

_availability: dict[str, tuple[bool, str]] = {}


class DockerBackend:
    name = "docker"

    def __init__(self, *, docker: str | None = None) -> None:
        self._docker = docker

    def _client(self) -> str | None:
        return self._docker or shutil.which("docker")

    def available(self) -> tuple[bool, str]:
        if "docker" not in _availability:
            _availability["docker"] = self._probe()
        return _availability["docker"]

    def _probe(self) -> tuple[bool, str]:
        client = self._client()
        if client is None:
            return False, "the docker client is not installed"
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "DOCKER_HOST")}
        try:
            done = default_executor().run(
                Command(
                    [client, "info", "--format", "{{.ServerVersion}}"],
                    cwd=Path("/"),
                    env=env,
                    timeout=15,
                )
            )
        except Exception as exc:  # ExecutionError and friends: report, never raise
            return False, f"the docker client cannot be started: {exc}"
        version = done.stdout.strip()
        if not done.ok or not version:
            lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
            detail = lines[-1] if lines else f"exit {done.returncode}"
            if done.timed_out:
                detail = "`docker info` did not answer within 15 s"
            return False, f"no Docker engine is reachable ({detail})"
        return True, f"Docker engine {version}: tests run as uid {SANDBOX_UID}, no network"

    def image(self, spec: SandboxSpec) -> str:
        return spec.extra.get("docker_image") or os.environ.get(IMAGE_VAR) or DEFAULT_IMAGE

    def wrap(self, command: Command, spec: SandboxSpec) -> Command:
        lim = spec.limits
        argv = [self._client() or "docker", "run", "--rm", "--init"]
        argv += ["--name", f"truegreen-{uuid.uuid4().hex[:12]}"]
        argv += ["--network", "bridge" if spec.network else "none"]
        argv += ["--read-only", "--tmpfs", "/tmp:rw,exec,mode=1777"]
        argv += ["--user", f"{SANDBOX_UID}:{SANDBOX_GID}", "--cap-drop", "ALL"]
        argv += ["--security-opt", "no-new-privileges"]
        if lim.processes is not None:
            argv += ["--pids-limit", str(lim.processes)]
        if lim.memory_bytes is not None:
            argv += ["--memory", str(lim.memory_bytes), "--memory-swap", str(lim.memory_bytes)]
        argv += ["--cpus", str(spec.extra.get("docker_cpus", "1"))]
        if lim.open_files is not None:
            argv += ["--ulimit", f"nofile={lim.open_files}:{lim.open_files}"]
        if lim.file_size_bytes is not None:
            argv += ["--ulimit", f"fsize={lim.file_size_bytes}:{lim.file_size_bytes}"]
        argv += ["--ulimit", "core=0:0"]
        seen: set[str] = set()
        for path in [*_prefixes_of(spec.python), *spec.readonly]:
            p = os.path.abspath(path)
            if p not in seen and Path(p).exists():
                seen.add(p)
                argv += ["-v", f"{p}:{p}:ro"]
        for path in (spec.workdir, *spec.writable):
            p = os.path.abspath(path)
            if Path(p).exists():
                argv += ["-v", f"{p}:{p}:rw"]
        env = scrub_env(command.env)
        env.update({"HOME": SANDBOX_HOME, "TMPDIR": "/tmp", "USER": "nobody", "LOGNAME": "nobody"})
        for key in sorted(env):
            argv += ["-e", f"{key}={env[key]}"]
        argv += ["-w", str(command.cwd), self.image(spec)]
        if command.timeout:
            argv += ["timeout", "-s", "KILL", str(math.ceil(command.timeout) + 5)]
        argv += [str(a) for a in command.argv]
        client_env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "DOCKER_HOST")}
        return replace(command, argv=tuple(argv), env=client_env)


def reset_cache() -> None:
    _availability.clear()
