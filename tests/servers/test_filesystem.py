import os

import pytest

from servers.filesystem import FilesystemState
from servers.kit import StateError

STATE = {
    "files": {
        "notes/meeting-2026-03-14.md": "# Budget review\nAttendees: Priya, Tomás\n",
        "reports/q3/revenue.csv": "region,amount\nEMEA,1200\nAPAC,980\n",
        "README.txt": "Shared drive of the Lisbon office\n",
    },
    "directories": ["archive"],
}


def test_reading_a_file_returns_its_text(live):
    fs = live("filesystem", STATE)
    assert fs.ok("read_text_file", path="reports/q3/revenue.csv").startswith("region,amount")
    assert fs.ok("read_text_file", path="reports/q3/revenue.csv", head=1) == "region,amount\n"
    assert fs.ok("read_text_file", path="reports/q3/revenue.csv", tail=1) == "APAC,980\n"


def test_writing_and_editing_change_the_final_state(live):
    fs = live("filesystem", STATE)
    fs.ok("write_file", path="archive/old.md", content="old minutes\n")
    fs.ok("edit_file", path="README.txt", edits=[{"oldText": "Lisbon", "newText": "Porto"}])
    state = fs.state()
    assert state.files["archive/old.md"] == "old minutes\n"
    assert state.files["README.txt"] == "Shared drive of the Porto office\n"


def test_an_edit_that_does_not_match_exactly_once_is_refused_and_changes_nothing(live):
    fs = live("filesystem", STATE)
    msg = fs.error("edit_file", path="README.txt", edits=[{"oldText": "Madrid", "newText": "x"}])
    assert "occurs 0 times" in msg
    assert fs.state().files["README.txt"] == STATE["files"]["README.txt"]


def test_directories_are_created_listed_and_moved(live):
    fs = live("filesystem", STATE)
    fs.ok("create_directory", path="archive/2026/q1")
    fs.ok("move_file", source="notes/meeting-2026-03-14.md", destination="archive/2026/q1/meeting.md")
    listing = fs.ok("list_directory", path="archive/2026/q1")
    assert listing == "[FILE] meeting.md"
    state = fs.state()
    assert "notes/meeting-2026-03-14.md" not in state.files
    assert "archive/2026/q1" in state.directories and "notes" in state.directories
    assert fs.ok_json("directory_tree", path="archive")[0]["name"] == "2026"


def test_search_and_info_report_what_is_there(live):
    fs = live("filesystem", STATE)
    assert fs.ok("search_files", pattern="*.csv") == "reports/q3/revenue.csv"
    assert fs.ok("search_files", pattern="*.pdf") == "No matches found"
    info = fs.ok_json("get_file_info", path="reports/q3/revenue.csv")
    assert info == {"path": "reports/q3/revenue.csv", "type": "file", "size": 33, "lines": 3}


def test_search_matches_names_case_sensitively_and_excludes_by_name_or_path(live):
    fs = live("filesystem", {"files": {"a/Report.md": "", "a/report.md": "", "a/b/report.md": "", "c/report.md": "",
                                      "report.md": ""}, "directories": ["reports"]})
    # top-down, each directory's entries sorted; paths relative to the workspace
    assert fs.ok("search_files", pattern="report*").splitlines() == [
        "report.md", "reports", "a/report.md", "a/b/report.md", "c/report.md"]
    assert fs.ok("search_files", pattern="[Rr]eport.md", path="a").splitlines() == [
        "a/Report.md", "a/report.md", "a/b/report.md"]
    assert fs.ok("search_files", pattern="*.md", excludePatterns=["a/b/*", "c/*"]).splitlines() == [
        "report.md", "a/Report.md", "a/report.md"]
    assert fs.ok("search_files", pattern="*.md", path="a", excludePatterns=["Report.md"]).splitlines() == [
        "a/report.md", "a/b/report.md"]


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "notes/../../x", "a\\b"])
def test_paths_that_leave_the_root_are_refused(live, path):
    fs = live("filesystem", STATE)
    assert "access denied" in fs.error("read_text_file", path=path)
    assert "access denied" in fs.error("write_file", path=path, content="x")


def test_a_symlink_leading_outside_the_root_is_refused(live, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("host secret")
    fs = live("filesystem", STATE)
    os.symlink(outside, fs.tools.root / "link.txt")
    os.symlink(tmp_path, fs.tools.root / "linkdir")
    assert "outside the workspace root" in fs.error("read_text_file", path="link.txt")
    assert "outside the workspace root" in fs.error("write_file", path="linkdir/x.txt", content="x")
    assert not (tmp_path / "x.txt").exists()


def test_errors_name_what_is_wrong(live):
    fs = live("filesystem", STATE)
    assert "no such file" in fs.error("read_text_file", path="missing.md")
    assert "is a directory" in fs.error("read_text_file", path="notes")
    assert "parent directory" in fs.error("write_file", path="nope/x.md", content="x")
    assert "already exists" in fs.error("move_file", source="README.txt", destination="notes/meeting-2026-03-14.md")
    assert "head or tail" in fs.error("read_text_file", path="README.txt", head=1, tail=1)


def test_an_oversized_argument_is_refused(live):
    fs = live("filesystem", STATE)
    assert "limit" in fs.error("write_file", path="big.txt", content="x" * 300_000)
    assert "big.txt" not in fs.state().files


def test_dump_and_reload_keep_the_digest(live):
    fs = live("filesystem", STATE)
    fs.ok("write_file", path="archive/new.txt", content="ünïcode ✓\n")
    state = fs.state()
    again = FilesystemState.load(state.dump())
    assert again.digest() == state.digest()
    assert FilesystemState.load(STATE).digest() != state.digest()


def test_a_bad_state_names_the_field():
    with pytest.raises(StateError, match="files"):
        FilesystemState.load({"files": {"../x": "y"}})
    with pytest.raises(StateError, match="folders"):
        FilesystemState.load({"folders": []})


FS_WORLD = {"world": {"generator": "filesystem", "version": 1, "seed": 1, "size": "default"}}


def test_the_world_drive_has_200_files_in_30_directories_and_round_trips_through_the_disk(live):
    from servers import get_spec

    fs = live("filesystem", FS_WORLD)
    state = fs.state()
    assert len(state.files) == 200 and len(state.directories) >= 30
    assert state.digest() == get_spec("filesystem").load_state(FS_WORLD).digest()
    kinds = {path.rsplit(".", 1)[-1] for path in state.files}
    assert {"md", "csv", "yaml", "toml", "py"} <= kinds


def test_a_stray_copy_of_an_export_is_found_next_to_the_original(live):
    fs = live("filesystem", FS_WORLD)
    hits = fs.ok("search_files", pattern="sales_2026-03_emea*", path="sales").splitlines()
    assert hits == ["sales/exports/sales_2026-03_emea (1).csv", "sales/exports/sales_2026-03_emea.csv"]
