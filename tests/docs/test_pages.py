"""The Python examples of the hand-written pages run, as the README's did before they moved."""

from __future__ import annotations

import re

import pytest

from tests.docs.site import ROOT

PAGES_WITH_EXAMPLES = ("getting_started.md", "batched.md")
"""The pages whose every ```python block is a whole example (others show fragments)."""


def examples() -> list[tuple[str, str]]:
    found = []
    for name in PAGES_WITH_EXAMPLES:
        text = (ROOT / "docs" / name).read_text()
        found += [(name, code) for code in re.findall(r"```python\n(.+?)\n```", text, re.DOTALL)]
    return found


@pytest.mark.parametrize(
    ("page", "example"), examples(), ids=lambda value: value.splitlines()[0][:40]
)
def test_the_examples_of_the_pages_run(page: str, example: str) -> None:
    namespace: dict = {}
    if "np." in example and "import numpy" not in example:
        exec("import numpy as np\nimport snail_envs", namespace)
    exec(example, namespace)
