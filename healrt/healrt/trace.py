"""The execution trace: hit counts of instrumented statements, keyed `relative/file.py:line`.

Definition: a site's count goes up once each time control reaches the statement (before it runs;
a `retry` does not count again). Sites sharing a line are summed. Lines never reached are omitted.
The rewritten code counts per block and the runtime corrects for blocks left early (sites.py);
the counts are exactly the per-statement ones.

In replay mode only the wrapped crash sites are instrumented, so the trace holds only them: it
is not comparable with a full trace (`trace_complete` is false in the outcome).
"""

from __future__ import annotations

import os

from .sites import SiteTable


def trace_counts(table: SiteTable, source_dir: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for site, hits in zip(table.sites, table.counts()):
        if hits:
            key = f"{os.path.relpath(site.file, source_dir)}:{site.line}"
            counts[key] = counts.get(key, 0) + hits
    return counts
