"""Race, a tiny dice game that exists only for the tests: it joins Samuel through this
descriptor alone (``SAMUEL_EXTRA_GAMES=tests.race``), with no file of Samuel's edited, to prove
the game interface for a game with chance nodes and scored outcomes (a gammon is worth 2).

The rules (``rules.py`` in plain Python, ``compiled.py`` the same for the compiled side):

* Two sides, red (the first player, who rolls first) and green, each with two counters on a
  track of points 0 to 6; point 6 is "borne off". Both sides start with both counters on 0.
* A turn: the side rolls two three-sided dice (faces 1-3): six distinct rolls, each double with
  probability 1/9, each other roll 2/9 (as backgammon's 21 rolls are 1/36 and 2/36). Then it
  splits the roll's total between its two counters: (both dice on the rear counter), (the high
  die on the rear, the low on the front), (the low on the rear, the high on the front) or (both
  on the front); a double d-d has the splits 2d/0, d/d and 0/2d. A counter stops at point 6
  (pips past the end are lost), and a counter already borne off takes no pips, so with one
  counter off the other takes the whole roll. Plays that leave the same position are one move.
* The first side to bear off both counters wins: 2 points (a gammon) if the loser has borne off
  neither counter, else 1 (a single game). No draws, no repetition (every move advances).
"""

from samuel.games.descriptor import GameDescriptor

DESCRIPTOR = GameDescriptor(
    name="race",
    number=200,
    title="Race",
    sides=("red", "green"),
    # -R and -G: not -B, which is draughts' --black (every game's side letters are options of
    # the same command line, so they must differ between games)
    side_letters=("R", "G"),
    first_to_move=0,  # red
    rules_module="tests.race.rules",
    compiled_module="tests.race.compiled",
)
