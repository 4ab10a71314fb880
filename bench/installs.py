"""The two ways ``lessons`` is installed, each with its own ``python -c pass`` baseline.

- ``editable``: this checkout's ``.venv`` (``pip install -e .``). An editable install adds
  an import hook (a ``.pth`` file) that every Python start in that venv runs, importing
  ``pathlib``, ``re``, ``importlib.util`` and more (~8 ms), so ``python -c pass`` there is
  slower and already holds modules the hook needs: ratios look better than they are.
- ``regular``: a plain venv whose ``sys.path`` lists the source tree and the dependencies
  (a ``.pth`` file of plain paths, which runs nothing) and the same console script, as a
  regular ``pip install`` gives: Python starts bare, and the hook pays for every import.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Install:
    name: str
    python: str
    lessons: str  # the console script


def editable() -> Install:
    """The interpreter running the benchmark, and its ``lessons`` script."""
    script = Path(sys.executable).parent / "lessons"
    if not script.is_file():
        raise SystemExit(f"no lessons console script beside {sys.executable}; run scripts/test")
    return Install("editable", sys.executable, str(script))


def regular(folder: Path) -> Install:
    """A plain venv in ``folder`` that imports this source tree without an import hook."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    dependencies = sysconfig.get_paths()["purelib"]
    Path(purelib, "lessons-bench.pth").write_text(f"{REPO}\n{dependencies}\n")
    script = folder / "bin" / "lessons"
    _shebang, body = Path(editable().lessons).read_text().split("\n", 1)
    script.write_text(f"#!{python}\n{body}")
    script.chmod(0o755)
    return Install("regular", str(python), str(script))
