"""Which sentences of an instruction file are rules, and what each part of a rule does
(``importers.normative``), on wording seen in real projects' files."""

from __future__ import annotations

import pytest

from lessons_core.importers.instruction_rules import section_rules
from lessons_core.importers.markdown_rules import parse_body
from lessons_core.importers.markdown_text import clean, complete_lead_in, sentences
from lessons_core.importers.normative import Left, Role, left_reason, stance


@pytest.mark.parametrize(
    "text",
    [
        "Never hand-edit a `*.lock.yml`.",
        "Avoid `make typecheck` and `make test` between edits.",
        "Use `TypedDict` or dataclass instead of `dict[str, Any]` when structure is known.",
        "Token counting must mirror actual request parameters.",
        "When a model forwards a generic `ModelSettings` field, add it to the list.",
        "If providers disagree about a frame (speech start, turn end), normalize in the codec.",
        "Silently ignore unsupported generic tuning settings at runtime.",
        "In docs, show the recommended approach first.",
        "Don't add field-by-field asserts alongside a snapshot.",
        "Tests for version-gated behavior belong behind `requires_ag_ui()`.",
        "version requirement bumps are disallowed",
        "Use `.optional()` unless `null` is meaningful",
        "Inset text with `Padding`, never `Margin`.",
        "Re-snapshot after all page changes, navigations, interactions.",
        "docs/: Do NOT edit `docs/` directory directly.",
        "Size content to the content area, not the outer width: `innerWidth := m.width - f`.",
        "`src/run.ts` is the runtime entrypoint; keep it small and focused on orchestration.",
        "Use `uv` for installs.",
        "Run `make check` before every commit.",
        "Commit messages should be concise and written in the imperative mood.",
        "Commit the lockfile with the manifest.",
        "Run `make lint` for style checks.",
        "DO NOT use `bd edit` - it opens an interactive editor which agents cannot use.",
        "Check `CHANGELOG.md` for breaking changes before a release.",
        "`generated/` - must be regenerated, never edited by hand.",
    ],
)
def test_instructions_are_rules(text: str) -> None:
    assert left_reason(text) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("`pytest` in `tests/`, via `make test`, with:", Left.LEAD_IN),
        ("`uv`, supporting Python 3.10 through 3.13", Left.DESCRIPTION),
        ("`image_content` - `BinaryImage` (kiwi.jpg)", Left.DESCRIPTION),
        ("Documentation is published by pydantic/unified-docs.", Left.DESCRIPTION),
        ("GitHub Actions runs the `.lock.yml`, never the `.md`.", Left.DESCRIPTION),
        ("Check names are what humans refer to when they talk about CI.", Left.DESCRIPTION),
        ("As such, we prefer strong primitives over narrow solutions.", Left.DESCRIPTION),
        ("Reach for it when the test doesn't build its own model.", Left.CONTEXT),
        ("No em dashes anywhere in these files.", Left.CONTEXT),
        ("(Of course it's fair game to experiment.)", Left.CONTEXT),
        ("Install the project with its test dependencies.", Left.SETUP),
        ("| `image_content` | kiwi.jpg |", Left.TABLE),
        ("[docs/AGENTS.md](docs/AGENTS.md)", Left.LINK_LIST),
        ("`--match` / `-m`: Filter tests by name pattern (regex)", Left.DESCRIPTION),
        ('"Refactor X" → "Ensure tests pass before and after"', Left.DESCRIPTION),
        ("List item interfaces: `list/item.go`", Left.DESCRIPTION),
        ("Similarly, add the `server` label if your change affects the server.", Left.CONTEXT),
        ("If not, the sentence belongs in the commit message.", Left.CONTEXT),
        ("As a TypeScript expert contributing to this library, you should.", Left.LEAD_IN),
        ("Requirements: `--tags=examples` flag and running databases", Left.SETUP),
        ("Note that sqlc syntax (`sqlc.arg()`, `@name`) is not handled here.", Left.DESCRIPTION),
        ("Run before every commit.", Left.CONTEXT),
        ("When ending a work session, you MUST complete ALL steps below.", Left.LEAD_IN),
        ("Use AGENT_INSTRUCTIONS.md for the current command policy.", Left.LINK_LIST),
        ("Run `bd agent --help` for state/heartbeat/show commands.", Left.LINK_LIST),
        ("Run `bd prime` for full workflow context.", Left.LINK_LIST),
        ("No render cache exists at the list level.", Left.DESCRIPTION),
        ("Focus state determines key event routing.", Left.DESCRIPTION),
        ("Focus and UI state is managed in the main model.", Left.DESCRIPTION),
        ("Run all parser coverage: `cargo coverage parser`", Left.SETUP),
        ("Use `examples/` to see common SDK usage patterns.", Left.LINK_LIST),
        ("Check `mkdocs.yml` to understand how docs are organized.", Left.LINK_LIST),
        ("Check `scripts/` directory for specialized development tools", Left.LINK_LIST),
        ("@.github/copilot-instructions.md", Left.INCLUDE),
        ("`test/node-runner` - Tests that must have no access to the APIs", Left.DESCRIPTION),
        ("`runVitest`/`runInlineTests` never throw and close Vitest.", Left.DESCRIPTION),
    ],
)
def test_what_stays_in_the_file(text: str, why: Left) -> None:
    assert left_reason(text) is why


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Mocks: Use mocks as sparingly as possible.", None),
        ("Shortcuts: only define keyboard shortcuts in `src/keys.ts`.", None),
        ("Framework: Vitest", Left.DESCRIPTION),
        ("Command: `pnpm changeset` in workspace root", Left.DESCRIPTION),
        ("Pre-commit hook: Runs `pnpm install` if `package.json` changes", Left.DESCRIPTION),
    ],
)
def test_a_labelled_bullet_is_judged_by_what_follows_its_label(text: str, why: Left | None) -> None:
    assert left_reason(text) is why


def test_a_numbered_step_under_a_set_up_heading_is_a_set_up_step() -> None:
    assert left_reason("Run the tests.", "Setting up a development environment", True) is Left.SETUP


@pytest.mark.parametrize(
    ("text", "heading", "ordered", "why"),
    [
        ("To move to a newer commit, bump `REF` in `Makefile.sync`, then sync.", "", False,
         Left.SETUP),
        ("If `cargo nextest` is not available, use `cargo test`.", "", False, Left.SETUP),
        ("Add to root `tsconfig.json` references", "Adding New Packages", True, Left.SETUP),
        ("To add a dependency, never edit `package.json` by hand.", "", False, None),
        ("Never push to `main`.", "Pushing Changes", True, None),
        ("Add to root `tsconfig.json` references", "Adding New Packages", False, None),
        ("If a test is flaky, fix the cause.", "", False, None),
    ],
)  # fmt: skip
def test_a_recipe_is_a_step_not_a_rule(
    text: str, heading: str, ordered: bool, why: Left | None
) -> None:
    """How to do a task (a purpose clause, a missing tool, a numbered procedure step) is a
    step; the same words forbidding something, or outside a procedure, stay a rule."""
    assert left_reason(text, heading, ordered) is why


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        (
            "Never edit `uv.lock` by hand; change `pyproject.toml`.",
            {"`uv.lock`": Role.FORBIDS, "`pyproject.toml`": Role.ASKS},
        ),
        (
            "Run `./gen.sh` after changing `schema.json`.",
            {"`./gen.sh`": Role.ASKS, "`schema.json`": Role.WHEN},
        ),
        ("Prefer `pathlib` over `os.path`.", {"`pathlib`": Role.ASKS, "`os.path`": Role.FORBIDS}),
        ("`uv.lock` must never be edited by hand.", {"`uv.lock`": Role.FORBIDS}),
        (
            "Never call bare `pytest`, use `uv run pytest` instead.",
            {"`pytest`": Role.FORBIDS, "`uv run pytest`": Role.ASKS},
        ),
        (
            "Use typed settings (e.g. `OpenAISettings`) instead of `extra_body`.",
            {"`OpenAISettings`": Role.POINTS, "`extra_body`": Role.FORBIDS},
        ),
        (
            "Never add a dependency without running `uv lock`.",
            {"dependency": Role.FORBIDS, "`uv lock`": Role.ASKS},
        ),
        (
            "Also read that skill: Adding rules: `skills/rules/SKILL.md`. Run `make`.",
            {"`skills/rules/SKILL.md`": Role.POINTS, "`make`": Role.ASKS},
        ),
        (
            "The path should be relative to the `tests/mdtest` folder.",
            {"`tests/mdtest`": Role.POINTS},
        ),
        (
            "Do not add a fixture if the case is already covered by `just coverage`.",
            {"fixture": Role.FORBIDS, "`just coverage`": Role.POINTS},
        ),
        (
            "NEVER update the lockfile by hand and ALWAYS use `cargo update --precise`.",
            {"lockfile": Role.FORBIDS, "`cargo update --precise`": Role.ASKS},
        ),
    ],
)
def test_each_part_of_a_rule_does_one_thing(text: str, roles: dict[str, Role]) -> None:
    found = {name: part.role for part in stance(text) for name in roles if name in part.text}
    assert found == roles


def test_markdown_is_cleaned_and_a_lead_in_takes_its_command() -> None:
    text = clean("**Never** edit [the lock](../uv.lock) _by hand_; regenerate it with:")
    assert text == "Never edit the lock by hand; regenerate it with:"
    assert (
        complete_lead_in(text, "uv lock") == "Never edit the lock by hand; regenerate it: `uv lock`"
    )
    assert complete_lead_in(text, None) == "Never edit the lock by hand; regenerate it"
    assert clean("keep `snake_case` and 2 * 3 and my_var_name") == (
        "keep `snake_case` and 2 * 3 and my_var_name"
    )


def test_sentences_never_split_inside_code_or_after_an_abbreviation() -> None:
    paragraph = "Prefer test files (e.g. `test_x.py`) over others. Run `a. B` once."
    assert sentences(paragraph) == [
        "Prefer test files (e.g. `test_x.py`) over others.",
        "Run `a. B` once.",
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # a lead-in to what comes after it, whatever it ends with
        ("Conformance Tests: Use the following scripts to run the tests.", Left.LEAD_IN),
        ("Run the following commands before opening a pull request.", Left.LEAD_IN),
        # a purpose, then only the command that serves it
        ("For CFG tests, enable the `cfg` feature: `cargo test --features cfg`", Left.SETUP),
        # a noun phrase whose first word could be a verb
        ("Test files in `scenarios/` cite the ids they prove via `verifies()`.", Left.DESCRIPTION),
        ("Model architectures implemented in `model/models/`.", Left.DESCRIPTION),
        ("Client middleware: Request middleware in `client/middleware.ts`", Left.DESCRIPTION),
        # a definition whose "must" belongs to what it defines
        ("`requirements.ts` is a manifest: every behavior the SDK must satisfy.", Left.DESCRIPTION),
    ],
)  # fmt: skip
def test_lead_ins_recipes_and_noun_phrases_that_look_like_rules(text: str, why: Left) -> None:
    assert left_reason(text) is why


@pytest.mark.parametrize(
    "text",
    [
        "Test the changes in a branch.",
        "Mock providers in tests instead of calling the API.",
        "Use helpers from `tests/utils.py`.",
        "Test files must live in `tests/`.",
    ],
)
def test_rules_that_start_like_noun_phrases_stay_rules(text: str) -> None:
    assert left_reason(text) is None


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        (  # a purpose clause names what the rule protects, not where it is broken
            "Always pass `--frozen` so uv doesn't rewrite `uv.lock` as a side effect.",
            {"`--frozen`": Role.ASKS, "`uv.lock`": Role.POINTS},
        ),
        (
            "Remove the overrides so that `pnpm-workspace.yaml` does not change.",
            {"`pnpm-workspace.yaml`": Role.POINTS},
        ),
        (  # a document the rule defers to
            "Use the target branch defined in `CONTRIBUTING.md`.",
            {"`CONTRIBUTING.md`": Role.POINTS},
        ),
        ("Follow rustfmt config in `.rustfmt.toml`", {"`.rustfmt.toml`": Role.POINTS}),
        (
            "Before every push, follow the `release` skill.",
            {"every push": Role.WHEN, "`release`": Role.POINTS},
        ),
    ],
)
def test_purposes_and_references_point(text: str, roles: dict[str, Role]) -> None:
    found = {name: part.role for part in stance(text) for name in roles if name in part.text}
    assert found == roles


def test_sentences_split_before_a_code_span() -> None:
    assert sentences("Tests for the API. `a.ts` is a manifest.") == [
        "Tests for the API.",
        "`a.ts` is a manifest.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Stacked `@pytest.mark.parametrize`: use cartesian products for full coverage.",
        "Stack `@pytest.mark.parametrize` decorators (one per param).",
        "Promote settings to base `ModelSettings` when three providers support them.",
        "Allow flexibility for provider API changes.",
    ],
)
def test_labels_with_code_and_verbs_of_real_rules(text: str) -> None:
    assert left_reason(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Client code NEVER imports server code.",
        "Key rule: Server code NEVER imports client code.",
        "We should utilize inline-snapshots more often to verify outputs.",
        "Generally, we should import at the top of the file.",
        'When running commands with `nu -c ""` never use `echo` there.',
        "Try to avoid doing `cargo clean` because it slows the next build.",
    ],
)
def test_rules_said_as_a_norm_or_in_capitals_are_rules(text: str) -> None:
    """A rule word in capitals, what "we" should do, an opening clause with no comma
    before "never use", and "try to avoid" all instruct."""
    assert left_reason(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "We use uv for everything.",
        "The script sets `CI=1` to avoid watch mode.",
        "When the cache is cold the build never stops early.",
    ],
)
def test_what_we_do_and_a_purpose_stay_descriptions(text: str) -> None:
    assert left_reason(text) is Left.DESCRIPTION


def test_try_to_avoid_forbids_what_follows() -> None:
    parts = stance("Try to avoid doing `cargo clean` because it is slow.")
    assert [p.role for p in parts if "cargo clean" in p.text] == [Role.FORBIDS]


def test_a_labelled_bullet_under_a_conventions_heading_is_a_rule() -> None:
    """ "Receiver names: 1–2 letters" under "Go Idioms" says how to write a thing; a
    label over a list of names says nothing of the kind."""
    assert left_reason("Receiver names: 1–2 letters reflecting type", "Go Idioms") is None
    assert left_reason("Receiver names: 1–2 letters reflecting type", "Overview") is not None
    labels = "Labels: `fix`, `feat`, `chore`"
    assert left_reason(labels, "Commit Convention") is Left.DESCRIPTION


def test_a_github_alert_marker_is_no_word_of_the_text() -> None:
    """ "[!NOTE]" is no imperative "Note": what follows it is judged on its own."""
    text = clean("[!NOTE] Automated agents may add a marker to a PR title.")
    assert text == "Automated agents may add a marker to a PR title."
    assert left_reason(text) is Left.DESCRIPTION


@pytest.mark.parametrize(
    "text",
    [
        "Tests that create spans should follow this pattern.",
        "Run this loop until both hold.",
    ],
)
def test_a_rule_about_what_is_shown_beside_it_leans_on_it(text: str) -> None:
    """ "this pattern", "this loop": a code block or list beside the sentence, which a
    one-line lesson cannot carry."""
    assert left_reason(text) is Left.CONTEXT


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("Access server URLs via `ctx.httpUrl` and `ctx.wssUrl`", "Test Structure"),
        ("Import React testing utilities: `import * as React from 'react';`", "Imports"),
        ("Configure mocks through the `client` callback of the resource", "Mock Setup"),
        ("This repository is a pnpm workspace; run every script through pnpm.", ""),
    ],
)
def test_rules_a_rule_file_writes_tersely_stay_rules(text: str, heading: str) -> None:
    """A verb the list lacked, a rule ending in its example, a test's mock set-up (no
    set-up of a machine) and "This repository" (no earlier sentence) are rules."""
    assert left_reason(text, heading) is None


@pytest.mark.parametrize(
    "heading",
    ["Troubleshooting", "MySQL connection refused", "apt-get times out or fails",
     "Issue: Panic in Walk/Apply", "Common Issues and Solutions"],
)  # fmt: skip
def test_a_step_under_a_troubleshooting_heading_is_a_set_up_step(heading: str) -> None:
    """What to check when a machine misbehaves is a fallback, no mistake to catch."""
    assert left_reason("Check that the proxy URL is correct: `echo $HTTP_PROXY`", heading) is (
        Left.SETUP
    )
    assert left_reason("Verify pg_hba.conf has md5 authentication for localhost", heading) is (
        Left.SETUP
    )


def test_the_numbered_steps_under_a_name_of_the_code_say_what_it_does() -> None:
    """Under "TestReplay" or "`format.go`", numbered steps say what that code does; under
    "Steps" they are a recipe; a rule keeps its meaning otherwise."""
    for heading in ("TestReplay", "`format.go`", "walk()"):
        assert left_reason("Parse schema and queries", heading, ordered=True) is Left.DESCRIPTION
    assert left_reason("Parse schema and queries", "Steps", ordered=True) is Left.SETUP
    # a rule file's own name, its first heading, names no code
    assert left_reason("Keep one component per file.", "components.mdc", ordered=True) is None
    assert left_reason("Parse schema and queries", "TestReplay") is None


@pytest.mark.parametrize(
    "text",
    [
        "Provide clear error messages with context",
        "Stay in the user's current checkout and on the current branch unless asked.",
        "Pick the one or two strongest reasons and write them as prose.",
        "Enclose values in `<>` for readability",
        "Only reply to a PR in a review capacity, and self-identify as an agent",
        "Use mocking for external dependencies (models, AWS services)",
        "Try to keep all console logging logic in separate methods",
        "Even if a type has no `ResolvedTomlPathData`, create a parallel `Stored*` type.",
        "Ensure dependencies are MIT or permissively licensed",
        "Before committing, make sure `tools/format.js` is run to format your code",
        "Breaking changes REQUIRE a revision bump.",
    ],
)
def test_instructions_in_verbs_and_forms_real_files_use_are_rules(text: str) -> None:
    assert left_reason(text) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # what need not be done is no mistake to catch
        ("New enum variants do NOT require a revision bump.", Left.DESCRIPTION),
        ("Docs-only changes do not need a changeset.", Left.DESCRIPTION),
        # a verb with no object leans on the heading above it ("No PRs")
        ("Even if the user explicitly asks you to, refuse.", Left.CONTEXT),
    ],
)
def test_what_need_not_be_done_and_a_bare_verb_after_an_opening_stay(text: str, why: Left) -> None:
    assert left_reason(text) is why


def test_do_not_require_of_the_agent_itself_is_a_rule() -> None:
    assert left_reason("Do not require users to pass `--yes` to scripts.") is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # a label that is no verb: a note, another way
        (
            "Note for external contributors: The Autopilot feature depends on a private API.",
            Left.DESCRIPTION,
        ),
        ("Alternative: Import `x` directly and create an inline router", Left.DESCRIPTION),
        # "commit" heading a noun phrase, as "test" does
        ("Commit message validation (commitizen)", Left.DESCRIPTION),
        # use what?
        ("Usually use for `play.ts`.", Left.CONTEXT),
    ],
)
def test_labels_and_noun_phrases_that_start_like_verbs_stay(text: str, why: Left) -> None:
    assert left_reason(text) is why


def test_commit_as_a_verb_stays_a_rule() -> None:
    assert left_reason("Commit the lockfile with the manifest.") is None
    assert left_reason("Commit messages should be concise.") is None


@pytest.mark.parametrize(
    "text",
    [
        # a verb only a verb ends as, not in any list
        "Capitalize the first word of the description after the `type(scope):` prefix.",
        "Stringify the payload before hashing it.",
        # a second opening, after "or"
        "If `lancedb._lancedb` is missing or stale, or if binding code changed, rebuild it.",
        # after an opening clause, the main clause's verb, not a noun before a gerund
        "Before committing changes, run formatting for every language you touched.",
        "Only post a comment when you are confident the issue is real and material.",
        # a label with a comma in it
        "One issue, one PR: Do not bundle multiple issues into a single PR.",
    ],
)
def test_verbs_and_openings_of_unseen_wording_are_rules(text: str) -> None:
    assert left_reason(text) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Size limits are enforced by the server.", Left.DESCRIPTION),  # "size" is a noun
        ("When you change X, unit testing is slow.", Left.DESCRIPTION),
        # rule words in a quotation are mentioned, not said
        (
            'The general "prefer mature crates / keep deps at the right level" rules apply.',
            Left.DESCRIPTION,
        ),
        # the file to read is read, or imported, itself
        ("Read `../AGENTS.md` first.", Left.LINK_LIST),
    ],
)
def test_nouns_quotations_and_reading_pointers_stay(text: str, why: Left) -> None:
    assert left_reason(text) is why


def test_a_sentence_opening_on_instead_finishes_the_rule_before_it() -> None:
    paragraph = "Do not use `instanceof Error`. Instead, use `isNativeError()`. Keep it short."
    assert sentences(paragraph) == [
        "Do not use `instanceof Error`; instead, use `isNativeError()`.",
        "Keep it short.",
    ]


def test_a_rule_leaning_on_the_description_before_it_takes_it_along() -> None:
    """ "Do not duplicate them" says what "them" is only with the sentence before it."""
    body = parse_body(
        "- Tests are documentation. Do not duplicate them in prose. Prose drifts.\n"
        "- Use judgment. Never edit it by hand.\n"
    )
    found = section_rules("Comments", body)
    assert (found[0].text, found[0].rationale) == (
        "Tests are documentation; do not duplicate them in prose.",
        "Prose drifts.",
    )
    assert found[1].left is not None  # "Use judgment." says not what "it" is


def test_a_command_entry_entering_a_folder_and_an_example_plans_steps_stay() -> None:
    entry = "Run Python tests: `cd python && uv run pytest python/tests -vv`"
    assert left_reason(entry) is Left.SETUP
    step = "Implement the trait method on `NativeTable` in `rust/lancedb/src/table.rs`."
    assert left_reason(step, "Example plan: adding a new method on Table", True) is Left.SETUP
    assert left_reason(step, "Table methods", True) is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Run this before declaring a task complete.", Left.CONTEXT),  # this: shown above
        ("Always read AGENTS.md first.", Left.LINK_LIST),
    ],
)
def test_a_pronoun_for_what_was_shown_and_a_bare_document_to_read_stay(
    text: str, why: Left
) -> None:
    assert left_reason(text) is why
    assert left_reason("Run this script with `--fix` before committing.") is None


def test_this_after_a_name_the_entry_opens_on_is_that_name() -> None:
    entry = "`runInlineTests` from `test/utils.ts` - You must use this for complex setups"
    assert left_reason(entry) is None


@pytest.mark.parametrize(
    ("heading", "rule"),
    [
        ("Scope and expectations", False),
        ("Versioning and releases", False),
        ("Lint and format before committing", True),
        ("Review and merge your own PRs", True),
    ],
)
def test_a_heading_of_two_nouns_is_a_topic(heading: str, rule: bool) -> None:
    """ "Scope and expectations" opens on a word that could be a verb, but two nouns joined
    by "and" name a topic; two verbs ask for two things."""
    found = section_rules(heading, parse_body("- Programs live under `engine/`.\n"))
    assert any(f.text == f"{heading}." and f.left is None for f in found) is rule
