"""The README's tour and every example in docs/core.md run as written."""

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("name", "at_least"), [("README.md", 8), ("docs/core.md", 60)])
def test_examples_run(name, at_least):
    result = doctest.testfile(
        str(ROOT / name), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.failed == 0
    assert result.attempted >= at_least
