"""Ratings and head-to-head tables from the stored games.

* **OpenSkill, Plackett-Luce** (``openskill.models.PlackettLuce``, mu 25, sigma 25/3): every
  rated game updates the ratings of the entrants at its table from their places (a
  multiplayer table is one ranking, ties allowed). Games are taken in schedule order, so
  the ratings (and their history) do not depend on the order workers finished them in.
  ``mu`` is the skill estimate, ``sigma`` its uncertainty; ``mu ± 1.96 sigma`` is shown as
  the 95% range and ``ordinal = mu - 3 sigma`` as the conservative rating.
* **Pairwise win rates**: for two entrants, over the games where both sat at the table, the
  share of those games in which the first placed ahead of the second (a shared place counts
  half), with a 95% Wilson score interval.

Void games are left out of both; forfeits count as described in ``runner``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from council.ladder._extra import require
from council.ladder.store import GameResult
from council.mcts.arena import wilson_interval

# The ratings need OpenSkill (the ``ladder`` extra); without it, importing the ladder fails
# here with the install command in the message.
PlackettLuce = require("openskill.models").PlackettLuce

__all__ = ["EntrantStats", "Pairwise", "Ratings", "compute"]

Z95 = 1.96


@dataclass
class EntrantStats:
    label: str
    mu: float = 25.0
    sigma: float = 25.0 / 3
    games: int = 0  # rated games played (forfeits included)
    wins: float = 0.0  # a first place shared by k counts 1/k
    firsts: int = 0
    vp_total: int = 0
    vp_games: int = 0  # finished games (the VP of forfeits are provisional)
    forfeits: int = 0
    voids: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def low(self) -> float:
        return self.mu - Z95 * self.sigma

    @property
    def high(self) -> float:
        return self.mu + Z95 * self.sigma

    @property
    def mean_vp(self) -> float:
        return self.vp_total / self.vp_games if self.vp_games else 0.0

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class Pairwise:
    """Head-to-head points of ``a`` against ``b`` (1 ahead, 1/2 level) over ``n`` games."""

    a: str
    b: str
    points: float = 0.0
    n: int = 0

    @property
    def rate(self) -> float:
        return self.points / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.points, self.n)


@dataclass
class Ratings:
    stats: dict[str, EntrantStats]
    pairwise: dict[tuple[str, str], Pairwise]
    # after each rated game: (games rated so far, {label: (mu, sigma)})
    history: list[tuple[int, dict[str, tuple[float, float]]]] = field(default_factory=list)
    games: int = 0
    forfeits: int = 0
    voids: int = 0

    def standings(self) -> list[EntrantStats]:
        """Best first: by mu, then by the conservative ordinal, then by label."""
        return sorted(self.stats.values(), key=lambda s: (-s.mu, -s.ordinal, s.label))


def compute(games: Sequence[GameResult], labels: Sequence[str]) -> Ratings:
    """Ratings over ``games`` taken in the order given (the caller sorts by schedule)."""
    model = PlackettLuce()
    current = {label: model.rating(name=label) for label in labels}
    stats = {label: EntrantStats(label, r.mu, r.sigma) for label, r in current.items()}
    pairs = {(a, b): Pairwise(a, b) for a in labels for b in labels if a != b}
    ratings = Ratings(stats, pairs)
    ratings.history.append((0, {k: (r.mu, r.sigma) for k, r in current.items()}))
    for game in games:
        if game.status == "void" or game.ranks is None:
            ratings.voids += 1
            for label in game.labels:
                stats[label].voids += 1
            continue
        ratings.games += 1
        ratings.forfeits += game.status == "forfeit"
        teams = [[current[label]] for label in game.labels]
        updated = model.rate(teams, ranks=list(game.ranks))
        firsts = [seat for seat, rank in enumerate(game.ranks) if rank == 1]
        for seat, label in enumerate(game.labels):
            current[label] = updated[seat][0]
            s = stats[label]
            s.games += 1
            if seat in firsts:
                s.firsts += 1
                s.wins += 1 / len(firsts)
            if game.status == "finished":
                s.vp_total += game.scores[seat]
                s.vp_games += 1
            if seat == game.forfeit_seat:
                s.forfeits += 1
        for i, a in enumerate(game.labels):
            for j, b in enumerate(game.labels):
                if i != j:
                    p = pairs[(a, b)]
                    p.n += 1
                    if game.ranks[i] < game.ranks[j]:
                        p.points += 1.0
                    elif game.ranks[i] == game.ranks[j]:
                        p.points += 0.5
        ratings.history.append(
            (ratings.games, {label: (current[label].mu, current[label].sigma) for label in labels})
        )
    for label, rating in current.items():
        stats[label].mu, stats[label].sigma = rating.mu, rating.sigma
    return ratings
