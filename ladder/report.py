"""The ladder's report: standings, head-to-head table, forfeits, void games (an endpoint
could not be reached), adjudicated games, and the ratings plot."""

from __future__ import annotations

from dataclasses import dataclass

from council.ladder._extra import require
from council.ladder.games import DEFAULT_GAME
from council.ladder.ratings import Ratings, compute
from council.ladder.schedule import schedule
from council.ladder.store import GameResult, LadderConfig, Store

__all__ = ["LadderReport", "load", "plot"]


@dataclass
class LadderReport:
    path: str
    config: LadderConfig
    scheduled: int
    games: list[GameResult]  # stored games in schedule order
    ratings: Ratings

    @property
    def void(self) -> list[GameResult]:
        """Games not played (an endpoint could not be reached): not rated, played again by
        the next run."""
        return [g for g in self.games if g.status == "void"]

    @property
    def adjudicated(self) -> list[GameResult]:
        """Games stopped at the length cap and scored as they stood (rated as finished)."""
        return [g for g in self.games if g.adjudicated]

    def to_dict(self) -> dict:
        r = self.ratings
        order = [s.label for s in r.standings()]
        return {
            "ladder": self.path,
            "game": self.config.game,
            "entrants": [{"label": label, "spec": spec} for label, spec in self.config.entrants],
            "table_size": self.config.table_size,
            "deals": self.config.deals,
            "seed": self.config.seed,
            "layout": self.config.layout,
            "scheduled": self.scheduled,
            "stored": len(self.games),
            "rated": r.games,
            "forfeits": r.forfeits,
            "void": r.voids,
            "adjudicated": len(self.adjudicated),
            "standings": [
                {
                    "rank": place,
                    "label": s.label,
                    "games": s.games,
                    "mu": round(s.mu, 3),
                    "sigma": round(s.sigma, 3),
                    "mu_95": [round(s.low, 3), round(s.high, 3)],
                    "ordinal": round(s.ordinal, 3),
                    "wins": round(s.wins, 3),
                    "win_share": round(s.win_share, 4),
                    "mean_vp": round(s.mean_vp, 2),
                    "forfeits": s.forfeits,
                }
                for place, s in enumerate(r.standings(), 1)
            ],
            "pairwise": [
                {
                    "a": a,
                    "b": b,
                    "games": p.n,
                    "a_ahead_rate": round(p.rate, 4),
                    "a_ahead_95ci": [round(x, 4) for x in p.interval],
                }
                for i, a in enumerate(order)
                for b in order[i + 1 :]
                for p in [r.pairwise[(a, b)]]
            ],
            "forfeit_games": [
                {
                    "id": g.id,
                    "seat": g.forfeit_seat,
                    "label": g.labels[g.forfeit_seat],
                    "reason": g.reason,
                }
                for g in self.games
                if g.status == "forfeit" and g.forfeit_seat is not None  # always set
            ],
            "void_games": [{"id": g.id, "reason": g.reason} for g in self.void],
        }

    def to_text(self, max_forfeits: int = 10) -> str:
        c, r = self.config, self.ratings
        adjudicated = self.adjudicated
        width = max([len("entrant")] + [len(label) for label in c.labels])
        # The default game's ladders name their board; another game's name the game.
        rules = f"layout {c.layout}" if c.game == DEFAULT_GAME else f"game {c.game}"
        lines = [
            f"ladder {self.path}: {len(c.entrants)} entrants, tables of {c.table_size}, "
            f"{c.deals} deals x {c.table_size} seat rotations, seed {c.seed}, {rules}",
            f"{len(self.games)}/{self.scheduled} games stored, {r.games} rated "
            f"({r.forfeits} forfeits, {r.voids} void)"
            + (f", {len(adjudicated)} adjudicated at the length cap" if adjudicated else ""),
            "",
            "OpenSkill Plackett-Luce ratings (mu +- 1.96 sigma; ordinal = mu - 3 sigma)",
            f"{'#':>2}  {'entrant':<{width}} {'games':>6} {'mu':>6} {'sigma':>6} "
            f"{'95% range':>15} {'ordinal':>8} {'wins':>7} {'win %':>6} {'mean VP':>8} "
            f"{'forfeits':>8}",
        ]
        for place, s in enumerate(r.standings(), 1):
            lines.append(
                f"{place:>2}  {s.label:<{width}} {s.games:>6} {s.mu:>6.2f} {s.sigma:>6.2f} "
                f"{f'[{s.low:.1f}, {s.high:.1f}]':>15} {s.ordinal:>8.2f} {s.wins:>7.1f} "
                f"{100 * s.win_share:>6.1f} {s.mean_vp:>8.1f} {s.forfeits:>8}"
            )
        order = [s.label for s in r.standings()]
        lines += [
            "",
            "Head to head: how often the first placed ahead of the second (level = 1/2), "
            "95% Wilson interval",
        ]
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                p = r.pairwise[(a, b)]
                if p.n:
                    low, high = p.interval
                    lines.append(
                        f"  {a:<{width}} vs {b:<{width}} {p.rate:6.3f}  [{low:.3f}, {high:.3f}]"
                        f"  over {p.n} games"
                    )
        forfeits = [g for g in self.games if g.status == "forfeit"]
        if forfeits:
            lines += ["", f"Forfeits ({len(forfeits)}):"]
            lines += [f"  {g.id}: {g.reason}" for g in forfeits[:max_forfeits]]
            if len(forfeits) > max_forfeits:
                lines.append(f"  ... and {len(forfeits) - max_forfeits} more")
        voids = self.void
        if voids:
            lines += ["", f"Void, not rated; the next run plays them again ({len(voids)}):"]
            lines += [f"  {g.id}: {g.reason}" for g in voids[:max_forfeits]]
            if len(voids) > max_forfeits:
                lines.append(f"  ... and {len(voids) - max_forfeits} more")
        if adjudicated:
            lines += ["", f"Adjudicated at the length cap ({len(adjudicated)}):"]
            lines += [f"  {g.id}: {g.reason}" for g in adjudicated[:max_forfeits]]
            if len(adjudicated) > max_forfeits:
                lines.append(f"  ... and {len(adjudicated) - max_forfeits} more")
        return "\n".join(lines)


def load(store: Store) -> LadderReport:
    """Read the ladder in ``store`` and rate its games in schedule order."""
    config = store.config()
    if config is None:
        raise ValueError(f"{store.path}: no ladder stored")
    games = schedule(
        len(config.entrants), config.table_size, config.deals, config.seed, config.game
    )
    order = {g.id: g.index for g in games}
    stored = sorted(store.games(), key=lambda g: (order.get(g.id, len(order)), g.id))
    return LadderReport(
        path=store.path,
        config=config,
        scheduled=len(games),
        games=stored,
        ratings=compute(stored, config.labels),
    )


def plot(report: LadderReport, path: str, title: str | None = None) -> None:
    """A PNG of each entrant's mu over the rated games, with its 95% band (mu +- 1.96 sigma)."""
    matplotlib = require("matplotlib")  # the ``ladder`` extra, imported when first needed
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = report.ratings.history
    xs = [n for n, _ in history]
    fig, ax = plt.subplots(figsize=(11, 5.2), dpi=110)
    for s in report.ratings.standings():
        mu = [snapshot[s.label][0] for _, snapshot in history]
        sigma = [snapshot[s.label][1] for _, snapshot in history]
        label = f"{s.label}  {s.mu:.1f} ± {1.96 * s.sigma:.1f}"
        (line,) = ax.plot(xs, mu, linewidth=1.8, label=label)
        ax.fill_between(
            xs,
            [m - 1.96 * d for m, d in zip(mu, sigma, strict=True)],
            [m + 1.96 * d for m, d in zip(mu, sigma, strict=True)],
            color=line.get_color(),
            alpha=0.15,
            linewidth=0,
        )
    c = report.config
    ax.set_title(
        title
        or f"Ladder ratings: OpenSkill Plackett-Luce mu with 95% band "
        f"(tables of {c.table_size}, {report.ratings.games} games)"
    )
    ax.set_xlabel("games rated (schedule order)")
    ax.set_ylabel("rating (mu)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
