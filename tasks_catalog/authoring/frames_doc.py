"""``python -m tasks_catalog.frames docs [--check]``: write ``docs/frames.md``, the frame grammar and
every server's entity kinds (generated from ``entities.json``, so the document never drifts from the
declaration both verifiers read). ``--check`` exits 1 when the committed document is stale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tasks_catalog.frames import declaration

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "frames.md"
COMMAND = "python -m tasks_catalog.frames docs"
PROSE = Path(__file__).with_name("frames.md.in")


def kinds_section() -> str:
    lines = ["## Entity kinds and stable ids, per server", "",
             "Generated from `tasks_catalog/frames/entities.json`. `id` is the template of the stable id",
             "(see \"The declaration\" above); `fields` are the judged fields (`where` and `fields` of an",
             "allowance name these). Benign state is never judged.", ""]
    for server, entities in sorted(declaration().items()):
        lines += [f"### {server}", "", "| entity | where it lives | stable id | fields |", "|---|---|---|---|"]
        for k in entities.kinds:
            where = ".".join(f"{p}[]" for p in k.path) or "(the state's root)"
            fields = ("the table's columns" + "".join(f", `{name}`" for name, _ in k.extra) if k.fields is None
                      else ", ".join(f"`{f}`" for f in k.fields))
            lines.append(f"| `{k.qualified}` | `{where}` | `{k.id}` | {fields} |")
        lines.append("")
        if entities.benign:
            lines += ["Benign (ignored by the frame): " + ", ".join(f"`{b}`" for b in entities.benign) + ".", ""]
        else:
            lines += ["Benign: nothing (no read of this server changes its state).", ""]
    return "\n".join(lines)


def render() -> str:
    prose = PROSE.read_text(encoding="utf-8").replace("{command}", COMMAND)
    return prose.rstrip("\n") + "\n\n" + kinds_section().rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tasks_catalog.frames", description=__doc__)
    parser.add_argument("what", choices=["docs"])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/frames.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
        if current != text:
            print(f"{DOC_PATH} is stale; run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    DOC_PATH.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
