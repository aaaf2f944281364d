"""The settings of .wiki/config.toml as named tuples, each with its default (SPEC section 9),
and the names a setting may take: fingerprint algorithms, rule settings, rule ids.

A default list or table is one object that every instance shares: settings are read, never
changed in place (the loader builds new values from the file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

FINGERPRINT_ALGORITHMS = ("xxh3", "fnv1a64")
RULE_SETTINGS = ("off", "error", "warning")


class LinksConfig(NamedTuple):
    """How a site generator resolves links, for SW001 (defaults: the files on disk only)."""

    root: str = ""  # repository folder that root-relative links (`/guide/x/`) start from
    # folders the site also serves at its root (VitePress `public/`, Docusaurus and Hugo `static/`)
    static: list[str] = []
    html: bool = False  # a link to `x.html` also finds `x.md` (`.mdx`), or `x.html.md`
    # `x/` or `x` also finds x.md, x/index.md, x/_index.md, x/README.md (or .mdx, .markdown)
    directories: bool = False
    ignore: list[str] = []  # regular expressions of targets to skip
    # a path also finds a file whose name differs only by case (Hugo, learn.microsoft.com)
    case_insensitive: bool = False
    # folders under `root`, one a translation: a page missing in one is the fallback's page
    languages: list[str] = []
    fallback: str = ""  # the folder under `root` a translation falls back to ("": `root`)
    # definition terms (`Term` / `: definition`) have ids, as headings do, numbered with them
    # (Hugo's `parser.autoDefinitionTermID`)
    term_anchors: bool = False
    # a relative link not found from its page's folder is looked for from `root` (Hugo's
    # GetPage and relref: "first relative to the page, then to the rest of the site")
    relative_from_root: bool = False
    # names of template calls that insert a file where they stand (Hugo's `{{% include "x" %}}`
    # shortcode, Jekyll's `{% include x %}`): its headings are the page's anchors, and a link
    # in it that its own folder does not resolve is looked for from each page that includes it
    includes: list[str] = []
    include_root: str = ""  # folder an included path starts from ("": `root`); Jekyll: `_includes`
    # URL prefix -> the folders it serves (several: space-separated, the first that has the
    # page): DocFX's docsets (`/powershell/scripting/` = `reference/docs-conceptual`). With
    # mounts, a root-relative link under none of them is another site's on the host: unchecked.
    mounts: dict[str, str] = {}
    # a link to a file the repository has is found though the wiki has no article of it
    # (ingest refuses it, or never took it): the site serves the repository's files
    repository_files: bool = False
    # `x` or `x/` also finds x.yml or x/index.yml: DocFX's YAML pages (FAQs, landing pages)
    yaml_pages: bool = False
    # files of DocFX's redirections (`{"redirections": [{"source_path": ...}]}`): a link to a
    # page moved away is answered by the redirect the site serves in its place
    redirects: list[str] = []
    # folder under `root` -> the folder under `root` the site serves there too: Jekyll sites
    # that serve a version's folder again as `stable/` and `dev/` (cockroachdb's docs)
    folder_aliases: dict[str, str] = {}


class LintConfig(NamedTuple):
    rules: dict[str, str] = {}
    near_duplicate_jaccard: float = 0.6
    # Folder names (globs: `v[0-9]*`, `pages*`) whose folders hold copies of one tree, a
    # version or a language each: a page at one path below two of them is one page to SW008.
    copies: list[str] = []
    links: LinksConfig = LinksConfig()


class SearchConfig(NamedTuple):
    """How a query shows the copies of one page (`[lint] copies` says which folders hold them)."""

    # Folder names (globs: `v24.1`, `pages`) whose copy of a page a query shows first, the first
    # pattern before the next, among copies that hold as many of the query's words.
    prefer: list[str] = []


class SuggestConfig(NamedTuple):
    replans: int = 1
    consecutive_failures: int = 3
    repeated_failures: int = 3
    retries: int = 2
    cost_factor: float = 2.0
    confidence_low: float = 0.3
    confidence_high: float = 0.6


class RecallConfig(NamedTuple):
    budget: int = 1500
    max_entries: int = 4
    min_confidence: float = 0.2
    half_life_days: float = 90.0


class LessonsConfig(NamedTuple):
    require_review: bool = False


class MaintainConfig(NamedTuple):
    archive_after_days: int = 90
    dedupe_jaccard: float = 0.6
    promote_hits: int = 10
    promote_min_age_days: int = 14


class RulesConfig(NamedTuple):
    """Rules consolidated from lessons: how a group is formed, when consolidation is due,
    how confidence is discounted for small support, and the layers of recall."""

    min_lessons: int = 3  # lessons in a group before maintain proposes a rule
    similarity: float = 0.3  # tag or prevention-rule word overlap that ties two lessons
    due_lessons: int = 10  # new lessons since the last consolidation that make one due
    due_feedback: int = 20  # feedback lines since then that make one due
    due_days: int = 14  # days since then that make one due (with anything new)
    full_support: int = 10  # pieces of evidence at which confidence is no longer discounted
    min_confidence: float = 0.35  # below it (with min_support pieces) a rule is not recalled
    min_support: int = 3
    global_confidence: float = 0.8  # a rule this confident, with global_support pieces,
    global_support: int = 5  # is recalled for every task: the global layer
    review_days: int = 14  # a rule in review is decided by feedback no sooner than this


class ServeConfig(NamedTuple):
    """The kept-open workspace (`skillwiki serve`) that hooks may start."""

    on_demand: bool = False  # a hook that no server answers starts one, in the background
    idle: float = 1800.0  # seconds without a request after which a server started so ends


class Config(NamedTuple):
    """Every setting of SPEC section 9, with its default."""

    fingerprint: str = "xxh3"
    max_file_bytes: int = 5_000_000
    lock_timeout: float = 30.0
    lint: LintConfig = LintConfig()
    search: SearchConfig = SearchConfig()
    suggest: SuggestConfig = SuggestConfig()
    recall: RecallConfig = RecallConfig()
    lessons: LessonsConfig = LessonsConfig()
    maintain: MaintainConfig = MaintainConfig()
    rules: RulesConfig = RulesConfig()
    serve: ServeConfig = ServeConfig()


def value_of(config: Config, key: str) -> Any:
    """The value of a setting named by its dotted key (`maintain.archive_after_days`)."""
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


def rule_modules() -> list[str]:
    """The lint rules' module names (sw001_links, ...), in id order, read from the folder
    they live in without importing them: the ids a config may name cost no import."""
    folder = Path(__file__).parent.parent / "lint" / "rules"
    return sorted(path.stem for path in folder.glob("sw[0-9][0-9][0-9]_*.py"))


def rule_ids() -> list[str]:
    """SW001, SW002, ...: the id of every lint rule."""
    return [name[:5].upper() for name in rule_modules()]
