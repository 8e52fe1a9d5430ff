// The Council's cards, suits and counts, written from the engine's tables by
// tests/server/make_web_facts.py (do not edit; test_web.py checks it).
"use strict";
const THE_COUNCIL = {
 "suits": [
  "Moons",
  "Suns",
  "Waves",
  "Leaves",
  "Wyrms",
  "Knots"
 ],
 "rankOrder": [
  "Ace",
  "2",
  "3",
  "4",
  "5",
  "6",
  "7",
  "8",
  "9",
  "Pawn",
  "Court",
  "Crown"
 ],
 "phases": [
  "draft",
  "bid",
  "reveal",
  "over"
 ],
 "draftRounds": 5,
 "eventsPerHand": 5,
 "maxRank": 6,
 "cards": {
  "Ace of Moons": {
   "rank": "Ace",
   "value": 1,
   "suits": [
    "Moons"
   ]
  },
  "Ace of Suns": {
   "rank": "Ace",
   "value": 1,
   "suits": [
    "Suns"
   ]
  },
  "Ace of Waves": {
   "rank": "Ace",
   "value": 1,
   "suits": [
    "Waves"
   ]
  },
  "Ace of Leaves": {
   "rank": "Ace",
   "value": 1,
   "suits": [
    "Leaves"
   ]
  },
  "Ace of Wyrms": {
   "rank": "Ace",
   "value": 1,
   "suits": [
    "Wyrms"
   ]
  },
  "Ace of Knots": {
   "rank": "Ace",
   "value": 1,
   "suits": [
    "Knots"
   ]
  },
  "The Author": {
   "rank": "2",
   "value": 2,
   "suits": [
    "Moons",
    "Knots"
   ]
  },
  "The Desert": {
   "rank": "2",
   "value": 2,
   "suits": [
    "Suns",
    "Wyrms"
   ]
  },
  "The Origin": {
   "rank": "2",
   "value": 2,
   "suits": [
    "Waves",
    "Leaves"
   ]
  },
  "The Journey": {
   "rank": "3",
   "value": 3,
   "suits": [
    "Moons",
    "Waves"
   ]
  },
  "The Painter": {
   "rank": "3",
   "value": 3,
   "suits": [
    "Suns",
    "Knots"
   ]
  },
  "The Savage": {
   "rank": "3",
   "value": 3,
   "suits": [
    "Leaves",
    "Wyrms"
   ]
  },
  "The Mountain": {
   "rank": "4",
   "value": 4,
   "suits": [
    "Moons",
    "Suns"
   ]
  },
  "The Sailor": {
   "rank": "4",
   "value": 4,
   "suits": [
    "Waves",
    "Leaves"
   ]
  },
  "The Battle": {
   "rank": "4",
   "value": 4,
   "suits": [
    "Wyrms",
    "Knots"
   ]
  },
  "The Forest": {
   "rank": "5",
   "value": 5,
   "suits": [
    "Moons",
    "Leaves"
   ]
  },
  "The Discovery": {
   "rank": "5",
   "value": 5,
   "suits": [
    "Suns",
    "Waves"
   ]
  },
  "The Soldier": {
   "rank": "5",
   "value": 5,
   "suits": [
    "Wyrms",
    "Knots"
   ]
  },
  "The Lunatic": {
   "rank": "6",
   "value": 6,
   "suits": [
    "Moons",
    "Waves"
   ]
  },
  "The Penitent": {
   "rank": "6",
   "value": 6,
   "suits": [
    "Suns",
    "Wyrms"
   ]
  },
  "The Market": {
   "rank": "6",
   "value": 6,
   "suits": [
    "Leaves",
    "Knots"
   ]
  },
  "The Chance Meeting": {
   "rank": "7",
   "value": 7,
   "suits": [
    "Moons",
    "Leaves"
   ]
  },
  "The Castle": {
   "rank": "7",
   "value": 7,
   "suits": [
    "Suns",
    "Knots"
   ]
  },
  "The Cave": {
   "rank": "7",
   "value": 7,
   "suits": [
    "Waves",
    "Wyrms"
   ]
  },
  "The Diplomat": {
   "rank": "8",
   "value": 8,
   "suits": [
    "Moons",
    "Suns"
   ]
  },
  "The Mill": {
   "rank": "8",
   "value": 8,
   "suits": [
    "Waves",
    "Leaves"
   ]
  },
  "The Betrayal": {
   "rank": "8",
   "value": 8,
   "suits": [
    "Wyrms",
    "Knots"
   ]
  },
  "The Pact": {
   "rank": "9",
   "value": 9,
   "suits": [
    "Moons",
    "Suns"
   ]
  },
  "The Darkness": {
   "rank": "9",
   "value": 9,
   "suits": [
    "Waves",
    "Wyrms"
   ]
  },
  "The Merchant": {
   "rank": "9",
   "value": 9,
   "suits": [
    "Leaves",
    "Knots"
   ]
  },
  "The Huntress": {
   "rank": "Crown",
   "value": 0,
   "suits": [
    "Moons"
   ]
  },
  "The Bard": {
   "rank": "Crown",
   "value": 0,
   "suits": [
    "Suns"
   ]
  },
  "The Sea": {
   "rank": "Crown",
   "value": 0,
   "suits": [
    "Waves"
   ]
  },
  "The End": {
   "rank": "Crown",
   "value": 0,
   "suits": [
    "Leaves"
   ]
  },
  "The Calamity": {
   "rank": "Crown",
   "value": 0,
   "suits": [
    "Wyrms"
   ]
  },
  "The Windfall": {
   "rank": "Crown",
   "value": 0,
   "suits": [
    "Knots"
   ]
  },
  "The Watchman": {
   "rank": "Pawn",
   "value": 0,
   "suits": [
    "Moons",
    "Wyrms",
    "Knots"
   ]
  },
  "The Harvest": {
   "rank": "Pawn",
   "value": 0,
   "suits": [
    "Moons",
    "Suns",
    "Leaves"
   ]
  },
  "The Light Keeper": {
   "rank": "Pawn",
   "value": 0,
   "suits": [
    "Suns",
    "Waves",
    "Knots"
   ]
  },
  "The Borderland": {
   "rank": "Pawn",
   "value": 0,
   "suits": [
    "Waves",
    "Leaves",
    "Wyrms"
   ]
  },
  "The Consul": {
   "rank": "Court",
   "value": 0,
   "suits": [
    "Moons",
    "Waves",
    "Knots"
   ]
  },
  "The Rite": {
   "rank": "Court",
   "value": 0,
   "suits": [
    "Moons",
    "Leaves",
    "Wyrms"
   ]
  },
  "The Window": {
   "rank": "Court",
   "value": 0,
   "suits": [
    "Suns",
    "Leaves",
    "Knots"
   ]
  },
  "The Island": {
   "rank": "Court",
   "value": 0,
   "suits": [
    "Suns",
    "Waves",
    "Wyrms"
   ]
  }
 }
};
