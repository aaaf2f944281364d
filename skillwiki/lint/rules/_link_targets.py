"""Where a relative link of an article leads, under the `[lint.links]` settings: the files it
may name (as written, as `.html`, as a folder), looked for as written, then differing only by
case, then in the fallback language's folder or in the folder an alias stands for; and, for
`lint --explain-links`, what each setting found."""

from __future__ import annotations

import json
import os
import posixpath
from typing import NamedTuple

from skillwiki.lint.model import LintContext
from skillwiki.workspace import PARSED_SUFFIXES, article_rel, within

_INDEX_PAGES = ("index", "_index", "README")
_PAGE_SUFFIXES = (".md", *sorted(PARSED_SUFFIXES - {".md"}))

# What a search says of a link that leads out of the workspace: whether anything is there is
# not lint's to tell (a link to ../../etc/passwd would say whether that file exists).
OUTSIDE = "\0outside"
# What a search says of a root-relative link under none of `mounts`: another site's page on
# the same host (learn.microsoft.com serves many docsets), not checked.
ELSEWHERE = "\0elsewhere"

Name = tuple[str, str]  # a file a link may name: the article (wiki-relative), the file on disk


class Step(NamedTuple):
    """One setting's look for a link's target: the files it names (wiki-relative, or from the
    workspace root on disk), the one it found (None: none), and whether the settings use it
    (a step of a setting left off says what switching it on would find)."""

    setting: str
    tried: tuple[str, ...]
    found: str | None
    used: bool


class Inside:
    """Whether paths lie inside the workspace once `..` and symlinks are resolved; each
    folder resolved once (a tree's links share a few)."""

    def __init__(self, real_root: str) -> None:
        self.real_root = real_root
        self.folders: dict[str, str] = {}

    def holds(self, path: str) -> bool:
        """Whether `path` is inside the workspace."""
        folder, name = os.path.split(path)
        real = self.folders.get(folder)
        if real is None:
            real = self.folders[folder] = os.path.realpath(folder)
        if not within(real, self.real_root):
            return False
        # The folder is inside: a look at the name there tells nothing of outside.
        placed = os.path.join(real, name)
        return not os.path.islink(placed) or within(os.path.realpath(placed), self.real_root)


class Targets:
    """Finds the article or file a link names, for every article of one lint; the files on
    disk it looks at are kept in `looked` (their change makes lint look again)."""

    def __init__(self, ctx: LintContext) -> None:
        self.ctx = ctx
        self.settings = ctx.config.lint.links
        self.root = ctx.ws.root.as_posix()
        self.looked: set[str] = set()
        self.inside = Inside(os.path.realpath(ctx.ws.root))
        self._folded: dict[str, str] | None = None  # lower-cased article path -> the article
        self._listings: dict[str, dict[str, str]] = {}  # folder -> lower-cased name -> name
        self.wiki = posixpath.relpath(ctx.ws.wiki.as_posix(), self.root) + "/"
        self._moved: set[str] | None = None  # the pages `redirects` moves away, from the root

    def find(self, wiki_rel: str, under: str, steps: list[Step] | None = None) -> str | None:
        """The article or file that the repository path `wiki_rel` (its file on disk below
        `under`) reaches, or None, or OUTSIDE; each look is added to `steps` where given,
        with the looks the settings left off."""
        found = self._look(wiki_rel, under, steps)
        for setting, swapped in self._swapped(wiki_rel, under):
            if found is not None and steps is None:
                break
            elsewhere = self._look(swapped, under, None)
            if steps is not None:
                used = found is None and (setting != "fallback" or bool(self.settings.languages))
                steps.append(Step(setting, (swapped,), elsewhere, used))
            found = elsewhere if found is None else found
        return found

    def _swapped(self, wiki_rel: str, under: str) -> list[tuple[str, str]]:
        """`wiki_rel` moved to where another folder serves it, by the setting that says so:
        from a language's folder to the fallback's, from a folder alias to its folder."""
        swaps: list[tuple[str, str]] = []
        for setting, swap in (("fallback", self._in_fallback), ("folder_aliases", self._aliased)):
            moved = swap(wiki_rel)
            if moved is None and wiki_rel.startswith("../"):  # compile pointed it at the file
                in_repo = posixpath.relpath(posixpath.normpath(f"{under}/{wiki_rel}"), self.root)
                moved = swap(in_repo)
                if moved is not None:
                    moved = posixpath.relpath(f"{self.root}/{moved}", under)
            if moved is not None:
                swaps.append((setting, moved))
        return swaps

    def _look(self, wiki_rel: str, under: str, steps: list[Step] | None) -> str | None:
        """The article or file `wiki_rel` reaches as written or (with `case_insensitive`)
        differing only by case, under the settings that name files: an article before a file
        on disk, as in _exact."""
        settings = self.settings
        used: list[Name] = []
        for setting, names in _names(wiki_rel, posixpath.normpath(f"{under}/{wiki_rel}")):
            on = setting == "as written" or bool(getattr(settings, setting))
            if names and steps is not None:
                _explain(steps, Step(setting, tuple(n[0] for n in names), self._exact(names), on))
            used += names if on else []
        found = self._exact(used)
        if found is None and (settings.case_insensitive or steps is not None):
            by_case = self._folding(used)
            if steps is not None:
                tried = tuple(n[0] for n in used)
                steps.append(Step("case_insensitive", tried, by_case, settings.case_insensitive))
            found = by_case if settings.case_insensitive else None
        if found is None and settings.redirects:
            found = self._redirected(used, steps)
        return found

    def _redirected(self, names: list[Name], steps: list[Step] | None) -> str | None:
        """The first of `names` that a file of `redirects` moves away (the site answers it
        with the redirect), as a path from the root; by case too with `case_insensitive`."""
        if self._moved is None:
            self._moved = set()
            for listed in self.settings.redirects:
                self._moved |= _redirect_sources(self, posixpath.join(self.root, listed))
        fold = self.settings.case_insensitive
        found = None
        for _, on_disk in names:
            in_repo = posixpath.relpath(on_disk, self.root)
            in_repo = in_repo.removeprefix(self.wiki)  # an article's path is its page's
            if (in_repo.lower() if fold else in_repo) in self._moved:
                found = in_repo
                break
        if steps is not None and names:
            steps.append(Step("redirects", tuple(n[1] for n in names), found, True))
        return found

    def _exact(self, names: list[Name]) -> str | None:
        """The first of `names` that is an article, else the first there on disk."""
        for article, _ in names:
            if article in self.ctx.articles:
                return article
        for article, on_disk in names:
            if not self.inside.holds(on_disk):
                return OUTSIDE
            self.looked.add(on_disk)
            if os.path.exists(on_disk):
                return article
        return None

    def _folding(self, names: list[Name]) -> str | None:
        """The first of `names` that an article's path or a file's on disk equals but for
        case (Hugo lower-cases its URLs; learn.microsoft.com reads them either way)."""
        if self._folded is None:
            self._folded = {}
            for rel in self.ctx.articles:
                self._folded.setdefault(rel.lower(), rel)
        for article, _ in names:
            if article.lower() in self._folded:
                return self._folded[article.lower()]
        for _, on_disk in names:
            if self.inside.holds(on_disk):
                real = self._on_disk(on_disk)
                if real is not None:
                    return posixpath.relpath(real, self.root)
        return None

    def _on_disk(self, path: str) -> str | None:
        """The path on disk that `path` names but for case, each folder listed once; only
        inside the workspace."""
        if path == self.root or not within(path, self.root):
            return path if path == self.root else None
        folder, name = posixpath.split(path)
        real_folder = self._on_disk(folder)
        if real_folder is None:
            return None
        listing = self._listings.get(real_folder)
        if listing is None:
            listing = self._listings[real_folder] = _listing(real_folder)
        self.looked.add(real_folder)
        real_name = listing.get(name.lower())
        return None if real_name is None else posixpath.join(real_folder, real_name)

    def _in_fallback(self, wiki_rel: str) -> str | None:
        """`wiki_rel` moved from a language's folder to the fallback's, or None where it lies
        in none (`languages` and `fallback`: folders directly under `root`)."""
        settings = self.settings
        split = self._under_root(wiki_rel) if settings.languages else None
        if split is None:
            return None
        prefix, language, below = split
        if language not in settings.languages or not below:
            return None
        return (
            prefix + posixpath.join(settings.fallback, below)
            if settings.fallback
            else (prefix + below)
        )

    def _aliased(self, wiki_rel: str) -> str | None:
        """`wiki_rel` moved from a folder alias directly under `root` to the folder it serves
        (`folder_aliases`: `stable/x` is `v26.2/x`), or None where it lies in none."""
        aliases = self.settings.folder_aliases
        split = self._under_root(wiki_rel) if aliases else None
        if split is None:
            return None
        prefix, alias, below = split
        folder = aliases.get(alias)
        return None if folder is None else prefix + posixpath.join(folder, below)

    def _under_root(self, wiki_rel: str) -> tuple[str, str, str] | None:
        """`wiki_rel` as `root`'s prefix, the folder directly under `root` it lies in, and
        the path below that folder; None where it is not under `root`."""
        base = posixpath.normpath(self.settings.root or ".")
        prefix = "" if base == "." else base + "/"
        if not wiki_rel.startswith(prefix):
            return None
        folder, _, below = wiki_rel[len(prefix) :].partition("/")
        return prefix, folder, below


def mounted_under(mounts: dict[str, str], path: str) -> tuple[str, list[str]] | None:
    """The longest of `mounts`' URL prefixes that `path` lies under, with its folders."""
    best: tuple[str, list[str]] | None = None
    for prefix, folders in mounts.items():
        base = prefix.rstrip("/") + "/"
        if (path + "/").startswith(base) and (best is None or len(base) > len(best[0])):
            best = (base, folders.split())
    return best


def as_written(roots: tuple[str, str], folder: str, path: str) -> str:
    """A relative link's path from its article's `folder` as the raw file writes it: compile
    points a link that leaves the wiki at the repository's file (`../../content/en/x`);
    that is undone here; a path that stays in the wiki is as written, `..` kept (Jekyll
    inserts an included file's `../v23.1/x.html` as it is, to be read from the page that
    includes it). `roots`: the workspace root and the wiki folder, on disk."""
    resolved = posixpath.normpath(posixpath.join(folder, path))
    if not resolved.startswith("../"):
        return path
    in_repo = posixpath.normpath(f"{roots[1]}/{resolved}")
    resolved = posixpath.relpath(in_repo, roots[0])
    return posixpath.relpath(resolved, folder or ".")


def _explain(steps: list[Step], step: Step) -> None:
    """Add a look to `steps`; one for DocFX's YAML pages only where on or where it found a
    page, so that other sites' explanations do not carry it."""
    if step.used or step.found or step.setting != "yaml_pages":
        steps.append(step)


def _names(wiki_rel: str, resolved: str) -> list[tuple[str, list[Name]]]:
    """The files a link may name, by the setting that names them: as written, as a page for
    `x.html` (x.md, or x.html.md: Middleman), as a page or a folder's index page."""
    html: list[Name] = []
    if wiki_rel.endswith((".html", ".htm")):
        html = _pages(wiki_rel.rpartition(".")[0], resolved.rpartition(".")[0])
        html += _pages(wiki_rel, resolved)
    bare = (wiki_rel.rstrip("/"), resolved.rstrip("/"))
    directories = _pages(*bare)
    for page in _INDEX_PAGES:
        directories += _pages(f"{bare[0]}/{page}", f"{bare[1]}/{page}")
    # DocFX's YAML pages (FAQs, landing pages): x.yml, x/index.yml, never an article
    yaml = [
        (f"{name}.yml", f"{path}.yml")
        for name, path in (bare, (f"{bare[0]}/index", f"{bare[1]}/index"))
    ]
    return [
        ("as written", [(wiki_rel, resolved)]),
        ("html", html),
        ("directories", directories),
        ("yaml_pages", yaml),
    ]


def _pages(wiki_rel: str, resolved: str) -> list[Name]:
    """The article and the file on disk of a page named without its suffix, for each suffix
    a page may have (`.mdx`: Astro, Docusaurus)."""
    return [(article_rel(wiki_rel + kind), resolved + kind) for kind in _PAGE_SUFFIXES]


def _redirect_sources(targets: Targets, path: str) -> set[str]:
    """The pages a DocFX redirection file moves away (`source_path`, from the file's folder;
    `source_path_from_root`, from the root), as paths from the root (lower-cased with
    `case_insensitive`); none from a file that cannot be read. The file is added to
    `targets.looked`: its change makes lint look again."""
    targets.looked.add(path)
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError):
        return set()
    entries = data.get("redirections") if isinstance(data, dict) else None
    folder = posixpath.relpath(posixpath.dirname(path), targets.root)
    sources: set[str] = set()
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        relative, from_root = entry.get("source_path"), entry.get("source_path_from_root")
        if isinstance(relative, str):
            sources.add(posixpath.normpath(posixpath.join(folder, relative)))
        elif isinstance(from_root, str):
            sources.add(posixpath.normpath(from_root.lstrip("/")))
    return {source.lower() for source in sources} if targets.settings.case_insensitive else sources


def _listing(folder: str) -> dict[str, str]:
    """The names in `folder` by their lower-cased form (the first in sorted order where two
    differ only by case); none where it cannot be listed."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    listing: dict[str, str] = {}
    for name in names:
        listing.setdefault(name.lower(), name)
    return listing
