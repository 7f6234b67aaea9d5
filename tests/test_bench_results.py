"""bench/RESULTS.md is one table, the current figure of every measure, and every reference to a benchmark's
write-up resolves: a row per measure with its value, target, date, machine, command and a link into
bench/history/; each link (from the table, the docs, the history files) names a file and a heading that
exist; each quoted section (``bench/history/servers.md, "Cross-server tasks"`` in code and comments)
names a heading of that file; and no script writes RESULTS.md, whose rows are replaced by hand."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
RESULTS = BENCH / "RESULTS.md"
HISTORY = BENCH / "history"
COLUMNS = ["measure", "value", "target", "date (UTC)", "machine", "command", "history"]
#: Scripts in bench/ that measure nothing themselves: the recorder and the host's speed.
HELPERS = {"record.py", "machine_speed.py"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
QUOTED = re.compile(r"bench/(history/[a-z-]+\.md|RESULTS\.md),\s+(?:#:\s+)?\"([^\"]+)\"")


def anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(path: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in path.read_text(encoding="utf-8").splitlines()
            if re.match(r"#{1,6} ", line)]


def table_rows() -> list[list[str]]:
    """The cells of every row of RESULTS.md's table (header and group rows included, the rule excluded)."""
    rows = [line for line in RESULTS.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip()[1:-1].split("|")] for row in rows
            if not re.fullmatch(r"\|(-+\|)+", row.strip())]


def measure_rows() -> list[list[str]]:
    return [row for row in table_rows()[1:] if not (row[0].startswith("**") and not any(row[1:]))]


def links_into_bench() -> list[tuple[Path, str]]:
    """Every relative link in README.md, docs/ and bench/ whose target lies in bench/: (file, target)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(BENCH.rglob("*.md"))]
    found = []
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path = (page.parent / target.split("#")[0]).resolve() if not target.startswith("#") else page
            if BENCH in path.parents or path == BENCH:
                found.append((page, target))
    return found


def test_results_is_one_table_with_the_columns_of_a_current_figure():
    text = RESULTS.read_text(encoding="utf-8")
    blocks = re.findall(r"(?:^\|.*\n?)+", text, flags=re.M)
    assert len(blocks) == 1, f"bench/RESULTS.md holds {len(blocks)} tables; the history goes to bench/history/"
    assert table_rows()[0] == COLUMNS, table_rows()[0]
    assert not re.search(r"^#{2,} ", text, flags=re.M), "bench/RESULTS.md has sections: they go to bench/history/"


def test_every_row_gives_a_value_a_date_a_machine_a_command_and_its_history():
    rows = measure_rows()
    assert len(rows) >= 20, f"only {len(rows)} measures in bench/RESULTS.md"
    for row in rows:
        where = f"bench/RESULTS.md, row {row[0]!r}"
        assert len(row) == len(COLUMNS), f"{where}: {len(row)} cells, not {len(COLUMNS)}"
        measure, value, target, date, machine, command, history = row
        assert value and target and machine, f"{where}: an empty cell (a measure without a target says —)"
        assert re.match(r"20\d\d-\d\d-\d\d\b", date), f"{where}: the date {date!r} is not YYYY-MM-DD ..."
        assert "bench/" in command or command.startswith(("`mcpbench", "`.ci/run")), f"{where}: command {command!r}"
        assert LINK.fullmatch(history) and LINK.fullmatch(history).group(1).startswith("history/"), (
            f"{where}: the history cell {history!r} is not a link into bench/history/")


def test_every_benchmark_script_has_a_row():
    commands = " ".join(row[5] for row in measure_rows())
    scripts = sorted(p.name for p in BENCH.glob("*.py") if p.name not in HELPERS)
    missing = [name for name in scripts if f"bench/{name}" not in commands]
    assert not missing, f"bench scripts with no row in bench/RESULTS.md: {missing}"


def test_every_link_into_bench_names_a_file_and_a_heading_that_exist():
    links = links_into_bench()
    assert len(links) >= len(measure_rows()), f"the scan found only {len(links)} links into bench/"
    broken = []
    for page, target in links:
        path_part, _, fragment = target.partition("#")
        path = (page.parent / path_part).resolve() if path_part else page
        if not path.is_file():
            broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
        elif fragment and fragment not in {anchor(h) for h in headings(path)}:
            broken.append(f"{page.relative_to(ROOT)}: {target} (no heading with that anchor)")
    assert not broken, "links into bench/ that do not resolve:\n" + "\n".join(broken)


def test_every_quoted_history_section_names_a_heading_of_its_file():
    quotes = []
    for path in [*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.rglob("*.py")]:
        if any(part in {"node_modules", ".git"} for part in path.parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        quotes += [(path, file, section) for file, section in QUOTED.findall(text.replace("\n", " "))]
    assert quotes, "the scan found no quoted bench section (runner.py and tests/conftest.py quote one each)"
    wrong = []
    for path, file, section in quotes:
        section = re.sub(r"\s*#:\s*", " ", section)
        if file == "RESULTS.md":
            wrong.append(f"{path.relative_to(ROOT)} quotes bench/RESULTS.md, {section!r}: its sections are in bench/history/")
        elif not (BENCH / file).is_file():
            wrong.append(f"{path.relative_to(ROOT)} quotes bench/{file}, which does not exist")
        elif not any(h.startswith(section) for h in headings(BENCH / file)):
            wrong.append(f"{path.relative_to(ROOT)}: bench/{file} has no heading {section!r}")
    assert not wrong, "\n".join(wrong)


def test_no_script_writes_results_md():
    writers = [p.name for p in BENCH.glob("*.py") if re.search(r"[\"']RESULTS\.md[\"']", p.read_text(encoding="utf-8"))]
    assert not writers, f"these scripts name RESULTS.md as a path: they should append to bench/history/ instead: {writers}"
