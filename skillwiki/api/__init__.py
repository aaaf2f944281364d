"""The library API the faces share: one function per use-case, plain values in, a frozen
value out whose `to_json()` is its one JSON form.

The command line prints that form for `--json` (and renders the same value as text), the MCP
server returns it as the tool's answer, the hooks render it for their client: so the MCP
answer is the CLI's `--json` by construction. Nothing here parses arguments, prints or knows
a face; the faces import this package, never each other. The core is imported inside the
functions, so a face that imports this package at start-up pays for nothing it does not use.

- reads: `query`, `show`, on a workspace opened for them (`open_wiki`, `Opened`);
- state: `status`, how fresh the wiki is, read without opening the search index;
- memory: `recall`, `suggest` (the proposed lesson as data);
- writes: `compile`, `ingest`, `record_lesson`, `feedback`, `review`;
- rules: `maintain` (with the rules it proposes), `record_rule`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillwiki import lazy

if TYPE_CHECKING:
    from skillwiki.api.memory import (
        RecallAnswer,
        SuggestAnswer,
        recall,
        record_lesson_command,
        record_lesson_fields,
        suggest,
    )
    from skillwiki.api.reads import (
        LIMIT_MAX,
        ArticleType,
        Opened,
        QueryAnswer,
        ShowAnswer,
        Wiki,
        open_wiki,
        opened_notices,
        query,
        show,
    )
    from skillwiki.api.rules import (
        MaintainAnswer,
        RuleAnswer,
        RuleInput,
        maintain,
        record_rule,
        rule_input,
    )
    from skillwiki.api.state import StatusAnswer, StatusFile, file_fingerprint, status
    from skillwiki.api.writes import (
        CompileAnswer,
        Decided,
        FeedbackAnswer,
        IngestAnswer,
        LessonInput,
        RecordAnswer,
        Waiting,
        compile,
        feedback,
        ingest,
        lesson_input,
        record_lesson,
        review,
    )

__all__ = [
    "LIMIT_MAX",
    "ArticleType",
    "CompileAnswer",
    "Decided",
    "FeedbackAnswer",
    "IngestAnswer",
    "Opened",
    "QueryAnswer",
    "RecallAnswer",
    "LessonInput",
    "MaintainAnswer",
    "RuleAnswer",
    "RuleInput",
    "RecordAnswer",
    "ShowAnswer",
    "StatusAnswer",
    "StatusFile",
    "SuggestAnswer",
    "Waiting",
    "Wiki",
    "compile",
    "feedback",
    "file_fingerprint",
    "ingest",
    "open_wiki",
    "opened_notices",
    "query",
    "recall",
    "lesson_input",
    "maintain",
    "record_rule",
    "rule_input",
    "record_lesson",
    "record_lesson_command",
    "record_lesson_fields",
    "review",
    "show",
    "status",
    "suggest",
]

# Each name, and the module it is loaded from the first time it is asked for.
__getattr__ = lazy.exports(
    __name__,
    {
        "RecallAnswer": "memory",
        "SuggestAnswer": "memory",
        "recall": "memory",
        "record_lesson_command": "memory",
        "record_lesson_fields": "memory",
        "suggest": "memory",
        "MaintainAnswer": "rules",
        "RuleAnswer": "rules",
        "RuleInput": "rules",
        "maintain": "rules",
        "record_rule": "rules",
        "rule_input": "rules",
        "LIMIT_MAX": "reads",
        "ArticleType": "reads",
        "Opened": "reads",
        "QueryAnswer": "reads",
        "ShowAnswer": "reads",
        "StatusAnswer": "state",
        "StatusFile": "state",
        "Wiki": "reads",
        "file_fingerprint": "state",
        "open_wiki": "reads",
        "opened_notices": "reads",
        "query": "reads",
        "show": "reads",
        "status": "state",
        "CompileAnswer": "writes",
        "Decided": "writes",
        "FeedbackAnswer": "writes",
        "IngestAnswer": "writes",
        "LessonInput": "writes",
        "RecordAnswer": "writes",
        "Waiting": "writes",
        "compile": "writes",
        "feedback": "writes",
        "ingest": "writes",
        "lesson_input": "writes",
        "record_lesson": "writes",
        "review": "writes",
    },
)
