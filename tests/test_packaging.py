"""The installed package carries its SQL, and every SQL file documents its contract."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata, resources
from pathlib import Path

import pytest
import runscore
from runscore.engine import sqlpack

REPO = Path(__file__).resolve().parents[1]


def _repo_sql_files() -> list[Path]:
    return sorted(
        p
        for p in (REPO / "sql").rglob("*")
        if p.is_file() and p.suffix in {".sql", ".json", ".csv"}
    )


def test_every_repo_sql_file_is_installed() -> None:
    """A .sql file missing from package data is the classic failure of this design."""
    root = resources.files("runscore.sql")
    missing = []
    for p in _repo_sql_files():
        rel = p.relative_to(REPO / "sql")
        if not (root / str(rel)).is_file():
            missing.append(str(rel))
    assert missing == []


def test_shared_sql_is_installed_for_every_pack_that_calls_it() -> None:
    """The shared SQL (sql/common/vN) is package data like a pack's, loaded by the same
    loader: each pack's pinned common version is installed with every file the repo has,
    and defines every shared macro (``rs_*``) the pack's files call. A common file missing
    from the wheel would break every pack that calls it, on the user's machine only."""
    from runscore.engine.packs import effectiveness, pipeline, plugin, routes

    defined = re.compile(r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(rs_\w+)", re.I)
    pins = {}
    for mod in (effectiveness, pipeline, plugin, routes):
        version = getattr(mod, "COMMON_VERSION", None)
        installed = sqlpack.files(sqlpack.COMMON, version) if version else ()
        in_repo = sorted(p.name for p in (REPO / "sql" / "common" / str(version)).glob("*.sql"))
        assert [f.name for f in installed] == in_repo
        macros = {m.group(1).lower() for f in installed for m in defined.finditer(f.text)}
        called = {
            m.group(1).lower()
            for v in sqlpack.versions(mod.PACK)
            for f in sqlpack.files(mod.PACK, v)
            for m in re.finditer(r"\b(rs_\w+)\s*\(", sqlpack._strip_comments(f.text))
        }
        assert called <= macros, (mod.PACK, sorted(called - macros))
        pins[mod.PACK] = version
    assert pins == {"effectiveness": "v1", "pipeline": "v1", "plugin": "v1", "routes": "v1"}


def test_no_generic_top_level_packages_installed() -> None:
    """Installed files live under runscore/ only (no top-level engine/ or cli/)."""
    files = metadata.files("runscore") or []
    tops = {
        f.parts[0]
        for f in files
        if f.suffix in {".py", ".sql"} and not f.parts[0].startswith("__editable__")
    }
    assert tops <= {"runscore"}, tops


@pytest.mark.parametrize("pack", sqlpack.packs())
def test_sql_headers(pack: str) -> None:
    for version in sqlpack.versions(pack):
        for f in sqlpack.files(pack, version):
            head = sqlpack.header(f)
            assert head, f"{f.ref} has no header comment"
            assert re.search(r"\bread", head, re.I), f"{f.ref} header says not what it reads"
            assert re.search(r"produc|output|creates", head, re.I), (
                f"{f.ref} header says not what it produces"
            )
            assert re.search(r"spec|§", head, re.I), f"{f.ref} header names no spec section"


def test_python_m_runscore_works() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "runscore", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"runscore, version {runscore.__version__}"


def test_engine_never_imports_click_or_jinja() -> None:
    code = (
        "import sys, pkgutil, importlib, runscore.engine, runscore.engine.packs\n"
        "for m in pkgutil.walk_packages(runscore.engine.__path__, 'runscore.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in ('click', 'jinja2') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_license_is_an_spdx_expression() -> None:
    """setuptools refuses the table form of ``project.license`` from 2027-02-18 (its
    deprecation warning says so): a build after that date would fail, and with it the
    README's first command. The SPDX string lands in the metadata as License-Expression."""
    meta = metadata.metadata("runscore")
    assert meta["License-Expression"] == "MIT"


def test_lint_skips_the_build_folder_pip_leaves_outside_a_git_clone(tmp_path: Path) -> None:
    """`pip install .` leaves `build/` (a copy of engine/cli as `build/lib/...`); ruff skips
    it through `.gitignore` only inside a git repository, so in a copy that is none (a zip
    download) README's test command failed at `ruff check .` on files that are not ours to
    lint. pyproject's own exclude list names it."""
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.is_file():
        pytest.skip("ruff is not installed beside this Python")
    (tmp_path / "pyproject.toml").write_bytes((REPO / "pyproject.toml").read_bytes())
    (tmp_path / "build" / "lib").mkdir(parents=True)
    (tmp_path / "build" / "lib" / "copied.py").write_text("import os\n")
    (tmp_path / "ok.py").write_text('"""Nothing to lint."""\n')
    out = subprocess.run(
        [str(ruff), "check", "--no-cache", "."], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
