"""The two ways ``lessons`` is installed, each with its own ``python -c pass`` baseline.

- ``editable``: this checkout's ``.venv`` (``pip install -e .``). An editable install adds
  an import hook (a ``.pth`` file) that every Python start in that venv runs, importing
  ``pathlib``, ``re``, ``importlib.util`` and more (~8 ms), so ``python -c pass`` there is
  slower and already holds modules the hook needs: ratios look better than they are.
- ``regular``: a plain venv with ``lessons`` installed by pip from a wheel built from this
  source tree (not editable), its dependencies beside it in the same site-packages, as
  ``pip install lessons`` into a venv leaves them: the launcher starts Python without
  site and finds every module on the bare path, and the hook pays for every import.

``linked`` is a quicker stand-in for tests that need an install at a path of its own: a
plain venv whose ``sys.path`` lists this source tree and the dependencies through a
``.pth`` file of plain paths. Without site (the launcher's ``-S``) such a ``.pth`` is not
read, so a dependency costs that install site's setup, as an editable install's does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
# What a wheel is built from: the packaging files and the packages, nothing else.
_SOURCES = ("pyproject.toml", "README.md", "lessons_core", "cli")


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


def linked(folder: Path) -> Install:
    """A plain venv in ``folder`` that imports this source tree without an import hook."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = _purelib(python)
    dependencies = sysconfig.get_paths()["purelib"]
    # The checkout holds lessons_core, its cli/ folder lessons_cli.
    Path(purelib, "lessons-bench.pth").write_text(f"{REPO}\n{REPO / 'cli'}\n{dependencies}\n")
    script = folder / "bin" / "lessons"
    _shebang, body = Path(editable().lessons).read_text().split("\n", 1)
    script.write_text(f"#!{python}\n{body}")
    script.chmod(0o755)
    return Install("linked", str(python), str(script))


def regular(folder: Path) -> Install:
    """A plain venv in ``folder`` with ``lessons`` pip-installed from a wheel of this tree.

    The wheel is built from a copy of the sources (a build writes ``build/`` beside what it
    builds). pip installs it as it would from an index, bytecode compiled; the
    dependencies are not downloaded: the installed files of each (the distributions
    ``lessons`` requires, and theirs) are linked from the benchmark's own site-packages
    into the new one, where pip would have put them.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    source = folder / "source"
    source.mkdir()
    for name in _SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(
                REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(REPO / name, source / name)
    wheels = folder / "wheels"
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    # The build backend comes as pip always brings it, in an isolated build environment.
    build = [*pip, "wheel", "--no-deps", "-w", str(wheels)]
    subprocess.run([*build, str(source)], check=True, capture_output=True)
    wheel = next(wheels.glob("lessons-*.whl"))
    install = [*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)]
    # Run where nothing on the path passes for an installed lessons (this checkout's
    # egg-info would make pip skip the install as already done).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(install, check=True, capture_output=True, cwd=folder, env=env)
    purelib = _purelib(python)
    for entry in _dependency_entries():
        target = Path(purelib, entry.name)
        if not target.exists():
            target.symlink_to(entry, target_is_directory=entry.is_dir())
    return Install("regular", str(python), str(folder / "bin" / "lessons"))


def _purelib(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _dependency_entries() -> set[Path]:
    """The top-level site-packages entries (packages, modules, extensions, metadata) of
    every distribution ``lessons`` needs here, found from the installed metadata."""
    entries: set[Path] = set()
    seen: set[str] = set()
    pending = list(metadata.requires("lessons") or [])
    while pending:
        requirement = Requirement(pending.pop())
        name = requirement.name.lower().replace("_", "-")
        if name in seen or (requirement.marker and not requirement.marker.evaluate()):
            continue
        seen.add(name)
        dist = metadata.distribution(requirement.name)
        site = Path(str(dist.locate_file("")))
        for file in dist.files or ():
            top = file.parts[0]
            if top not in ("..", "__pycache__") and not top.endswith(".pth"):
                entries.add(site / top)
        pending += [r for r in dist.requires or () if "extra ==" not in r]
    return entries
