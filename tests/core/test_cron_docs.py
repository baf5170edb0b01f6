"""docs/core.md: the Cron section's examples run and give what they show, and cover the API."""

import doctest
import re
from pathlib import Path

from sleuth_core import cron

DOC = Path(__file__).resolve().parents[2] / "docs" / "core.md"


def cron_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"^## Cron\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, "docs/core.md has no '## Cron' section"
    return match.group(1)


def test_examples_run():
    test = doctest.DocTestParser().get_doctest(cron_section(), {}, "docs/core.md#Cron", str(DOC), 0)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_every_public_name_is_documented():
    body = cron_section()
    for name in cron.__all__:
        assert f"{name}" in body, name
    for method in ("next_after", "previous_before", "matches", "expression"):
        assert f"CronSchedule.{method}" in body or f"`{method}`" in body, method
