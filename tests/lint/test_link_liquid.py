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
from tests.support.links import sw001 as _sw001

JEKYLL = (
    '[lint.links]\nroot = "src"\nhtml = true\ndirectories = true\n'
    'includes = ["include", "include_cached"]\ninclude_root = "src/_includes"\n'
)


def _targets(ws: Path, invoke: Invoke) -> list[str]:
    return [f["target"] for f in _sw001(ws, invoke)]


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
