"""Strength presets: named search budgets a front-end can ask for instead of raw limits.

The single table of the service's strengths, weakest first. Iteration budgets keep a
preset's answers reproducible (same view and seed, same action) and independent of the
machine's speed; the RPC deadline and the server's ``max_search_time`` still cap them.
Each preset beats the one below it in head-to-head games (2 players, seats rotated, 200
games each, ``python bench/strength.py``); the figures are in docs/service.md and the README.
"""

from __future__ import annotations

from dataclasses import dataclass

from council.v1 import game_pb2 as pb


@dataclass(frozen=True)
class Preset:
    name: str
    value: int  # the StrengthPreset enum value
    iterations: int | None
    time_s: float | None
    description: str


PRESETS: tuple[Preset, ...] = (
    Preset(
        "beginner",
        pb.STRENGTH_PRESET_BEGINNER,
        50,
        None,
        "50 iterations (about 1 ms a move): plays about as well as the expert planner (55%)",
    ),
    Preset(
        "casual",
        pb.STRENGTH_PRESET_CASUAL,
        300,
        None,
        "300 iterations (about 5 ms): the default; beats beginner 74%, the expert 75%",
    ),
    Preset(
        "strong",
        pb.STRENGTH_PRESET_STRONG,
        5000,
        None,
        "5000 iterations (about 0.07 s on one core): beats casual 79%, the expert 87%",
    ),
)

BY_NAME: dict[str, Preset] = {p.name: p for p in PRESETS}
BY_VALUE: dict[int, Preset] = {p.value: p for p in PRESETS}
DEFAULT_PRESET = "casual"


def preset_value(name: str) -> int:
    """The StrengthPreset enum value of a preset name (ValueError if unknown)."""
    try:
        return BY_NAME[name.lower()].value
    except KeyError:
        raise ValueError(
            f"unknown strength preset {name!r} (choose from {', '.join(BY_NAME)})"
        ) from None


def search_limits(
    preset: str | None = None, iterations: int | None = None, time_s: float | None = None
) -> pb.SearchLimits:
    """The SearchLimits message for a preset name and/or explicit limits (ValueError if the
    preset is unknown)."""
    limits = pb.SearchLimits()
    if preset:
        limits.preset = preset_value(preset)
    if iterations is not None:
        limits.iterations = iterations
    if time_s is not None:
        limits.max_time.FromNanoseconds(int(time_s * 1e9))
    return limits
