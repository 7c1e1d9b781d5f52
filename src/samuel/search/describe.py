"""A search's score for people, in one view everywhere: the first player's (the tigers', Black's),
in the game's words, for an alpha-beta result (a score in the evaluation's units) and a PUCT one
(an expected result, -1..1) alike. ``samuel analyse``, ``samuel play`` and the server say it so."""

from __future__ import annotations

from dataclasses import dataclass

from samuel.games.base import GameRules, format_score
from samuel.search.alphabeta import SearchResult
from samuel.search.puct import PuctResult


@dataclass(frozen=True)
class ScoreView:
    """A search's score in the first player's view: ``value``, the text that says it, and for a
    forced result the winning side (0 the first player, 1 the second) and its plies."""

    value: float
    text: str
    winner: int | None
    plies: int | None


def first_player_view(rules: GameRules, position, value: float) -> float:
    """``value``, the side to move's view in ``position``, turned into the first player's."""
    return value if rules.side_to_move(position) == 0 else -value


def score_view(rules: GameRules, result: SearchResult | PuctResult, position) -> ScoreView:
    """``result``'s score from a search of ``position``, first player's view. A PUCT result's
    value is its expected result (said so in the text); a forced result names the winner."""
    zero = isinstance(result, PuctResult)
    side = rules.side_to_move(position)
    value = first_player_view(rules, position, result.value if zero else result.score)
    plies = result.forced_plies
    if plies is not None:
        winner = side if zero else (0 if value > 0 else 1)  # a proven PUCT win is the mover's
        text = f"{rules.win_phrases[winner]} in {plies} {'ply' if plies == 1 else 'plies'}"
        return ScoreView(value, text, winner, plies)
    kind = "expected result, " if zero else ""
    return ScoreView(value, f"{format_score(value)} ({kind}{rules.view_phrase})", None, None)
