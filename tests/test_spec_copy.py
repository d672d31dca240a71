"""docs/spec/ is a copy of the contract (../shared/spec/) so that a clone of this
repository alone can follow the README's "spec §N" references. The copy must not
drift: where the shared folder is present (the development workspace), every file
must be byte-equal to its original. A clean clone has no ../shared, so there the
test is skipped and the copy is what the README points to.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_spec_copy_matches_the_contract(shared_dir: Path | None) -> None:
    shared = shared_dir
    if shared is None:
        pytest.skip("no ../shared/spec here (a standalone clone): nothing to compare against")
    original = sorted(p.name for p in (shared / "spec").glob("*.md"))
    copy = sorted(p.name for p in (REPO / "docs" / "spec").glob("*.md"))
    assert copy == original
    for name in original:
        assert (REPO / "docs" / "spec" / name).read_bytes() == (
            shared / "spec" / name
        ).read_bytes(), f"docs/spec/{name} differs from the contract: copy it again"


def test_readme_points_at_the_copy() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "../shared/spec" not in readme
    assert "docs/spec/" in readme
    assert (REPO / "docs" / "spec" / "README.md").is_file()
