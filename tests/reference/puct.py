"""A plain PUCT search, written for clarity, to check the compiled one (:mod:`samuel.search.puct`)
against, simulation for simulation: a tree of Python objects and lists.

It uses the same rules (the compiled game kernels, called one at a time from Python) and the same
network forward pass (:func:`samuel.nn.zero.zero_forward`), so both searches see the same priors
and values; everything else (the action sharing, the softmax, the PUCT score, first-play urgency,
the moves-left bonus, repetition and ply-cap draws, the backup, the solver, the implicit
minimax values) is written out again
here. No root noise and no temperature: the most visited move is chosen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from samuel.games import actions as game_actions
from samuel.games import kernels as games
from samuel.nn import zero

MAX_DEPTH = 256


@dataclass
class Node:
    move: int
    prior: float
    visits: int = 0
    value_sum: float = 0.0  # the first player's view
    plies_sum: float = 0.0
    side: int = 0
    kind: str = "unseen"  # unseen, inner, terminal, horizon
    fixed: tuple[float, float] = (0.0, 0.0)  # a terminal's or horizon's value and plies
    minimax: float = 0.0  # the leaf values' minimax over its visited subtree, first player's
    children: list[Node] = field(default_factory=list)


def evaluate(game: int, params: np.ndarray, state: np.ndarray):
    """The network's value (first player's view), plies left, and the moves with their priors."""
    moves = np.zeros(games.move_room(game), dtype=np.int64)
    n = games.generate(game, state, moves)
    moves = [int(m) for m in moves[:n]]
    move_actions = [game_actions.move_action(game, state, m) for m in moves]
    distinct = list(dict.fromkeys(move_actions))  # in the order they first appear
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(games.MAX_SET_INPUTS, dtype=np.float32)
    count = games.zero_network_inputs(game, state, active, values)
    logits = np.zeros(len(distinct), dtype=np.float32)
    scratch = np.zeros(zero.forward_scratch(params), dtype=np.float32)
    value, plies = zero.zero_forward(
        params,
        active,
        values,
        count,
        np.array(distinct, dtype=np.int64),
        len(distinct),
        logits,
        scratch,
    )
    top = max(float(x) for x in logits)
    exps = [math.exp(float(x) - top) for x in logits]
    total = sum(exps)
    probability = {a: e / total for a, e in zip(distinct, exps, strict=True)}
    sharers = {a: move_actions.count(a) for a in distinct}
    priors = [probability[a] / sharers[a] for a in move_actions]
    return float(value) * games.network_sign(game, state), float(plies), moves, priors


def reach(game, params, node, state, keys, window, depth, plies_to_cap, tablebase):
    """Decide what a newly reached node is, expanding it if inner; its value and plies left.
    Its value is its first implicit minimax value too."""
    value, plies = _reach(game, params, node, state, keys, window, depth, plies_to_cap, tablebase)
    node.minimax = value
    return value, plies


def _reach(game, params, node, state, keys, window, depth, plies_to_cap, tablebase):
    node.side = games.sign(game, state)
    moves = np.zeros(games.move_room(game), dtype=np.int64)
    outcome = games.result(game, state, games.generate(game, state, moves))
    if outcome != games.NOT_OVER:
        node.kind, node.fixed = "terminal", (float(outcome), 0.0)
        return node.fixed
    if depth > 0 and (keys[-1] in keys[window:-1] or 0 <= plies_to_cap <= depth):
        node.kind, node.fixed = "terminal", (0.0, 0.0)  # a repetition or the ply cap: a draw
        return node.fixed
    if depth > 0 and tablebase is not None:
        found, outcome, plies = games.tablebase_result(game, state, tablebase)
        if found:  # the side to move's outcome, in the first player's view
            node.kind, node.fixed = "terminal", (float(outcome * node.side), float(plies))
            return node.fixed
    value, plies, child_moves, priors = evaluate(game, params, state)
    if depth >= MAX_DEPTH:
        node.kind, node.fixed = "horizon", (value, plies)
        return node.fixed
    node.kind = "inner"
    node.children = [Node(m, p) for m, p in zip(child_moves, priors, strict=True)]
    return value, plies


def select(node: Node, settings) -> Node:
    """The child with the highest PUCT score (the first of equals)."""
    q_node = node.value_sum / node.visits * node.side
    visited_policy = sum(c.prior for c in node.children if c.visits > 0)
    fpu = q_node - settings.fpu_reduction * math.sqrt(visited_policy)
    moves_left = settings.moves_left_factor > 0 and abs(q_node) > settings.moves_left_threshold
    expected = node.plies_sum / node.visits - 1.0
    best, pick = -math.inf, None
    for child in node.children:
        if child.visits > 0:
            exact = child.kind == "terminal"  # proven since, maybe: its exact value, not its mean
            if exact:
                q = child.fixed[0] * node.side
            elif settings.minimax > 0:  # the implicit minimax value's share of the child's Q
                mean = child.value_sum / child.visits
                q = ((1.0 - settings.minimax) * mean + settings.minimax * child.minimax) * node.side
            else:
                q = child.value_sum / child.visits * node.side
            if moves_left:
                scale = settings.moves_left_scale
                longer = min(max(child.plies_sum / child.visits - expected, -scale), scale)
                q -= (1.0 if q_node > 0 else -1.0) * settings.moves_left_factor * longer / scale
        else:
            q = fpu
        score = q + settings.c_puct * math.sqrt(node.visits) * child.prior / (1 + child.visits)
        if score > best:
            best, pick = score, child
    return pick


def prove(path: list[Node]) -> None:
    """The MCTS-solver: going up ``path`` (root first) from its exact last node, a node with a
    child that wins for its side to move, or whose children are all exact, is exact too (the
    best child's value; the quickest win, the slowest loss, the quickest draw). Not the root."""
    for node in reversed(path[1:-1]):
        exact = [c for c in node.children if c.kind == "terminal"]
        values = [(c.fixed[0] * node.side, c.fixed[1]) for c in exact]
        if not any(v == 1 for v, _ in values) and len(exact) < len(node.children):
            return
        best = max(v for v, _ in values)
        plies = [p for v, p in values if v == best]
        node.kind = "terminal"
        node.fixed = (best * node.side, 1 + (max(plies) if best == -1 else min(plies)))


def puct(
    game, params, root_state, history_keys, window_start, settings, plies_to_cap=-1, tablebase=None
):
    """The root (a :class:`Node`) after ``settings.simulations`` simulations."""
    root = Node(-1, 1.0)
    keys = [int(k) for k in history_keys]
    value, plies = reach(game, params, root, root_state, keys, window_start, 0, -1, tablebase)
    root.visits, root.value_sum, root.plies_sum = 1, value, plies
    for _ in range(settings.simulations):
        node, state, path_keys, window, path = root, root_state, list(keys), window_start, [root]
        while node.kind == "inner":
            child = select(node, settings)
            after = np.zeros_like(state)
            games.play(game, state, child.move, after)
            if games.is_irreversible(game, state, child.move):
                window = len(path_keys)
            path_keys.append(games.key(game, after))
            node, state = child, after
            path.append(node)
        if node.kind == "unseen":
            depth = len(path) - 1
            value, plies = reach(
                game, params, node, state, path_keys, window, depth, plies_to_cap, tablebase
            )
        else:
            value, plies = node.fixed
        if settings.solver and node.kind == "terminal":
            prove(path)
        for visited in reversed(path):
            visited.visits += 1
            visited.value_sum += value
            visited.plies_sum += plies
            plies += 1.0
            if settings.minimax > 0:
                back_up_minimax(visited)
    return root


def back_up_minimax(node: Node) -> None:
    """A terminal's implicit minimax value is its exact value; an inner node's the best for its
    side to move of its visited children's (its own network value while none is visited)."""
    if node.kind == "terminal":
        node.minimax = node.fixed[0]
    elif node.kind == "inner":
        visited = [c.minimax * node.side for c in node.children if c.visits > 0]
        if visited:
            node.minimax = max(visited) * node.side


def shape(node: Node) -> tuple:
    """The tree below ``node`` as nested tuples: (move, visits, children...), visited only."""
    return (node.move, node.visits, tuple(shape(c) for c in node.children if c.visits > 0))
