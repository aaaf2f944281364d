"""Markdown as documentation projects write it: each defect seen on real trees, as a test.

Each test ingests the Markdown shown into a fresh workspace, compiles it and lints it, and
checks what a reader of the article and of `lint --format json` would see.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support import Invoke


def _ingest(ws: Path, invoke: Invoke, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = ws / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert result.exit_code == 0, result.output


def _article(ws: Path, name: str) -> str:
    return (ws / ".wiki" / "wiki" / "docs" / name).read_text(encoding="utf-8")


def _raw_line(ws: Path, name: str, text: str) -> int:
    raw = (ws / ".wiki" / "raw" / "docs" / name).read_text(encoding="utf-8")
    return raw[: raw.index(text)].count("\n") + 1


def _sw001(ws: Path, invoke: Invoke) -> list[dict[str, Any]]:
    result = invoke("lint", "-w", str(ws), "--format", "json")
    findings = json.loads(result.stdout)["findings"]
    return [finding for finding in findings if finding["rule"] == "SW001"]


def _broken_anchors(ws: Path, invoke: Invoke, target: str, anchors: list[str]) -> list[str]:
    """Ingest `target` and a page linking to each anchor of it; the anchors SW001 flags."""
    links = "# Links\n\n" + "".join(f"[{anchor}](target.md#{anchor})\n" for anchor in anchors)
    _ingest(ws, invoke, {"target.md": target, "links.md": links})
    return [f["target"].removeprefix("target.md#") for f in _sw001(ws, invoke)]


def test_template_in_a_destination_is_not_a_link(ws: Path, invoke: Invoke) -> None:
    text = "# Changes\n\nFixed [#6339]({{ site.repository }}/issues/6339) today.\n"
    _ingest(ws, invoke, {"a.md": text})
    assert "[#6339]({{ site.repository }}/issues/6339)" in _article(ws, "a.md")
    assert _sw001(ws, invoke) == []


def test_a_footnote_is_not_a_reference_definition(ws: Path, invoke: Invoke) -> None:
    text = "# Notes\n\nIt changed.[^1]\n\n[^1]: The change was reverted later.\n"
    _ingest(ws, invoke, {"a.md": text})
    assert "[^1]: The change was reverted later." in _article(ws, "a.md")
    assert _sw001(ws, invoke) == []


def test_toml_tables_and_link_text_in_brackets_are_not_wikilinks(ws: Path, invoke: Invoke) -> None:
    shortcode = (
        "{{< code-toggle file=hugo >}}\n[[menus.main]]\nname = 'Home'\n{{< /code-toggle >}}\n"
    )
    toml = "+++\ntitle = 'Menus'\n[[cascade]]\ntype = 'docs'\n+++\n"
    _ingest(
        ws,
        invoke,
        {
            "menus.md": toml + "\n" + shortcode + "\nSee [[1]](other.md) and [[No Such Page]].\n",
            "other.md": "# Other\n",
        },
    )
    findings = _sw001(ws, invoke)
    assert [f["message"] for f in findings] == [
        "broken wikilink [[No Such Page]]: no article has that title or path"
    ]
    line = _raw_line(ws, "menus.md", "No Such Page")
    assert findings[0]["source"] == {"path": ".wiki/raw/docs/menus.md", "line": line}


def test_html_at_a_paragraph_start_does_not_hide_links(ws: Path, invoke: Invoke) -> None:
    text = (
        "# Page\n\n<span>Inline HTML</span> then [a](missing-a.md).\n\n"
        "<!-- a comment -->\n[b](missing-b.md)\n\n```\n[not a link](code.md)\n```\n\n"
        "<!--\n\n[hidden](hidden.md)\n\n-->\n\n<pre>\n\n[in pre](pre.md)\n\n</pre>\n\n"
        "[c](missing-c.md)\n"
    )
    _ingest(ws, invoke, {"a.md": text})
    assert [f["target"] for f in _sw001(ws, invoke)] == [
        "missing-a.md",
        "missing-b.md",
        "missing-c.md",
    ]


def test_links_and_images_wrapped_over_lines_are_checked_and_rewritten(
    ws: Path, invoke: Invoke
) -> None:
    (ws / "img").mkdir()
    (ws / "img" / "a.png").write_bytes(b"\x89PNG")
    text = "# Page\n\n[to a missing\npage](missing.md) and ![a\ndiagram](../img/a.png)\n"
    _ingest(ws, invoke, {"a.md": text})
    assert "![a\ndiagram](../../../img/a.png)" in _article(ws, "a.md")
    assert [(f["target"], f["source"]["line"]) for f in _sw001(ws, invoke)] == [
        ("missing.md", _raw_line(ws, "a.md", "missing.md"))
    ]


def test_angle_destinations_and_nested_parentheses_survive(ws: Path, invoke: Invoke) -> None:
    (ws / "img").mkdir()
    (ws / "img" / "my logo.png").write_bytes(b"\x89PNG")
    (ws / "foo(and(bar))").write_bytes(b"x")
    text = "# Page\n\n![logo][logo] and [f](../foo(and(bar))).\n\n[logo]: <../img/my logo.png>\n"
    _ingest(ws, invoke, {"a.md": text})
    article = _article(ws, "a.md")
    assert "[logo]: <../../../img/my logo.png>" in article
    assert "[f](<../../../foo(and(bar))>)" in article
    assert _sw001(ws, invoke) == []


def test_toml_frontmatter_yaml_closed_by_dots_and_a_leading_rule(ws: Path, invoke: Invoke) -> None:
    _ingest(
        ws,
        invoke,
        {
            "toml.md": "+++\ntitle = 'From TOML'\ndate = 2024-01-02\n+++\n\nThe body.\n",
            "dots.md": "---\ntitle: From YAML\n...\n\nDots close it.\n",
            "rule.md": "---\n\n# A Rule First\n\nThen text.\n",
        },
    )
    toml = _article(ws, "toml.md")
    assert "title: From TOML\n" in toml and "date: 2024-01-02\n" in toml
    assert "summary: The body.\n" in toml and "+++" not in toml
    assert "title: From YAML\n" in _article(ws, "dots.md")
    rule = _article(ws, "rule.md")
    assert "title: A Rule First\n" in rule and "summary: Then text.\n" in rule


def test_headings_in_containers_html_anchors_and_attribute_lists(ws: Path, invoke: Invoke) -> None:
    target = (
        '# Target\n\n> ## Quoted\n\n- ## Listed\n\n<a id="html-id"></a>\n\n'
        'Text <a name="inline-name">here</a>.\n\n## Custom { #custom-id }\n'
    )
    links = "# Links\n\n" + "".join(
        f"[{anchor}](target.md#{anchor})\n"
        for anchor in ("quoted", "listed", "html-id", "inline-name", "custom-id", "custom", "nope")
    )
    _ingest(ws, invoke, {"target.md": target, "links.md": links})
    assert [f["target"] for f in _sw001(ws, invoke)] == ["target.md#nope"]
    assert "title: Custom" not in _article(ws, "target.md")


def test_anchors_as_github_and_as_mkdocs_make_them(ws: Path, invoke: Invoke) -> None:
    """A site built with MkDocs links to its headings by Python-Markdown's anchors, which
    differ from GitHub's where punctuation stood between spaces or dashes, on letters with
    accents, and on a heading's second use."""
    target = (
        "# Target\n\n## Servers check `Mcp-Param-*` headers (SEP-2243)\n\n## Build - Test\n\n"
        "## Café\n\n## Usage\n\n## Usage\n\n## 用法\n"
    )
    anchors = [
        "servers-check-mcp-param--headers-sep-2243",  # GitHub's
        "servers-check-mcp-param-headers-sep-2243",  # Python-Markdown's
        "build---test",
        "build-test",
        "café",
        "cafe",
        "usage-1",
        "usage_1",
        "用法",
        "_1",  # Python-Markdown's for a heading with no ASCII letter
        "build--test",  # neither's
        "usage_2",
    ]
    assert _broken_anchors(ws, invoke, target, anchors) == ["build--test", "usage_2"]


def test_anchors_as_vitepress_makes_them(ws: Path, invoke: Invoke) -> None:
    """VitePress (and VuePress) link to a heading by mdit-vue's anchor: each run of spaces and
    punctuation one '-', so `ssr.noExternal` is `ssr-noexternal` where GitHub drops the dot;
    '_' before a leading digit; a second use numbered as markdown-it-anchor numbers it."""
    target = (
        "# Target\n\n## ssr.noExternal\n\n## `server.fs.allow`\n\n## 1. Install\n\n"
        "## Café au lait\n\n## a.b\n\n## a-b\n\n## Привет мир\n"
    )
    anchors = [
        "ssr-noexternal",
        "server-fs-allow",
        "_1-install",
        "cafe-au-lait",
        "a-b",
        "a-b-1",  # the second `a-b` (GitHub has `ab` for the first)
        "привет-мир",
        "ssr.noexternal",  # neither's
        "a-b-2",
    ]
    assert _broken_anchors(ws, invoke, target, anchors) == ["ssr.noexternal", "a-b-2"]


def test_an_obsidian_vault_links_by_alias_block_and_embed(ws: Path, invoke: Invoke) -> None:
    """Obsidian's own ways to link: a note's `aliases`, a block's id (`text ^id`, linked as
    `[[Note#^id]]`), and an embedded image, which is no article and is not checked. A name,
    block or heading that is nowhere is still a broken link."""
    deploy = (
        "---\naliases: [Shipping, Release train]\n---\n# Deploy\n\n"
        "A paragraph about canaries. ^canary-para\n\n- a list item ^item-1\n\n"
        "```\nnot a block ^in-code\n```\n\n![[diagram.png]]\n"
    )
    links = (
        "# Links\n\n[[Shipping]] [[release  train]] [[Deploy#^canary-para]] "
        "[[Deploy#^item-1|the item]] [[Deploy#^in-code]] [[Deploy#^nowhere]] "
        "[[Nobody]] [[Deploy#No such heading]] ![[missing-image.png]]\n"
    )
    _ingest(ws, invoke, {"deploy.md": deploy, "links.md": links})
    assert [f["message"] for f in _sw001(ws, invoke)] == [
        "broken wikilink [[Deploy#^in-code]]: wiki/docs/deploy.md has no block '^in-code'",
        "broken wikilink [[Deploy#^nowhere]]: wiki/docs/deploy.md has no block '^nowhere'",
        "broken wikilink [[Nobody]]: no article has that title or path",
        "broken wikilink [[Deploy#No such heading]]: wiki/docs/deploy.md has no heading"
        " 'No such heading'",
    ]


def test_compiled_articles_pass_their_own_lint(ws: Path, invoke: Invoke) -> None:
    _ingest(
        ws,
        invoke,
        {
            "_index.md": "---\ntitle: Section\n---\n",
            "typed.md": "---\ntitle: Typed\ntype: tutorial\n---\n\nA page.\n",
            "open.md": "# Open\n\n```python\nprint('never closed')\n",
            "html.md": "# Html\n\nSee [the page](other.html) and [text](notes.txt).\n",
            "other.md": "# Other\n\n[back](html.md)\n",
            "notes.txt": "plain notes\n",
        },
    )
    section = _article(ws, "_index.md")
    assert "summary: Section\n" in section
    typed = _article(ws, "typed.md")
    assert "type: document\n" in typed and "page_type: tutorial\n" in typed
    assert _article(ws, "open.md").endswith(
        "```\n\n## Sources\n- [raw/docs/open.md](../../raw/docs/open.md)\n"
    )
    html = _article(ws, "html.md")
    assert "(other.html)" in html and "(notes.txt.md)" in html
    result = invoke("lint", "-w", str(ws), "--format", "json")
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f.get("target")) for f in findings] == [("SW001", "other.html")]
    (ws / ".wiki" / "config.toml").write_text("[lint.links]\nhtml = true\n")
    assert json.loads(invoke("lint", "-w", str(ws), "--format", "json").stdout)["findings"] == []


def test_mdx_pages_are_markdown_with_code_for_imports(ws: Path, invoke: Invoke) -> None:
    text = "import Tabs from '@theme/Tabs';\n\n# Install\n\nRun it. See [setup](setup.mdx).\n"
    _ingest(ws, invoke, {"install.mdx": text, "setup.mdx": "# Setup\n\nSteps.\n"})
    article = _article(ws, "install.mdx.md")
    assert "title: Install\n" in article and "summary: Run it.\n" in article
    assert "[setup](setup.mdx.md)" in article
    assert _sw001(ws, invoke) == []


def test_site_links_resolve_with_the_documented_settings(ws: Path, invoke: Invoke) -> None:
    _ingest(
        ws,
        invoke,
        {
            "guide/intro.md": "# Intro\n\nSee [install](/guide/install/) and [ref](../reference/).\n",
            "guide/install.md": "# Install\n",
            "reference/_index.md": "---\ntitle: Reference\n---\n",
        },
    )
    assert [f["target"] for f in _sw001(ws, invoke)] == ["/guide/install/"]
    text = invoke("lint", "-w", str(ws))
    assert "1 error(s)" in text.stdout and "hint: 1 of the broken links" in text.stderr
    assert "[lint.links]" in text.stderr
    settings = '[lint.links]\nroot = "docs"\ndirectories = true\nignore = ["^https?:"]\n'
    (ws / ".wiki" / "config.toml").write_text(settings)
    assert _sw001(ws, invoke) == []
    (ws / "docs" / "guide" / "intro.md").write_text("# Intro\n\n[gone](/guide/gone/)\n")
    invoke("ingest", "-w", str(ws), str(ws / "docs"))
    text = invoke("lint", "-w", str(ws))
    assert "1 error(s)" in text.stdout and "hint" not in text.stderr  # settings made: no hint


def test_an_mdx_page_s_frontmatter_is_its_own(ws: Path, invoke: Invoke) -> None:
    """An `.mdx` page's frontmatter (Astro, Docusaurus) is read as a `.md` page's is: its
    title names the article, and ingest records the origin in it, not in a block above it."""
    text = "---\ntitle: Symbole Referenz\nsidebar:\n  label: Symbole\n---\n\nEine Übersicht.\n"
    _ingest(ws, invoke, {"reference/icons.mdx": text})
    raw = (ws / ".wiki" / "raw" / "docs" / "reference" / "icons.mdx").read_text(encoding="utf-8")
    assert raw.count("---\n") == 2 and "origin: docs/reference/icons.mdx\n" in raw
    article = _article(ws, "reference/icons.mdx.md")
    assert "title: Symbole Referenz\n" in article and "summary: Eine Übersicht.\n" in article
    assert "label: Symbole" not in article.partition("\n---\n")[2]  # not in the body


def test_site_links_find_mdx_pages(ws: Path, invoke: Invoke) -> None:
    """Astro (Starlight) and Docusaurus pages are `.mdx`: a link written as the site serves
    it (`/reference/configuration/`, `../components/`, `setup.html`) finds the page, or the
    folder's index page, whatever its Markdown suffix."""
    links = (
        "# Intro\n\n[config](/reference/configuration/#sidebar) [cards](../components/) "
        "[setup](setup.html) [notes](/reference/notes) [gone](/reference/gone/)\n"
    )
    _ingest(
        ws,
        invoke,
        {
            "guide/intro.mdx": links,
            "guide/setup.mdx": "# Setup\n",
            "reference/configuration.mdx": "# Configuration\n\n## Sidebar\n",
            "reference/notes.markdown": "# Notes\n",
            "components/index.mdx": "# Components\n",
        },
    )
    (ws / ".wiki" / "config.toml").write_text(
        '[lint.links]\nroot = "docs"\nhtml = true\ndirectories = true\n'
    )
    assert [f["target"] for f in _sw001(ws, invoke)] == ["/reference/gone/"]


def test_html_links_find_middleman_pages(ws: Path, invoke: Invoke) -> None:
    """Middleman serves `runbook.html.md` as `runbook.html`: with `html`, a link to the page
    finds it, as a link to `setup.html` finds `setup.md`."""
    links = "# Intro\n\n[runbook](runbook.html) [setup](setup.html) [gone](gone.html)\n"
    _ingest(
        ws,
        invoke,
        {"intro.md": links, "runbook.html.md": "# Runbook\n", "setup.md": "# Setup\n"},
    )
    (ws / ".wiki" / "config.toml").write_text("[lint.links]\nhtml = true\n")
    assert [f["target"] for f in _sw001(ws, invoke)] == ["gone.html"]


def test_root_links_also_find_the_folders_the_site_serves_at_its_root(
    ws: Path, invoke: Invoke
) -> None:
    """VitePress serves `public/`, Docusaurus and Hugo `static/`, at the site's root: with
    them named in `static`, `/logo.svg` finds docs/public/logo.svg. A page is still looked for
    from `root` first, and a file in neither is still a broken link."""
    _ingest(
        ws,
        invoke,
        {"guide.md": "# Guide\n\n![logo](/logo.svg) [intro](/intro.md) ![gone](/gone.svg)\n"},
    )
    (ws / "docs" / "intro.md").write_text("# Intro\n", encoding="utf-8")
    (ws / "docs" / "public").mkdir()
    (ws / "docs" / "public" / "logo.svg").write_text("<svg/>", encoding="utf-8")
    settings = '[lint.links]\nroot = "docs"\n'
    (ws / ".wiki" / "config.toml").write_text(settings)
    assert [f["target"] for f in _sw001(ws, invoke)] == ["/logo.svg", "/gone.svg"]
    (ws / ".wiki" / "config.toml").write_text(settings + 'static = ["docs/public"]\n')
    assert [f["target"] for f in _sw001(ws, invoke)] == ["/gone.svg"]


def test_a_broken_link_is_named_as_the_raw_file_writes_it(ws: Path, invoke: Invoke) -> None:
    """Compile rewrites a link to a file that ingest did not take (`./gone`, `data.csv`) so
    that it reaches the repository from the article; the finding names the link as the raw
    file has it, which is where it is fixed."""
    _ingest(ws, invoke, {"page.md": "# Page\n\n[a](./gone) [b](data.csv#top)\n"})
    article = _article(ws, "page.md")
    assert "[a](../../../docs/gone)" in article and "[b](data.csv.md#top)" in article
    assert [(f["message"], f["target"]) for f in _sw001(ws, invoke)] == [
        ("broken link to ./gone: ./gone does not exist; fix the link in the raw file", "./gone"),
        (
            "broken link to data.csv#top: data.csv does not exist; fix the link in the raw file",
            "data.csv#top",
        ),
    ]


def test_myst_targets_are_labels_not_text(ws: Path, invoke: Invoke) -> None:
    """MyST (Sphinx, Jupyter Book) names a place with a target line, `(name)=`, above it; a
    link names it from any page, as `[text](name)` or `[text](#name)`. A target is not the
    page's summary, and it does not keep the page's title from being taken as such."""
    guide = (
        "(guide/start)=\n# Getting started\n\nInstall it first.\n\n"
        "(guide/config)=\n## Configure\n\nSet the options.\n"
    )
    links = (
        "# Links\n\n[start](guide/start) [config](#guide/config) [there](<#guide/config>) "
        "[nowhere](guide/nowhere) [gone](#gone)\n"
    )
    _ingest(ws, invoke, {"guide.md": guide, "links.md": links})
    article = _article(ws, "guide.md")
    assert "summary: Install it first.\n" in article
    assert article.count("# Getting started") == 1  # the title, once
    assert "# Getting started\n\n(guide/start)=\n\nInstall it first." in article  # target kept
    assert [f["target"] for f in _sw001(ws, invoke)] == ["guide/nowhere", "#gone"]


def test_a_definition_no_link_uses_is_not_checked(ws: Path, invoke: Invoke) -> None:
    """CommonMark renders nothing of an unused definition: SW001 reports only used ones."""
    text = (
        "# Refs\n\nSee [the guide][used] and ![logo][pic].\n\n"
        "[used]: missing-guide.md\n[pic]: img/missing.png\n[spare]: missing-spare.md\n"
    )
    _ingest(ws, invoke, {"a.md": text})
    assert "[spare]: missing-spare.md" in _article(ws, "a.md")  # kept in the article
    targets = sorted(finding["target"] for finding in _sw001(ws, invoke))
    assert targets == ["img/missing.png", "missing-guide.md"]


def test_file_names_that_links_read_otherwise_get_working_links(ws: Path, invoke: Invoke) -> None:
    """`#`, `?`, `%`, `<`, `>` in a file name: the Sources and index.md links still reach it."""
    names = ["a#b.md", "50% off.md", "what?.md", "x>y.md", "c<d.md"]
    _ingest(ws, invoke, {name: f"# Page {n}\n\nText {n}.\n" for n, name in enumerate(names)})
    result = invoke("lint", "-w", str(ws), "--format", "json")
    findings = json.loads(result.stdout)["findings"]
    assert [f for f in findings if f["rule"] in ("SW001", "SW012")] == []
    assert "(../../raw/docs/a%23b.md)" in _article(ws, "a#b.md")


def test_hugo_closing_tags_with_the_slash_inside_the_delimiter(ws: Path, invoke: Invoke) -> None:
    """Hugo closes a shortcode with `{{</ name >}}` or `{{% / name %}}` as with
    `{{< /name >}}` (hugoDocs writes each): the opaque pair ends there, and the headings after
    it are headings. `{{</* name */>}}` is Hugo's escape, shown as written: it opens nothing."""
    target = (
        "# Target\n\n{{< code-toggle file=hugo >}}\nbaseURL = 'https://example.org/'\n"
        "{{</ code-toggle >}}\n\n## Multihost\n\n{{< code-toggle >}}\n[languages.en]\n"
        "{{% / code-toggle %}}\n\n## Per language\n\n{{</* code-toggle */>}}\n## Shown as written\n"
        "{{</* /code-toggle */>}}\n\n{{< code-toggle >}}\n## Inside\n{{< /code-toggle >}}\n"
    )
    anchors = ["multihost", "per-language", "shown-as-written", "inside"]
    assert _broken_anchors(ws, invoke, target, anchors) == ["inside"]


def test_a_link_to_a_template_destination_is_read_as_its_text(ws: Path, invoke: Invoke) -> None:
    """Jekyll and Hugo write a destination in template syntax, which the site makes a link of
    before it reads the Markdown: the summary reads the link's text, not `[text]()`. The link
    stays as written and is not checked."""
    text = (
        "# Guide\n\nRead [the guide]({{ site.baseurl }}/guide.html), [setup]({% link setup.md %})"
        ' and ![the diagram]({{< ref "diagram.png" >}} "Flow") first.\n'
    )
    _ingest(ws, invoke, {"guide.md": text})
    article = _article(ws, "guide.md")
    assert "summary: Read the guide, setup and the diagram first.\n" in article
    assert "[setup]({% link setup.md %})" in article
    assert _sw001(ws, invoke) == []


def test_a_page_that_opens_with_a_lesser_heading_is_titled_by_it(ws: Path, invoke: Invoke) -> None:
    """A page with no `title` and no H1 (an mdBook sub-chapter, a page other pages include)
    takes its title from the heading it opens with, of any level, when no heading of the page
    outranks it; comments and HTML anchors may come before it. A page that opens with text, or
    with a lesser heading, is named by its file; an H1 anywhere is still the title."""
    _ingest(
        ws,
        invoke,
        {
            "support-products.md": (
                '<!-- Old headings. -->\n\n<a id="old"></a>\n\n## Supported products\n\n'
                "These are supported.\n\n### Linux\n\n## Summary\n"
            ),
            "text-first.md": "Some text first.\n\n## Details\n",
            "minor_first.md": "### Note\n\nA note.\n\n## Usage\n",
            "late-h1.md": "## Overview\n\n# Real Title\n",
            "in-a-quote.md": "> ## Quoted\n\nText.\n",
            "titled.md": "---\ntitle: Given\n---\n## Heading\n",
        },
    )
    titles = {
        article["path"].removeprefix("wiki/docs/"): article["title"]
        for article in json.loads((ws / ".wiki" / "index.json").read_text())["articles"]
    }
    assert titles == {
        "support-products.md": "Supported products",
        "text-first.md": "Text first",
        "minor_first.md": "Minor first",
        "late-h1.md": "Real Title",
        "in-a-quote.md": "In a quote",
        "titled.md": "Given",
    }
    assert "summary: These are supported.\n" in _article(ws, "support-products.md")
