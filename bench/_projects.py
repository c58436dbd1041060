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
