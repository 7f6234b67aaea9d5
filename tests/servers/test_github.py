import pytest

from servers.github import GithubState
from servers.github.state import blob_sha
from servers.kit import StateError

C1 = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
C2 = "b2c3d4e5f60718293a4b5c6d7e8f9012345678a1"
C3 = "c3d4e5f60718293a4b5c6d7e8f9012345678a1b2"

STATE = {
    "viewer": "lena-okafor",
    "repos": [
        {
            "owner": "harbor-labs",
            "name": "tidewatch",
            "description": "Tide and weather alerts for marinas",
            "default_branch": "main",
            "branches": [
                {
                    "name": "main",
                    "protected": True,
                    "files": {"README.md": "# Tidewatch\n", "src/alerts.py": "THRESHOLD = 2.5\n"},
                    "commits": [
                        {"sha": C2, "message": "Add alert threshold", "author": "samir-h"},
                        {"sha": C1, "message": "Initial commit", "author": "samir-h"},
                    ],
                },
                {
                    "name": "fix/threshold-units",
                    "files": {"README.md": "# Tidewatch\n", "src/alerts.py": "THRESHOLD_M = 2.5\n"},
                    "commits": [
                        {"sha": C3, "message": "Use metres for the alert threshold", "author": "samir-h"},
                        {"sha": C2, "message": "Add alert threshold", "author": "samir-h"},
                        {"sha": C1, "message": "Initial commit", "author": "samir-h"},
                    ],
                },
            ],
            "issues": [
                {"number": 1, "title": "Alerts fire twice at high tide", "author": "mira-j", "labels": ["bug"],
                 "comments": [{"id": 1, "author": "samir-h", "body": "Reproduced on v0.3"}]},
                {"number": 3, "title": "Add Portuguese translation", "author": "mira-j", "state": "closed",
                 "state_reason": "completed"},
            ],
            "pull_requests": [
                {"number": 2, "title": "Use metres for the alert threshold", "head": "fix/threshold-units",
                 "base": "main", "author": "samir-h"}
            ],
        },
        {"owner": "harbor-labs", "name": "docs-site", "description": "Public documentation",
         "branches": [{"name": "main", "files": {"index.md": "Welcome\n"}}]},
    ],
}

OWNER = {"owner": "harbor-labs", "repo": "tidewatch"}


def repo(state, name="tidewatch"):
    return next(r for r in state.repos if r.name == name)


def test_search_repositories_matches_words_in_name_or_description(live):
    gh = live("github", STATE)
    assert [r["full_name"] for r in gh.ok_json("search_repositories", query="marinas")] == ["harbor-labs/tidewatch"]
    assert len(gh.ok_json("search_repositories")) == 2
    assert gh.ok_json("search_repositories", query="kubernetes") == []


def test_list_branches_reports_heads_and_protection(live):
    gh = live("github", STATE)
    branches = gh.ok_json("list_branches", **OWNER)
    assert branches[0] == {"name": "main", "commit": C2, "protected": True, "default": True}
    assert branches[1]["commit"] == C3


def test_creating_a_branch_copies_files_and_history(live):
    gh = live("github", STATE)
    gh.ok("create_branch", **OWNER, branch="docs/faq", from_branch="fix/threshold-units")
    b = repo(gh.state()).branch("docs/faq")
    assert b.files["src/alerts.py"] == "THRESHOLD_M = 2.5\n"
    assert [c.sha for c in b.commits] == [C3, C2, C1]
    assert "already exists" in gh.error("create_branch", **OWNER, branch="main")
    assert "not valid" in gh.error("create_branch", **OWNER, branch="bad..name")
    assert "unknown branch 'nope'" in gh.error("create_branch", **OWNER, branch="x", from_branch="nope")


def test_get_file_contents_returns_text_and_blob_sha_or_a_listing(live):
    gh = live("github", STATE)
    f = gh.ok_json("get_file_contents", **OWNER, path="src/alerts.py")
    assert f["content"] == "THRESHOLD = 2.5\n" and f["sha"] == blob_sha("THRESHOLD = 2.5\n")
    assert gh.ok_json("get_file_contents", **OWNER, path="src/alerts.py", ref="fix/threshold-units")["content"] == "THRESHOLD_M = 2.5\n"
    root = gh.ok_json("get_file_contents", **OWNER)
    assert root == [{"type": "file", "name": "README.md", "path": "README.md"}, {"type": "dir", "name": "src", "path": "src"}]
    assert "no file or directory 'docs'" in gh.error("get_file_contents", **OWNER, path="docs")


def test_writing_a_file_commits_on_the_branch(live):
    gh = live("github", STATE)
    gh.ok("create_branch", **OWNER, branch="feature/faq")
    out = gh.ok_json("create_or_update_file", **OWNER, path="docs/FAQ.md", content="# FAQ\n",
                     message="Add FAQ", branch="feature/faq")
    b = repo(gh.state()).branch("feature/faq")
    assert b.files["docs/FAQ.md"] == "# FAQ\n"
    assert b.commits[0].sha == out["commit"] and b.commits[0].message == "Add FAQ"
    assert b.commits[0].author == "lena-okafor"
    assert "docs/FAQ.md" not in repo(gh.state()).branch("main").files


def test_updating_a_file_needs_its_current_blob_sha(live):
    gh = live("github", STATE)
    gh.ok("create_branch", **OWNER, branch="tune")
    args = dict(**OWNER, path="src/alerts.py", content="THRESHOLD = 3.0\n", message="Raise threshold", branch="tune")
    assert "pass its blob sha" in gh.error("create_or_update_file", **args)
    assert "does not match" in gh.error("create_or_update_file", **args, sha="0" * 40)
    gh.ok("create_or_update_file", **args, sha=blob_sha("THRESHOLD = 2.5\n"))
    assert repo(gh.state()).branch("tune").files["src/alerts.py"] == "THRESHOLD = 3.0\n"


def test_a_protected_branch_refuses_direct_writes(live):
    gh = live("github", STATE)
    msg = gh.error("create_or_update_file", **OWNER, path="x.md", content="x", message="x", branch="main")
    assert "protected" in msg
    assert "protected" in gh.error("delete_file", **OWNER, path="README.md", message="rm", branch="main")
    assert gh.state().digest() == GithubState.load(STATE).digest()


def test_deleting_a_file_commits_its_removal(live):
    gh = live("github", STATE)
    gh.ok("delete_file", **OWNER, path="src/alerts.py", message="Drop old alerts", branch="fix/threshold-units")
    b = repo(gh.state()).branch("fix/threshold-units")
    assert "src/alerts.py" not in b.files and b.commits[0].message == "Drop old alerts"
    assert "no file 'src/alerts.py'" in gh.error("delete_file", **OWNER, path="src/alerts.py", message="x",
                                                  branch="fix/threshold-units")


def test_list_commits_is_newest_first_and_filters_by_author(live):
    gh = live("github", STATE)
    assert [c["sha"] for c in gh.ok_json("list_commits", **OWNER, sha="fix/threshold-units")] == [C3, C2, C1]
    assert gh.ok_json("list_commits", **OWNER, author="someone-else") == []
    assert len(gh.ok_json("list_commits", **OWNER, perPage=1)) == 1


def test_issues_are_listed_read_created_and_commented(live):
    gh = live("github", STATE)
    assert [i["number"] for i in gh.ok_json("list_issues", **OWNER)["issues"]] == [1]
    assert [i["number"] for i in gh.ok_json("list_issues", **OWNER, state="all", labels=["bug"])["issues"]] == [1]
    assert gh.ok_json("get_issue", **OWNER, issue_number=1)["comments"][0]["body"] == "Reproduced on v0.3"
    created = gh.ok_json("create_issue", **OWNER, title="Wind gust alerts", body="Please add", labels=["enhancement"])
    assert created["number"] == 4  # issues and pull requests share the numbering
    gh.ok("add_issue_comment", **OWNER, issue_number=4, body="Planned for 0.5")
    issue = repo(gh.state()).issue(4)
    assert issue.author == "lena-okafor" and issue.labels == ["enhancement"]
    assert issue.comments[0].id == 2 and issue.comments[0].body == "Planned for 0.5"


def test_update_issue_closes_relabels_and_reopens(live):
    gh = live("github", STATE)
    gh.ok("update_issue", **OWNER, issue_number=1, state="closed", state_reason="not_planned", labels=["wontfix"])
    issue = repo(gh.state()).issue(1)
    assert (issue.state, issue.state_reason, issue.labels) == ("closed", "not_planned", ["wontfix"])
    gh.ok("update_issue", **OWNER, issue_number=1, state="open", assignees=["samir-h"])
    issue = repo(gh.state()).issue(1)
    assert (issue.state, issue.state_reason, issue.assignees) == ("open", "reopened", ["samir-h"])
    assert "nothing to update" in gh.error("update_issue", **OWNER, issue_number=1)
    assert "does not fit" in gh.error("update_issue", **OWNER, issue_number=1, state="open", state_reason="completed")


def test_issue_and_pull_request_numbers_are_not_interchangeable(live):
    gh = live("github", STATE)
    assert "is a pull request, not an issue" in gh.error("get_issue", **OWNER, issue_number=2)
    assert "is an issue, not a pull request" in gh.error("merge_pull_request", **OWNER, pullNumber=1)
    assert "unknown issue #99" in gh.error("update_issue", **OWNER, issue_number=99, state="closed")


def test_creating_a_pull_request_needs_new_commits_on_head(live):
    gh = live("github", STATE)
    gh.ok("create_branch", **OWNER, branch="empty-change")
    assert "no commits between" in gh.error("create_pull_request", **OWNER, title="x", head="empty-change", base="main")
    assert "already open" in gh.error("create_pull_request", **OWNER, title="x", head="fix/threshold-units", base="main")
    assert "same branch" in gh.error("create_pull_request", **OWNER, title="x", head="main", base="main")
    gh.ok("create_or_update_file", **OWNER, path="NOTES.md", content="n\n", message="Notes", branch="empty-change")
    out = gh.ok_json("create_pull_request", **OWNER, title="Add notes", head="empty-change", base="main", body="Adds notes")
    assert out["number"] == 4
    prs = gh.ok_json("list_pull_requests", **OWNER)
    assert [(p["number"], p["commits_ahead"]) for p in prs] == [(2, 1), (4, 1)]


def test_merging_a_pull_request_brings_files_and_commits_into_the_base(live):
    gh = live("github", STATE)
    out = gh.ok_json("merge_pull_request", **OWNER, pullNumber=2)
    r = repo(gh.state())
    main = r.branch("main")
    pr = r.pull_request(2)
    assert pr.merged and pr.state == "closed" and pr.merge_commit_sha == out["sha"]
    assert main.files["src/alerts.py"] == "THRESHOLD_M = 2.5\n"
    assert main.commits[0].message.startswith("Merge pull request #2 from harbor-labs/fix/threshold-units")
    assert [c.sha for c in main.commits[1:]] == [C3, C2, C1]
    assert "already merged" in gh.error("merge_pull_request", **OWNER, pullNumber=2)
    assert gh.ok_json("list_pull_requests", **OWNER, state="closed")[0]["merged"] is True


@pytest.mark.parametrize("method", ["squash", "rebase"])
def test_squash_and_rebase_merges_write_one_or_copied_commits(live, method):
    gh = live("github", STATE)
    gh.ok("merge_pull_request", **OWNER, pullNumber=2, merge_method=method, commit_title="Threshold in metres")
    main = repo(gh.state()).branch("main")
    if method == "squash":
        assert main.commits[0].message.startswith("Threshold in metres")
        assert [c.sha for c in main.commits[1:]] == [C2, C1]
    else:
        assert main.commits[0].message == "Use metres for the alert threshold"
        assert main.commits[0].sha != C3


def test_replaying_the_same_calls_gives_the_same_commit_ids(live):
    states = []
    for _ in range(2):
        gh = live("github", STATE)
        gh.ok("create_branch", **OWNER, branch="b")
        gh.ok("create_or_update_file", **OWNER, path="a.md", content="a", message="A", branch="b")
        gh.ok("create_pull_request", **OWNER, title="A", head="b", base="main")
        gh.ok("merge_pull_request", **OWNER, pullNumber=4, merge_method="squash")
        states.append(gh.state().digest())
    assert states[0] == states[1]


def test_unknown_repositories_and_bad_arguments_are_tool_errors(live):
    gh = live("github", STATE)
    assert "unknown repository 'harbor-labs/nope'" in gh.error("list_issues", owner="harbor-labs", repo="nope")
    assert "unknown branch 'dev'" in gh.error("list_commits", **OWNER, sha="dev")
    assert "not canonical" in gh.error("get_file_contents", **OWNER, path="src/../../etc/passwd")
    assert gh.error("get_issue", **OWNER, issue_number=0)
    assert gh.error("list_issues", **OWNER, state="pending")


def test_repository_names_are_matched_case_insensitively_like_github(live):
    gh = live("github", STATE)
    assert gh.ok_json("get_issue", owner="Harbor-Labs", repo="TideWatch", issue_number=1)["number"] == 1


def test_dump_and_reload_keep_the_digest(live):
    gh = live("github", STATE)
    gh.ok("create_issue", **OWNER, title="Crash on launch — iOS 19", body="Stack trace: …")
    gh.ok("merge_pull_request", **OWNER, pullNumber=2)
    state = gh.state()
    assert GithubState.load(state.dump()).digest() == state.digest()
    assert GithubState.load(STATE).digest() != state.digest()


def test_a_bad_state_names_the_field():
    bad = {"repos": [{"owner": "harbor-labs", "name": "x", "default_branch": "trunk"}]}
    with pytest.raises(StateError, match="default branch 'trunk'"):
        GithubState.load(bad)
    dup = {"repos": [{"owner": "o", "name": "x", "issues": [{"number": 1, "title": "a", "author": "o"}],
                      "pull_requests": [{"number": 1, "title": "b", "head": "h", "base": "main", "author": "o"}]}]}
    with pytest.raises(StateError, match="number repeats"):
        GithubState.load(dup)
    with pytest.raises(StateError, match="repos"):
        GithubState.load({"repos": [{"owner": "o", "name": "x", "stars": 3}]})


def test_a_file_deleted_on_the_head_branch_is_deleted_on_merge(live):
    gh = live("github", STATE)
    gh.ok("create_branch", **OWNER, branch="move-readme")
    gh.ok("create_or_update_file", **OWNER, path="docs/README.md", content="# Tidewatch\n", message="Move README", branch="move-readme")
    gh.ok("delete_file", **OWNER, path="README.md", message="Remove old README", branch="move-readme")
    gh.ok("create_pull_request", **OWNER, title="Move README into docs", head="move-readme", base="main")
    gh.ok("merge_pull_request", **OWNER, pullNumber=4)
    main = repo(gh.state()).branch("main")
    assert "docs/README.md" in main.files and "README.md" not in main.files
    assert "src/alerts.py" in main.files


GH_WORLD = {"world": {"generator": "github", "version": 1, "seed": 1, "size": "default"}}
ORG = {"owner": "kestrel-freight", "repo": "route-planner"}


def test_the_world_has_three_repositories_with_issues_pulls_commits_and_protected_main(live):
    gh = live("github", GH_WORLD)
    state = gh.state()
    assert len(state.repos) == 3
    assert sum(len(r.issues) for r in state.repos) == 150 and sum(len(r.pull_requests) for r in state.repos) >= 40
    assert all(r.branch("main").protected and len(r.branch("main").commits) == 100 for r in state.repos)
    assert all(r.labels and r.milestones for r in state.repos)
    assert "protected" in gh.error("create_or_update_file", **ORG, path="NOTES.md", content="x", message="m", branch="main")


def test_issue_listing_pages_with_an_end_cursor_until_every_issue_is_seen(live):
    gh = live("github", GH_WORLD)
    numbers, after = [], None
    while True:
        out = gh.ok_json("list_issues", **ORG, state="all", perPage=20, **({"after": after} if after else {}))
        numbers += [i["number"] for i in out["issues"]]
        if not out["pageInfo"]["hasNextPage"]:
            break
        after = out["pageInfo"]["endCursor"]
    assert numbers == sorted(i.number for i in gh.state().repo("kestrel-freight/route-planner").issues)
    assert out["totalCount"] == 50


def test_search_combines_words_and_qualifiers_across_repositories(live):
    gh = live("github", GH_WORLD)
    everything = gh.ok_json("search_issues", query="is:issue", perPage=100)
    assert everything["total_count"] == 150
    bugs = gh.ok_json("search_issues", query='repo:kestrel-freight/route-planner is:issue is:open label:bug', perPage=100)
    repo = gh.state().repo("kestrel-freight/route-planner")
    expected = sorted((i.number for i in repo.issues if i.state == "open" and "bug" in i.labels), reverse=True)
    assert [i["number"] for i in bugs["items"]] == expected
    assert gh.ok_json("search_issues", query="is:pr is:merged", perPage=100)["total_count"] == sum(
        p.merged for r in gh.state().repos for p in r.pull_requests)
    second = gh.ok_json("search_issues", query="is:issue", perPage=100, page=2)
    assert len(second["items"]) == 50


def test_an_issue_moves_to_a_milestone_that_exists(live):
    gh = live("github", GH_WORLD)
    number = gh.state().repo("kestrel-freight/route-planner").issues[0].number
    gh.ok("update_issue", **ORG, issue_number=number, milestone=3)
    assert gh.state().repo("kestrel-freight/route-planner").issue(number).milestone == 3
    assert "unknown milestone 9" in gh.error("update_issue", **ORG, issue_number=number, milestone=9)
    titles = [m["title"] for m in gh.ok_json("list_milestones", **ORG, state="all")]
    assert "Q2 hardening" in titles


def test_pull_requests_and_commits_page_by_number(live):
    gh = live("github", GH_WORLD)
    first = gh.ok_json("list_pull_requests", **ORG, state="all", perPage=5)
    second = gh.ok_json("list_pull_requests", **ORG, state="all", perPage=5, page=2)
    assert len(first) == 5 and first[-1]["number"] < second[0]["number"]
    commits = gh.ok_json("list_commits", **ORG, perPage=100, page=2)
    assert commits == []  # 100 commits: the second page of 100 is empty
    assert len(gh.ok_json("list_commits", **ORG, perPage=30, page=4)) == 10
