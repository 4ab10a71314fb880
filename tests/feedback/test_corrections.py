"""Correction cues in a user's prompt: what counts, what must not, in several languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lessons_core.feedback import corrections
from lessons_core.feedback.corrections import MAX_SCANNED_CHARS, find_correction

REPO = Path(__file__).resolve().parents[2]


def cues(prompt: str) -> tuple[str, ...]:
    found = find_correction(prompt)
    return found.cues if found else ()


@pytest.mark.parametrize(
    ("prompt", "cue"),
    [
        ("No, use the staging config.", "no"),
        ("no. the tests live in tests/unit", "no"),
        ("nope", "no"),
        ("No no no, revert that", "no"),
        ("Don't touch the generated files", "don't"),
        ("please do not run migrations locally", "don't"),
        ("ok, don't push to main", "don't"),
        ("Never run that against prod", "never"),
        ("Always use pnpm in this repo", "always"),
        ("stop, that's the vendored copy", "stop"),
        ("Stop editing the lockfile by hand", "stop"),
        ("undo that change", "undo"),
        ("use the wrapper script instead", "instead"),
        ("Good, but don't parse it by hand, use json instead", "instead"),
        ("Next time run make instead of calling gcc yourself", "instead"),
        ("That's the wrong file", "wrong"),
        ("You should have read the README first", "should have"),
        ("you shouldn't edit dist/", "you shouldn't"),
        ("That's not what I asked for", "not what I asked"),
        ("I told you to use make", "not what I asked"),
    ],
)
def test_english_corrections_are_found(prompt: str, cue: str) -> None:
    """Negations and imperatives aimed at what the agent did count, with their cue."""
    assert cue in cues(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "now add always-on support",
        "no rush, add tests",
        "No need to hurry, just add the tests",
        "no worries, carry on with the docs",
        "I have never seen this error before, can you look?",
        "What's wrong with the build?",
        "something went wrong in CI, please check the logs",
        "Don't worry about the docs yet",
        "never mind, continue",
        "Add a no-op handler for SIGHUP",
        "Stop the dev server and start it again",
        "The parser should handle nested lists",
        "Please add a section on installation",
        "Run the tests and fix what fails",
        "I don't know why it fails on CI",
        "Is there no config for this?",
        "Good. Next, keep the entries in a dict instead of a list.",
        "Thanks! Let's read the file once instead of twice",
        "Add a `never` keyword to the grammar",
        "```\nnever = True\n```\nexplain this snippet",
        "/compact",
        "",
        "   ",
        # German, French, Spanish, Russian, Chinese ordinary requests
        "Bitte füge Tests hinzu",
        "Es geht immer noch nicht",
        "Ajoute des tests, pas de souci pour le délai",
        "Je ne sais pas pourquoi ça échoue",
        "No hay prisa, añade los tests",
        "Не знаю, почему падает сборка",
        "请修复这个错误",
        "他和别人的代码有区别",
        "不用急，先加测试",
    ],
)
def test_ordinary_prompts_are_no_corrections(prompt: str) -> None:
    """Prompts that merely hold a cue-like word, or none, are not corrections."""
    assert cues(prompt) == ()


@pytest.mark.parametrize(
    ("prompt", "cue"),
    [
        ("Nein, nimm die Staging-Konfiguration", "nein"),
        ("Nicht die generierten Dateien ändern!", "nicht"),
        ("Niemals gegen die Produktion ausführen", "nie"),
        ("Benutze stattdessen pnpm", "stattdessen"),
        ("Das ist falsch", "falsch"),
        ("Du hättest zuerst die Tests laufen lassen sollen", "hättest ... sollen"),
        ("Non, utilise la config de staging", "non"),
        ("Ne touche pas aux fichiers générés", "ne ... pas"),
        ("N'utilise jamais npm ici", "ne ... pas"),
        ("Jamais sur la prod", "jamais"),
        ("Utilise pnpm au lieu de npm", "au lieu de"),
        ("Tu aurais dû lancer les tests", "aurais dû"),
        ("No, usa la configuración de staging", "no"),
        ("No toques los archivos generados", "no ..."),
        ("Nunca ejecutes eso en producción", "nunca"),
        ("Usa pnpm en lugar de npm", "en lugar de"),
        ("Deberías haber leído el README", "deberías haber"),
        ("Não, use o pnpm", "não"),
        ("Não mexa nos arquivos gerados", "não"),
        ("Use pnpm em vez de npm", "em vez de"),
        ("Está errado", "errado"),
        ("Нет, используй staging", "нет"),
        ("Не трогай сгенерированные файлы", "не ..."),
        ("Никогда не запускай это на проде", "никогда"),
        ("Используй pnpm вместо npm", "вместо"),
        ("不要修改生成的文件", "不要"),
        ("别用npm，用pnpm", "不要"),
        ("不对，应该用pnpm", "不对"),
        ("生成されたファイルを編集しないでください", "ないで"),
        ("npmではなくpnpmを使って", "ではなく"),
        ("違う、そのファイルじゃない", "違う"),
        ("npm 말고 pnpm을 써", "하지 마"),
    ],
)
def test_corrections_in_other_languages_are_found(prompt: str, cue: str) -> None:
    """German, French, Spanish, Portuguese, Russian, Chinese, Japanese and Korean cues."""
    assert cue in cues(prompt)


def test_the_excerpt_is_the_sentence_holding_the_first_cue() -> None:
    """A long prompt quotes only the sentence with the correction, on one line."""
    found = find_correction("Thanks for the patch.\nNo, use the\nstaging config. Then rerun.")
    assert found is not None
    assert found.excerpt == "No, use the"
    found = find_correction("Looks fine. But never push to main. Go on.")
    assert found is not None
    assert found.excerpt == "But never push to main."


def test_several_cues_are_all_reported() -> None:
    """Every kind of cue in the prompt is named once."""
    assert cues("No, that's wrong: use pnpm instead") == ("no", "instead", "wrong")


def test_only_the_head_of_a_long_prompt_is_read() -> None:
    """A cue past the scanned length, as in pasted output, is not a correction."""
    padding = "Here is the log of the failing run. " * (MAX_SCANNED_CHARS // 30)
    assert cues(padding + "\nnever mind: it was wrong") == ()
    assert cues("Never commit dist/. " + padding) == ("never",)


def test_typographic_apostrophes_count_like_plain_ones() -> None:
    """Don’t with a typographic apostrophe is don't."""
    assert cues("Don’t edit the lockfile") == ("don't",)


def test_the_excerpt_is_cut_to_a_bounded_length() -> None:
    """A sentence without an end is cut with an ellipsis."""
    found = find_correction("never " + "x" * 500)
    assert found is not None
    assert len(found.excerpt) <= 160
    assert found.excerpt.endswith("…")


def test_a_dot_inside_a_file_name_does_not_end_the_excerpt() -> None:
    """ "src/app.py" stays whole in the quoted sentence."""
    found = find_correction("No, don't edit src/app.py by hand; the generator writes it.")
    assert found is not None
    assert found.excerpt == "No, don't edit src/app.py by hand; the generator writes it."


def _every_prompt_here() -> list[str]:
    """Every prompt the parametrized tests above use, corrections and ordinary ones."""
    prompts: list[str] = []
    for test in (
        test_english_corrections_are_found,
        test_ordinary_prompts_are_no_corrections,
        test_corrections_in_other_languages_are_found,
    ):
        for mark in getattr(test, "pytestmark", []):
            for case in mark.args[1]:
                prompts.append(case[0] if isinstance(case, tuple) else case)
    return prompts


def test_a_cue_pattern_matches_only_text_holding_one_of_its_anchors() -> None:
    """The anchors let a prompt skip patterns it cannot match; that holds only if every
    match of a pattern, lowercased, holds one of its cue's anchors."""
    prompts = _every_prompt_here()
    assert len(prompts) > 80
    for prompt in prompts:
        text = corrections._scanned(prompt)
        for cue, anchors, source in corrections._CUES:
            for found in re.finditer(source, text, re.I | re.M):
                assert any(anchor in found.group().lower() for anchor in anchors), (cue, prompt)
