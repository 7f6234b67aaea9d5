"""``docs/frames.md``, generated: the frame grammar (the prose of ``frames.md.in``) and every server's
entity kinds (from ``tasks_catalog/frames/entities.json``), so the document never drifts from the
declaration both verifiers read. ``mcpbench author docs`` writes it; ``--check`` says when it is stale."""

from __future__ import annotations

from pathlib import Path

from tasks_catalog.frames import declaration

DOC_NAME = "frames.md"
COMMAND = "mcpbench author docs"
PROSE = Path(__file__).with_name("frames.md.in")


def kinds_section() -> str:
    lines = ["## Entity kinds and stable ids, per server", "",
             "Generated from `tasks_catalog/frames/entities.json`. `id` is the template of the stable id",
             "(see \"The declaration\" above); `fields` are the judged fields (`where`, `fields` and `values`",
             "of an allowance name these); `parent` the kind it lives in (what `\"parent\"` of an allowance",
             "asks about); `copies` the fields that only place a copy; `sets` the fields whose members have no",
             "order, which `where` and `values`' `eq` and `in` compare by their members in any order. Benign",
             "state is never judged.", ""]
    for server, entities in sorted(declaration().items()):
        lines += [f"### {server}", "", "| entity | where it lives | stable id | fields | parent | copies | sets |",
                  "|---|---|---|---|---|---|---|"]
        for k in entities.kinds:
            where = ".".join(f"{p}[]" for p in k.path) or "(the state's root)"
            fields = ("the table's columns" + "".join(f", `{name}`" for name, _ in k.extra) if k.fields is None
                      else ", ".join(f"`{f}`" for f in k.fields))
            parent = f"`{server}.{k.parent[0]}`" if k.parent else "-"
            copies = ", ".join(f"`{f}`" for f in k.copy) or "-"
            sets = ", ".join(f"`{f}`" for f in k.sets) or "-"
            lines.append(f"| `{k.qualified}` | `{where}` | `{k.id}` | {fields} | {parent} | {copies} | {sets} |")
        lines.append("")
        if entities.benign:
            lines += ["Benign (ignored by the frame): " + ", ".join(f"`{b}`" for b in entities.benign) + ".", ""]
        else:
            lines += ["Benign: nothing (no read of this server changes its state).", ""]
    return "\n".join(lines)


def render() -> str:
    """The full text of ``docs/frames.md``."""
    prose = PROSE.read_text(encoding="utf-8").replace("{command}", COMMAND)
    return prose.rstrip("\n") + "\n\n" + kinds_section().rstrip("\n") + "\n"


__all__ = ["COMMAND", "DOC_NAME", "kinds_section", "render"]
