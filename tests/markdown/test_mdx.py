"""MDX as mdxjs reads it: a line of JSX tags is a block of its own with Markdown after it (a
component's children), and indentation never makes code, so a fence inside a component
(Starlight's <Steps>, <Tabs>) is one fence and the headings after it are headings."""

from __future__ import annotations

from pathlib import Path

from skillwiki import markdown
from tests.support import Invoke, write
from tests.support.links import ingest as _ingest
from tests.support.links import sw001 as _sw001

TABS = """## Install

<PackageManagerTabs>
  <Fragment slot="npm">
  ```shell
  # a comment, not a heading
  npm create astro

  # another comment
  npm run dev
  ```
  </Fragment>
</PackageManagerTabs>

## Manual Setup

<Steps>
1. Create your directory

    ```bash
    mkdir my-project
    ```
</Steps>

<Tabs syncKey="rewrite">
  <TabItem label="Astro.rewrite()">
    ```ts
    import type { APIContext } from "astro";

    export function GET() {}
    ```
  </TabItem>
</Tabs>

<Card
  title="Deploy"
>
## Locals
"""


def test_fences_inside_components_end_where_mdx_ends_them() -> None:
    """CommonMark would end the HTML block at the fence's blank line, read `# another
    comment` as a heading and open a fence that hides Manual Setup; MDX does not."""
    outline = markdown.analyze(TABS, mdx=True)
    assert [heading.text for heading in outline.headings] == ["Install", "Manual Setup", "Locals"]
    commonmark = markdown.analyze(TABS)
    assert "Manual Setup" not in [heading.text for heading in commonmark.headings]


def test_indentation_is_no_code_in_mdx() -> None:
    """An indented line is a paragraph in MDX, a code block in CommonMark."""
    text = "Text\n\n    [a link](x.md)\n"
    assert [link.target for link in markdown.analyze(text, mdx=True).links] == ["x.md"]
    assert markdown.analyze(text).links == ()


def test_an_mdx_page_s_headings_answer_links_after_compile(ws: Path, invoke: Invoke) -> None:
    """The article of an .mdx page (x.mdx.md) is read as MDX too: a link to Manual Setup,
    below a component whose fence holds a blank line, finds it."""
    write(ws / "docs" / "install.mdx", "# Install guide\n\n[setup](#manual-setup)\n\n" + TABS)
    _ingest(ws, invoke, "docs")
    assert _sw001(ws, invoke) == []
