"""Reference search: the team's provisional answer to the open question (what happens after the 200 ms
deadline?) is "no answer": ``None``, which callers show as "search timed out", never a list that looks
like "no document matches"."""

from __future__ import annotations

import clock

SLA_MS = 200


def search(docs: list[str], query: str) -> list[str] | None:
    """Documents of ``docs`` containing ``query``, in order, or ``None`` when the clock passed the
    ``SLA_MS`` millisecond deadline before every document was examined."""
    start = clock.now_ms()
    hits: list[str] = []
    for doc in docs:
        if clock.now_ms() - start > SLA_MS:
            return None
        if query in doc:
            hits.append(doc)
    return hits
