"""A clone of this repository is all there is: no file of it refers to a folder outside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bench.graphs import CORPUS

ROOT = Path(__file__).resolve().parents[1]
# `Path(__file__).resolve().parents[N]` (or `.parent` chains) climbing out of the checkout.
_PARENTS = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.parents\[(\d+)\]")
# Folders a development machine has beside the checkout and a user's clone does not.
ADOPTION = ROOT / "tests" / "fixtures" / "adoption"
_OUTSIDE = re.compile(r"shared/corpus|[\"']shared[\"']\s*/|/work/")


def _tracked_text_files() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    files = [ROOT / name for name in out.decode().split("\0") if name]
    return [path for path in files if path.is_file() and not path.is_relative_to(CORPUS)]


def test_no_file_climbs_out_of_the_checkout_with_parents() -> None:
    """Every ``Path(__file__).parents[N]`` in the repo stays inside the checkout."""
    escapes = []
    for path in _tracked_text_files():
        if path.suffix != ".py":
            continue
        for match in _PARENTS.finditer(path.read_text()):
            target = path.resolve().parents[int(match.group(1))]
            if not target.is_relative_to(ROOT):
                escapes.append(f"{path.relative_to(ROOT)}: parents[{match.group(1)}]")
    assert escapes == []


def test_no_file_names_a_folder_beside_or_above_the_checkout() -> None:
    """No source, script, config or doc refers to a ``shared/`` folder or ``/work/``."""
    hits = []
    for path in _tracked_text_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        # A vendored project's list of tracked paths names its own folders
        # (astro's `src/content/work/`), none of this machine's.
        listed = path.name == "files.txt" and path.is_relative_to(ADOPTION)
        for number, line in enumerate(text.splitlines(), 1):
            if _OUTSIDE.search(line) and path.name != Path(__file__).name and not listed:
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert hits == []


def test_the_corpus_is_kept_in_the_repo_with_its_notice() -> None:
    """Tests and the benchmark read the project's own copy, which carries its licence."""
    assert CORPUS.is_relative_to(ROOT)
    names = {path.name for path in CORPUS.iterdir()}
    assert {"lessons.json", "config.json", "paths.txt", "NOTICE.md", "LICENSE"} <= names
    notice = (CORPUS / "NOTICE.md").read_text()
    assert "sampleXbro" in notice
    assert re.search(r"commit [0-9a-f]{40}", notice)
