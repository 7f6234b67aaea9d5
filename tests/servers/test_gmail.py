import pytest

from servers.gmail import GmailState
from servers.kit import StateError

STATE = {
    "address": "ana.silva@northwind.example",
    "now": "2026-03-16T09:00:00Z",
    "labels": [{"id": "Label_1", "name": "Invoices"}],
    "messages": [
        {"id": "m-invoice", "thread_id": "t-invoice", "sender": "billing@harbourfreight.example",
         "to": ["ana.silva@northwind.example"], "subject": "Invoice INV-2291 for March",
         "body": "Amount due: EUR 4,180.00", "date": "2026-03-14T08:12:00Z", "label_ids": ["INBOX", "UNREAD"]},
        {"id": "m-venue", "thread_id": "t-venue", "sender": "tomas.ferreira@northwind.example",
         "to": ["ana.silva@northwind.example"], "cc": ["priya.raman@northwind.example"],
         "subject": "Offsite venue in Sintra", "body": "Shall we book Quinta da Regaleira?",
         "date": "2026-03-15T17:40:00Z", "label_ids": ["INBOX", "STARRED"]},
        {"id": "m-promo", "thread_id": "t-promo", "sender": "deals@airline.example",
         "to": ["ana.silva@northwind.example"], "subject": "Flash sale to Porto", "body": "Fares from EUR 29",
         "date": "2026-03-10T06:00:00Z", "label_ids": ["SPAM"]},
    ],
    "drafts": [{"id": "r-1", "to": ["dana.okafor@lumen.example"], "subject": "Contract renewal", "body": "Hi Dana"}],
}


def ids(results):
    return [r["id"] for r in results["messages"]]


def test_search_filters_by_operators_and_words_newest_first(live):
    gm = live("gmail", STATE)
    assert ids(gm.ok_json("search_emails", query="")) == ["m-venue", "m-invoice"]
    assert ids(gm.ok_json("search_emails", query="is:unread")) == ["m-invoice"]
    assert ids(gm.ok_json("search_emails", query="from:tomas sintra")) == ["m-venue"]
    assert ids(gm.ok_json("search_emails", query='subject:"INV-2291 for"')) == ["m-invoice"]
    assert ids(gm.ok_json("search_emails", query="to:priya.raman")) == ["m-venue"]
    assert ids(gm.ok_json("search_emails", query="-is:starred")) == ["m-invoice"]
    assert ids(gm.ok_json("search_emails", query="after:2026/03/15")) == ["m-venue"]
    assert ids(gm.ok_json("search_emails", query="before:2026-03-15 in:anywhere")) == ["m-invoice", "m-promo"]
    assert ids(gm.ok_json("search_emails", query="in:spam")) == ["m-promo"]
    assert ids(gm.ok_json("search_emails", query="", maxResults=1)) == ["m-venue"]


def test_or_between_two_terms_finds_either_and_binds_before_the_other_terms(live):
    gm = live("gmail", STATE)
    assert ids(gm.ok_json("search_emails", query="from:tomas OR from:billing")) == ["m-venue", "m-invoice"]
    assert ids(gm.ok_json("search_emails", query="from:tomas OR from:billing invoice")) == ["m-invoice"]
    assert ids(gm.ok_json("search_emails", query="sintra OR INV-2291 OR porto in:anywhere")) == [
        "m-venue", "m-invoice", "m-promo"]
    assert ids(gm.ok_json("search_emails", query="-is:starred OR from:tomas")) == ["m-venue", "m-invoice"]
    assert ids(gm.ok_json("search_emails", query="sintra or porto")) == []  # lower-case "or" is a word, as in Gmail
    for bad in ("OR from:tomas", "from:tomas OR", "sintra OR OR porto"):
        assert "OR needs a term on each side" in gm.error("search_emails", query=bad), bad


def test_search_reports_label_names(live):
    gm = live("gmail", STATE)
    gm.ok("modify_email", messageId="m-invoice", addLabelIds=["Label_1"])
    [hit] = gm.ok_json("search_emails", query="label:invoices")["messages"]
    assert hit["id"] == "m-invoice" and hit["labels"] == ["INBOX", "UNREAD", "Invoices"]


def test_bad_queries_are_refused_with_the_reason(live):
    gm = live("gmail", STATE)
    assert "unsupported search operator has:" in gm.error("search_emails", query="has:attachment")
    assert "is:unread" in gm.error("search_emails", query="is:snoozed")
    assert "unknown label" in gm.error("search_emails", query="label:Receipts")
    assert "date like" in gm.error("search_emails", query="after:yesterday")
    assert "cannot parse" in gm.error("search_emails", query='subject:"unterminated')


def test_reading_returns_the_body_and_leaves_the_message_unread(live):
    gm = live("gmail", STATE)
    message = gm.ok_json("read_email", messageId="m-invoice")
    assert message["body"] == "Amount due: EUR 4,180.00" and message["labelIds"] == ["INBOX", "UNREAD"]
    assert "UNREAD" in gm.state().messages[0].label_ids


def test_modify_email_marks_read_stars_and_archives(live):
    gm = live("gmail", STATE)
    gm.ok("modify_email", messageId="m-invoice", addLabelIds=["STARRED", "Label_1"], removeLabelIds=["UNREAD", "INBOX"])
    assert gm.state().messages[0].label_ids == ["STARRED", "Label_1"]
    gm.ok("modify_email", messageId="m-invoice", addLabelIds=["STARRED"])
    assert gm.state().messages[0].label_ids == ["STARRED", "Label_1"]


def test_modify_email_refuses_unknown_ids_and_fixed_labels(live):
    gm = live("gmail", STATE)
    assert "unknown message id 'm-nope'" in gm.error("modify_email", messageId="m-nope", addLabelIds=["STARRED"])
    assert "did you mean Label_1 (Invoices)" in gm.error("modify_email", messageId="m-invoice", addLabelIds=["Invoices"])
    assert "set by Gmail itself" in gm.error("modify_email", messageId="m-invoice", addLabelIds=["SENT"])
    assert "addLabelIds or removeLabelIds" in gm.error("modify_email", messageId="m-invoice")
    assert "both added and removed" in gm.error("modify_email", messageId="m-invoice", addLabelIds=["STARRED"],
                                                removeLabelIds=["STARRED"])
    assert gm.state().messages[0].label_ids == ["INBOX", "UNREAD"]


def test_batch_modify_changes_all_or_nothing(live):
    gm = live("gmail", STATE)
    assert "unknown message id" in gm.error("batch_modify_emails", messageIds=["m-invoice", "m-gone"],
                                            removeLabelIds=["INBOX"])
    assert all("INBOX" in m.label_ids for m in gm.state().messages[:2])
    gm.ok("batch_modify_emails", messageIds=["m-invoice", "m-venue"], removeLabelIds=["INBOX"])
    assert [m.label_ids for m in gm.state().messages[:2]] == [["UNREAD"], ["STARRED"]]


def test_sending_stores_a_sent_message_in_the_thread(live):
    gm = live("gmail", STATE)
    text = gm.ok("send_email", to=["tomas.ferreira@northwind.example"], cc=["priya.raman@northwind.example"],
                 subject="Re: Offsite venue in Sintra", body="Book it for 40 people.", threadId="t-venue")
    assert text == "Email sent. Message id: msg-4"
    sent = gm.state().messages[-1]
    assert (sent.id, sent.thread_id, sent.sender, sent.label_ids, sent.date) == (
        "msg-4", "t-venue", "ana.silva@northwind.example", ["SENT"], "2026-03-16T09:00:00Z")
    assert ids(gm.ok_json("search_emails", query="in:sent")) == ["msg-4"]


def test_sending_refuses_bad_recipients_and_threads(live):
    gm = live("gmail", STATE)
    assert "bare email address" in gm.error("send_email", to=["Tomás <tomas@northwind.example>"], subject="x", body="y")
    assert "at least one recipient" in gm.error("send_email", to=[], subject="x", body="y")
    assert "unknown thread id" in gm.error("send_email", to=["a@b.example"], subject="x", body="y", threadId="t-x")
    assert len(gm.state().messages) == 3


def test_drafts_are_saved_listed_updated_sent_and_deleted(live):
    gm = live("gmail", STATE)
    assert gm.ok("draft_email", to=["lena.vogt@kestrel.example"], subject="Q2 budget", body="Draft numbers") == (
        "Draft saved. Draft id: r-2")
    gm.ok("update_draft", draftId="r-2", subject="Q2 budget v2", cc=["finance@northwind.example"])
    assert gm.ok_json("list_drafts")[1] == {"id": "r-2", "to": ["lena.vogt@kestrel.example"],
                                            "cc": ["finance@northwind.example"], "subject": "Q2 budget v2",
                                            "body": "Draft numbers", "threadId": None}
    assert gm.ok("send_draft", draftId="r-2") == "Draft r-2 sent. Message id: msg-4"
    gm.ok("delete_draft", draftId="r-1")
    state = gm.state()
    assert state.drafts == []
    assert (state.messages[-1].subject, state.messages[-1].cc) == ("Q2 budget v2", ["finance@northwind.example"])


def test_draft_errors_name_the_problem(live):
    gm = live("gmail", STATE)
    assert "unknown draft id 'r-9'" in gm.error("send_draft", draftId="r-9")
    assert "unknown draft id" in gm.error("delete_draft", draftId="r-9")
    assert "at least one of" in gm.error("update_draft", draftId="r-1")
    gm.ok("draft_email", to=[], subject="Ideas", body="…")
    assert "no recipients" in gm.error("send_draft", draftId="r-2")
    assert "bare email address" in gm.error("update_draft", draftId="r-1", to=["dana"])
    assert gm.state().drafts[0].to == ["dana.okafor@lumen.example"]


def test_delete_email_removes_the_message(live):
    gm = live("gmail", STATE)
    gm.ok("delete_email", messageId="m-promo")
    assert [m.id for m in gm.state().messages] == ["m-invoice", "m-venue"]
    assert "unknown message id" in gm.error("delete_email", messageId="m-promo")


def test_labels_are_listed_created_and_deleted(live):
    gm = live("gmail", STATE)
    labels = {label["id"]: label for label in gm.ok_json("list_email_labels")}
    assert labels["UNREAD"]["messagesTotal"] == 1 and labels["Label_1"]["type"] == "user"
    assert gm.ok("create_label", name="Travel/Lisbon") == "Label 'Travel/Lisbon' created with id Label_2"
    assert "already exists (id Label_1)" in gm.error("create_label", name="invoices")
    assert "already exists" in gm.error("create_label", name="Starred")
    gm.ok("modify_email", messageId="m-venue", addLabelIds=["Label_2"])
    gm.ok("delete_label", labelId="Label_2")
    state = gm.state()
    assert [label.name for label in state.labels] == ["Invoices"]
    assert state.messages[1].label_ids == ["INBOX", "STARRED"]
    assert "system label" in gm.error("delete_label", labelId="INBOX")
    assert "unknown label id 'Label_9'" in gm.error("delete_label", labelId="Label_9")


def test_an_oversized_body_is_refused(live):
    gm = live("gmail", STATE)
    assert "limit" in gm.error("send_email", to=["a@b.example"], subject="big", body="x" * 300_000)
    assert len(gm.state().messages) == 3


def test_dump_and_reload_keep_the_digest(live):
    gm = live("gmail", STATE)
    gm.ok("create_label", name="Übersee ✓")
    gm.ok("send_email", to=["tomas.ferreira@northwind.example"], subject="Olá", body="Até já")
    state = gm.state()
    assert GmailState.load(state.dump()).digest() == state.digest()
    assert GmailState.load(STATE).digest() != state.digest()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"messages": [{**STATE["messages"][0], "label_ids": ["Label_7"]}]}, "unknown label id 'Label_7'"),
        ({"labels": [{"id": "Label_1", "name": "STARRED"}]}, "clashes with a system label"),
        ({"messages": [{**STATE["messages"][0], "date": "14 March"}]}, "date"),
        ({"address": "not-an-address"}, "address"),
        ({"folders": []}, "folders"),
    ],
)
def test_a_bad_state_names_the_problem(change, field):
    with pytest.raises(StateError, match=field):
        GmailState.load({**STATE, **change})


GM_WORLD = {"world": {"generator": "gmail", "version": 1, "seed": 1, "size": "default"}}


def test_the_world_mailbox_has_500_messages_in_threads_with_labels_and_drafts(live):
    gm = live("gmail", GM_WORLD)
    state = gm.state()
    assert len(state.messages) == 500 and len({m.thread_id for m in state.messages}) < 300
    assert len(state.labels) == 10 and len(state.drafts) == 8
    assert any("SENT" in m.label_ids for m in state.messages) and any("UNREAD" in m.label_ids for m in state.messages)


def test_search_pages_with_a_token_until_every_match_is_seen(live):
    gm = live("gmail", GM_WORLD)
    seen, token = [], None
    while True:
        out = gm.ok_json("search_emails", query="in:anywhere", maxResults=100, **({"pageToken": token} if token else {}))
        seen += ids(out)
        token = out.get("nextPageToken")
        if token is None:
            break
    assert len(seen) == len(set(seen)) == 500 == out["resultSizeEstimate"]
    assert "invalid_cursor" in gm.error("search_emails", query="is:unread", pageToken=gm.ok_json(
        "search_emails", query="in:anywhere")["nextPageToken"])


def test_a_thread_reads_as_one_conversation_oldest_first(live):
    gm = live("gmail", GM_WORLD)
    hit = gm.ok_json("search_emails", query="subject:renewal")["messages"][0]
    thread = gm.ok_json("get_thread", threadId=hit["threadId"])["messages"]
    assert [m["date"] for m in thread] == sorted(m["date"] for m in thread)
    assert all(m["threadId"] == hit["threadId"] and "body" in m for m in thread)
    assert "unknown thread id" in gm.error("get_thread", threadId="nope")
