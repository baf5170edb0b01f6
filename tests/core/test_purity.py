"""The core stays pure: it imports and works with the shell's I/O modules blocked."""

import subprocess
import sys
import textwrap
from pathlib import Path

CORE_SRC = Path(__file__).resolve().parents[2] / "core" / "src"
BLOCKED = ["litestar", "sqlalchemy", "aiosqlite", "httpx", "sqlite3", "asyncio", "sleuth_shell"]

SCRIPT = textwrap.dedent(
    """
    import importlib, importlib.abc, pkgutil, sys

    BLOCKED = set(sys.argv[1].split(","))

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"sleuth_core must not import {name}")
            return None

    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.meta_path.insert(0, Blocker())

    import sleuth_core
    modules = [m.name for m in pkgutil.walk_packages(sleuth_core.__path__, "sleuth_core.")]
    for name in modules:
        importlib.import_module(name)

    from sleuth_core.ids import decode_global_id, encode_global_id
    assert decode_global_id(encode_global_id("Team", 5), "Team") == 5
    leaked = sorted(n for n in sys.modules if n.split(".")[0] in BLOCKED)
    assert not leaked, leaked
    print("ok", len(modules))
    """
)


def test_core_imports_with_io_modules_blocked():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(BLOCKED)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(CORE_SRC)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok ")


def test_blocker_really_blocks():
    """The harness itself fails when a blocked module is imported."""
    script = SCRIPT.replace("import sleuth_core\n", "import sleuth_core\nimport httpx\n", 1)
    result = subprocess.run(
        [sys.executable, "-c", script, ",".join(BLOCKED)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(CORE_SRC)},
        check=False,
    )
    assert result.returncode != 0
    assert "must not import httpx" in result.stderr
