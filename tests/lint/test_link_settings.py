"""SW001 under the `[lint.links]` settings that say how a site serves pages: URLs that ignore
case (Hugo, learn.microsoft.com), a translation that falls back to another language's page
(Starlight), and `lint --explain-links`, which shows what each setting found."""

from __future__ import annotations

from pathlib import Path

from tests.support import Invoke, write
from tests.support.links import CONFIG
from tests.support.links import ingest as _ingest
from tests.support.links import sw001 as _sw001

HUGO_CONFIG = '[lint.links]\nroot = "content/en"\ndirectories = true\n'
HUGO_PAGE = """# Functions

[quoted](/functions/css/quoted/) and [its part](/functions/css/quoted/#options),
[the diagram](diagram.png), [the sass page](sass.md) and [gone](/functions/css/gone/).
"""


def test_case_insensitive_finds_a_page_that_differs_only_by_case(ws: Path, invoke: Invoke) -> None:
    """Hugo lower-cases its URLs: /functions/css/quoted/ serves functions/css/Quoted.md. A
    page, a file that is no article (Diagram.PNG) and a relative link are found with
    `case_insensitive`; the anchor is still checked, as written; gone stays broken."""
    write(ws / "content" / "en" / "functions" / "css" / "Quoted.md", "# Quoted\n\n## Options\n")
    write(ws / "content" / "en" / "functions" / "css" / "Sass.md", "# Sass\n")
    write(ws / "content" / "en" / "functions" / "css" / "index.md", HUGO_PAGE)
    write(ws / "content" / "en" / "functions" / "css" / "Diagram.PNG", b"\x89PNG\x00")
    _ingest(ws, invoke, "content")
    write(ws / CONFIG, HUGO_CONFIG)
    assert [f["target"] for f in _sw001(ws, invoke)] == [
        "/functions/css/quoted/",
        "/functions/css/quoted/#options",
        "diagram.png",
        "sass.md",
        "/functions/css/gone/",
    ]
    write(ws / CONFIG, HUGO_CONFIG + "case_insensitive = true\n")
    assert [f["target"] for f in _sw001(ws, invoke)] == ["/functions/css/gone/"]
    write(ws / "content" / "en" / "functions" / "css" / "Quoted.md", "# Quoted\n\n## Other\n")
    _ingest(ws, invoke, "content")
    assert [f["target"] for f in _sw001(ws, invoke)] == [
        "/functions/css/quoted/#options",
        "/functions/css/gone/",
    ]


STARLIGHT_CONFIG = """[lint.links]
root = "src/content/docs"
directories = true
languages = ["de", "fr"]
fallback = "en"
"""
GERMAN_PAGE = """# Start

[Anleitung](/de/guides/setup/), [relativ](guides/setup/), [übersetzt](/de/guides/deploy/),
[fehlt](/de/guides/missing/) und [englisch](/en/guides/missing/).
"""


def test_a_translation_falls_back_to_the_fallback_language_s_page(ws: Path, invoke: Invoke) -> None:
    """Starlight shows the English page where the German one is missing: /de/guides/setup/
    is served from src/content/docs/en/guides/setup.mdx. A page missing in both languages
    stays broken, and so does one missing in the fallback language."""
    docs = ws / "src" / "content" / "docs"
    write(docs / "en" / "guides" / "setup.mdx", "# Setup\n")
    write(docs / "en" / "guides" / "deploy.mdx", "# Deploy\n")
    write(docs / "de" / "guides" / "deploy.mdx", "# Deploy\n")
    write(docs / "de" / "index.mdx", GERMAN_PAGE)
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, STARLIGHT_CONFIG.replace('languages = ["de", "fr"]\n', ""))
    assert [f["target"] for f in _sw001(ws, invoke)] == [
        "/de/guides/setup/",
        "guides/setup/",
        "/de/guides/missing/",
        "/en/guides/missing/",
    ]
    write(ws / CONFIG, STARLIGHT_CONFIG)
    assert [f["target"] for f in _sw001(ws, invoke)] == [
        "/de/guides/missing/",
        "/en/guides/missing/",
    ]


def test_a_root_locale_falls_back_to_the_root_itself(ws: Path, invoke: Invoke) -> None:
    """With the default language at the root (Starlight's root locale, `fallback = ""`),
    /fr/guide/ falls back to docs/guide.md."""
    write(ws / "docs" / "guide.md", "# Guide\n")
    write(ws / "docs" / "fr" / "index.md", "# Accueil\n\n[guide](/fr/guide/) [non](/fr/non/)\n")
    _ingest(ws, invoke, "docs")
    settings = '[lint.links]\nroot = "docs"\ndirectories = true\nlanguages = ["fr"]\n'
    write(ws / CONFIG, settings)
    assert [f["target"] for f in _sw001(ws, invoke)] == ["/fr/non/"]


def test_languages_and_fallback_must_be_folder_names(ws: Path, invoke: Invoke) -> None:
    """A language is a folder under root, one name; the fallback is no language of the list."""
    write(ws / CONFIG, '[lint.links]\nlanguages = ["de/ch"]\n')
    result = invoke("lint", "-w", str(ws))
    assert result.exit_code == 2
    assert "lint.links.languages" in result.output
    assert "must be folder names under root, not 'de/ch'" in result.output
    write(ws / CONFIG, '[lint.links]\nlanguages = ["de", "en"]\nfallback = "en"\n')
    result = invoke("lint", "-w", str(ws))
    assert result.exit_code == 2
    assert "'en' is also in lint.links.languages" in result.output


def test_explain_links_shows_what_each_setting_found(ws: Path, invoke: Invoke) -> None:
    """For a broken link, --explain-links names where the path starts, each setting's look and
    what it found, a setting left off among them: here switching on case_insensitive would
    find the page. The JSON report on stdout is unchanged; the explanation goes to stderr."""
    write(ws / "content" / "en" / "functions" / "Quoted.md", "# Quoted\n")
    write(ws / "content" / "en" / "page.md", "# Page\n\n[quoted](/functions/quoted/)\n")
    _ingest(ws, invoke, "content")
    write(ws / CONFIG, HUGO_CONFIG)
    result = invoke("lint", "-w", str(ws), "--explain-links")
    assert result.exit_code == 1
    explained = result.stdout.split("error(s)", 1)[1].splitlines()
    assert explained[2:] == [
        ".wiki/raw/content/en/page.md:6: /functions/quoted/",
        "  from root 'content/en': content/en/functions/quoted",
        "    as written: content/en/functions/quoted: nothing",
        "    directories: content/en/functions/quoted.md (and 11 more): nothing",
        "    case_insensitive: content/en/functions/quoted (and 12 more): found "
        "content/en/functions/Quoted.md; case_insensitive = true would use it",
    ]
    plain = invoke("lint", "-w", str(ws), "--format", "json")
    result = invoke("lint", "-w", str(ws), "--format", "json", "--explain-links")
    assert result.stdout == plain.stdout
    assert "case_insensitive = true would use it" in result.stderr


ALL_SETTINGS = """# All settings

baseURL
: (`string`) The absolute URL of the published site.

`defaultContentLanguage`
: (`string`) The project's default language key.

Intro
: Two terms of one text are numbered until new.

Intro
: The second.
"""


def test_term_anchors_give_definition_terms_ids_as_hugo_does(ws: Path, invoke: Invoke) -> None:
    """Hugo's docs turn on goldmark's `parser.autoDefinitionTermID`: a definition term gets an
    id as a heading does, and pages link to it (`/configuration/all/#baseurl`)."""
    write(ws / "content/en/configuration/all.md", ALL_SETTINGS)
    links = (
        "# Guide\n\n[b](../configuration/all.md#baseurl) "
        "[d](../configuration/all.md#defaultcontentlanguage) "
        "[i](../configuration/all.md#intro-1) [x](../configuration/all.md#nope)\n"
    )
    write(ws / "content/en/guide/guide.md", links)
    _ingest(ws, invoke, "content")
    every = ["#baseurl", "#defaultcontentlanguage", "#intro-1", "#nope"]
    assert [f["target"].split("all.md")[1] for f in _sw001(ws, invoke)] == every
    write(ws / CONFIG, "[lint.links]\nterm_anchors = true\n")
    assert [f["target"].split("all.md")[1] for f in _sw001(ws, invoke)] == ["#nope"]
