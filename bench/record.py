"""Where a benchmark's result goes: printed, and appended to its topic's file in bench/history/.

bench/RESULTS.md is one table, the current figure of every measure; no script edits it. A script prints
the Markdown section it measured (a ``## `` heading with the date and the command, the machine, the
figures) and, unless run with ``--no-write``, appends it to ``bench/history/<topic>.md``, where that
topic's measurements follow each other in the order they were taken. The measure's row in the table
(value, date, machine, command, link) is then replaced by hand: which figure is the headline, and
whether the machine was too loaded for it to stand, are judgements the script cannot make.
"""

from __future__ import annotations

from pathlib import Path

HISTORY = Path(__file__).resolve().with_name("history")


def record(topic: str, section: str, *, write: bool = True) -> None:
    """Print ``section``; when ``write``, append it to bench/history/``topic``.md, after a blank line."""
    path = HISTORY / f"{topic}.md"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in HISTORY.glob("*.md")))
        raise SystemExit(f"bench/history/{topic}.md does not exist (the topics: {known})")
    section = section.strip("\n")
    if not section.startswith("## "):
        raise SystemExit(f"a section for bench/history/{topic}.md must open with a '## ' heading: {section[:60]!r}")
    print(section)
    if not write:
        return
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + "\n\n" + section + "\n", encoding="utf-8")
    print(f"\nAppended to bench/history/{topic}.md. Now replace the measure's row in bench/RESULTS.md "
          "(value, date, machine, command) and link this section from it.")
