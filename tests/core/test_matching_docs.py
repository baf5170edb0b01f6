"""docs/core.md: the Matching section's examples run and give what they show, and cover the API."""

import doctest
import re
from pathlib import Path

from sleuth_core import matching

DOC = Path(__file__).resolve().parents[2] / "docs" / "core.md"


def matching_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"^## Matching\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, "docs/core.md has no '## Matching' section"
    return match.group(1)


def test_examples_run():
    body = matching_section()
    test = doctest.DocTestParser().get_doctest(body, {}, "docs/core.md#Matching", str(DOC), 0)
    assert len(test.examples) >= 15
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_every_public_name_is_documented():
    body = matching_section()
    for name in matching.__all__:
        assert name in body, name
    for method in (".match(text)", ".add(key, rules)", ".remove(key)", "len()"):
        assert method in body, method
