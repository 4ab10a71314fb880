"""File paths from apply_patch text (Codex CLI edits)."""

from __future__ import annotations

from lessons_cli.harnesses.codex_patches import is_patch, patch_added, patch_paths

PATCH = """*** Begin Patch
*** Update File: src/app.py
*** Move to: src/main.py
@@ def f():
-    return 1
+    return 2
*** Add File: docs/new.md
+hello
*** Delete File: old.txt
*** Update File: src/app.py
*** End Patch
"""


def test_every_header_path_in_order_without_repeats() -> None:
    """Add, Update, Delete and Move-to headers each name a path, listed once, in order."""
    assert patch_paths(PATCH) == ["src/app.py", "src/main.py", "docs/new.md", "old.txt"]


def test_patch_lines_that_look_like_headers_inside_hunks_are_not_paths() -> None:
    """A changed line that mentions a header is a '+' or '-' line, not a header."""
    text = "*** Begin Patch\n*** Update File: a.py\n+*** Add File: not/a/path.py\n*** End Patch\n"
    assert patch_paths(text) == ["a.py"]


def test_is_patch_recognises_the_begin_marker() -> None:
    """Text is a patch when it carries the Begin Patch marker."""
    assert is_patch(PATCH)
    assert not is_patch("git push origin main")


def test_the_added_lines_go_to_the_files_they_are_added_to() -> None:
    """Each section's + lines, to its file and the file it moves to; a deleted file and
    removed lines gain nothing; a unified diff's + lines go to its +++ file."""
    assert patch_added(PATCH) == [
        ("src/app.py", "    return 2"),
        ("src/main.py", "    return 2"),
        ("docs/new.md", "hello"),
    ]
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n--- a/y.py\n+++ /dev/null\n"
    assert patch_added(diff) == [("x.py", "new\nmore")]
