"""Round-trips and determinism, over generated input."""

from __future__ import annotations

import string
from pathlib import Path
from unittest.mock import patch

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skillwiki import secrets
from skillwiki.compiler.article import render, rewrite_target
from skillwiki.fingerprint import fingerprint, fnv1a64, matches
from skillwiki.frontmatter.documents import join, split
from skillwiki.fsio import atomic_write

keys = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=12)
scalars = st.one_of(
    st.text(max_size=40),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.booleans(),
    st.none(),
)
values = st.one_of(scalars, st.lists(st.text(max_size=20), max_size=5))
metas = st.dictionaries(keys, values, max_size=8)
bodies = st.text(max_size=300).map(lambda text: text.replace("\r", ""))


@given(metas, bodies)
def test_frontmatter_round_trip_keeps_every_key_and_value(meta: dict, body: str) -> None:
    text = join(meta, body)
    document = split(text, "x.md")
    if meta:
        assert document.meta == meta
        assert list(document.meta) == list(meta)
        assert document.body == body
    assert join(document.meta, document.body) == text


@given(metas, bodies)
def test_compile_is_a_pure_function_of_path_and_bytes(meta: dict, body: str) -> None:
    meta = {
        k: v for k, v in meta.items() if k not in {"title", "summary", "tags", "type", "origin"}
    }
    text = join(meta, body)
    first = render("docs/note.md", split(text, "x"), fingerprint(text.encode()), "xxh3")
    second = render("docs/note.md", split(text, "x"), fingerprint(text.encode()), "xxh3")
    assert first.text == second.text
    assert "\n## Sources\n- [raw/docs/note.md](../../raw/docs/note.md)\n" in first.text
    assert first.meta["summary"].count("\n") == 0


@given(st.binary(max_size=200))
def test_fingerprints_verify_with_the_stored_algorithm(data: bytes) -> None:
    for algorithm in ("xxh3", "fnv1a64"):
        stored = fingerprint(data, algorithm)
        assert matches(data, stored)
        assert not matches(data + b"x", stored)
    assert fingerprint(data, "fnv1a64") == f"fnv1a64:{fnv1a64(data):016x}"


def test_fnv1a64_known_vectors() -> None:
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert fnv1a64(b"foobar") == 0x85944171F73967E8


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=50)
@given(st.binary(max_size=500), st.binary(max_size=500))
def test_atomic_write_leaves_exactly_the_new_bytes(tmp_path: Path, old: bytes, new: bytes) -> None:
    target = tmp_path / "sub" / "file.md"
    atomic_write(target, old)
    atomic_write(target, new)
    assert target.read_bytes() == new
    assert [p.name for p in target.parent.iterdir()] == ["file.md"]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=50)
@given(st.lists(st.tuples(st.binary(max_size=60), st.booleans()), min_size=1, max_size=6))
def test_write_many_gives_the_stats_of_what_it_put_in_place(
    tmp_path: Path, items: list[tuple[bytes, bool]]
) -> None:
    """Each file written, held already or refused by `keep`: written ones hold the new bytes
    at the stat given; held ones are left, with their stat; refused ones are left as they
    were, stat None; no temp file stays."""
    import shutil

    from skillwiki import fsio, statcache

    folder = tmp_path / "files"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    paths = [folder / f"f{number}.md" for number in range(len(items))]
    for number, path in enumerate(paths):
        path.write_bytes(b"old" if number % 2 else items[number][0])  # odd: differ
    refused = {path for path, (_, keep) in zip(paths, items, strict=True) if not keep}
    stats: list[tuple[int, int, int, int] | None] = []
    written = fsio.write_many(
        [(path, data) for path, (data, _) in zip(paths, items, strict=True)],
        stats=stats,
        keep=lambda path: path not in refused,
    )
    for number, (path, (data, _)) in enumerate(zip(paths, items, strict=True)):
        held = number % 2 == 0 or data == b"old"
        if held:
            assert not written[number] and stats[number] == statcache.stat_of(path)
        elif path in refused:
            assert not written[number] and stats[number] is None
            assert path.read_bytes() == b"old"
        else:
            assert written[number] and stats[number] == statcache.stat_of(path)
            assert path.read_bytes() == data
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)


segments = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6)


@given(st.lists(segments, min_size=1, max_size=3), segments)
def test_markdown_links_between_raw_files_resolve_to_the_same_article(
    folders: list[str], name: str
) -> None:
    raw_rel = "/".join(folders) + "/note.md"
    target = f"{name}.md"
    assert rewrite_target(raw_rel, target, raw_rel) == target
    assert rewrite_target(raw_rel, f"{name}.txt#x", raw_rel) == f"{name}.txt.md#x"
    assert rewrite_target(raw_rel, "https://x.y/z.png", raw_rel) == "https://x.y/z.png"


@given(metas)
def test_the_flat_reader_agrees_with_pyyaml(meta: dict) -> None:
    import yaml

    from skillwiki.frontmatter.documents import read_flat as flat
    from skillwiki.frontmatter.strict_yaml import StrictLoader, dump

    text = dump(meta) if meta else ""
    read = flat(text)
    assert read is None or read == yaml.load(text, Loader=StrictLoader) or (read == {} and not meta)


scalar_text = st.text(
    alphabet=st.sampled_from(list("ab1-_:#' \\\"[]{}.,~!&*?|>%@`yesnoTrueNULL0x9e+")), max_size=12
)


@given(st.dictionaries(keys, scalar_text, max_size=5))
def test_the_flat_reader_agrees_on_hand_written_scalars(meta: dict) -> None:
    import yaml

    from skillwiki.frontmatter.documents import read_flat as flat
    from skillwiki.frontmatter.strict_yaml import StrictLoader

    text = "".join(f"{key}: {value}\n" for key, value in meta.items())
    read = flat(text)
    if read is None:
        return
    try:
        expected = yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError:
        raise AssertionError(f"the flat reader accepted what YAML refuses: {text!r}") from None
    assert read == (expected or {})


_SECRETISH = st.lists(
    st.sampled_from(
        [
            "password",
            "Pwd",
            "SECRET",
            "_key",
            "api-key",
            "token",
            "Token",
            "=",
            ":",
            " ",
            '"',
            "'",
            "\n",
            "s3cr3T-Val",
            "ABCdef123456",
            "${X}",
            "AKIA",
            "x",
            "_",
            "-",
        ]
    ),
    max_size=40,
).map("".join)


@given(_SECRETISH)
@settings(max_examples=300)
@example(" password: ABCdef123456")  # an indented value: the shape of a Secret's data
def test_the_cheap_triggers_never_hide_a_secret(text: str) -> None:
    # The reference: every pattern run over the whole text, no trigger consulted but those
    # that give a pattern its context (a Secret manifest's `kind: Secret`).
    everything = dict.fromkeys(kind for kind, _, _ in secrets.PATTERNS)
    parts = [("", kind) for kind in everything if kind not in secrets.CONTEXTUAL]
    parts += [(part, kind) for part, kind in secrets.TRIGGER_PARTS if kind in secrets.CONTEXTUAL]
    with patch.object(secrets, "TRIGGER_PARTS", tuple(parts)):
        expected = secrets.find(text)
    assert secrets.find(text) == expected


_FLAT_TEXT = st.lists(
    st.sampled_from(
        [
            "a",
            "Zb",
            "1",
            "0x1F",
            ".5",
            "-",
            "- ",
            ":",
            ": ",
            "#",
            " #",
            " ",
            "'",
            '"',
            "\\",
            "!",
            "&",
            "*",
            "[",
            "]",
            "{",
            "}",
            "|",
            ">",
            "%",
            "@",
            "`",
            "~",
            "=",
            "<<",
            "+",
            "?",
            ",",
            "/",
            "yes",
            "No",
            "on",
            "OFF",
            "true",
            "False",
            "null",
            "NULL",
            "y",
            "n",
            "é",
            "重",
            "\t",
            "2026-11-30",
            "xxh3:0a",
        ]
    ),
    max_size=5,
).map("".join)


@given(
    st.dictionaries(
        keys, st.one_of(_FLAT_TEXT, st.lists(_FLAT_TEXT, max_size=2)), min_size=1, max_size=2
    )
)
@settings(max_examples=300)
def test_the_yaml_free_writer_writes_what_pyyaml_writes(meta: dict) -> None:
    from skillwiki.frontmatter import flat_yaml
    from skillwiki.frontmatter.strict_yaml import dump

    flat = flat_yaml.dump(meta)
    assert flat is None or flat == dump(meta)


@given(st.dictionaries(keys, st.one_of(scalar_text, _FLAT_TEXT), min_size=1, max_size=2))
@settings(max_examples=300)
def test_the_yaml_free_reader_reads_what_pyyaml_reads(meta: dict) -> None:
    import yaml

    from skillwiki.frontmatter import flat_yaml
    from skillwiki.frontmatter.strict_yaml import StrictLoader, dump

    for text in ("".join(f"{key}: {value}\n" for key, value in meta.items()), dump(meta)):
        free = flat_yaml.load(text)
        if free is not None:
            assert free == (yaml.load(text, Loader=StrictLoader) or {}), text
