"""Write ``server/web/the-council-facts.js``: The Council's card table for the web page.

The page draws a position of The Council from its JSON, which names cards but not their
suits or ranks, and no RPC lists them. So the page reads them from this file, written from
the engine's own tables (``council.engine._the_council``: ``CARDS``, ``SUITS``,
``RANK_ORDER``, ``PHASES`` and the counts), never typed by hand.
``tests/server/test_web.py`` checks that the file is what this script writes. After a
change of the card data, from the repository root::

    .venv/bin/python tests/server/make_web_facts.py           # rewrite the file
    .venv/bin/python tests/server/make_web_facts.py --check   # compare only (exit 1 on a diff)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from council.engine import _the_council as tc

OUTPUT = Path(__file__).resolve().parents[2] / "server" / "web" / "the-council-facts.js"


def facts() -> dict:
    """The engine's facts the page needs, by name (as the position JSON names them)."""
    return {
        "suits": list(tc.SUITS),
        "rankOrder": list(tc.RANK_ORDER),
        "phases": list(tc.PHASES),
        "draftRounds": tc.DRAFT_ROUNDS,
        "eventsPerHand": tc.EVENTS_PER_HAND,
        "maxRank": tc.MAX_RANK,
        # value: what the card asks of a bid as the event (chips of its suits to succeed).
        "cards": {
            card.name: {
                "rank": tc.RANK_ORDER[card.order],
                "value": card.value,
                "suits": [tc.SUITS[s] for s in card.suits],
            }
            for card in tc.CARDS
        },
    }


def text() -> str:
    body = json.dumps(facts(), indent=1)
    return (
        "// The Council's cards, suits and counts, written from the engine's tables by\n"
        "// tests/server/make_web_facts.py (do not edit; test_web.py checks it).\n"
        '"use strict";\n'
        f"const THE_COUNCIL = {body};\n"
    )


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        same = OUTPUT.exists() and OUTPUT.read_text() == text()
        print(f"{OUTPUT}: {'up to date' if same else 'differs'}")
        return 0 if same else 1
    OUTPUT.write_text(text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
