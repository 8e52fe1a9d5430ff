"""A War of Whispers' content file: the bundled set loads, its digest names it, and each kind
of broken file is refused with an error naming the path of the offending value."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest

from council.engine.a_war_of_whispers_content import (
    EMPIRES,
    SEATS,
    ContentError,
    bundled_content,
    canonical_json,
    load_content,
)

RAW = json.loads(
    resources.files("council.engine")
    .joinpath("data/a_war_of_whispers_original.json")
    .read_text(encoding="utf-8")
)


def data() -> dict:
    return json.loads(json.dumps(RAW))


def refused(d: dict) -> ContentError:
    with pytest.raises(ContentError) as info:
        load_content(d)
    return info.value


def test_bundled_content_is_labelled_as_the_projects_own():
    content = bundled_content()
    assert content.id == "council-ai-original-1"
    assert "NOT the printed" in RAW["notice"]
    assert len(content.regions) == 20 and len(content.cards) == 40
    for e in range(len(EMPIRES)):
        assert sum(c.empire == e for c in content.cards) == 8


def test_digest_is_sha256_of_the_canonical_json():
    content = bundled_content()
    text = json.dumps(RAW, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(RAW) == text
    assert content.digest == hashlib.sha256(text.encode()).hexdigest()
    # Layout does not change the digest; content does.
    assert load_content(json.loads(json.dumps(RAW, indent=4))).digest == content.digest
    changed = data()
    changed["regions"][0]["banners"] = 1
    assert load_content(changed).digest != content.digest


def test_tables_read_from_the_file():
    content = bundled_content()
    first = content.regions[0]
    assert first.name == RAW["regions"][0]["name"] and first.empire == 0
    names = [r["name"] for r in RAW["regions"]]
    assert [names[j] for j in first.adjacent] == RAW["regions"][0]["adjacent"]
    sheriff = content.seats[EMPIRES.index("lion")][SEATS.index("sheriff")]
    assert [(o.op, o.amount) for o in sheriff] == [
        (o["op"], o.get("banners", 0)) for o in RAW["councils"]["lion"]["sheriff"]
    ]
    levy = content.cards[0]
    assert levy.abilities[0].cost == (levy.empire,)
    assert levy.abilities[1].effect[0].op == "add" and levy.abilities[1].effect[0].amount == 4


def test_load_from_a_path(tmp_path):
    path = tmp_path / "content.json"
    path.write_text(json.dumps(RAW), encoding="utf-8")
    assert load_content(path).digest == bundled_content().digest
    path.write_text("{", encoding="utf-8")
    assert "not JSON" in str(refused_path(path))


def refused_path(path) -> ContentError:
    with pytest.raises(ContentError) as info:
        load_content(path)
    return info.value


def _region(d, name):
    return next(i for i, r in enumerate(d["regions"]) if r["name"] == name)


def test_asymmetric_adjacency():
    d = data()
    a = d["regions"][0]
    far = next(r for r in d["regions"] if r["name"] not in a["adjacent"] and r is not a)
    a["adjacent"].append(far["name"])
    e = refused(d)
    assert e.path == f"regions[0].adjacent[{len(a['adjacent']) - 1}]"
    assert "symmetric" in e.problem


@pytest.mark.parametrize(
    "edit, path, words",
    [
        (lambda d: d["regions"][3].update(empire="wolf"), "regions[3].empire", "unknown empire"),
        (lambda d: d["regions"][3].pop("empire"), "regions[3].empire", "missing"),
        (
            lambda d: d["regions"][2]["adjacent"].append("Atlantis"),
            "regions[2].adjacent[3]",
            "unknown region",
        ),
        (
            lambda d: d["regions"][1]["adjacent"].append(d["regions"][1]["adjacent"][0]),
            "regions[1].adjacent[3]",
            "listed twice",
        ),
        (
            lambda d: d["regions"][4].update(name=d["regions"][0]["name"]),
            "regions[4].name",
            "also regions[0]",
        ),
        (lambda d: d["regions"][0].update(banners=7), "regions[0].banners", "0..6"),
        (lambda d: d["regions"][0].update(cities=True), "regions[0].cities", "integer"),
        (lambda d: d["regions"][0].update(fort="yes"), "regions[0].fort", "true or false"),
        (lambda d: d["regions"][0].update(colour="red"), "regions[0].colour", "unknown field"),
        (lambda d: d["regions"][0].update(adjacent=[]), "regions[0].adjacent", "1 to 8"),
        (lambda d: d.update(schema=2), "schema", "schema 1"),
        (lambda d: d.pop("id"), "id", "missing"),
        (lambda d: d.update(id=""), "id", "non-empty"),
        (lambda d: d["councils"].pop("eagle"), "councils.eagle", "missing"),
        (lambda d: d["councils"]["bear"].update(steward=[]), "councils.bear.steward", "1 to 4"),
        (
            lambda d: d["councils"]["bear"].update(steward=[{"op": "teleport"}]),
            "councils.bear.steward[0].op",
            "unknown operation",
        ),
        (
            lambda d: d["councils"]["lion"].update(marshal=[{"op": "move_agent"}]),
            "councils.lion.marshal[0].op",
            "seat's option",
        ),
        (
            lambda d: d["councils"]["horse"].update(sheriff=[{"op": "add"}]),
            "councils.horse.sheriff[0].banners",
            "missing",
        ),
        (
            lambda d: d["councils"]["horse"].update(sheriff=[{"op": "add", "banners": 9}]),
            "councils.horse.sheriff[0].banners",
            "1..6",
        ),
        (
            lambda d: d["councils"]["horse"].update(sheriff=[{"op": "attack", "empire": "card"}]),
            "councils.horse.sheriff[0].empire",
            "unknown field",
        ),
        (
            lambda d: d["cards"][5]["abilities"][0].update(effect=[]),
            "cards[5].abilities[0].effect",
            "1 to 3",
        ),
        (lambda d: d["cards"][5].update(abilities=[]), "cards[5].abilities", "1 to 3"),
        (
            lambda d: d["cards"][0]["abilities"][0]["effect"].append({"op": "swap"}),
            "cards[0].abilities[0].effect[1].op",
            "card's effect",
        ),
        (
            lambda d: d["cards"][0]["abilities"][0]["effect"][0].update(empire="mine"),
            "cards[0].abilities[0].effect[0].empire",
            "card, active",
        ),
        (
            lambda d: d["cards"][0]["abilities"][1].update(cost=["lion", "horse"]),
            "cards[0].abilities[1].cost",
            "own empire",
        ),
        (
            lambda d: d["cards"][0]["abilities"][0].update(cost=["bear", "bear"]),
            "cards[0].abilities[0].cost",
            "first ability",
        ),
        (
            lambda d: d["cards"][0]["abilities"][1].update(cost=["bear", "yeti"]),
            "cards[0].abilities[1].cost[1]",
            "unknown empire",
        ),
        (lambda d: d["cards"][9].update(name=d["cards"][0]["name"]), "cards[9].name", "also"),
        (lambda d: d["cards"][9].update(empire="bear"), "cards[9].empire", "more than 8"),
    ],
)
def test_each_broken_file_is_refused_naming_its_path(edit, path, words):
    d = data()
    edit(d)
    e = refused(d)
    assert e.path == path, str(e)
    assert words in str(e)


def test_an_empire_with_no_home_region():
    d = data()
    d["regions"] = [r for r in d["regions"] if r["empire"] != "eagle"]
    kept = {r["name"] for r in d["regions"]}
    for r in d["regions"]:
        r["adjacent"] = [a for a in r["adjacent"] if a in kept]
    e = refused(d)
    assert e.path == "regions" and "'eagle' has no home region" in e.problem


def test_too_many_starting_banners():
    d = data()
    for i in range(4):
        d["regions"][i]["banners"] = 6  # the bear's four regions: 24 > 20
    e = refused(d)
    assert e.path == "regions" and "bear's starting banners are 24" in e.problem


def test_an_empire_with_no_cards():
    d = data()
    d["cards"] = [c for c in d["cards"] if c["empire"] != "horse"]
    e = refused(d)
    assert e.path == "cards" and "'horse' has no card" in e.problem


def test_not_an_object():
    assert refused([]).path == ""
    e = refused({**data(), "regions": {}})
    assert e.path == "regions" and "list" in e.problem
