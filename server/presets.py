"""Strength presets: named search budgets a front-end can ask for instead of raw limits.

The single table of the service's strengths, weakest first. Iteration budgets keep a
preset's answers reproducible (same view and seed, same action) and independent of the
machine's speed; ``max`` is the one time-based preset (its time is also capped by the
server's ``max_search_time``). The arena results that order and space them are recorded
in docs/service.md.
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
        200,
        None,
        "200 iterations (~15 ms a move on one core): plays sensible but shortsighted moves",
    ),
    Preset(
        "casual",
        pb.STRENGTH_PRESET_CASUAL,
        1000,
        None,
        "1000 iterations (~70 ms): the default; a fair opponent for most players",
    ),
    Preset(
        "strong",
        pb.STRENGTH_PRESET_STRONG,
        5000,
        None,
        "5000 iterations (~0.35 s): a strong opponent",
    ),
    Preset(
        "max",
        pb.STRENGTH_PRESET_MAX,
        None,
        5.0,
        "5 s of search (capped by the server's max_search_time): the strongest setting",
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
