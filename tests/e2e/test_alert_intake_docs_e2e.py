"""docs/alert-intake.md: its shell examples, run as written against ``sleuth serve``.

Every ```sh block of the guide is joined into one bash script (``set -euo pipefail``) and run from
the sample-delivery folder with ``sleuth`` on the ``PATH``; each ``curl`` must get its 202, and
the answers must be those the guide describes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_harness import ROOT, free_port, serve, sleuth_env

pytestmark = pytest.mark.e2e

GUIDE = ROOT / "docs" / "alert-intake.md"


def _fixtures_dir() -> Path:
    """The sample deliveries the guide tells users to run from (shipped in the repository)."""
    return ROOT / "examples" / "alert-payloads"


def test_the_guides_examples_run_as_written(tmp_path: Path) -> None:
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 8  # the prelude and one per provider
    script = "set -euo pipefail\n" + "\n".join(blocks)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = sleuth_env(
        f"sqlite:///{tmp_path / 'sleuth.db'}",
        SLEUTH_PUBLIC_URL=base,
        SLEUTH_WORKERS_INLINE="false",
    )
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # `sleuth serve` needs an existing database: the first organization creates it.
    subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", "create-org", "Ops"],
        env=env,
        capture_output=True,
        check=True,
        timeout=120,
    )
    with serve(env, tmp_path / "serve.log", port=port):
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=_fixtures_dir(),
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    counts = [len(answer["investigation_ids"]) for answer in answers]
    # PagerDuty triggered, Opsgenie Create, Opsgenie Close (recorded only), FireHydrant, Rootly,
    # Alertmanager's group of two and Grafana's group of three (each group's alerts share one
    # investigation: same agent, same group key), a generic body
    assert counts == [1, 1, 0, 1, 1, 1, 1, 1]
    assert [len(answer["alerts"]) for answer in answers] == [1, 1, 1, 1, 1, 2, 3, 1]
    for group in answers[5:7]:
        assert {tuple(a["investigation_ids"]) for a in group["alerts"]} == {
            tuple(group["investigation_ids"])
        }
    assert answers[-1]["alerts"][0]["title"] == "Disk almost full on db-1"
