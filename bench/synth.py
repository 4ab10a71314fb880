"""Deterministic synthetic lesson graphs for benchmarks (10k, 50k lessons).

The mix follows what real graphs hold (see the corpus under bench/corpus): mostly exact
paths and folder globs, some extension globs, command patterns and keywords, rules of a
dozen words, over a vocabulary of about 300 nouns. The same ``seed`` and ``count`` always
give the same files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from lessons_core.jsonio import dumps
from lessons_core.store.model import Lesson, Triggers

EXTENSIONS = ("ts", "tsx", "py", "md", "json", "go", "rs", "yaml")
VERBS = ("Never", "Always", "Prefer", "Avoid", "Run", "Check", "Keep", "Use", "Wrap", "Pin")
# About 300 nouns of application code. A real repository of 25,000 files uses thousands
# of distinct words in its paths and rules; with a few dozen, every keyword would match
# a large share of all paths and every prompt term a large share of all rules, which
# no real graph does (lessons validate would call such keywords too broad).
NOUNS = tuple(
    """
    cache schema router ledger tenant webhook quota cursor bucket replica shard fixture
    locale payload session worker migration adapter resolver serializer manifest lockfile
    snapshot registry scheduler throttle checksum encoder parser emitter watcher plugin
    account invoice billing refund coupon catalog product inventory order cart checkout
    shipment carrier warehouse supplier vendor customer profile avatar upload download
    thumbnail image video audio transcript caption subtitle search index query filter
    sorter paginator feed timeline notification email sms push digest template layout theme
    palette font icon sprite widget button modal dialog tooltip dropdown sidebar navbar
    footer header banner carousel gallery chart graph metric gauge counter histogram tracer
    span logger audit alert incident oncall runbook playbook deploy rollout canary release
    tag branch commit merge rebase patch diff hunk blame review approval policy role
    permission grant token secret vault keyring certificate cipher hash signature nonce
    salt password login logout signup onboarding tutorial wizard stepper form field input
    validator sanitizer formatter linter compiler bundler minifier transpiler loader module
    package workspace monorepo toolchain runtime sandbox container volume network ingress
    gateway proxy balancer firewall route endpoint handler middleware controller service
    repository entity model record column table view trigger procedure sequence cluster
    node pod daemon cron job queue topic stream consumer producer broker partition offset
    checkpoint backup restore archive export importer converter mapper reducer selector
    store action effect saga thunk hook context provider portal fragment renderer hydrator
    prefetcher crawler scraper tokenizer lexer grammar ast visitor walker printer diffing
    debounce retry backoff circuit breaker limiter semaphore mutex lock latch barrier pool
    executor future promise callback listener observer subject channel socket websocket
    poller heartbeat ticker clock calendar timezone currency decimal money tax discount
    pricing plan subscription trial license usage meter report dashboard panel insight
    forecast budget expense payroll employee team member invite organization project board
    ticket sprint epic story task
    """.split()
)
TOOLS = ("pnpm", "npm", "git", "cargo", "go", "pytest", "docker", "make", "uv", "kubectl")
SUBCOMMANDS = (
    "test",
    "build",
    "publish",
    "push",
    "release",
    "migrate",
    "deploy",
    "sync",
    "lint",
    "format",
    "install",
    "bench",
    "generate",
    "rebase",
    "prune",
)


@dataclass(frozen=True)
class Synthetic:
    """A generated repo: its file paths and lessons."""

    paths: tuple[str, ...]
    lessons: tuple[Lesson, ...]


def tree(rng: random.Random, size: int) -> list[str]:
    """``size`` file paths in a plausible layout: packages, modules, tests, docs."""
    paths: set[str] = set()
    packages = max(4, size // 400)
    while len(paths) < size:
        top = rng.choice(("src", "packages", "tests", "docs", "scripts", "apps"))
        pkg = f"{rng.choice(NOUNS)}{rng.randrange(packages)}"
        depth = rng.choice((0, 1, 1, 2))
        middle = "/".join(rng.choice(NOUNS) for _ in range(depth))
        name = (
            f"{rng.choice(NOUNS)}-{rng.choice(NOUNS)}{rng.randrange(50)}.{rng.choice(EXTENSIONS)}"
        )
        paths.add("/".join(p for p in (top, pkg, middle, name) if p))
    return sorted(paths)


def _file_glob(rng: random.Random, path: str) -> str:
    parts = path.split("/")
    folder, name = "/".join(parts[:-1]), parts[-1]
    ext = name.rsplit(".", 1)[-1]
    shape = rng.random()
    if shape < 0.40:
        return path
    if shape < 0.50 and len(parts) > 2:
        return f"{'/'.join(parts[:-2])}/*/{name}"
    if shape < 0.65:
        return f"{folder}/*.{ext}"
    if shape < 0.75:
        return f"{parts[0]}/{parts[1]}/**/*.{ext}" if len(parts) > 2 else f"{folder}/*.{ext}"
    if shape < 0.95:
        return f"{folder}/**"
    return f"**/{name.split('-')[0]}*.{ext}"


def _rule(rng: random.Random) -> str:
    words = [rng.choice(VERBS).lower()] + [rng.choice(NOUNS) for _ in range(rng.randint(6, 12))]
    words[0] = words[0].capitalize()
    return " ".join(words) + f" before touching the {rng.choice(NOUNS)} layer."


def generate(count: int, seed: int = 7) -> Synthetic:
    """``count`` lessons over a tree of about ``count / 2`` files."""
    rng = random.Random(seed)
    paths = tree(rng, max(200, count // 2))
    lessons: list[Lesson] = []
    for n in range(count):
        kind = rng.random()
        files: tuple[str, ...] = ()
        commands: tuple[str, ...] = ()
        keywords: tuple[str, ...] = ()
        if kind < 0.70:
            files = (_file_glob(rng, rng.choice(paths)),)
        elif kind < 0.85:
            commands = (f"{rng.choice(TOOLS)} {rng.choice(SUBCOMMANDS)}",)
        else:
            keywords = (f"{rng.choice(NOUNS)} {rng.choice(NOUNS)}",)
        if rng.random() < 0.2:
            keywords += (rng.choice(NOUNS),)
        lessons.append(
            Lesson(
                id=f"synthetic-{n:06d}",
                rule=_rule(rng),
                topics=(f"topic-{rng.randrange(max(1, count // 50))}",),
                triggers=Triggers(files=files, commands=commands, keywords=keywords),
                created=f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            )
        )
    return Synthetic(paths=tuple(paths), lessons=tuple(lessons))


def write_repo(root: Path, synthetic: Synthetic) -> None:
    """Write the lesson files (and an empty config) under ``root/.lessons``."""
    lessons_dir = root / ".lessons" / "lessons"
    lessons_dir.mkdir(parents=True, exist_ok=True)
    (root / ".lessons" / "config.json").write_bytes(b"{}\n")
    for lesson in synthetic.lessons:
        (lessons_dir / f"{lesson.id}.json").write_bytes(dumps(lesson.to_dict()))
