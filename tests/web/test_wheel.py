"""Everything a page needs ships in the wheel: templates, the stylesheet and the live log's script."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "scratchpad_mcp" / "web"

pytestmark = pytest.mark.slow


def test_the_wheel_holds_every_template_and_static_file(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH; the wheel is built with `uv build --wheel`")
    subprocess.run([uv, "build", "--wheel", "-q", "-o", str(tmp_path)], cwd=ROOT, check=True, timeout=300)
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    needed = {
        f"scratchpad_mcp/web/{path.relative_to(WEB).as_posix()}"
        for folder in ("templates", "static")
        for path in (WEB / folder).iterdir()
    }
    assert len(needed) >= 12
    assert needed <= names, needed - names
