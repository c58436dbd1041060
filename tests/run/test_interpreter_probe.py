"""The interpreter probe reads distributions without importlib.metadata (whose email parsing
is most of the probe's cost): its fingerprint must be the one importlib.metadata gives."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from truegreen.run.interpreter import resolve

_REFERENCE = r"""
import hashlib
from importlib import metadata
pairs = [((d.metadata["Name"] or "?").lower(), d.version) for d in metadata.distributions()]
dists = sorted({"%s==%s" % kv for kv in pairs})
print(hashlib.sha256("\n".join(dists).encode()).hexdigest())
print("\n".join(dists))
"""


def _reference(python: Path, cwd: Path) -> tuple[list[str], str]:
    """importlib.metadata's distributions in ``python``, and the fingerprint of them."""
    done = subprocess.run(
        [str(python), "-I", "-c", _REFERENCE], capture_output=True, text=True, cwd=cwd, check=True
    )
    digest, *dists = done.stdout.splitlines()
    assert hashlib.sha256("\n".join(dists).encode()).hexdigest() == digest
    return dists, digest


def _fake_site(root: Path) -> Path:
    site = root / "site"
    (site / "Demo_Pkg-1.2.dist-info").mkdir(parents=True)
    (site / "Demo_Pkg-1.2.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\r\nName: Demo-Pkg\r\nVersion: 1.2\r\nSummary: x\r\n\r\nName: body\n"
    )
    (site / "old.egg-info").mkdir()
    (site / "old.egg-info" / "PKG-INFO").write_text(
        "Metadata-Version: 1.0\nname: Old\nversion: 0.1\n"
    )
    (site / "single-2.0.egg-info").write_text("Metadata-Version: 1.1\nName: single\nVersion: 2.0\n")
    (site / "broken-0.dist-info").mkdir()  # no METADATA: "?==None", as importlib.metadata says
    return site


def test_the_probe_fingerprint_matches_importlib_metadata(tmp_path: Path) -> None:
    interp = resolve(sys.executable, tmp_path)
    dists, digest = _reference(Path(sys.executable), tmp_path)
    assert any(d.startswith("pytest==") for d in dists)
    assert interp.distributions_sha256 == digest


def test_dist_info_egg_info_and_missing_metadata_read_as_importlib_reads_them(
    tmp_path: Path,
) -> None:
    site = _fake_site(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
        check=True,
    )
    python = venv / "bin" / "python"
    lib = next((venv / "lib").glob("python3*")) / "site-packages"
    (lib / "extra.pth").write_text(str(site) + "\n")
    interp = resolve(str(python), tmp_path)
    dists, digest = _reference(python, tmp_path)
    # importlib.metadata saw the fake site's four entries, and the probe agrees with it
    assert {"demo-pkg==1.2", "old==0.1", "single==2.0", "?==None"} <= set(dists)
    assert interp.distributions_sha256 == digest


def test_a_path_through_dot_dot_is_kept_without_it_and_a_venvs_link_unresolved(
    tmp_path: Path, monkeypatch
) -> None:
    """``--python ../venv/bin/python`` named a directory the sandbox did not show the tests
    (it binds the interpreter's real directories): the run could not start (exit 127).
    The directory is resolved; the interpreter's own symlink (a venv's python) is kept."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    link = tmp_path / "venv" / "bin" / "python"
    link.symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path / "proj")
    found = resolve("../venv/bin/python", tmp_path / "proj")
    assert found.path == tmp_path.resolve() / "venv" / "bin" / "python"
    assert ".." not in found.path.parts
