"""Which files a shell command reads and writes (lessons_core.matching.shell_files): the
commands agents run (Claude Code's Bash, Codex's ``bash -lc``, Copilot's bash), each with
the files it reads and writes, and the parser's bounds on any text."""

from __future__ import annotations

import shlex
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.matching.patch_paths import patch_text_paths
from lessons_core.matching.shell_files import ShellFiles, shell_file_effects
from lessons_core.matching.shell_syntax import MAX_SHELL_CHARS
from tests.security.conftest import fuzz_settings

APPLY_PATCH = """apply_patch <<'EOF'
*** Begin Patch
*** Add File: docs/new.md
+# New
*** Update File: src/app.py
@@ def main():
-    pass
+    run()
*** Delete File: old.txt
*** Update File: src/a.py
*** Move to: src/b.py
*** End Patch
EOF"""

GIT_DIFF = """--- a/src/storage/paths.py
+++ b/src/storage/paths.py
@@ -1,2 +1,2 @@
-x = 1
+x = 2
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-y
"""

# (command, reads, writes)
TABLE: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    # Looks at a file
    ("cat src/app.py", ("src/app.py",), ()),
    ("cat -n 'src/my file.py'", ("src/my file.py",), ()),
    ("sed -n '1,120p' src/storage/paths.py", ("src/storage/paths.py",), ()),
    ("sed -n -e '10,20p' -e '40p' lib/x.rb", ("lib/x.rb",), ()),
    ("nl -ba src/app.py | sed -n '200,260p'", ("src/app.py",), ()),
    ("nl -b a src/app.py", ("src/app.py",), ()),
    ("head -n 50 README.md", ("README.md",), ()),
    ("head -50 README.md", ("README.md",), ()),
    ("tail -n +40 CHANGELOG.md", ("CHANGELOG.md",), ()),
    ("tail -f logs/dev.log", ("logs/dev.log",), ()),
    ("less docs/guide.md", ("docs/guide.md",), ()),
    ("more LICENSE", ("LICENSE",), ()),
    ("bat --style=plain -r 10:40 src/main.rs", ("src/main.rs",), ()),
    ("batcat -l py setup.cfg", ("setup.cfg",), ()),
    ("wc -l src/a.py src/b.py", ("src/a.py", "src/b.py"), ()),
    ("grep -n 'def load' src/store.py", ("src/store.py",), ()),
    ("grep -rn TODO src/ tests/", (), ()),
    ("grep -e foo -e bar -- a.txt", ("a.txt",), ()),
    ("grep -A3 -B 2 'x y' notes.md 2>/dev/null", ("notes.md",), ()),
    ("rg -n 'fn main' crates/cli/src/main.rs", ("crates/cli/src/main.rs",), ()),
    ("rg -n --glob '*.py' 'import re' .", (), ()),
    ("rg -g '*.ts' -t ts useState web/src/app.tsx", ("web/src/app.tsx",), ()),
    ("awk -F, '{print $2}' data/users.csv", ("data/users.csv",), ()),
    ("awk -v n=3 'NR<n' x=1 log.txt", ("log.txt",), ()),
    ("jq . package.json", ("package.json",), ()),
    ("jq -r --arg name x '.scripts[$name]' package.json", ("package.json",), ()),
    ("wc -l < src/app.py", ("src/app.py",), ()),
    ("diff -u old.txt new.txt", ("old.txt", "new.txt"), ()),
    ("cat src/a.py | grep import | head -5", ("src/a.py",), ()),
    ("ls -la src && cat src/app.py", ("src/app.py",), ()),
    # cd moves later relative paths
    ("cd web && cat package.json", ("web/package.json",), ()),
    ("cd /repo/web && cat src/app.ts", ("/repo/web/src/app.ts",), ()),
    ("cd web; cd src && head app.ts", ("web/src/app.ts",), ()),
    ("cd web && cat ../README.md", ("README.md",), ()),
    ("(cd web && cat a.json); cat b.json", ("web/a.json", "b.json"), ()),
    ('cd "$(git rev-parse --show-toplevel)" && cat x.py /etc/hosts', ("/etc/hosts",), ()),
    ("cd - && cat x.py", (), ()),
    ("pushd api >/dev/null && cat main.go && popd", ("api/main.go",), ()),
    ("cd web | cat a.txt; echo x | cd api; cat b.txt", ("a.txt", "b.txt"), ()),
    # Writes: redirections
    ("echo hi > notes.txt", (), ("notes.txt",)),
    ("echo hi >> notes.txt", (), ("notes.txt",)),
    ("make build &> build.log", (), ("build.log",)),
    ("echo x >| out.txt", (), ("out.txt",)),
    ("pytest -q 1> out.txt 2> err.txt", (), ("out.txt", "err.txt")),
    ("npm test 2>/dev/null", (), ()),
    ("npm test > /dev/null 2>&1", (), ()),
    ("echo '>' | grep '>' notes.md", ("notes.md",), ()),
    ("printf '%s\\n' a b>list.txt", (), ("list.txt",)),
    ("cat > src/config.py <<'EOF'\nDEBUG = True\nx = \"it's\"\nEOF", (), ("src/config.py",)),
    (
        "cat <<EOF > docs/notes.md\n# $TITLE\nEOF\ncat docs/notes.md",
        ("docs/notes.md",),
        ("docs/notes.md",),
    ),
    ("cat <<-EOF >a.txt\n\tbody\n\tEOF\necho after > b.txt", (), ("a.txt", "b.txt")),
    ("python - <<'EOF'\nopen('x.txt', 'w').write('y')\nEOF", (), ()),
    ("python3 - <<EOF > result.json\nprint(1)\nEOF", (), ("result.json",)),
    # Writes: programs
    ("echo x | tee -a logs/a.log logs/b.log", (), ("logs/a.log", "logs/b.log")),
    ("sed -i 's/foo/bar/g' src/a.py src/b.py", (), ("src/a.py", "src/b.py")),
    ("sed -i.bak -e 's/a/b/' conf.ini", (), ("conf.ini",)),
    ("sed -i '' 's/a/b/' mac.txt", (), ("mac.txt",)),
    ("sed --in-place -E 's/x/y/' f.txt", (), ("f.txt",)),
    ("sed -Ei 's/x/y/' g.txt", (), ("g.txt",)),
    ("perl -pi -e 's/\\bfoo\\b/bar/g' lib/a.pm lib/b.pm", (), ("lib/a.pm", "lib/b.pm")),
    ("perl -i -pe 's/a/b/' t.txt", (), ("t.txt",)),
    ("perl -ne 'print if /x/' t.txt", (), ()),
    ("cp .env.example .env", (), (".env",)),
    ("cp -r templates/base src/", (), ("src/base",)),
    ("cp a.py b.py dest", (), ("dest/a.py", "dest/b.py")),
    ("cp -t build/ a.js b.js", (), ("build/a.js", "build/b.js")),
    ("mv src/old.py src/new.py", (), ("src/old.py", "src/new.py")),
    ("install -m 755 bin/tool /usr/local/bin/tool", (), ("/usr/local/bin/tool",)),
    ("ln -sf ../common/config.py config.py", (), ("config.py",)),
    ("ln -s ../common/tool.sh", (), ("tool.sh",)),
    ("touch src/__init__.py tests/__init__.py", (), ("src/__init__.py", "tests/__init__.py")),
    ("truncate -s 0 logs/app.log", (), ("logs/app.log",)),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", (), ("disk.img",)),
    ("sort -u -o names.txt names.txt", ("names.txt",), ("names.txt",)),
    ("uniq -c words.txt counts.txt", ("words.txt",), ("counts.txt",)),
    ("curl -fsSL -o vendor/lib.js https://example.com/lib.js", (), ("vendor/lib.js",)),
    ("wget -q -O - https://example.com/x | tar xz", (), ()),
    ("rm -rf build dist/", (), ("build", "dist/")),
    ("rm -f -- -weird.txt", (), ("-weird.txt",)),
    ("git rm --cached secrets.env", (), ("secrets.env",)),
    ("git mv docs/a.md docs/b.md", (), ("docs/a.md", "docs/b.md")),
    ("git checkout -- src/app.py", (), ("src/app.py",)),
    ("git restore --staged src/app.py", (), ("src/app.py",)),
    ("git -C web restore src/x.ts", (), ("web/src/x.ts",)),
    ('git -C "$ROOT" rm x.py', (), ()),
    ("git status && git diff src/app.py", (), ()),
    # Patches
    (APPLY_PATCH, (), ("docs/new.md", "src/app.py", "old.txt", "src/a.py", "src/b.py")),
    ("apply_patch '*** Begin Patch\n*** Update File: x.py\n*** End Patch'", (), ("x.py",)),
    (f"git apply <<'EOF'\n{GIT_DIFF}EOF", (), ("src/storage/paths.py", "gone.py")),
    (f"git apply --check - <<'EOF'\n{GIT_DIFF}EOF", (), ()),
    (f"patch -p1 <<'EOF'\n{GIT_DIFF}EOF", (), ("src/storage/paths.py", "gone.py")),
    (f"cat <<'EOF' | patch -p0\n{GIT_DIFF}EOF", (), ("b/src/storage/paths.py", "a/gone.py")),
    (
        f"cd web && git apply -p1 <<'EOF'\n{GIT_DIFF}EOF",
        (),
        ("web/src/storage/paths.py", "web/gone.py"),
    ),
    ("patch -p1 < fix.diff", (), ()),
    ("patch src/app.py fix.diff", (), ("src/app.py",)),
    ("git apply fix.diff", (), ()),
    # Wrappers, shells, compounds
    ("bash -lc 'cd web && sed -n 1,40p src/app.ts'", ("web/src/app.ts",), ()),
    # Codex's ["bash", "-lc", SCRIPT] as one command line (shlex.join)
    (
        shlex.join(["bash", "-lc", "sed -n '1,20p' \"src/it's.py\" && echo ok > done.txt"]),
        ("src/it's.py",),
        ("done.txt",),
    ),
    ('bash -lc "echo ok > /tmp/out.txt"', (), ("/tmp/out.txt",)),
    ("/bin/bash -o pipefail -c 'cat a.txt | tee b.txt'", ("a.txt",), ("b.txt",)),
    ("cd api && bash -c 'cat main.go'", ("api/main.go",), ()),
    ("sudo tee /etc/hosts < hosts.new", (), ("/etc/hosts",)),
    ("FOO=1 env BAR=2 timeout 10 cat x.py", ("x.py",), ()),
    ("if [ -f a.py ]; then cat a.py; fi", ("a.py",), ()),
    ('for f in src/*.py; do cat "$f"; done', (), ()),
    ("cat $HOME/.bashrc ~/notes.txt", (), ()),
    ("echo $(cat version.txt) > out.txt", (), ("out.txt",)),
    ("git commit -m \"$(cat <<'EOF'\nFix the > in paths\nEOF\n)\"", (), ()),
    ("npm run build || echo failed >> errors.log", (), ("errors.log",)),
    ("ls\ncat a.txt # and b.txt > c.txt\ncat d.txt", ("a.txt", "d.txt"), ()),
    ("cat a \\\n  b.txt", ("a", "b.txt"), ()),
    ("python manage.py migrate", (), ()),
    ("pytest -x tests/test_app.py", (), ()),
]


@pytest.mark.parametrize(("command", "reads", "writes"), TABLE)
def test_the_files_a_command_reads_and_writes(
    command: str, reads: tuple[str, ...], writes: tuple[str, ...]
) -> None:
    effects = shell_file_effects(command)
    assert ShellFiles(effects.reads, effects.writes) == ShellFiles(reads=reads, writes=writes)


def test_the_table_covers_sixty_commands_and_more() -> None:
    assert len(TABLE) >= 60


def test_unified_diff_paths_follow_the_strip_count() -> None:
    assert patch_text_paths(GIT_DIFF, 1) == ["src/storage/paths.py", "gone.py"]
    assert patch_text_paths(GIT_DIFF, 2) == ["storage/paths.py"]
    assert patch_text_paths("+++ b/x.py\t2024-01-01 10:00\n") == ["x.py"]


@fuzz_settings(400)
@given(st.text(alphabet=st.sampled_from(list("ab /.-'\"\\$()`<>|&;#\n\t=*{}ie")), max_size=80))
def test_any_shell_like_text_is_read_without_an_exception(text: str) -> None:
    found = shell_file_effects(text)
    assert all(isinstance(path, str) and path for path in (*found.reads, *found.writes))


@fuzz_settings(200)
@given(st.text(max_size=200))
def test_any_text_at_all_is_read_without_an_exception(text: str) -> None:
    shell_file_effects(text)


@pytest.mark.parametrize(
    "command",
    [
        "cat a.txt '" + "x" * 300_000,  # an unterminated quote
        'echo "' + "\\x" * 200_000,
        "cat <<EOF > out.txt\n" + "line\n" * 100_000,  # a body that never ends
        "(" * 100_000 + "cat a.txt",
        "$(" * 50_000,
        "a " * 200_000,
        "`" * 100_001,
        "cat x | " * 30_000,
        "cd a && " * 30_000 + "cat b",
    ],
)
def test_huge_or_malformed_commands_take_bounded_time(command: str) -> None:
    """The bound is on this process's own CPU time: a busy machine (a CI runner with two
    test workers and coverage on) stretches the wall clock, not the work done."""
    start = time.process_time()
    shell_file_effects(command)
    assert time.process_time() - start < 1.0


def test_only_the_head_of_a_huge_command_is_read() -> None:
    command = "cat a.txt; " + " " * MAX_SHELL_CHARS + "cat b.txt"
    assert shell_file_effects(command).reads == ("a.txt",)


@pytest.mark.parametrize(
    ("command", "added"),
    [
        ("cat > a.py <<'EOF'\nx = 1\nEOF", (("a.py", "x = 1\n"),)),
        ("cd web && cat <<EOF >> x.ts\nfoo\nEOF", (("web/x.ts", "foo\n"),)),
        ('echo "a b" > a.txt', (("a.txt", "a b"),)),
        ("cat <<EOF | tee a.py b.py\nhi\nEOF", (("a.py", "hi\n"), ("b.py", "hi\n"))),
        ("tee a.py <<< 'one'", (("a.py", "one"),)),
        ('bash -lc "printf hi > z.txt"', (("z.txt", "hi"),)),
        ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n"
         "*** End Patch\nEOF", (("a.py", "b"),)),
        ("git -C sub apply <<EOF\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+bb\nEOF", (("sub/x", "bb"),)),
        # What the shell computes, or a program prints, is not known before it runs.
        ("python - <<EOF > out.py\nprint(1)\nEOF", ()),
        ("echo $(cat version.txt) > out.txt", ()),
        ("cat a.py > b.py", ()),
        ("sed -i 's/a/b/' a.py", ()),
    ],
)  # fmt: skip
def test_the_literal_text_a_command_writes_into_a_file(
    command: str, added: tuple[tuple[str, str], ...]
) -> None:
    assert shell_file_effects(command).added == added
