import json

import pytest

from servers.kit import StateError
from servers.slack import SlackState

STATE = {
    "viewer": "UB0TREL01",
    "users": [
        {"id": "UB0TREL01", "name": "release-bot", "real_name": "Release Bot", "is_bot": True},
        {"id": "U024BE7LH", "name": "maria.santos", "real_name": "Maria Santos", "title": "SRE lead",
         "email": "maria@quayside.example", "tz": "Europe/Lisbon"},
        {"id": "U03KQ9Z2P", "name": "kenji.ito", "real_name": "Kenji Ito", "title": "Backend engineer"},
        {"id": "U05OLD777", "name": "ravi.menon", "real_name": "Ravi Menon", "deleted": True},
    ],
    "channels": [
        {"id": "C01GENERAL", "name": "general", "topic": "Company news", "creator": "U024BE7LH",
         "members": ["UB0TREL01", "U024BE7LH", "U03KQ9Z2P"],
         "messages": [
             {"ts": "1767000000.000100", "user": "U024BE7LH", "text": "Deploy freeze starts Friday 18:00"},
             {"ts": "1767000060.000200", "user": "U03KQ9Z2P", "text": "Noted", "thread_ts": "1767000000.000100"},
             {"ts": "1767000120.000300", "user": "UB0TREL01", "text": "Build 4.18.2 is green",
              "reactions": [{"name": "tada", "users": ["U024BE7LH"]}]},
         ]},
        {"id": "C02INC2041", "name": "incident-2041", "is_archived": True, "members": ["U024BE7LH"],
         "messages": [{"ts": "1766900000.000100", "user": "U024BE7LH", "text": "Resolved: payment timeouts"}]},
        {"id": "G03SECRET", "name": "exec-offsite", "is_private": True, "members": ["U024BE7LH"]},
        {"id": "G04ONCALL", "name": "oncall-handoff", "is_private": True, "members": ["UB0TREL01", "U03KQ9Z2P"]},
    ],
}


def channel(state, name):
    return next(c for c in state.channels if c.name == name)


def test_list_channels_shows_public_and_joined_private_channels(live):
    sl = live("slack", STATE)
    names = [c["name"] for c in sl.ok_json("list_channels")["channels"]]
    assert names == ["general", "incident-2041", "oncall-handoff"]
    assert [c["name"] for c in sl.ok_json("list_channels", exclude_archived=True)["channels"]] == ["general", "oncall-handoff"]
    assert sl.ok_json("list_channels", limit=1)["channels"][0]["num_members"] == 3


def test_a_private_channel_you_are_not_in_is_unknown(live):
    sl = live("slack", STATE)
    assert "unknown channel 'exec-offsite'" in sl.error("get_channel_history", channel_id="exec-offsite")
    assert "unknown channel" in sl.error("post_message", channel_id="G03SECRET", text="hello")


def test_posting_appends_a_message_by_the_viewer(live):
    sl = live("slack", STATE)
    out = sl.ok_json("post_message", channel_id="#general", text="Release 4.19.0 is out")
    assert out["channel"] == "C01GENERAL" and out["ts"] == "1767000121.000300"  # one second after the latest message
    m = channel(sl.state(), "general").messages[-1]
    assert (m.ts, m.user, m.text) == (out["ts"], "UB0TREL01", "Release 4.19.0 is out")


def test_channels_are_addressed_by_id_or_name(live):
    sl = live("slack", STATE)
    assert sl.ok_json("get_channel_history", channel_id="C01GENERAL") == sl.ok_json("get_channel_history", channel_id="general")


def test_history_is_newest_first_with_reply_counts_and_reactions(live):
    sl = live("slack", STATE)
    history = sl.ok_json("get_channel_history", channel_id="general")["messages"]
    assert [m["ts"] for m in history] == ["1767000120.000300", "1767000000.000100"]
    assert history[1]["reply_count"] == 1 and history[1]["user_name"] == "maria.santos"
    assert history[0]["reactions"] == [{"name": "tada", "count": 1, "users": ["U024BE7LH"]}]
    assert len(sl.ok_json("get_channel_history", channel_id="general", limit=1)["messages"]) == 1


def test_replies_join_the_thread_and_are_read_back(live):
    sl = live("slack", STATE)
    out = sl.ok_json("reply_to_thread", channel_id="general", thread_ts="1767000000.000100", text="Freeze lifted Monday")
    assert out["thread_ts"] == "1767000000.000100"
    thread = sl.ok_json("get_thread_replies", channel_id="general", thread_ts="1767000000.000100")["messages"]
    assert [m["text"] for m in thread] == ["Deploy freeze starts Friday 18:00", "Noted", "Freeze lifted Monday"]
    # replying to a reply lands in the same thread
    sl.ok("reply_to_thread", channel_id="general", thread_ts="1767000060.000200", text="+1")
    assert channel(sl.state(), "general").messages[-1].thread_ts == "1767000000.000100"
    assert "message_not_found" in sl.error("reply_to_thread", channel_id="general", thread_ts="1767009999.000000", text="x")
    assert "thread_not_found" in sl.error("get_thread_replies", channel_id="general", thread_ts="1767000060.000200")


def test_reactions_are_added_once_per_user(live):
    sl = live("slack", STATE)
    sl.ok("add_reaction", channel_id="general", timestamp="1767000120.000300", reaction=":tada:")
    sl.ok("add_reaction", channel_id="general", timestamp="1767000000.000100", reaction="eyes")
    msgs = channel(sl.state(), "general").messages
    assert msgs[2].reactions[0].users == ["U024BE7LH", "UB0TREL01"]
    assert msgs[0].reactions[0].name == "eyes"
    assert "already_reacted" in sl.error("add_reaction", channel_id="general", timestamp="1767000000.000100", reaction="eyes")
    assert "invalid_name" in sl.error("add_reaction", channel_id="general", timestamp="1767000000.000100", reaction="Big Smile")


def test_creating_a_channel_makes_the_viewer_its_member(live):
    sl = live("slack", STATE)
    out = sl.ok_json("create_channel", name="#launch-q3", is_private=True)
    c = channel(sl.state(), "launch-q3")
    assert c.id == out["channel"]["id"] and c.id.startswith("C")
    assert c.members == ["UB0TREL01"] and c.is_private and c.creator == "UB0TREL01"
    assert "name_taken" in sl.error("create_channel", name="incident-2041")
    assert "invalid channel name" in sl.error("create_channel", name="Launch Q3")


def test_invite_and_kick_change_membership_by_user_id(live):
    sl = live("slack", STATE)
    out = sl.ok_json("invite_to_channel", channel_id="oncall-handoff", users=["U024BE7LH", "U03KQ9Z2P"])
    assert out["added"] == ["U024BE7LH"] and out["already_in_channel"] == ["U03KQ9Z2P"]
    sl.ok("kick_from_channel", channel_id="oncall-handoff", user_id="U03KQ9Z2P")
    assert channel(sl.state(), "oncall-handoff").members == ["UB0TREL01", "U024BE7LH"]
    assert "not_in_channel" in sl.error("kick_from_channel", channel_id="oncall-handoff", user_id="U03KQ9Z2P")


def test_inviting_by_handle_or_a_deactivated_user_is_refused(live):
    sl = live("slack", STATE)
    assert "get_users lists them" in sl.error("invite_to_channel", channel_id="general", users=["maria.santos"])
    assert "deactivated" in sl.error("invite_to_channel", channel_id="general", users=["U05OLD777"])
    assert "unknown user id 'U0NOBODY'" in sl.error("invite_to_channel", channel_id="general", users=["U0NOBODY"])
    assert channel(sl.state(), "general").members == ["UB0TREL01", "U024BE7LH", "U03KQ9Z2P"]


def test_archiving_keeps_history_and_blocks_new_messages(live):
    sl = live("slack", STATE)
    sl.ok("archive_channel", channel_id="general")
    c = channel(sl.state(), "general")
    assert c.is_archived and len(c.messages) == 3
    assert "archived" in sl.error("post_message", channel_id="general", text="hello?")
    assert "already_archived" in sl.error("archive_channel", channel_id="general")
    sl.ok("unarchive_channel", channel_id="general")
    assert not channel(sl.state(), "general").is_archived
    assert "not_archived" in sl.error("unarchive_channel", channel_id="general")


def test_renaming_and_setting_the_topic(live):
    sl = live("slack", STATE)
    sl.ok("rename_channel", channel_id="oncall-handoff", name="oncall")
    sl.ok("set_channel_topic", channel_id="C01GENERAL", topic="Freeze until Monday")
    state = sl.state()
    assert channel(state, "oncall").id == "G04ONCALL"
    assert channel(state, "general").topic == "Freeze until Monday"
    assert "name_taken" in sl.error("rename_channel", channel_id="oncall", name="general")
    assert "archived" in sl.error("rename_channel", channel_id="incident-2041", name="inc-2041")


def test_only_your_own_messages_can_be_deleted(live):
    sl = live("slack", STATE)
    assert "cant_delete_message" in sl.error("delete_message", channel_id="general", ts="1767000060.000200")
    assert "cant_delete_message" in sl.error("delete_message", channel_id="general", ts="1767000000.000100")
    sl.ok("delete_message", channel_id="general", ts="1767000120.000300")
    assert [m.ts for m in channel(sl.state(), "general").messages] == ["1767000000.000100", "1767000060.000200"]


def test_get_users_lists_active_users_with_profiles(live):
    sl = live("slack", STATE)
    users = sl.ok_json("get_users")["members"]
    assert [u["name"] for u in users] == ["release-bot", "maria.santos", "kenji.ito"]
    assert users[1]["title"] == "SRE lead" and users[1]["tz"] == "Europe/Lisbon"
    assert len(sl.ok_json("get_users", include_deactivated=True)["members"]) == 4


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("post_message", {"channel_id": "random", "text": "hi"}),
        ("post_message", {"channel_id": "general", "text": ""}),
        ("add_reaction", {"channel_id": "general", "timestamp": "yesterday", "reaction": "eyes"}),
        ("get_channel_history", {"channel_id": "general", "limit": 0}),
        ("kick_from_channel", {"channel_id": "general", "user_id": "maria.santos"}),
    ],
)
def test_bad_arguments_are_tool_errors_that_change_nothing(live, tool, args):
    sl = live("slack", STATE)
    assert sl.error(tool, **args)
    assert sl.state().digest() == SlackState.load(STATE).digest()


def test_dump_and_reload_keep_the_digest(live):
    sl = live("slack", STATE)
    sl.ok("create_channel", name="cafe-talk")
    sl.ok("post_message", channel_id="cafe-talk", text="Pastéis de nata at 15:00 ☕")
    state = sl.state()
    assert SlackState.load(state.dump()).digest() == state.digest()
    assert SlackState.load(STATE).digest() != state.digest()


def test_a_bad_state_names_the_field():
    with pytest.raises(StateError, match="unknown user 'U0GHOST'"):
        SlackState.load({**STATE, "channels": [{"id": "C09X", "name": "x", "members": ["U0GHOST"]}]})
    with pytest.raises(StateError, match="viewer"):
        SlackState.load({**STATE, "viewer": "U0GHOST"})
    with pytest.raises(StateError, match="no top-level message"):
        SlackState.load({**STATE, "channels": [{"id": "C09X", "name": "x", "messages": [
            {"ts": "1767000000.000100", "user": "U024BE7LH", "text": "a", "thread_ts": "1767000000.000999"}]}]})
    with pytest.raises(StateError, match=r"channels\[0\]\.name"):
        SlackState.load({**STATE, "channels": [{"id": "C09X", "name": "General"}]})


WORLD = {"world": {"generator": "slack", "version": 1, "seed": 1, "size": "default"}}


def test_listing_the_world_s_channels_takes_pages_joined_by_cursors(live):
    sl = live("slack", WORLD)
    seen, cursor, pages = [], None, 0
    while True:
        out = sl.ok_json("list_channels", **({"cursor": cursor} if cursor else {}))
        seen += [c["name"] for c in out["channels"]]
        pages += 1
        cursor = out["response_metadata"]["next_cursor"]
        if not cursor:
            break
    visible = [c.name for c in sl.state().channels if not c.is_private or sl.state().viewer in c.members]
    assert pages >= 2 and len(seen) == len(set(seen)) and sorted(seen) == sorted(visible)
    assert "exec-offsite" not in seen  # private, and the viewer is not a member


def test_a_cursor_from_another_listing_is_refused(live):
    sl = live("slack", WORLD)
    cursor = sl.ok_json("get_users")["response_metadata"]["next_cursor"]
    assert "invalid_cursor" in sl.error("list_channels", cursor=cursor)
    assert "invalid_cursor" in sl.error("list_channels", cursor="not-a-cursor!")


def test_history_pages_go_back_in_time_without_gaps(live):
    sl = live("slack", WORLD)
    first = sl.ok_json("get_channel_history", channel_id="general")
    second = sl.ok_json("get_channel_history", channel_id="general", cursor=first["response_metadata"]["next_cursor"])
    stamps = [m["ts"] for m in first["messages"] + second["messages"]]
    tops = [m.ts for m in reversed(next(c for c in sl.state().channels if c.name == "general").messages)
            if m.thread_ts is None]
    assert first["has_more"] and stamps == tops[:20]


def test_search_finds_words_in_a_channel_from_a_user(live):
    sl = live("slack", WORLD)
    out = sl.ok_json("search_messages", query="deploying in:#deploys", limit=5)
    assert out["total"] > 5 and len(out["matches"]) == 5 and out["response_metadata"]["next_cursor"]
    assert all(m["channel"]["name"] == "deploys" and "deploying" in m["text"].lower() for m in out["matches"])
    author = out["matches"][0]["user_name"]
    mine = sl.ok_json("search_messages", query=f"from:@{author} in:#deploys", limit=100)
    assert mine["matches"] and {m["user_name"] for m in mine["matches"]} == {author}
    assert "unknown user" in sl.error("search_messages", query="from:@nobody.here")


def test_a_user_profile_is_found_by_id_or_handle(live):
    sl = live("slack", WORLD)
    by_handle = sl.ok_json("get_user_profile", user_id="maria.santana")["user"]
    assert sl.ok_json("get_user_profile", user_id=by_handle["id"])["user"] == by_handle
    assert by_handle["real_name"] == "Maria Santana"
    assert "user_not_found" in sl.error("get_user_profile", user_id="maria.sant")



def test_results_are_compact_json_and_text_no_transport_can_encode_is_refused_at_the_door(live):
    """Tool results are compact JSON, as the real services' servers answer. A lone surrogate (which no
    UTF-8 transport can carry back) never reaches the state: the argument is refused, naming it."""
    sl = live("slack", STATE)
    assert "text" in sl.error("post_message", channel_id="general", text="bad \ud800 text")
    sl.ok("post_message", channel_id="general", text="caf\u00e9 done")
    text = sl.ok("get_channel_history", channel_id="general")
    assert "\n" not in text and json.loads(text)["messages"][0]["text"] == "caf\u00e9 done"
    assert len(channel(sl.state(), "general").messages) == 4
