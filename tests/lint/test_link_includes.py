"""SW001 for pages that insert other files, for sites that resolve a page-relative link from
their root too and for DocFX's docsets: `[lint.links] includes`, `include_root`,
`relative_from_root`, `mounts`, `redirects`; the ids Hugo numbers across headings and
definition terms (`term_anchors`) and Markdig's `section` ids."""

from __future__ import annotations

import json
from pathlib import Path

from skillwiki import markdown
from skillwiki.markdown.anchors import named_ids, numbered_ids
from tests.support import Invoke, write
from tests.support.links import CONFIG
from tests.support.links import ingest as _ingest
from tests.support.links import sw001_targets as _targets

HUGO = '[lint.links]\nroot = "content/en"\ndirectories = true\n'
SCOPE = """---
_comment: Do not remove front matter.
---

## Scope

The function used determines the scope.
"""
STORE = """# Store

To choose another scope, see [scope](#scope) below, or [the locale](/functions/all/#locale).

## Methods

{{% include "_common/store-scope.md" %}}
"""
ALL = """# All

## Settings

{{% include "/_common/locale.md" %}}
"""
LOCALE = "---\n_comment: included\n---\n\n## Locale\n\nThe locale.\n"


def test_an_included_page_s_headings_are_the_including_page_s_anchors(
    ws: Path, invoke: Invoke
) -> None:
    """Hugo's docs insert shared text with `{{% include "/_common/x.md" %}}`: its headings
    are anchors of the page that includes it (`#scope`, `/functions/all/#locale`)."""
    write(ws / "content/en/_common/store-scope.md", SCOPE)
    write(ws / "content/en/_common/locale.md", LOCALE)
    write(ws / "content/en/functions/store.md", STORE)
    write(ws / "content/en/functions/all.md", ALL)
    _ingest(ws, invoke, "content")
    write(ws / CONFIG, HUGO)
    assert _targets(ws, invoke) == ["#scope", "/functions/all/#locale"]
    write(ws / CONFIG, HUGO + 'includes = ["include"]\n')
    assert _targets(ws, invoke) == []
    write(ws / CONFIG, HUGO + 'includes = ["partial"]\n')  # another name inserts nothing
    assert _targets(ws, invoke) == ["#scope", "/functions/all/#locale"]


HIGHLIGHT = """# Highlight

See the [options](#options-1) below, and [the style](#style-1).

## Arguments

`OPTIONS`
: A map of options.

## Options

{{% include "/_common/options.md" %}}
"""
OPTIONS = "---\n_comment: included\n---\n\n`style`\n: The style.\n\n### Style\n"


def test_hugo_numbers_headings_and_terms_together_with_included_ones_in_place(
    ws: Path, invoke: Invoke
) -> None:
    """With autoDefinitionTermID, Hugo gives headings and terms ids from one count: the term
    OPTIONS takes `options`, so the heading Options below it is `options-1`; the included
    term `style` takes `style`, so the included heading Style is `style-1`."""
    write(ws / "content/en/functions/highlight.md", HIGHLIGHT)
    write(ws / "content/en/_common/options.md", OPTIONS)
    _ingest(ws, invoke, "content")
    write(ws / CONFIG, HUGO + 'term_anchors = true\nincludes = ["include"]\n')
    assert _targets(ws, invoke) == []
    write(ws / CONFIG, HUGO + "term_anchors = true\n")
    assert _targets(ws, invoke) == ["#style-1"]


def test_headings_and_terms_are_numbered_in_the_order_of_the_text() -> None:
    """A term before a heading of the same name takes the plain id; numbers follow the text,
    not headings first."""
    outline = markdown.analyze("`OPTIONS`\n: a map\n\n## Options\n\nOptions\n: again\n")
    assert outline.terms == (("OPTIONS", 1), ("Options", 6))
    named = named_ids(outline.headings, outline.terms)
    assert numbered_ids(name for _, name in named) == ("options", "options-1", "options-2")


def test_template_calls_that_may_name_a_file_are_read_with_their_lines() -> None:
    """Hugo's and Liquid's calls with a path (a Liquid expression in it kept as written) are
    read, in paragraphs and in HTML blocks; calls without a path (a version, Liquid's `if`)
    are not."""
    text = (
        '# T\n\n{{% include "/_common/x.md" %}}\n\nText {{< new-in 0.1 >}}\n'
        "{{< figure src=a >}}\n\n<div>\n{% include {{ page.version.version }}/misc/y.md %}\n"
        "</div>\n\n{% if page.x %}no{% endif %}\n"
    )
    assert markdown.analyze(text).calls == (
        ("include", "/_common/x.md", 3),
        ("include", "{{ page.version.version }}/misc/y.md", 9),
    )


JEKYLL = '[lint.links]\nroot = "src"\nhtml = true\ninclude_root = "src/_includes"\n'
PAGE = "# Install\n\n{% include {{ page.version.version }}/misc/steps.md %}\n"
STEPS = (
    "Read [the requirements](requirements.html) and [the steps](#steps), then\n"
    "[drain](node-shutdown.html?filters=drain#server-shutdown-initial_wait).\n\n## Steps\n"
)


def test_a_link_in_an_included_file_resolves_from_the_page_that_includes_it(
    ws: Path, invoke: Invoke
) -> None:
    """Jekyll inserts `_includes/<version>/misc/steps.md` into each version's page; its link
    `requirements.html` is resolved from that page's folder. The Liquid expression in the
    path stands for a folder of the page's path. A link broken from every page that
    includes the file stays broken; an include that no page includes (only an include that
    none includes) is shown nowhere, and its links are not checked. The site renders with Redcarpet, whose anchor for
    `server.shutdown.initial_wait` is `server-shutdown-initial_wait`."""
    write(ws / "src/v24.1/install.md", PAGE)
    write(ws / "src/v24.1/requirements.md", "# Requirements\n")
    write(ws / "src/v24.1/node-shutdown.md", "# Shutdown\n\n## `server.shutdown.initial_wait`\n")
    write(ws / "src/_includes/v24.1/misc/steps.md", STEPS + "[gone](gone.html)\n")
    write(ws / "src/_includes/v24.1/misc/unused.md", "{% include v24.1/misc/inner.md %}\n")
    write(ws / "src/_includes/v24.1/misc/inner.md", "[never shown](nowhere.html)\n")
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, JEKYLL)
    assert _targets(ws, invoke) == [
        "nowhere.html",
        "requirements.html",
        "node-shutdown.html?filters=drain#server-shutdown-initial_wait",
        "gone.html",
    ]
    write(ws / CONFIG, JEKYLL + 'includes = ["include"]\n')
    assert _targets(ws, invoke) == ["gone.html"]
    result = invoke("lint", "-w", str(ws), "--format", "json", "--explain-links")
    assert "  included by wiki/src/v24.1/install.md:" not in result.stderr
    assert "  included by src/v24.1/install.md:" in result.stderr
    assert json.loads(result.stdout)["findings"][0]["target"] == "gone.html"


def test_relative_from_root_finds_a_page_relative_to_the_site_s_root(
    ws: Path, invoke: Invoke
) -> None:
    """Hugo resolves a link without a leading `/` first from the page, then from the content
    root: `methods/page/date/` written in templates/introduction.md reaches
    methods/page/date.md. A link that leaves the page's folder is not looked for again."""
    write(ws / "content/en/methods/page/date.md", "# Date\n")
    text = "# Intro\n\n[date](methods/page/date/), [up](../methods/page/gone/), [no](nope/)\n"
    write(ws / "content/en/templates/introduction.md", text)
    _ingest(ws, invoke, "content")
    write(ws / CONFIG, HUGO)
    assert _targets(ws, invoke) == ["methods/page/date/", "../methods/page/gone/", "nope/"]
    result = invoke("lint", "-w", str(ws), "--explain-links")
    assert "relative_from_root = true would look here" in result.output
    write(ws / CONFIG, HUGO + "relative_from_root = true\n")
    assert _targets(ws, invoke) == ["../methods/page/gone/", "nope/"]


def test_includes_must_be_template_names(ws: Path, invoke: Invoke) -> None:
    """A name with a space or a quote is no template's: exit 2 with one Error: line."""
    write(ws / CONFIG, '[lint.links]\nincludes = ["in clude"]\n')
    result = invoke("lint", "-w", str(ws))
    assert result.exit_code == 2
    assert result.output.count("Error:") == 1 and "lint.links.includes" in result.output


def test_a_heading_with_no_letters_is_a_section_as_markdig_names_it(
    ws: Path, invoke: Invoke
) -> None:
    """DocFX's Markdig names a heading that keeps no character of its text `section`, then
    `section-1`, ...: learn.microsoft.com's about_Automatic_Variables links `[$?](#section-1)`."""
    text = "# Variables\n\n[a](#section) [b](#section-1) [c](#section-2)\n\n## $$\n\n## $?\n"
    write(ws / "docs/vars.md", text)
    _ingest(ws, invoke, "docs")
    assert _targets(ws, invoke) == ["#section-2"]


DOCFX = """[lint.links]
case_insensitive = true
directories = true
yaml_pages = true
redirects = ["redir/redirection.json"]

[lint.links.mounts]
"/powershell/scripting/" = "reference/docs-conceptual"
"/powershell/module/" = "reference/7.5 reference/5.1"
"""
REDIRECTIONS = """{"redirections": [
  {"source_path": "../reference/docs-conceptual/dev/old-page.md", "redirect_url": "/x"},
  {"source_path_from_root": "/reference/docs-conceptual/moved.md", "redirect_url": "/y"},
  {"source_path": "../reference/docs-conceptual/learn/faq.yml", "redirect_url": "/z"}
]}"""
OVERVIEW = """# Overview

[install](/powershell/scripting/install/setup), [arrays](/powershell/module/core/about/about_arrays),
[workflows](/powershell/module/psworkflow/about_workflows?view=powershell-5.1),
[.NET](/dotnet/api/system.string), [old](dev/old-page.md), [moved](/powershell/scripting/moved),
[gone](/powershell/scripting/gone), [gone too](dev/gone.md),
[faq](/powershell/scripting/install/update-faq), [old faq](/powershell/scripting/learn/faq)
"""


def test_mounts_and_redirects_read_links_as_docfx_serves_them(ws: Path, invoke: Invoke) -> None:
    """learn.microsoft.com serves reference/docs-conceptual at /powershell/scripting/ and each
    version's folder at /powershell/module/; a link elsewhere on the host (/dotnet/) is
    another docset's, and a page that a redirection file moves away is still answered; a
    YAML page (an FAQ) is a page with `yaml_pages`."""
    docs = ws / "reference" / "docs-conceptual"
    write(docs / "install" / "setup.md", "# Setup\n")
    write(docs / "overview.md", OVERVIEW)
    write(ws / "reference/7.5/Core/About/about_Arrays.md", "# Arrays\n")
    write(ws / "reference/5.1/PSWorkflow/about_Workflows.md", "# Workflows\n")
    write(ws / "redir" / "redirection.json", REDIRECTIONS)
    write(docs / "install" / "update-faq.yml", "### YamlMime:FAQ\n")
    _ingest(ws, invoke, "reference")
    write(ws / CONFIG, DOCFX.replace("reference/7.5 reference/5.1", "reference/7.5"))
    assert _targets(ws, invoke) == [
        "/powershell/module/psworkflow/about_workflows?view=powershell-5.1",
        "/powershell/scripting/gone",
        "dev/gone.md",
    ]
    write(ws / CONFIG, DOCFX)
    assert _targets(ws, invoke) == ["/powershell/scripting/gone", "dev/gone.md"]
    write(ws / CONFIG, DOCFX.replace('redirects = ["redir/redirection.json"]\n', ""))
    assert _targets(ws, invoke) == [
        "dev/old-page.md",
        "/powershell/scripting/moved",
        "/powershell/scripting/gone",
        "dev/gone.md",
        "/powershell/scripting/learn/faq",
    ]
    write(ws / CONFIG, DOCFX.replace("yaml_pages = true\n", ""))
    assert _targets(ws, invoke) == [
        "/powershell/scripting/gone",
        "dev/gone.md",
        "/powershell/scripting/install/update-faq",
        "/powershell/scripting/learn/faq",
    ]


def test_a_mount_must_be_a_url_path_with_folders(ws: Path, invoke: Invoke) -> None:
    """A mount not starting with / is refused: exit 2, one Error: line."""
    write(ws / CONFIG, '[lint.links.mounts]\n"powershell" = "reference"\n')
    result = invoke("lint", "-w", str(ws))
    assert result.exit_code == 2
    assert result.output.count("Error:") == 1 and "lint.links.mounts" in result.output


TEMPLATED = """# Vault

[core](#use-vault-with-a-cockroachdb-self-hosted-cluster), [cloud](#use-vault-with-a-cockroachdb-cluster),
[other](#use-consul-with-a-cockroachdb-self-hosted-cluster)

## Use Vault with a CockroachDB {{ site.data.products.core }} cluster
"""


def test_a_heading_that_holds_template_syntax_answers_whatever_the_site_renders_there(
    ws: Path, invoke: Invoke
) -> None:
    """Jekyll renders `{{ site.data.products.core }}` in a heading from the site's data, which
    lint does not read: any text in its place answers, the rest of the heading must match."""
    write(ws / "docs/vault.md", TEMPLATED)
    _ingest(ws, invoke, "docs")
    assert _targets(ws, invoke) == ["#use-consul-with-a-cockroachdb-self-hosted-cluster"]


def test_repository_files_are_found_though_the_wiki_has_no_article_of_them(
    ws: Path, invoke: Invoke
) -> None:
    """A page whose frontmatter ingest cannot parse and a YAML page ingest never takes are
    served by the site all the same: with `repository_files` neither is a finding; a file
    that is not there still is."""
    write(ws / "docs/foreach.md", "---\naliases:\n  - %\n---\n# ForEach\n")
    write(ws / "docs/faq.yml", "### YamlMime:FAQ\n")
    write(ws / "docs/guide.md", "# Guide\n\n[each](foreach.md) [faq](faq.yml) [gone](gone.md)\n")
    result = invoke("ingest", "-w", str(ws), str(ws / "docs"))
    assert result.exit_code == 1 and "refused" in result.output  # foreach.md, its YAML
    assert _targets(ws, invoke) == ["foreach.md", "faq.yml", "gone.md"]
    write(ws / CONFIG, "[lint.links]\nrepository_files = true\n")
    assert _targets(ws, invoke) == ["gone.md"]
