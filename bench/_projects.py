"""Generated fixture projects for the benchmarks (deterministic)."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write_suite(root: Path, modules: int = 10, tests_per_module: int = 20) -> list[str]:
    """A small library plus ``modules * tests_per_module`` tests; returns the test files."""
    (root / "lib").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "lib" / "__init__.py").write_text("")
    files = []
    for m in range(modules):
        (root / "lib" / f"mod{m}.py").write_text(
            textwrap.dedent(f"""
            def f{m}(x):
                total = 0
                for i in range(x):
                    total += (i * {m + 1}) % 7
                return total

            def g{m}(s):
                return "-".join(sorted(set(s.split())))
        """)
        )
        tests = [f"from lib.mod{m} import f{m}, g{m}\n", "import pytest\n"]
        for t in range(tests_per_module):
            tests.append(
                textwrap.dedent(f"""
                def test_f_{t}():
                    assert f{m}({t + 50}) == sum((i * {m + 1}) % 7 for i in range({t + 50}))

                """)
                if t % 2 == 0
                else textwrap.dedent(f"""
                @pytest.mark.parametrize("s", ["b a", "c c a"])
                def test_g_{t}(s):
                    assert g{m}(s).startswith("a")

                """)
            )
        path = root / "tests" / f"test_mod{m}.py"
        path.write_text("".join(tests))
        files.append(f"tests/test_mod{m}.py")
    return files


def sdist_repo(name: str, version: str, cache: Path, root: Path, ini: str = "") -> None:
    """``NAME==VERSION``'s sdist from the package index (``pip download`` into
    ``cache/sdists``), unpacked at ``root`` and committed as a git repository whose ``main``
    is the sdist. ``root`` lives inside truegreen's checkout, so pytest's rootdir is made
    its own (a ``pytest.ini`` holding ``ini`` where the sdist configures no pytest)."""
    import shutil
    import subprocess
    import sys
    import tarfile

    def run(*argv: str, cwd: Path) -> None:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:4])} failed: {done.stderr[-500:]}")

    cache.mkdir(parents=True, exist_ok=True)
    dl = cache / "sdists"
    run(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
        "-d", str(dl), f"{name}=={version}", cwd=cache)  # fmt: skip
    stem = f"{name.replace('-', '_').lower()}-{version}"
    (archive,) = [p for p in dl.iterdir() if p.name.lower() == f"{stem}.tar.gz"]
    unpack = cache / f"unpack-{name}"
    shutil.rmtree(unpack, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(unpack, filter="data")
    (unpacked,) = list(unpack.iterdir())
    unpacked.rename(root)
    unpack.rmdir()
    for info in root.glob("*.egg-info"):
        shutil.rmtree(info)
    configured = (root / "pytest.ini").exists() or any(
        (root / f).exists() and mark in (root / f).read_text(encoding="utf-8", errors="replace")
        for f, mark in (("pyproject.toml", "[tool.pytest"), ("tox.ini", "[pytest]"),
                        ("setup.cfg", "[tool:pytest]"))
    )  # fmt: skip
    if not configured:
        (root / "pytest.ini").write_text("[pytest]\n" + ini, encoding="utf-8")
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    run("git", "init", "-q", "-b", "main", cwd=root)
    run("git", "add", "-A", cwd=root)
    run("git", *ident, "commit", "-qm", "sdist", cwd=root)
