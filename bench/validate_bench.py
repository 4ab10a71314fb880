"""Time ``lessons validate`` on a deterministic 1,000-lesson graph in a temp git repo.

Usage: .venv/bin/python bench/validate_bench.py [--lessons N] [--files N] [--runs N]

Prints the median wall time of ``validate()`` (graph load, git ls-files, every check) over
several runs, then the finding counts so a change in behaviour shows up next to the time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from lessons_core.jsonio import dumps
from lessons_core.layout import Layout
from lessons_core.model import Lesson, Triggers
from lessons_core.project import init_project
from lessons_core.validate import validate
from lessons_core.validate.render import summary

SEED = 20261129
MODULES = ["api", "auth", "billing", "cli", "db", "docs", "infra", "search", "ui", "worker"]
SUBS = ["core", "models", "views", "utils", "adapters", "jobs", "schemas", "tests"]
EXTS = [".py", ".ts", ".tsx", ".md", ".json", ".sql", ".yaml"]
VERBS = ["Never", "Always", "Prefer", "Avoid", "Run", "Check", "Keep", "Use", "Pin", "Guard"]
NOUNS = (
    "migration schema fixture token cache retry queue webhook invoice tenant session "
    "cursor snapshot locale timezone decimal serializer middleware router template bundle "
    "sourcemap lockfile dockerfile manifest changelog headers cookie pagination index "
    "transaction rollback checksum payload encoder decoder throttle backoff sandbox"
).split()
TOOLS = ["pnpm", "npm", "uv", "cargo", "docker", "kubectl", "terraform", "alembic", "make"]


def make_repo(root: Path, files: int, rng: random.Random) -> list[str]:
    paths: list[str] = []
    for number in range(files):
        module, sub = rng.choice(MODULES), rng.choice(SUBS)
        paths.append(f"src/{module}/{sub}/f{number}{rng.choice(EXTS)}")
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=b", "commit", "-qm", "init"],
        cwd=root,
        check=True,
    )
    return paths


def make_triggers(rng: random.Random, paths: list[str]) -> Triggers:
    module, sub, ext = rng.choice(MODULES), rng.choice(SUBS), rng.choice(EXTS)
    choice = rng.randrange(6)
    files: tuple[str, ...] = ()
    if choice == 0:
        files = (rng.choice(paths),)
    elif choice == 1:
        files = (f"src/{module}/**",)
    elif choice == 2:
        files = (f"src/{module}/{sub}/*{ext}",)
    elif choice == 3:
        files = (f"src/**/*{ext}", f"src/{module}/{sub}/**")
    elif choice == 4:
        files = (f"src/{module}/legacy{rng.randrange(50)}/**",)  # dead on purpose
    commands = (f"{rng.choice(TOOLS)} {rng.choice(NOUNS)}",) if rng.random() < 0.4 else ()
    keywords = (rng.choice(NOUNS),) if rng.random() < 0.3 or not (files or commands) else ()
    return Triggers(files=files, commands=commands, keywords=keywords)


def make_graph(layout: Layout, count: int, rng: random.Random, paths: list[str]) -> None:
    for number in range(count):
        words = rng.sample(NOUNS, 6)
        rule = (
            f"{rng.choice(VERBS)} the {words[0]} {words[1]} before the {words[2]} "
            f"{words[3]}; {words[4]} {words[5]} breaks otherwise."
        )
        lesson = Lesson(
            id=f"bench-{number:04d}",
            rule=rule,
            topics=(rng.choice(MODULES),),
            triggers=make_triggers(rng, paths),
            created="2026-01-01",
        )
        layout.lesson_path(lesson.id).write_bytes(dumps(lesson.to_dict()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", type=int, default=1000)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = make_repo(root, args.files, rng)
        layout, _ = init_project(root)
        make_graph(layout, args.lessons, rng, paths)
        times: list[float] = []
        for _ in range(args.runs):
            start = time.perf_counter()
            report = validate(layout)
            times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"validate: {args.lessons} lessons, {args.files} files: median {median * 1000:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {args.runs} runs)"
    )
    print("findings:", summary(report))


if __name__ == "__main__":
    main()
