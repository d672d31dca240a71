"""A YAML loader that notes the keys given twice in one mapping.

YAML requires a mapping's keys to be unique; PyYAML keeps the last value without a word
(a second ``check:`` in a team preset dropped the first's members, a second
``description:`` in a SKILL.md replaced the first). Each caller decides what a duplicate
is: an error in a team preset (configuration), a warning in a skill's front matter (the
rest of the evaluation goes on). Both load as ``yaml.safe_load`` does, but for UTF-16
surrogate escapes (``DuplicateKeysLoader.construct_scalar``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

import yaml

#: A UTF-16 surrogate: what a JSON-style escape (``"\\ud83d\\ude00"``) gives PyYAML, one
#: escape at a time; no UTF-8 text can hold one.
_SURROGATE = re.compile("[\ud800-\udfff]")


class DuplicateKeysLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that loads as it does (a key given twice keeps its last value)
    and notes each such key in ``duplicates``, in the order it is constructed: (the key,
    the mark of the second, the 0-based line of the first). Keys a merge (``<<``) brings in
    may be overridden, as YAML allows."""

    def __init__(self, src: str) -> None:
        super().__init__(src)
        self.duplicates: list[tuple[Any, yaml.error.Mark, int]] = []

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Hashable, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, Hashable):
                continue  # the base constructor says "found unhashable key"
            try:
                first = seen.get(key)
                if first is None:
                    seen[key] = key_node.start_mark.line
                    continue
            except TypeError:  # a tuple holding a list: unhashable after all
                continue
            self.duplicates.append((key, key_node.start_mark, first))
        return super().construct_mapping(node, deep)

    def construct_scalar(self, node: yaml.ScalarNode | yaml.MappingNode) -> Any:
        """As PyYAML's, but a pair of surrogate escapes is the one character it stands for,
        as JSON reads it, and a lone one is a YAML error at its scalar: PyYAML kept each
        escape as a surrogate of its own, which no UTF-8 output can write, and a team
        file's ``name: "a\\udb40\\udc41"`` (or a skill's, a routes policy's) ended the
        command in a traceback when its report was written."""
        value = super().construct_scalar(node)
        if isinstance(value, str) and _SURROGATE.search(value):
            # UTF-16 round trip: each whole pair becomes its character, a lone half stays.
            value = value.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
            lone = _SURROGATE.search(value)
            if lone is not None:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"\\u{ord(lone.group(0)):04x} is half of a UTF-16 surrogate pair, no "
                    "character of its own",
                    node.start_mark,
                )
        return value


def load(src: str) -> tuple[Any, yaml.Node | None, list[tuple[Any, yaml.error.Mark, int]]]:
    """``yaml.safe_load(src)`` by the same steps (the same object, the same errors), with
    the document's root node (for the lines of its keys) and the keys given twice, as
    ``DuplicateKeysLoader.duplicates`` notes them."""
    loader = DuplicateKeysLoader(src)
    try:
        root = loader.get_single_node()
        data = None if root is None else loader.construct_document(root)
    finally:
        loader.dispose()
    return data, root, loader.duplicates
