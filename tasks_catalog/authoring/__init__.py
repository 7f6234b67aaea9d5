"""The authoring wing: tools a task author runs while writing tasks and templates, never the judge.

- ``propose``: draft a task's or template's frame from what its reference solution changes;
- ``tighten``: tighten an existing frame to field level (keys of maps, values of lists, parents, max);
- ``wrongs``: draft the collateral near-miss wrong solution and label lookalikes;
- ``guards``: find guards that name an entity by a name (evadable by a rename) and rewrite them by id;
- ``template_check``: render templates at many seeds and gate every rendering;
- ``frames_doc`` and ``predicates_doc``: generate docs/frames.md and docs/predicates.md.

Each is behind ``mcpbench author ...`` (``mcpbench/commands/author.py``). The wing is the top floor of
``tasks_catalog``: it uses the judge (frames, predicates, the gate, the loader, templates) and nothing
below it imports the wing (tests/test_layering.py).
"""
