"""The writes: compile, ingest, record_lesson, feedback and review. Each writes through the
core (under the workspace lock), brings the wiki up to date after it, and answers with a frozen
value whose `to_json()` is what `--json` prints and what the MCP tool returns.

How the wiki is brought up to date after a lesson is written is the caller's (`after`): by
default a whole compile, as the command line does; a server that keeps the workspace open
passes its own look, which its watcher tells what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from skillwiki.api.state import file_fingerprint

# The lesson a record_lesson call takes, built from the arguments every face names alike.
from skillwiki.memory.lessons import LessonInput as LessonInput
from skillwiki.memory.lessons import lesson_input as lesson_input

if TYPE_CHECKING:
    from skillwiki.compiler import CompileResult, Problem, Progress
    from skillwiki.config import Config
    from skillwiki.ingest import IngestResult
    from skillwiki.memory.evidence import FeedbackResult, Pending
    from skillwiki.memory.lessons import Recorded
    from skillwiki.workspace import Workspace

# What brings the wiki up to date after a write; None: a whole compile.
After = Callable[["Workspace", "Config"], object] | None


def bring_up_to_date(ws: Workspace, config: Config, after: After) -> None:
    """Bring the wiki up to date after a write: by `after`, else by a compile (see
    `compiled`)."""
    if after is not None:
        after(ws, config)
        return
    compiled(ws, config)


def compiled(
    ws: Workspace,
    config: Config,
    *,
    force: bool = False,
    progress: Progress | None = None,
    ready_reads: bool = False,
    indexing: Progress | None = None,
) -> CompileResult:
    """Compile, then bring the search index (where there is one) in step with what the
    compile wrote, so that the next read has nothing left to do: a writer's compile has its
    articles' headings at hand, where the next read would compare the whole index with the
    articles.

    `ready_reads` (the compile and ingest commands, not a write that compiles after it): a
    missing outline.json is made again, and a missing search index is built, so that the
    first read after a compile of many articles does not read them all again. A lesson
    recorded on a fresh clone leaves the index to the first read, which a hook's budget
    could not spare. `indexing` is told how many of the articles the search index takes in
    it has taken (with the `semantic` extra, embedding them is most of a first build)."""
    from skillwiki import search
    from skillwiki.compiler import compile_workspace

    result = compile_workspace(ws, config, force=force, progress=progress, outline=ready_reads)
    search.keep_in_step(ws, result.snapshot, build=ready_reads, progress=indexing)
    return result


@dataclass(frozen=True)
class CompileAnswer:
    """What a compile did: each state's count, what it wrote, removed and left alone."""

    result: CompileResult

    @property
    def problems(self) -> list[Problem]:
        """The raw files that could not be compiled, with why."""
        return self.result.problems

    def to_json(self) -> dict[str, Any]:
        """`compile --json`: counts, the articles written, removed and kept as edited, the
        backups made, whether the indexes were written, and the problems."""
        from skillwiki.compiler import State

        result = self.result
        return {
            "counts": {state.value: result.counts[state] for state in State},
            "written": [f".wiki/wiki/{rel}" for rel in result.written],
            "removed": [f".wiki/wiki/{rel}" for rel in result.removed],
            "kept_edited": [f".wiki/wiki/{rel}" for rel in result.kept_edited],
            "backups": result.backups,
            "indexes_written": result.indexes_written,
            "problems": [problem._asdict() for problem in result.problems],
        }


def compile(
    ws: Workspace,
    config: Config,
    *,
    force: bool = False,
    progress: Progress | None = None,
    indexing: Progress | None = None,
) -> CompileAnswer:
    """Bring wiki/ and the indexes up to date with raw/ (`force`: over hand-edited articles,
    each backed up first); `progress` follows the compile, `indexing` the search index's
    build."""
    return _compiled(ws, config, force=force, progress=progress, indexing=indexing)


def _compiled(
    ws: Workspace,
    config: Config,
    *,
    force: bool,
    progress: Progress | None,
    indexing: Progress | None = None,
) -> CompileAnswer:
    return CompileAnswer(
        compiled(ws, config, force=force, progress=progress, ready_reads=True, indexing=indexing)
    )


@dataclass(frozen=True)
class IngestAnswer:
    """What an ingest copied, left out and refused, and the compile after it (None: none)."""

    result: IngestResult
    fingerprints: tuple[str, ...]  # of each ingested file's raw copy, in result.files' order
    compiled: CompileAnswer | None

    def to_json(self) -> dict[str, Any]:
        """`ingest --json`: each file with its raw copy's fingerprint, the counts of what was
        left out, the files refused with why, and the compile's answer."""
        result = self.result
        files = [
            {**asdict(item), "fingerprint": fingerprint}
            for item, fingerprint in zip(result.files, self.fingerprints, strict=True)
        ]
        return {
            "files": files,
            "skipped": result.skipped,
            "empty": result.empty,
            "environments": result.environments,
            "ignored": result.ignored,
            "hidden": result.hidden,
            "refused": [asdict(item) for item in result.refused],
            "compile": None if self.compiled is None else self.compiled.to_json(),
        }


def ingest(
    ws: Workspace,
    config: Config,
    paths: Sequence[str],
    *,
    stdin: bytes | None = None,
    name: str | None = None,
    title: str | None = None,
    summary: str | None = None,
    tags: Sequence[str] = (),
    include: Sequence[str] = (),
    all_text: bool = False,
    expected: str | None = None,
    compile_after: bool = True,
    progress: Progress | None = None,
    indexing: Progress | None = None,
) -> IngestAnswer:
    """Copy files, folders or `stdin` (the path `-`, named `name`) into raw/, with the title,
    summary and tags given, then compile (unless `compile_after` is off). Of a folder, the
    Markdown and plain-text files are taken, and those `include` matches (shell patterns of
    names or paths below it), or with `all_text` every text kind. `expected`: the
    fingerprint the target must still have."""
    from skillwiki.ingest import Kinds, Overrides
    from skillwiki.ingest import ingest as copy

    overrides = Overrides(title, summary, tuple(tags))
    kinds = Kinds(tuple(include), all_text)
    result = copy(
        ws,
        config,
        paths,
        stdin=stdin,
        name=name,
        overrides=overrides,
        kinds=kinds,
        expected=expected,
    )
    compiled = (
        _compiled(ws, config, force=False, progress=progress, indexing=indexing)
        if compile_after
        else None
    )
    fingerprints = tuple(
        file_fingerprint(ws.raw / item.raw, config.fingerprint) for item in result.files
    )
    return IngestAnswer(result, fingerprints, compiled)


@dataclass(frozen=True)
class RecordAnswer:
    """A lesson recorded (or found recorded already, or a near-duplicate named)."""

    recorded: Recorded
    rules_in_review: tuple[str, ...] = ()  # rules the new lesson contradicts

    def to_json(self) -> dict[str, Any]:
        """`record-lesson --json`: the lesson's id, path, status, whether it was created, the
        similar lessons, the secrets redacted, what keeps it a candidate, and the rules it
        put in review."""
        return {**asdict(self.recorded), "rules_in_review": list(self.rules_in_review)}


def record_lesson(
    ws: Workspace,
    config: Config,
    lesson: LessonInput,
    *,
    dedupe: bool = False,
    expected: str | None = None,
    after: After = None,
) -> RecordAnswer:
    """Record a lesson in raw/lessons/ (secrets redacted), put in review each rule it
    contradicts (see skillwiki.memory.rules), then bring the wiki up to date.

    `lesson` is built by `lesson_input` from record-lesson's arguments, as the CLI and the MCP
    tool name them. `dedupe`: do not record a near-duplicate, name it; `expected`: index.json's
    fingerprint as read.
    """
    from skillwiki import clock
    from skillwiki.memory.lessons import record
    from skillwiki.memory.review import note_conflicts

    recorded = record(ws, config, lesson, dedupe=dedupe, expected=expected)
    in_review = note_conflicts(ws, config, recorded.id, clock.today()) if recorded.created else []
    bring_up_to_date(ws, config, after)
    return RecordAnswer(recorded, tuple(in_review))


@dataclass(frozen=True)
class FeedbackAnswer:
    """A recalled lesson's new evidence and the confidence that follows."""

    result: FeedbackResult

    def to_json(self) -> dict[str, Any]:
        """`feedback --json`: the lesson's (or rule's) id, the outcome, its confidence and
        evidence count, whether it was flagged (a rule: put) in review, its raw file's
        fingerprint now, and its status (a rule's review decided by its outcomes)."""
        return asdict(self.result)


def feedback(
    ws: Workspace,
    config: Config,
    lesson_id: str,
    outcome: str,
    *,
    note: str | None = None,
    expected: str | None = None,
    after: After = None,
) -> FeedbackAnswer:
    """Add a dated evidence line (helped, not-helped or failed-again) to a lesson, then bring
    the wiki up to date."""
    from skillwiki import clock
    from skillwiki.memory.evidence import feedback as add_evidence

    result = add_evidence(ws, config, lesson_id, outcome, note, clock.today(), expected)
    bring_up_to_date(ws, config, after)
    return FeedbackAnswer(result)


@dataclass(frozen=True)
class Waiting:
    """The lessons waiting for a person: candidates, and those flagged for review."""

    pending: tuple[Pending, ...]

    def to_json(self) -> dict[str, Any]:
        return {"pending": [asdict(item) for item in self.pending]}


@dataclass(frozen=True)
class Decided:
    """A lesson accepted (now active) or rejected (now archived)."""

    id: str
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status}


def review(
    ws: Workspace,
    config: Config,
    lesson_id: str | None = None,
    *,
    accept: bool = False,
    reject: bool = False,
    reason: str | None = None,
) -> Waiting | Decided:
    """List the lessons waiting for review (no `lesson_id`), or accept or reject one (exactly
    one of `accept` and `reject`), then compile."""
    from skillwiki import clock
    from skillwiki.errors import InputError
    from skillwiki.memory.evidence import decide, pending_review

    if lesson_id is None:
        if accept or reject:
            raise InputError(None, "name the lesson to decide: skillwiki review ID --accept")
        return Waiting(tuple(pending_review(ws, config, clock.today())))
    if accept == reject:
        raise InputError(None, "give exactly one of --accept or --reject")
    status = decide(ws, config, lesson_id, accept, reason)
    bring_up_to_date(ws, config, None)
    return Decided(lesson_id, status)
