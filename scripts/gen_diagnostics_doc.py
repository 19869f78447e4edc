"""Write docs/diagnostics.md from the diagnostics registry (specs_lang/diagnostics.py).

Usage: ``python scripts/gen_diagnostics_doc.py`` rewrites the file; ``--check`` writes nothing and exits 1
when the file differs from the registry (0 when it is current).
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalgap.specs_lang.diagnostics_doc import render_markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "diagnostics.md"


def main(argv: list[str]) -> int:
    """Write (or with ``--check`` compare) docs/diagnostics.md; returns the exit status."""
    text = render_markdown()
    if "--check" in argv:
        current = DOC.read_text(encoding="utf-8") if DOC.is_file() else ""
        if current != text:
            print(f"{DOC} is stale: run python scripts/gen_diagnostics_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
