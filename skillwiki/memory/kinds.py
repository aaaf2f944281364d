"""The lessons' vocabularies, where their first importers found them; they live in
`skillwiki.kinds`, at the bottom of the layers, so that search and the catalog name them too."""

from __future__ import annotations

from skillwiki.kinds import RETIRED, Outcome, Scope, Severity, Status, Trigger, values

__all__ = ["RETIRED", "Outcome", "Scope", "Severity", "Status", "Trigger", "values"]
