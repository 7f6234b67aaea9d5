"""Inputs whose work grows with them are bounded, each with a clear error naming the bound: a tool's
Python work cannot be interrupted, and its memory is the harness's (docs/sandbox.md, threat model)."""

from __future__ import annotations

import tracemalloc

import servers.calendar.tools
import servers.filesystem.tools
import servers.kit

#: The bounds, as servers/filesystem/tools.py and servers/kit/tools.py set them (written out: each is
#: part of what an agent is told when it passes one).
MAX_PATH_CHARS, MAX_PATH_DEPTH, MAX_QUERY_CHARS, MAX_RESULT_CHARS, MAX_ATTENDEES = 1024, 64, 500, 2_000_000, 250

FILES = {"files": {"notes/plan.md": "ship on Friday\n"}, "directories": ["archive"]}


def test_a_path_of_a_hundred_thousand_levels_is_refused_naming_the_limit(live):
    """It took 15 s to resolve (a lookup per prefix), then failed on the operating system's own limit."""
    fs = live("filesystem", FILES)
    message = fs.error("create_directory", path="a/" * 100_000)
    assert f"the longest accepted is {MAX_PATH_CHARS}" in message
    assert fs.state().directories == ["archive", "notes"]


def test_a_tree_is_never_made_deeper_than_the_limit_not_even_by_a_move(live):
    """Moving a deep tree under another deep one would nest past what walking the state back can follow."""
    fs = live("filesystem", FILES)
    half = "/".join(["d"] * (MAX_PATH_DEPTH // 2 + 1))
    fs.ok("create_directory", path=f"left/{half}")
    fs.ok("create_directory", path=f"right/{half}")
    assert f"at most {MAX_PATH_DEPTH} levels deep" in fs.error("create_directory", path="/".join(["e"] * (MAX_PATH_DEPTH + 1)))
    message = fs.error("move_file", source="left", destination=f"right/{half}/left")
    assert f"at most {MAX_PATH_DEPTH} levels deep" in message
    assert any(d.startswith("left/") for d in fs.state().directories), "nothing moved"


def test_a_glob_longer_than_a_path_is_refused(live):
    """A glob of 200,000 '[' never finished turning into a regular expression."""
    fs = live("filesystem", FILES)
    assert f"at most {MAX_PATH_CHARS} characters" in fs.error("search_files", pattern="[" * (MAX_PATH_CHARS + 1))
    assert "at most 50 items" in fs.error("search_files", pattern="*.md", excludePatterns=["x"] * 51)
    assert fs.ok("search_files", pattern="*.md", excludePatterns=["archive/*"]) == "notes/plan.md"


def test_reading_more_than_a_call_may_answer_is_refused_before_it_is_all_read(live):
    fs = live("filesystem", FILES)
    block = "x" * 199_000
    fs.ok("write_file", path="notes/big.md", content=block + "END")
    for _ in range(3):  # each edit grows the file by almost an argument's worth
        fs.ok("edit_file", path="notes/big.md", edits=[{"oldText": "END", "newText": block + "END"}])
    message = fs.error("read_multiple_files", paths=["notes/big.md"] * 50)
    assert f"more than {MAX_RESULT_CHARS} characters" in message
    assert len(fs.ok("read_multiple_files", paths=["notes/big.md"] * 2)) > 1_000_000


def test_search_queries_longer_than_the_limit_are_refused_naming_it(live):
    gm = live("gmail", {"world": {"generator": "gmail", "version": 1, "seed": 1, "size": "default"}})
    assert f"at most {MAX_QUERY_CHARS} characters" in gm.error("search_emails", query="a " * MAX_QUERY_CHARS)
    # within the bound, each message's text is put together once per search, not once per word (100,000
    # words took 20 s), and every word still counts
    every = gm.ok_json("search_emails", query="the", maxResults=100)["resultSizeEstimate"]
    repeated = gm.ok_json("search_emails", query=" ".join(["the"] * 120), maxResults=100)["resultSizeEstimate"]
    negated = gm.ok_json("search_emails", query="the -the", maxResults=100)["resultSizeEstimate"]
    assert every > 0 and repeated == every and negated == 0
    cal = live("calendar", {"world": {"generator": "calendar", "version": 1, "seed": 1, "size": "default"}})
    assert f"at most {MAX_QUERY_CHARS} characters" in cal.error("search_events", query="a " * MAX_QUERY_CHARS)
    ln = live("linear", {"world": {"generator": "linear", "version": 1, "seed": 1, "size": "default"}})
    assert f"at most {MAX_QUERY_CHARS} characters" in ln.error("list_users", query="a" * (MAX_QUERY_CHARS + 1))
    nt = live("notion", {"world": {"generator": "notion", "version": 1, "seed": 1, "size": "default"}})
    assert f"at most {MAX_QUERY_CHARS} characters" in nt.error("search", query="a" * (MAX_QUERY_CHARS + 1))


BROWSER = {"world": {"generator": "browser", "version": 1, "seed": 1, "size": "default"}}


def test_a_search_too_long_for_the_site_is_a_clear_error_not_a_crash(live):
    """Typed into the search box and sent, it made a results page whose links the page model refused."""
    br = live("browser", BROWSER)
    snap = br.ok("browser_snapshot")
    ref = next(line.split("[ref=")[1].split("]")[0] for line in snap.splitlines() if 'textbox "Search"' in line)
    message = br.error("browser_type", ref=ref, text="holiday " * 100, submit=True)
    assert f"this site searches at most {MAX_QUERY_CHARS}" in message
    assert "this browser opens URLs of at most 2000" in br.error("browser_type", ref=ref, text="a" * 3000, submit=True)


def test_a_select_of_many_rows_answers_its_first_rows_and_count_in_bounded_memory(live):
    """Every row was fetched into the harness's memory before all but 500 were dropped: 5 million rows
    took 544 MB, 50 million would take the process (and every run in it) down."""
    pg = live("postgres", {"tables": [{"name": "t", "columns": [{"name": "a", "type": "INTEGER"}], "rows": [[1]]}]})
    tracemalloc.start()  # slows every allocation down: the tool is called directly, not under the MCP client's bound
    try:
        result = pg.tools.query(sql="SELECT range AS n FROM range(300000)")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result["row_count"] == 300_000 and len(result["rows"]) == 500 and result["rows"][499] == [499]
    assert "only the first 500 rows" in result["truncated"]
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB traced for one query"


def test_an_event_takes_at_most_its_limit_of_attendees(live):
    """Every occurrence of a series shows all its attendees: a daily series with 9,000 made a page of
    list_events 42 MB before the answer's own bound refused it."""
    cal = live("calendar", {"world": {"generator": "calendar", "version": 1, "seed": 1, "size": "default"}})
    calendar = cal.ok_json("list_calendars")["items"][0]["id"]
    guests = [f"guest{i}@example.com" for i in range(MAX_ATTENDEES + 1)]
    message = cal.error("create_event", calendarId=calendar, summary="All hands", start="2026-01-05T10:00",
                        end="2026-01-05T11:00", attendees=guests, recurrence=["RRULE:FREQ=DAILY;COUNT=1000"])
    assert f"at most {MAX_ATTENDEES} items" in message
    cal.ok("create_event", calendarId=calendar, summary="All hands", start="2026-01-05T10:00",
           end="2026-01-05T11:00", attendees=guests[:MAX_ATTENDEES])


def test_the_bounds_written_here_are_the_servers_own():
    assert (servers.filesystem.tools.MAX_PATH_CHARS, servers.filesystem.tools.MAX_PATH_DEPTH) == (MAX_PATH_CHARS, MAX_PATH_DEPTH)
    assert (servers.kit.MAX_QUERY_CHARS, servers.kit.MAX_RESULT_CHARS) == (MAX_QUERY_CHARS, MAX_RESULT_CHARS)
    assert servers.calendar.tools.MAX_ATTENDEES == MAX_ATTENDEES
