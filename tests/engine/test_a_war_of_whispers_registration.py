"""A War of Whispers' registration: its event trace and effects at concrete positions, its
messages (names, problems by field, a stale content refused), its configuration and the
commands' ``--content FILE``. How it plays generically (random play, views, round trips,
every RPC) is tested over the registry in tests/games/."""

from __future__ import annotations

import json

import pytest
from aww_positions import (
    BEAR,
    LION,
    MARSHAL,
    SHERIFF,
    at,
    count,
    deploy,
    option,
    set_map,
    turn_position,
)

from council.engine._a_war_of_whispers import AWarOfWhispersState, current_content
from council.engine.a_war_of_whispers import AWarOfWhispersConfig
from council.engine.games import game_named, use_content_file
from council.engine.serialize import StateValidationError, state_from_proto
from council.server.cli import main

GAME = game_named("a-war-of-whispers")
ATTACK = option(1)  # the bear sheriff's second option


def ev(kind: str, seat: int, *args: int) -> tuple:
    return (kind, seat, tuple(args) + (0,) * (4 - len(args)))


def test_a_deploy_writes_the_agent_and_its_effect_names_the_seat():
    state = AWarOfWhispersState.new_game(2, seed=3)
    after = state.child(deploy(LION, MARSHAL))
    assert after.events == (ev("action", 0, deploy(LION, MARSHAL)), ev("agent", -1, 6, -1, 0))
    effects = GAME.effects(state, after, deploy(LION, MARSHAL), None, False)
    assert [(line.seat, line.text) for line in effects.lines] == [
        (0, "places an agent on the lion marshal")
    ]


def test_an_attacks_losses_are_its_events_and_effects():
    raw = turn_position({(BEAR, SHERIFF): 0}, BEAR, SHERIFF)
    set_map(raw, {"Pinewatch": (BEAR, 5), "Goldhollow": (LION, 2)})
    state = AWarOfWhispersState.from_raw(raw)
    for action in (ATTACK, at("Pinewatch"), at("Goldhollow")):
        state.apply(action)
    before = state.clone()
    state.apply(count(4))
    pine, gold = (current_content().regions.index(r) for r in _regions("Pinewatch", "Goldhollow"))
    regions = [e for e in state.events if e[0] == "region"]
    assert regions == [ev("region", -1, pine, BEAR, 1, 5), ev("region", -1, gold, BEAR, 1, 2)]
    lines = [line.text for line in GAME.effects(before, state, count(4), 1, False).lines]
    assert lines[:2] == ["Pinewatch: bear 1 banners (was 5)", "Goldhollow: bear 1 banners (was 2)"]


def _regions(*names: str):
    return [r for n in names for r in current_content().regions if r.name == n]


def test_a_draw_is_named_to_its_drawer_only_and_left_out_of_known_effects():
    before = AWarOfWhispersState.new_game(2, seed=5)
    after = before.child(before.legal_actions()[0])
    while not any(e[0] == "draw" for e in after.events):
        before = after
        after = before.child(before.legal_actions()[0])
    action = after.events[0][2][0]
    drawer = next(e[1] for e in after.events if e[0] == "draw")
    mine = GAME.effects(before, after, action, drawer, False)
    other = GAME.effects(before, after, action, 1 - drawer, False)
    drawn = [line.text for line in mine.lines if line.text.startswith("draws")]
    hidden = [line.text for line in other.lines if line.text.startswith("draws")]
    assert ":" in drawn[0] and ":" not in hidden[0]
    assert GAME.effects(before, after, action, drawer, True).partial


def test_messages_name_regions_cards_and_tokens_and_refuse_a_stale_digest():
    state = AWarOfWhispersState.new_game(4, seed=2)
    msg = GAME.write(state)
    aw = msg.a_war_of_whispers
    assert (aw.phase, aw.round, aw.current, len(aw.agents)) == ("deploy", 1, 0, 20)
    assert aw.regions[0].name == current_content().regions[0].name
    assert GAME.read(msg, -1) == (state, [])
    msg.config.a_war_of_whispers.content_digest = "0" * 64
    with pytest.raises(StateValidationError) as error:
        state_from_proto(msg)
    assert error.value.violations[0][0] == "config.a_war_of_whispers.content_digest"
    msg = GAME.write(state)
    msg.a_war_of_whispers.players[1].loyalty[0] = "fanatic"
    _, problems = GAME.read(msg, -1)
    assert problems[0][0] == "a_war_of_whispers.players[1].loyalty[0]"
    msg = GAME.write(state)
    msg.a_war_of_whispers.turn.left = 300  # past its int8 field
    _, problems = GAME.read(msg, -1)
    assert [path for path, _ in problems] == ["a_war_of_whispers.turn.left"]
    msg = GAME.write(state)
    msg.a_war_of_whispers.regions[0].banners = 30  # more than the bear's 20
    _, problems = GAME.read(msg, -1)
    bear_on_map = 30 + sum(
        r.banners for r in msg.a_war_of_whispers.regions[1:] if r.empire == "bear"
    )
    assert problems == [
        (
            "a_war_of_whispers.regions",
            f"bear has {bear_on_map} banners on the map, more than its 20",
        )
    ]


def test_config_options_and_content_named_by_id():
    config, problems = GAME.read_config(
        {"players": 2, "agents_on_map": True, "content_id": current_content().id}, "config", True
    )
    assert problems == [] and config == AWarOfWhispersConfig(
        players=2, agents_on_map=True, content_id=current_content().id
    )
    assert config.new_game(seed=1).agents_on_map
    _, problems = GAME.read_config({"players": 5}, "config", True)
    assert problems == [("config.players", "A War of Whispers seats 2 to 4, got 5")]
    _, problems = GAME.read_config({"players": 3, "content_digest": "ff"}, "config", True)
    assert problems[0][0] == "config.content_digest"


def test_content_flag_loads_a_file_and_names_a_bad_value(tmp_path, capsys):
    data = current_content().to_json()
    good = tmp_path / "same.json"
    good.write_text(json.dumps(data))
    assert use_content_file(str(good), "a-war-of-whispers")[2] == current_content().digest
    data["regions"][0]["empire"] = "wolf"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code = main(["new-game", "--game", "a-war-of-whispers", "--content", str(bad)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"--content: {bad}: regions[0].empire" in err
    code = main(["new-game", "--game", "kuhn-poker", "--content", str(good)])
    assert code == 2 and "Kuhn poker is played without a content file" in capsys.readouterr().err
