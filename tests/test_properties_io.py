"""Property tests over real workspaces: compile determinism, link rewriting, recall budgets."""

from __future__ import annotations

import posixpath
import shutil
import tempfile
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillwiki.compiler import compile_workspace, make_plan
from skillwiki.compiler.article import rewrite_target
from skillwiki.config import Config, load_config
from skillwiki.layout import init_workspace
from skillwiki.memory.recall import HEADER, Request, recall
from skillwiki.workspace import article_rel

SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
pieces = st.sampled_from(
    [
        "word",
        "重试策略",
        "🚀 launch",
        "\t",
        "\r\n",
        "\n",
        "\n\n",
        "# Heading",
        "## Sub",
        "- item",
        "`code`",
        "```\nfenced\n```",
        "[link](other.md)",
        "> quote",
        "*em*",
        "|a|b|",
        " ",
        "über",
        "…",
    ]
)
bodies = st.lists(pieces, max_size=30).map("".join)


@SLOW
@given(st.lists(bodies, min_size=1, max_size=4))
def test_compile_is_deterministic_and_idempotent(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ws, _ = init_workspace(Path(folder))
        config = Config()
        for number, text in enumerate(texts):
            path = ws.raw / "notes" / f"n{number}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode())
        first = compile_workspace(ws, config)
        assert not first.problems
        articles = {p: p.read_bytes() for p in sorted(ws.wiki.rglob("*.md"))}
        assert compile_workspace(ws, config).refreshed == 0  # idempotent: nothing to do
        shutil.rmtree(ws.wiki)
        (ws.cache / "state.marshal").unlink()
        compile_workspace(ws, config)
        assert {p: p.read_bytes() for p in sorted(ws.wiki.rglob("*.md"))} == articles
        assert all(entry.state.value == "fresh" for entry in make_plan(ws, config).entries)


names = st.sampled_from(["a", "b", "c"])
folders = st.lists(names, max_size=2).map(lambda parts: "/".join(parts))
suffixes = st.sampled_from([".md", ".txt", ".png", ".log"])


@st.composite
def trees(draw: st.DrawFn) -> tuple[list[str], set[str], list[tuple[str, str]]]:
    files = sorted(
        {
            f"{(draw(folders) + '/') if draw(st.booleans()) else ''}{draw(names)}{draw(suffixes)}".lstrip(
                "/"
            )
            for _ in range(draw(st.integers(2, 8)))
        }
    )
    texts = [f for f in files if not f.endswith(".png")]
    ingested = {f for f in texts if draw(st.booleans())} or {texts[0]} if texts else set()
    links = []
    for source in sorted(f for f in ingested if f.endswith(".md")):
        for _ in range(draw(st.integers(1, 4))):
            target = draw(st.sampled_from([*files, "missing.md", "gone.png"]))
            links.append((source, posixpath.relpath(target, posixpath.dirname(source) or ".")))
    return files, ingested, links


@settings(max_examples=150, deadline=None)
@given(trees())
def test_link_rewriting_never_points_somewhere_else(
    tree: tuple[list[str], set[str], list[tuple[str, str]]],
) -> None:
    files, ingested, links = tree
    on_disk = set(files) | {f".wiki/raw/{f}" for f in ingested}
    on_disk |= {f".wiki/wiki/{article_rel(f)}" for f in ingested}
    on_disk |= {".wiki/index.md", ".wiki/index.json", ".wiki/log.md", ".wiki/config.toml"}
    for source, link in links:
        before = posixpath.normpath(posixpath.join(posixpath.dirname(source), link))
        after = rewrite_target(source, link, source)  # raw mirrors the repo: origin == raw path
        article_dir = posixpath.join(".wiki/wiki", posixpath.dirname(article_rel(source)))
        reached = posixpath.normpath(posixpath.join(article_dir, after))
        allowed = {before}
        if before in ingested:
            allowed.add(f".wiki/wiki/{article_rel(before)}")
        if reached in on_disk:  # it resolves: to the same file, or to that file's article
            assert reached in allowed, (source, link, after, reached)
        # A link that reached an ingested note, or a file that is never ingested (an image),
        # still reaches it. (A link to a note left out of the wiki is for lint to report.)
        if before in files and (before in ingested or before.endswith(".png")):
            assert reached in allowed, (source, link, after, reached)


rules = st.text(alphabet=st.sampled_from(list("abc XYZ重试策略🚀.,")), min_size=1, max_size=120)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(rules, min_size=1, max_size=8), st.integers(min_value=1, max_value=900))
def test_recall_never_exceeds_the_budget(tmp_path: Path, texts: list[str], budget: int) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    ws, _ = init_workspace(root)
    for number, text in enumerate(texts):
        rule = " ".join(text.split()) or "x"
        (ws.raw / "lessons").mkdir(parents=True, exist_ok=True)
        (ws.raw / "lessons" / f"l{number}.md").write_text(
            f"---\ntype: lesson\nid: l{number}\ntitle: Lesson {number}\nsummary: S.\n"
            f"severity: HIGH\nscope: global\nstatus: active\nprevention_rule: '{rule.replace(chr(39), '')}'\n"
            "---\n## What Happened\n\nX\n",
            encoding="utf-8",
        )
    result = recall(ws, load_config(ws.config_file), Request(budget=budget), date(2026, 11, 30), {})
    assert len(result.block) <= budget
    if result.block:
        assert result.block.startswith(HEADER)
        entries = result.block[len(HEADER) :].split("\n- ")[1:]
        assert len(entries) == len(result.included)
        for entry in entries:
            assert entry.count("\n  Prevention: ") == 1 and entry.endswith("\n")
