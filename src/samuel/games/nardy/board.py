"""Long nardy's board as the compiled side holds it: four int64 words, and a play as one int64.

Each side numbers the points along its own path: it starts on its point 24 (its head) and moves
towards its point 1; its home is points 1-6 and it bears off past point 1. Both sides go the same
way round, half a board apart: a side's point p is the other side's point ``(p + 11) % 24 + 1``
(0-based: index i is the other side's index ``(i + 12) % 24``). A side's checkers are 25 counts
of 4 bits ("slots"): slot p - 1 for point p (1-24), slot 24 those borne off. White's slots fill
words 0 and 1, Black's words 2 and 3 (slots 0-15 in the first word, 16-24 in the low 36 bits of
the second); word 1's bits above those say whose turn it is and the dice: 0 while the dice are
still to roll (a chance node), else 10 * high + low.

A play is up to four steps, one a die, each 10 bits: the point it leaves (1-24 in the mover's
numbering) times 32 plus the point it reaches (0 off, 1-23). The steps are sorted, largest first
(so a play has one code whatever order its steps were found in), step k at bits 10 * k; the step
count is in bits 40-42. The empty play (count 0) is a pass, the one play of a roll that can move
nothing. A roll's code has bit 48 set and 10 * high + low below it.
"""

from __future__ import annotations

CHECKERS = 15  # each side's
POINTS = 24
HEAD = 24  # every checker starts here, in its side's own numbering
HALF = 12  # a side's index i is the other side's index (i + HALF) % POINTS
HOME = 6  # the home is points 1-6
BLOCK = 6  # consecutive points a side may hold only with an opponent's checker past them
SLOT_BITS = 4
SLOT_MASK = 15
OFF_SLOT = 24
SLOTS = 25
LOW_SLOTS = 16  # slots in a side's first word
HIGH_BITS = (SLOTS - LOW_SLOTS) * SLOT_BITS  # 36: the second word's slots
HIGH_MASK = (1 << HIGH_BITS) - 1
POINTS_HIGH_MASK = (1 << ((POINTS - LOW_SLOTS) * SLOT_BITS)) - 1  # the second word's points
TURN_BIT = HIGH_BITS  # word 1: 1 while White is to move (or to roll)
DICE_SHIFT = HIGH_BITS + 1  # word 1: the dice, 10 * high + low, 0 still to roll
DICE_MASK = 127

STATE_WORDS = 4
# The most distinct plays of one roll, and the positions the generator keeps at once before the
# plays of too few dice are dropped: backgammon's bounds (GNU Backgammon's). A double's four equal
# steps are shared among fifteen checkers in at most C(18, 4) = 3060 ways, so no roll has more
# plays; a position past either bound would raise (move_buffer_full), never write past a buffer.
MAX_PLAYS = 3060
MAX_CANDIDATES = 3875
ROLLS = 21  # distinct rolls of two dice: 6 doubles (1/36 each) and 15 others (2/36 each)

STEP_BITS = 10
STEP_MASK = (1 << STEP_BITS) - 1
FROM_SHIFT = 5
POINT_MASK = 31
MAX_STEPS = 4
COUNT_SHIFT = STEP_BITS * MAX_STEPS  # 40
PASS = 0  # the play of no step
ROLL_FLAG = 1 << 48  # a roll's code: ROLL_FLAG | (10 * high + low)

# Seed 001's phases, each valued by its own network where a file holds one per phase: the start
# (a side still has a checker on its head), the middle, and the race (no contact: each side's
# checkers have all passed the other's).
PHASES = ("start", "middle", "race")
START, MIDDLE, RACE = range(len(PHASES))
