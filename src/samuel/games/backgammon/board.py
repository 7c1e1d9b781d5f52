"""Backgammon's board as the compiled side holds it: four int64 words, and a play as one int64.

Each side counts its points from its own side: it moves from its 24-point towards its 1-point,
its home board is points 1-6, its bar is point 25 and off is point 0; a side's point p is the
other side's point 25 - p. A side's checkers are 26 counts of 4 bits ("slots"): slot p - 1 for
point p (1-24), slot 24 the bar, slot 25 those borne off. X's slots fill words 0 and 1, O's
words 2 and 3 (slots 0-15 in the first word, 16-25 in the low 40 bits of the second); word 1's
bits above those say whose turn it is and the dice: 0 while the dice are still to roll (a chance
node), else 10 * high + low.

A play is up to four steps, one a die, each 11 bits: the point it leaves (1-25 in the mover's
numbering, 25 the bar) times 64, plus the point it reaches (0 off, 1-24) times 2, plus 1 if it
hits a blot. The steps are sorted, largest first (so a play has one code whatever order its steps
were found in), step k at bits 11 * k; the step count is in bits 44-46. The empty play (count 0)
is a pass, the one play of a roll that can move nothing. A roll's code has bit 48 set and
10 * high + low below it.
"""

from __future__ import annotations

CHECKERS = 15  # each side's
POINTS = 24
BAR = 25  # a side's bar, as a point
SLOT_BITS = 4
SLOT_MASK = 15
BAR_SLOT = 24
OFF_SLOT = 25
SLOTS = 26
LOW_SLOTS = 16  # slots in a side's first word
HIGH_BITS = (SLOTS - LOW_SLOTS) * SLOT_BITS  # 40: the second word's slots
HIGH_MASK = (1 << HIGH_BITS) - 1
TURN_BIT = HIGH_BITS  # word 1: 1 while X is to move (or to roll)
DICE_SHIFT = HIGH_BITS + 1  # word 1: the dice, 10 * high + low, 0 still to roll
DICE_MASK = 127
HOME = 6  # the home board is points 1-6

STATE_WORDS = 4
# The most distinct plays of one roll (GNU Backgammon's bound); a roll of doubles in an open
# position can have hundreds.
MAX_PLAYS = 3060
# Sequences of steps the generator keeps at once, before the ones that play too few dice are
# dropped (GNU Backgammon's bound on incomplete moves).
MAX_CANDIDATES = 3875
ROLLS = 21  # distinct rolls of two dice: 6 doubles (1/36 each) and 15 others (2/36 each)

STEP_BITS = 11
STEP_MASK = (1 << STEP_BITS) - 1
FROM_SHIFT = 6
TO_SHIFT = 1
POINT_MASK = 31
STEP_HIT = 1
MAX_STEPS = 4
COUNT_SHIFT = STEP_BITS * MAX_STEPS  # 44
PASS = 0  # the play of no step
ROLL_FLAG = 1 << 48  # a roll's code: ROLL_FLAG | (10 * high + low)
