"""Worlds: a (generator, version, seed, size) always builds the same state; a patch merges by stable id;
a task's hash covers the reference and the patch; bad references and patches are errors naming the path."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from servers import get_spec
from servers.kit import StateError
from servers.kit.world import WorldError, digest, get_generator, load_world, resolve
from tasks_catalog.hashing import task_hash
from tasks_catalog.loader import validate_task

ROOT = Path(__file__).resolve().parents[2]

#: The digest of every generator's world for seed 1, by (generator, version, size). A change of a
#: generator's output must come with a new version, and then new lines here; the old version's lines
#: stay as long as its code does (the dev set and the templates name version 1).
PINNED = {
    ("slack", 1, "default"): "dd4dbe488cf7a9c37ef67e5b0345204e0e45741408466985a4341707c2c86f44",
    ("postgres", 1, "default"): "201dbdfb1e4f218b48d9c39f0d5a30d144e66fe6156544bc4289c6a5e6bd4848",
    ("github", 1, "default"): "a743d148f7b9f9ef4d2b4ef6c6ae1caef913bc0c9bdc50a939a13ac29b890956",
    ("gmail", 1, "default"): "e3271e11ccb016d5103fbe7177fab339bb1e08afe48e32310fe766c94ad96009",
    ("filesystem", 1, "default"): "3d4ab6ea5a6ba763502b554917ea65661d2cd931b2383cfbf998eeb4f5d18d45",
    ("calendar", 1, "default"): "a331e4b1542e249495eb73875fb33b3ae0b69995be307fe53f698dcc1c1dbdbf",
    ("linear", 1, "default"): "a1657d9cc75d9f4707f712bf60687fd3ae0a49c85c4e4c5b069b0fd68621ffb3",
    ("browser", 1, "default"): "032a8e771da8cbe2b09190bfc2f8604d73014e69bd0209d34c7a490d047b60e3",
    ("stripe", 1, "default"): "2e327c4d01c78b9e2a80d94619cc0d6706795ba2b1626a3d98ae6c63cf5289da",
    ("notion", 1, "default"): "949fac6dde397eaf3c970e4f32313ff596443b278218215389fe3615f4ababf5",
    ("slack", 2, "default"): "4c8fe8a3614e4a9b2fd47131c0a1580992453c1a69cac575290068444c677eeb",
    ("slack", 2, "small"): "af315e618a5a00b3d8a976e15dd4c9634b963401c3758b9cfeec881f9a380b1b",
    ("linear", 2, "default"): "73c552a2e389207eb040939c808a6bc39f3a35d9f9c99443c311bb7900fe691c",
    ("linear", 2, "small"): "226a00cc70d0e25cbd04e7af1a33025e29eb315919f8bb901e4aacd519dd3c32",
    ("calendar", 2, "default"): "1b974d29c4aad88c1028faa491a5c52f6cf1a8c8796f942f7b8274f56c50db71",
    ("calendar", 2, "small"): "ef61b9c0948520193b39799683454a9edac2e60be873445b95bb3dd800080198",
    ("gmail", 2, "default"): "b112146cc203c311e0768119e0e651fc8f01e51f988359ea36597cd02aea4787",
    ("gmail", 2, "small"): "762a25f64302148234fe2524408a3970bf5d524cb67b8b314ec93235ae807c85",
    ("stripe", 2, "default"): "084ae8187216faa7336bca80b6b6e1c226c0e1e84cdb012a6514648916b5600d",
    ("stripe", 2, "small"): "5ec481888ea87f833303ebbc9e480aa09c6f94c0270b9303384de612ba2954b8",
    ("notion", 2, "default"): "50395dbded4460a66c5ecf77a5d4e7c618c0bd3e2bcb0b4142f26226ca85c8d9",
    ("notion", 2, "small"): "b32ab22483402bc2d14170e500f8faa5f4dc3e72bce5c6f1306c76bda6421c7f",
    ("github", 2, "default"): "31876a3dc05f58ac3d2718689a787258e4a4d0367f95a57e81e1fb91c2da5051",
    ("github", 2, "small"): "1b5d3176fcd2ab95905159e5d1ed9bdf2e25ea897236a555b388473f81fb08f8",
    ("browser", 2, "default"): "626f0b54e97f73b2f0cd549b2d6d863f2371548254fbcd873d6fccff90110ebe",
    ("browser", 2, "small"): "11a755c5e763b611475a5fb4f1a90350ab462b189672d31b51db8443cd667353",
}

SLACK = {"generator": "slack", "version": 1, "seed": 1, "size": "default"}


def _world(patch=None, **ref):
    doc = {"world": {**SLACK, **ref}}
    if patch is not None:
        doc["patch"] = patch
    return doc


@pytest.mark.parametrize(("name", "version", "size"), sorted(PINNED))
def test_a_generator_version_and_seed_always_build_the_same_world(name, version, size):
    generator = get_generator(name, version)
    assert generator.version == version
    assert digest(generator.generate(1, size)) == PINNED[(name, version, size)]


def test_every_version_a_generator_holds_is_pinned():
    from servers import SERVER_NAMES
    from servers.kit.world import generators

    held = {(name, v) for name in SERVER_NAMES for v in generators(name)}
    assert held == {(name, version) for name, version, _ in PINNED}


def test_the_worlds_do_not_depend_on_the_process_hash_seed():
    keys = sorted(PINNED)
    code = ("import sys; from servers.kit.world import get_generator, digest\n"
            "for arg in sys.argv[1:]:\n"
            "    name, version, size = arg.split(':')\n"
            "    print(digest(get_generator(name, int(version)).generate(1, size)))")
    env = {"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code, *(f"{n}:{v}:{s}" for n, v, s in keys)], env=env,
                         capture_output=True, text=True, timeout=600, check=True)
    assert out.stdout.split() == [PINNED[k] for k in keys]


def test_different_seeds_build_different_worlds():
    generator = get_generator("slack")
    assert digest(generator.generate(1)) != digest(generator.generate(2))


#: What each version promises at the default size (at least): issue 11 for version 1, issue 33 (the
#: organisation's projections, as large or larger) for version 2.
PROMISED = {
    ("slack", 1): {"users": 60, "channels": 40, "messages": 2000},
    ("postgres", 1): {"tables": 8, "rows": 10_000},
    ("github", 1): {"repositories": 3, "issues": 150, "pull_requests": 40, "commits": 300},
    ("gmail", 1): {"messages": 500, "drafts": 1, "labels": 1},
    ("filesystem", 1): {"files": 200, "directories": 30},
    ("calendar", 1): {"calendars": 4, "events": 400, "series": 5, "exceptions": 10},
    ("linear", 1): {"teams": 3, "issues": 300, "cycles": 6, "projects": 3, "comments": 100},
    ("browser", 1): {"pages": 60, "forms": 20, "search_pages": 1},
    ("stripe", 1): {"customers": 300, "charges": 2000, "invoices": 1000, "refunds": 15},
    ("notion", 1): {"pages": 150, "databases": 6, "smallest_database": 50, "archived": 5, "users": 40},
    ("slack", 2): {"users": 120, "channels": 55, "messages": 2400},
    ("linear", 2): {"teams": 3, "issues": 350, "users": 80, "cycles": 24, "projects": 6, "comments": 400},
    ("calendar", 2): {"calendars": 4, "events": 420, "series": 10, "exceptions": 30, "people": 100, "rooms": 20},
    ("gmail", 2): {"messages": 520, "drafts": 4, "labels": 10},
    ("stripe", 2): {"customers": 350, "charges": 2500, "invoices": 1700, "refunds": 25},
    ("github", 2): {"repositories": 4, "issues": 200, "pull_requests": 65, "commits": 400},
    ("browser", 2): {"pages": 280, "forms": 35, "search_pages": 1},
    ("notion", 2): {"pages": 200, "databases": 6, "smallest_database": 54, "archived": 5, "users": 120, "rows": 700},
}


@pytest.mark.parametrize(("name", "version"), sorted(PROMISED))
def test_every_default_world_has_the_promised_size_and_fits_its_model(name, version):
    generator = get_generator(name, version)
    counts = generator.describe(generator.generate(1))
    assert all(counts[k] >= v for k, v in PROMISED[(name, version)].items()), counts
    for size in ("default", "small"):
        get_spec(name).load_state({"world": {"generator": name, "version": version, "seed": 3, "size": size}})


def test_a_reference_builds_the_version_it_names():
    one = resolve({"world": {**SLACK, "size": "small"}})[1]
    two = resolve({"world": {**SLACK, "version": 2, "size": "small"}})[1]
    assert digest(one) == digest(get_generator("slack", 1).generate(1, "small")) != digest(two)
    assert digest(two) == digest(get_generator("slack").generate(1, "small"))  # the newest by default
    with pytest.raises(WorldError, match=r"world.version: generator 'slack' is at version 2 \(it builds versions "
                                         r"1, 2\); version 3 is not available"):
        resolve({"world": {**SLACK, "version": 3}})


def test_the_default_slack_world_has_the_promised_size():
    state = get_spec("slack").load_state(_world())
    messages = [m for c in state.channels for m in c.messages]
    assert len(state.users) == 60 and len(state.channels) == 40 and len(messages) == 2000
    assert sum(m.thread_ts is not None for m in messages) > 300
    handles = {u.name for u in state.users}
    assert {"maria.santos", "maria.santana"} <= handles


def test_a_postgres_patch_replaces_and_removes_rows_by_primary_key():
    base = get_spec("postgres").load_state({"world": {**SLACK, "generator": "postgres"}})
    order = base.table("orders").rows[41]
    patch = [{"op": "update", "in": ["tables"], "id": "refunds", "fields": {"rows": []}},
             {"op": "replace", "in": ["tables", "orders", "rows"], "value": [*order[:3], "cancelled", *order[4:]]},
             {"op": "remove", "in": ["tables", "order_items", "rows"], "id": base.table("order_items").rows[0][0]}]
    state = get_spec("postgres").load_state({"world": {**SLACK, "generator": "postgres"}, "patch": patch})
    assert state.table("refunds").rows == [] and state.table("orders").rows[41][3] == "cancelled"
    assert len(state.table("order_items").rows) == len(base.table("order_items").rows) - 1


def test_an_inline_state_still_loads_as_it_is():
    state = get_spec("slack").load_state({"channels": [{"id": "C01", "name": "general"}]})
    assert [c.name for c in state.channels] == ["general"]


def test_a_patch_adds_replaces_updates_and_removes_by_stable_id():
    base = get_spec("slack").load_state(_world())
    general = next(c for c in base.channels if c.name == "general")
    victim = next(u.id for u in base.users if u.deleted)  # a deactivated account is in no channel
    kept = general.messages[0]
    patch = [
        {"op": "add", "in": ["channels", general.id, "messages"],
         "value": {"ts": "1774000000.000100", "user": kept.user, "text": "Checkout is slow in Ireland"}},
        {"op": "replace", "in": ["channels", general.id, "messages"],
         "value": {"ts": kept.ts, "user": kept.user, "text": "Rewritten"}},
        {"op": "update", "in": ["channels"], "id": "C" + general.id[1:], "fields": {"topic": "Patched topic"}},
        {"op": "remove", "in": ["users"], "id": victim},
    ]
    patched = get_spec("slack").load_state(_world(patch))
    new_general = next(c for c in patched.channels if c.name == "general")
    assert new_general.topic == "Patched topic"
    assert new_general.messages[-1].text == "Checkout is slow in Ireland"
    assert next(m for m in new_general.messages if m.ts == kept.ts).text == "Rewritten"
    assert victim not in {u.id for u in patched.users}
    assert len(new_general.messages) == len(general.messages) + 1


def test_patching_never_changes_the_cached_world():
    before = digest(get_generator("slack", 1).generate(1))
    first_channel = get_generator("slack", 1).generate(1)["channels"][0]["id"]
    resolve(_world([{"op": "update", "in": ["channels"], "id": first_channel, "fields": {"topic": "x"}},
                    {"op": "remove", "in": ["channels", first_channel, "messages"],
                     "id": get_generator("slack", 1).generate(1)["channels"][0]["messages"][0]["ts"]}]))
    assert digest(get_generator("slack", 1).generate(1)) == before


def test_each_load_gives_an_independent_copy():
    a = get_spec("slack").load_state(_world())
    a.channels[0].topic = "mutated"
    b = get_spec("slack").load_state(_world())
    assert b.channels[0].topic != "mutated"
    with get_spec("slack").open(_world()) as tools:
        tools.state.channels[0].topic = "mutated too"
    assert get_spec("slack").load_state(_world()).channels[0].topic != "mutated too"


@pytest.mark.parametrize(("doc", "path", "fragment"), [
    (_world(version=99), "world.version", "version 99 is not available"),
    (_world(generator="nosuch"), "world.generator", "no world generator"),
    (_world(size="huge"), "world.size", "not one of"),
    (_world(seed=-1), "world.seed", "integer"),
    ({"world": {**SLACK, "colour": 1}}, "world.colour", "unknown field"),
    ({"world": SLACK, "extra": 1}, "extra", "unknown field"),
    (_world([{"op": "upsert", "in": ["users"]}]), "patch[0].op", "unknown operation"),
    (_world([{"op": "remove", "in": ["users"], "id": "UNOBODY"}]), "patch[0].id", "no entity"),
    (_world([{"op": "add", "in": ["teams"], "value": {}}]), "patch[0].in", "not a patchable collection"),
    (_world([{"op": "add", "in": ["channels", "CNOPE", "messages"], "value": {}}]), "patch[0].in[1]", "no entity"),
    (_world([{"op": "set", "field": "channels", "value": []}]), "patch[0].field", "scalar"),
    (_world([{"op": "set", "field": "viewer", "value": "UNOBODY1"}]), "patch", "not among the users"),
])
def test_a_bad_reference_or_patch_is_an_error_naming_its_path(doc, path, fragment):
    with pytest.raises(WorldError) as err:
        load_world(get_spec("slack").state_model, doc)
    assert err.value.path == path and fragment in err.value.detail


def test_adding_an_entity_that_exists_is_refused():
    user = get_generator("slack", 1).generate(1)["users"][5]
    with pytest.raises(WorldError, match=r"patch\[0\]\.value: an entity with id .* already exists"):
        get_spec("slack").load_state(_world([{"op": "add", "in": ["users"], "value": user}]))


def test_a_world_of_another_server_is_refused():
    with pytest.raises(StateError, match="builds another server's state"):
        get_spec("postgres").state_model.load({"world": SLACK})


def _task(initial_state):
    doc = json.loads((ROOT / "tasks_catalog/dev/slack/slack-announce-release.json").read_text())
    doc["initial_state"] = initial_state
    return doc


def test_the_task_loader_reports_a_bad_patch_with_the_task_id_and_json_path():
    _, errors = validate_task(_task(_world([{"op": "remove", "in": ["users"], "id": "UNOBODY"}])))
    assert [(e.task, e.path) for e in errors] == [("slack-announce-release", "$.initial_state.patch[0].id")]


def test_the_task_hash_covers_the_reference_and_the_patch():
    base = _task(_world([{"op": "update", "in": ["users"], "id": "UNOBODY", "fields": {"title": "x"}}]))
    other_seed = copy.deepcopy(base)
    other_seed["initial_state"]["world"]["seed"] = 2
    other_patch = copy.deepcopy(base)
    other_patch["initial_state"]["patch"][0]["fields"]["title"] = "y"
    hashes = {task_hash(base), task_hash(other_seed), task_hash(other_patch)}
    assert len(hashes) == 3


def test_stats_measure_reference_length_discovery_reads_pagination_and_the_world():
    from tasks_catalog.schema import Task
    from tasks_catalog.stats import level, measure

    doc = _task({"world": SLACK, "patch": []})
    doc["reference_solution"] = [
        {"tool": "list_channels", "arguments": {}},
        {"tool": "list_channels", "arguments": {"cursor": "abc"}},
        {"tool": "post_message", "arguments": {"channel_id": "general", "text": "hi"}},
    ]
    stats = measure(Task.model_validate(doc))
    assert (stats.reference_calls, stats.discovery_reads, stats.paginated_search) == (3, 2, True)
    assert stats.world == "slack v1 seed 1 default + 0 patch ops" and stats.world_size["messages"] == 2000
    doc["initial_state"]["world"] = {**SLACK, "version": 2}
    stats = measure(Task.model_validate(doc))
    two = get_generator("slack", 2).describe(get_generator("slack", 2).generate(1))
    assert stats.world == "slack v2 seed 1 default + 0 patch ops" and stats.world_size == two != {**two, "users": 60}
    assert stats.measured == "easy"
    assert level(8, 0, False, 0) == "unrated" and level(8, 1, False, 0) == "medium"
    assert level(12, 2, False, 1) == "unrated" and level(12, 1, True, 1) == "hard" and level(12, 3, False, 0) == "unrated"


def test_the_stats_command_prints_one_line_per_task_and_json_on_request():
    from click.testing import CliRunner

    from mcpbench.cli import main

    runner = CliRunner()
    out = runner.invoke(main, ["tasks", "stats", str(ROOT / "tasks_catalog/dev/slack")])
    assert out.exit_code == 0, out.output
    assert len(out.output.strip().splitlines()) == 5  # a header and the four slack tasks
    rows = json.loads(runner.invoke(main, ["tasks", "stats", "--json", str(ROOT / "tasks_catalog/dev/slack")]).output)
    assert {"task", "world", "world_size", "reference_calls", "discovery_reads", "max_steps", "measured"} <= set(rows[0])


@pytest.mark.parametrize(("generator", "patch", "counted"), [
    ("slack", {"op": "add", "in": ["channels"], "value": {"id": "C0PLANTED1", "name": "planted"}}, "messages"),
    ("linear", {"op": "add", "in": ["issues"], "value": {"id": "ENG-999", "title": "Planted"}}, "comments"),
    ("github", {"op": "add", "in": ["repos"], "value": {"owner": "kestrel-freight", "name": "planted"}}, "issues"),
    ("postgres", {"op": "add", "in": ["tables"], "value": {"name": "planted", "columns": [{"name": "id"}]}}, "rows"),
])
def test_a_planted_entity_that_leaves_its_sub_collections_to_the_defaults_is_described(generator, patch, counted):
    # `mcpbench tasks stats` describes the patched world; an entity planted without its (defaulted)
    # sub-collections counts none of them instead of crashing.
    from servers.kit.world import get_generator, resolve

    ref = {"world": {"generator": generator, "version": 1, "seed": 1, "size": "small"}}
    base = get_generator(generator).describe(resolve(ref)[1])
    planted = get_generator(generator).describe(resolve({**ref, "patch": [patch]})[1])
    assert planted[counted] == base[counted]
