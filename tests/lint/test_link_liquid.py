"""SW001 on Jekyll sites, where Liquid runs before the Markdown is read: comments show
nothing, raw text is shown as written, an include's path may be built of the page's
variables or a loop's, a remote include's headings are not known, and version folders have
aliases (`[lint.links] folder_aliases`)."""

from __future__ import annotations

from pathlib import Path

from skillwiki import markdown
from tests.support import Invoke, write
from tests.support.links import CONFIG
from tests.support.links import ingest as _ingest
from tests.support.links import sw001_targets as _targets

JEKYLL = (
    '[lint.links]\nroot = "src"\nhtml = true\ndirectories = true\n'
    'includes = ["include", "include_cached"]\ninclude_root = "src/_includes"\n'
)


COMMENTED = """# Changefeed for

Option | Description
-------|------------
`name` | The [options](#options).

{% comment %} `IF NOT EXISTS` | Create the changefeed only if none of that name exists.
`name` | The name, which [must be unique](#create-fails-name-already-in-use). {% endcomment %}

Read [later](#later){% comment %} or [sooner](#sooner){% endcomment %}, and [this](#gone).
{%- comment -%}[a draft](draft.html){%- endcomment -%} [then](#options)

{% comment %}
## Later

[hidden](hidden.html)
{% endcomment %}

## Options
"""


def test_a_liquid_comment_shows_nothing_so_neither_its_links_nor_its_headings_count(
    ws: Path, invoke: Invoke
) -> None:
    """Jekyll removes `{% comment %} ... {% endcomment %}` before kramdown reads the page,
    over blocks and within a line: the links in it are not checked, and a heading in it is
    no anchor (`#later` is broken, as the site shows it)."""
    write(ws / "src/v1/changefeed-for.md", COMMENTED)
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, JEKYLL)
    assert _targets(ws, invoke) == ["#later", "#gone"]
    outline = markdown.analyze(COMMENTED)
    assert [heading.text for heading in outline.headings] == ["Changefeed for", "Options"]


def test_raw_liquid_is_text_shown_as_written_and_no_link() -> None:
    """`{% raw %}...{% endraw %}` is shown as written: its text is the page's, and what
    looks like a link or a template in it is neither; a call in a comment is no call."""
    text = (
        "# Ory\n\nRun {% raw %}{{ range .items }}[x](gone.html){{ end }}{% endraw %} now.\n\n"
        "{% comment %}{% include old/steps.md %}{% endcomment %}{% include new/steps.md %}\n"
    )
    outline = markdown.analyze(text)
    assert outline.links == ()
    assert outline.first_paragraph == "Run {{ range .items }}[x](gone.html){{ end }} now."
    assert outline.calls == (("include", "new/steps.md", 5),)


DATABASES = """# Databases

{% capture version_prefix %}{{ site.current_cloud_version }}{% endcapture %}
{% assign pinned = "v2" %}

[Recommendations](#index-recommendations), [tables](#tables-list-tab), [grants](#grants)

{% include {{ version_prefix }}/ui/index-recommendations.md %}

{% include {{ pinned }}/ui/tables.md %}
"""


def test_an_include_path_built_of_the_page_s_variables(ws: Path, invoke: Invoke) -> None:
    """`{% assign pinned = "v2" %}` puts v2 in `{{ pinned }}`: the page includes
    v2/ui/tables.md, not v1's (which has the Grants heading). `version_prefix` is captured
    from a site variable lint does not read: the page may include any version's file there,
    and an anchor any of them has is not judged missing."""
    write(ws / "src/cloud/databases.md", DATABASES)
    write(ws / "src/_includes/v1/ui/index-recommendations.md", "## Index recommendations\n")
    write(ws / "src/_includes/v2/ui/index-recommendations.md", "## Recommendations\n")
    write(ws / "src/_includes/v1/ui/tables.md", "## Tables list tab\n\n## Grants\n")
    write(ws / "src/_includes/v2/ui/tables.md", "## Tables list tab\n")
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, JEKYLL)
    assert _targets(ws, invoke) == ["#grants"]


RELEASES = """---
title: What's new in v23.1
major_version: v23.1
---

{% assign rel = site.data.releases | where_exp: "rel", "rel.major_version == page.major_version" %}
{% for r in rel %}
{% include releases/{{ page.major_version }}/{{ r.release_name }}.md release=r.release_name %}
{% endfor %}
"""
ADVISORY = "# A1\n\nFixed in [v23.1.8](../releases/v23.1.html#v23-1-8), [v23.2.0](../releases/v23.1.html#v23-2-0).\n"


def test_a_page_made_by_a_loop_of_includes_has_each_file_s_headings(
    ws: Path, invoke: Invoke
) -> None:
    """releases/v23.1.md includes each release's notes in a loop over site data: `{{
    page.major_version }}` is the page's frontmatter (v23.1), and the loop's variable may
    be any release there, so the page shows every file of _includes/releases/v23.1/. A link
    in them, `../v23.1/cluster-settings.html`, is read from the page's folder as written."""
    write(ws / "src/releases/v23.1.md", RELEASES)
    write(
        ws / "src/_includes/releases/v23.1/v23.1.8.md",
        "## v23.1.8\n\n[s](../v23.1/settings.html)\n",
    )
    write(ws / "src/_includes/releases/v23.2/v23.2.0.md", "## v23.2.0\n")
    write(ws / "src/v23.1/settings.md", "# Cluster settings\n")
    write(ws / "src/advisories/a1.md", ADVISORY)
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, JEKYLL)
    assert _targets(ws, invoke) == ["../releases/v23.1.html#v23-2-0"]
    write(ws / "src/_includes/releases/v23.1/v23.1.8.md", "## v23.1.8\n\n[s](../v23.1/gone.html)\n")
    _ingest(ws, invoke, "src")
    assert _targets(ws, invoke) == ["../v23.1/gone.html", "../releases/v23.1.html#v23-2-0"]


FUNCTIONS = """# Functions

Integer [comparison](#comparison-functions).

{% remote_include https://raw.githubusercontent.com/x/y/{{ page.release_info.branch }}/functions.md %}
"""


def test_a_page_that_inserts_a_remote_file_has_anchors_lint_cannot_judge(
    ws: Path, invoke: Invoke
) -> None:
    """cockroachdb's `{% remote_include URL %}` inserts a file generated elsewhere: its
    headings are not known, so an anchor into the page is not reported missing, once the
    call is named in `includes`; a link to a file that is not there still is."""
    write(ws / "src/v1/functions.md", FUNCTIONS)
    write(ws / "src/v1/casts.md", "# Casts\n\n[f](functions.html#cast) [g](gone.html#cast)\n")
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, JEKYLL)
    assert _targets(ws, invoke) == [
        "functions.html#cast",
        "gone.html#cast",
        "#comparison-functions",
    ]
    write(ws / CONFIG, JEKYLL.replace('"include_cached"]', '"include_cached", "remote_include"]'))
    assert _targets(ws, invoke) == ["gone.html#cast"]


ALIASES = '\n[lint.links.folder_aliases]\nstable = "v2"\ndev = "v3"\n'


def test_folder_aliases_serve_a_version_s_folder_under_another_name(
    ws: Path, invoke: Invoke
) -> None:
    """cockroachdb's docs serve the stable version's folder again as `stable/` (and the
    next as `dev/`): `../stable/architecture/storage-layer.html` reaches
    v2/architecture/storage-layer.md; `lint --explain-links` says what each alias found."""
    write(ws / "src/v2/architecture/storage-layer.md", "# Storage layer\n\n## Overview\n")
    text = "# Insights\n\n[a](../stable/architecture/storage-layer.html#overview)\n[b](../dev/architecture/storage-layer.html)\n"
    write(ws / "src/cloud/insights.md", text)
    _ingest(ws, invoke, "src")
    write(ws / CONFIG, JEKYLL)
    assert _targets(ws, invoke) == [
        "../stable/architecture/storage-layer.html#overview",
        "../dev/architecture/storage-layer.html",
    ]
    write(ws / CONFIG, JEKYLL + ALIASES)
    assert _targets(ws, invoke) == ["../dev/architecture/storage-layer.html"]
    result = invoke("lint", "-w", str(ws), "--explain-links")
    assert "folder_aliases: src/dev/architecture/storage-layer.html" not in result.output
    assert "folder_aliases: src/v3/architecture/storage-layer.html: nothing" in result.output


def test_a_folder_alias_is_a_folder_name(ws: Path, invoke: Invoke) -> None:
    """An alias that is a path, or the folder it names, is refused: exit 2, one Error: line;
    an alias and its folder, two names, are taken."""
    write(ws / CONFIG, '[lint.links.folder_aliases]\nstable = "v1"\n')
    assert invoke("lint", "-w", str(ws)).exit_code in (0, 1)
    for bad in ('"a/b" = "v1"', 'v1 = "v1"', 'stable = "../v1"'):
        write(ws / CONFIG, f"[lint.links.folder_aliases]\n{bad}\n")
        result = invoke("lint", "-w", str(ws))
        assert result.exit_code == 2, bad
        assert result.output.count("Error:") == 1 and "lint.links.folder_aliases" in result.output
