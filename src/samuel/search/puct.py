"""PUCT search (AlphaZero's Monte Carlo tree search, as Leela Chess Zero runs it) for Samuel Zero's
network (:mod:`samuel.nn.zero`), for any game in :mod:`samuel.games`.

The whole search runs compiled, in a tree of preallocated arrays (one entry per node, children
of a node contiguous). Each simulation walks from the root to a leaf, choosing at every node the
child with the highest

    Q(child) + c_puct * P(child) * sqrt(N(node)) / (1 + N(child))

where ``Q`` is the child's mean value for the side to move at the node, ``P`` its prior and ``N``
visit counts. An unvisited child's ``Q`` is the *first-play urgency*, lc0's "reduction": the
node's own ``Q`` minus ``fpu_reduction * sqrt(sum of the priors of its visited children)``, so
the first moves tried are the likely ones and an unlikely move is tried only once the likely ones
look worse than the node. The leaf is expanded: the network (:func:`samuel.nn.zero.zero_forward`)
values it and gives the priors of its legal moves, a softmax over their *distinct* actions
(:func:`samuel.games.actions.distinct_actions`; draughts captures sharing an action split its
prior equally). The leaf's value goes back up the path; values are kept in the first player's
view (the network's turned by :func:`~samuel.games.kernels.network_sign`), and each node reads
its children's in its own side to move's view (:func:`~samuel.games.kernels.sign`).

**Exact nodes.** A leaf that the game's rules decide (:func:`~samuel.games.kernels.result`) is
terminal, worth exactly 1, 0 or -1 and 0 plies left, every time it is visited. So is a draw:

- a position that occurred before, on the path from the root or in the game's history since its
  last irreversible move (the second occurrence: lc0's rule; the game itself draws at the third,
  but a line that repeats once can be repeated again, so the search calls it a draw);
- a position at the game's ply cap (``plies_to_cap`` plies below the root), a draw as in
  :class:`samuel.games.game.Game`;
- given a tablebase (Tigers & Sheep's layers), a position below the root that it holds: its
  perfect-play outcome, with the table's plies left.

A node ``MAX_DEPTH`` plies below the root is a *horizon*: the network values it and it is never
expanded (not exact; no search of a few thousand simulations goes that deep unless forced).
Transpositions are not merged: a position reached by two paths is two nodes, each searched on its
own (simple, and a node's repetition status then depends on one path only).

**Chance.** In a game with dice, a position whose dice are still to roll
(:func:`~samuel.games.kernels.chance` lists outcomes) is a *chance node*. Reached for the first
time, it gets one child per outcome, each with its probability as its prior, and no value of its
own: the simulation goes on through an outcome drawn with its probability from the search's
generator, and the leaf below gives the value. Every later simulation through it draws again, so
the outcomes' children are nodes of the tree like any other and repeated draws of one roll share
their statistics; a chance node's mean is then the average of its outcomes' values, weighted by
how often each was drawn, which tends to their expectation. A roll keeps the side to move, and the
values are in the first player's view, so nothing is negated through it. The root of a search is
a decision (:class:`PuctSearch` refuses a position whose dice are to roll). Such a game scores a
finished game by its points (a gammon 2), as its rules do; the MCTS-solver proves nothing
through a chance node, nor by a single winning move (a larger win may be open). A game without
chance draws nothing more from the generator: its searches are as they were.

**Moves left** (lc0's moves-left utility, ``docs/zero.md``; off unless ``moves_left_factor`` >
0). Every node also keeps its mean plies left (the network's plies-left head at the leaf plus the
plies from the node to the leaf; 0 at a terminal). When the node's ``|Q|`` is beyond
``moves_left_threshold`` (the game is decided), a visited child's ``Q`` gets
``-sign(Q(node)) * factor * clamp(M(child) - (M(node) - 1), -scale, scale) / scale``: a child
that makes the game longer than expected is worth a little less to the winner and a little more
to the loser. The bonus stays within ``factor``, so the value still decides between moves.

**Self-play.** Dirichlet noise (``noise_alpha``, weight ``noise_fraction``) is mixed into the
root's priors; the move is drawn with probability proportional to ``N ** (1 / temperature)``. At
temperature 0 the most visited move is played (ties: the higher prior, then the first generated).
Both draw from numba's generator seeded with ``seed`` inside the kernel: the same seed gives the
same search.

:class:`PuctSearch` owns the tree and checks every input before the kernel sees it (numba checks
no bounds).
"""

from __future__ import annotations

import math
import time
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from samuel.errors import CommandError
from samuel.games import actions as game_actions
from samuel.games import descriptor_of
from samuel.games import kernels as games
from samuel.jit import kernel
from samuel.nn import zero

from .alphabeta import HISTORY_CAPACITY, _mix, _now

MAX_DEPTH = 256  # plies below the root a node can be; a node this deep is a horizon
# A tree's fewest nodes where no game is known: room for the root and any game's root's
# children (a tree made for one game needs smallest_tree(game)).
SMALLEST_TREE = games.MAX_MOVES + 1
TIMED_STEP = 256  # simulations a step of a timed search (it resumes the tree step by step)
CLOCK_EVERY = 16  # simulations between a timed step's looks at the clock (about 0.2 ms)
LARGEST_TREE = 1 << 26  # nodes: about 6 GB of arrays (96 bytes a node), more than any search

# Node kinds. An inner node is a decision (a move to choose), a chance node dice to roll.
UNSEEN, INNER, TERMINAL, HORIZON, CHANCE = 0, 1, 2, 3, 4
# Where each array sits in the tree tuple (see new_tree).
(
    PARENT,
    FIRST_CHILD,
    CHILD_COUNT,
    MOVE,
    PRIOR,
    VISITS,
    VALUE_SUM,
    PLIES_SUM,
    SIDE,
    KIND,
    FIXED_VALUE,
    FIXED_PLIES,
    MINIMAX,
) = range(13)
NODE_ARRAYS = 13  # the arrays above: one entry per node
STATES, KEYS, WINDOW = 13, 14, 15

# How the search runs, as compiled code takes it: one argument (a settings bundle) instead of
# eleven. Made by PuctSettings.knobs, whose fixed types (simulations an int, solver a bool, the
# rest floats) give numba one specialisation; the fields are PuctSettings's.
PuctKnobs = namedtuple(
    "PuctKnobs",
    "simulations c_puct fpu_reduction noise_alpha noise_fraction temperature moves_left_factor "
    "moves_left_scale moves_left_threshold solver minimax",
)


def smallest_tree(game: int) -> int:
    """The fewest nodes a tree of the game numbered ``game`` holds: the root and all its
    children, whatever the root (raises ValueError for a number that names no game)."""
    return games.move_room(game) + 1


def new_tree(max_nodes: int, state_size: int) -> tuple[np.ndarray, ...]:
    """The search's memory: ``max_nodes`` nodes, and the positions, keys and repetition windows
    along one path."""
    return (
        np.zeros(max_nodes, dtype=np.int64),  # parent (-1 at the root)
        np.zeros(max_nodes, dtype=np.int64),  # first child
        np.zeros(max_nodes, dtype=np.int64),  # child count
        np.zeros(max_nodes, dtype=np.int64),  # the move from the parent
        np.zeros(max_nodes, dtype=np.float64),  # prior (the root's children: with the noise)
        np.zeros(max_nodes, dtype=np.int64),  # visits N
        np.zeros(max_nodes, dtype=np.float64),  # value sum W, first player's view
        np.zeros(max_nodes, dtype=np.float64),  # plies-left sum
        np.zeros(max_nodes, dtype=np.int64),  # side to move: kernels.sign
        np.zeros(max_nodes, dtype=np.int64),  # kind: UNSEEN, INNER, TERMINAL, HORIZON
        np.zeros(max_nodes, dtype=np.float64),  # a terminal's or horizon's value
        np.zeros(max_nodes, dtype=np.float64),  # ... and its plies left
        np.zeros(max_nodes, dtype=np.float64),  # implicit minimax value, first player's view
        np.zeros((MAX_DEPTH + 1, state_size), dtype=np.int64),  # position at each ply
        np.zeros(HISTORY_CAPACITY + MAX_DEPTH + 1, dtype=np.int64),  # keys: history + path
        np.zeros(MAX_DEPTH + 1, dtype=np.int64),  # first key that can recur, at each ply
    )


def new_work(game: int, scratch_size: int = 1) -> tuple[np.ndarray, ...]:
    """The expansion's buffers for the game numbered ``game``: moves, actions, the network's
    inputs, logits and scratch (of ``scratch_size``: the network's ``forward_scratch``)."""
    room = games.move_room(game)
    return (
        np.zeros(room, dtype=np.int64),  # moves
        np.zeros(room, dtype=np.int64),  # their actions
        np.zeros(room, dtype=np.int64),  # the distinct actions
        np.zeros(room, dtype=np.int64),  # each move's index among them
        np.zeros(room, dtype=np.int64),  # moves sharing each distinct action
        np.zeros(room, dtype=np.float32),  # logits
        np.zeros(room, dtype=np.float64),  # priors of the distinct actions
        np.zeros(games.MAX_SET_INPUTS, dtype=np.int64),  # set inputs
        np.zeros(games.MAX_SET_INPUTS, dtype=np.float32),  # their values
        np.zeros(scratch_size, dtype=np.float32),  # the forward pass's scratch
    )


@kernel
def _reach(
    game,
    params,
    tree,
    work,
    node,
    depth,
    root_index,
    plies_to_cap,
    free,
    tablebase,
    with_plies,
):
    """Decide what the node first reached at ``depth`` (its position in ``states[depth]``, its
    key and window set) is, and expand it if it is inner. Returns ``(ok, value, plies)``: the
    value in the first player's view and the plies left; ``ok`` is False (nothing changed) when
    its children do not fit in the tree. Below the root, a position the ``tablebase`` holds is
    terminal with its perfect-play value. Without ``with_plies`` (no moves-left utility) the
    network's plies-left head is not run: its plies are 0."""
    states, keys, window = tree[STATES], tree[KEYS], tree[WINDOW]
    moves, legal, distinct, slot, sharers, logits, priors, active, values, scratch = work
    state = states[depth]
    side = games.sign(game, state)
    tree[SIDE][node] = side
    # Dice to roll: the outcomes into the moves, their probabilities into the priors (both
    # free until the expansion below). A finished position is no chance node.
    outcomes = games.chance(game, state, moves, priors)
    n = 0
    outcome = games.NOT_OVER
    if outcomes == 0:
        n = games.generate(game, state, moves)
        outcome = games.result(game, state, n)
    kind = INNER
    value = 0.0
    if outcome != games.NOT_OVER:
        kind, value = TERMINAL, float(outcome)
    elif depth > 0:
        here = root_index + depth
        for i in range(window[depth], here):
            if keys[i] == keys[here]:
                kind = TERMINAL  # a repetition: a draw
                break
        if kind == INNER and 0 <= plies_to_cap <= depth:
            kind = TERMINAL  # the ply cap: a draw
    exact_plies = 0.0
    if kind == INNER and depth > 0 and tablebase is not None and outcomes == 0:
        found, table_outcome, table_plies = games.tablebase_result(game, state, tablebase)
        if found:  # perfect play: the side to move's outcome in table_plies plies
            kind, value, exact_plies = TERMINAL, float(table_outcome * side), float(table_plies)
    if kind == TERMINAL:
        tree[KIND][node] = TERMINAL
        tree[FIXED_VALUE][node] = value
        tree[FIXED_PLIES][node] = exact_plies
        tree[MINIMAX][node] = value
        return True, value, exact_plies
    if outcomes > 0 and depth < MAX_DEPTH:
        return _expand_chance(tree, node, free, outcomes, moves, priors), 0.0, 0.0
    if depth < MAX_DEPTH and free + n > tree[PARENT].shape[0]:
        return False, 0.0, 0.0
    game_actions.move_actions(game, state, moves, n, legal)
    k = game_actions.distinct_actions(legal, n, distinct, slot)
    count = games.zero_network_inputs(game, state, active, values)
    net_value, plies = zero.zero_forward(
        params, active, values, count, distinct, k, logits, scratch, with_plies
    )
    value = float(net_value) * games.network_sign(game, state)
    tree[MINIMAX][node] = value
    if depth >= MAX_DEPTH:
        tree[KIND][node] = HORIZON
        tree[FIXED_VALUE][node] = value
        tree[FIXED_PLIES][node] = float(plies)
        return True, value, float(plies)
    zero.softmax(logits, k, priors)
    for j in range(k):
        sharers[j] = 0
    for i in range(n):
        sharers[slot[i]] += 1
    for i in range(n):
        child = free + i
        tree[PARENT][child] = node
        tree[FIRST_CHILD][child] = -1
        tree[CHILD_COUNT][child] = 0
        tree[MOVE][child] = moves[i]
        tree[PRIOR][child] = priors[slot[i]] / sharers[slot[i]]
        tree[VISITS][child] = 0
        tree[VALUE_SUM][child] = 0.0
        tree[PLIES_SUM][child] = 0.0
        tree[MINIMAX][child] = 0.0
        tree[KIND][child] = UNSEEN
    tree[FIRST_CHILD][node] = free
    tree[CHILD_COUNT][node] = n
    tree[KIND][node] = INNER
    return True, value, float(plies)


@kernel
def _expand_chance(tree, node, free, count, outcomes, probabilities):
    """Make ``node`` a chance node whose children, from ``free`` on, are its ``count``
    ``outcomes`` (their codes as moves), each with its probability as its prior; False
    (nothing changed) when they do not fit in the tree. The node gets no value of its own: the
    simulation goes on through an outcome it draws (:func:`_sample`)."""
    if free + count > tree[PARENT].shape[0]:
        return False
    for i in range(count):
        child = free + i
        tree[PARENT][child] = node
        tree[FIRST_CHILD][child] = -1
        tree[CHILD_COUNT][child] = 0
        tree[MOVE][child] = outcomes[i]
        tree[PRIOR][child] = probabilities[i]
        tree[VISITS][child] = 0
        tree[VALUE_SUM][child] = 0.0
        tree[PLIES_SUM][child] = 0.0
        tree[MINIMAX][child] = 0.0
        tree[KIND][child] = UNSEEN
    tree[FIRST_CHILD][node] = free
    tree[CHILD_COUNT][node] = count
    tree[MINIMAX][node] = 0.0
    tree[KIND][node] = CHANCE
    return True


@kernel
def _sample(tree, node):
    """A child of the chance node ``node``, drawn with its outcome's probability (its prior)
    from the search's generator."""
    first = tree[FIRST_CHILD][node]
    last = first + tree[CHILD_COUNT][node] - 1
    draw = np.random.random()
    for c in range(first, last):
        draw -= tree[PRIOR][c]
        if draw < 0.0:
            return c
    return last  # the last outcome, and any sliver that rounding left


@kernel
def _select(tree, node, c_puct, fpu_reduction, ml_factor, ml_scale, ml_threshold, minimax):
    """The child of ``node`` (an inner node, visited) with the highest PUCT score. With
    ``minimax`` above 0 a visited child's Q is ``(1 - minimax)`` times its mean plus
    ``minimax`` times its implicit minimax value (Lanctot et al., 2014)."""
    visits, value_sum, prior = tree[VISITS], tree[VALUE_SUM], tree[PRIOR]
    side = tree[SIDE][node]
    parent_visits = visits[node]
    q_node = value_sum[node] / parent_visits * side
    first = tree[FIRST_CHILD][node]
    count = tree[CHILD_COUNT][node]
    visited_policy = 0.0
    for c in range(first, first + count):
        if visits[c] > 0:
            visited_policy += prior[c]
    fpu = q_node - fpu_reduction * math.sqrt(visited_policy)
    use_moves_left = ml_factor > 0.0 and abs(q_node) > ml_threshold
    expected_plies = tree[PLIES_SUM][node] / parent_visits - 1.0
    winning = 1.0 if q_node > 0 else -1.0
    scale = c_puct * math.sqrt(parent_visits)
    best = -np.inf
    pick = first
    for c in range(first, first + count):
        n = visits[c]
        if n > 0:
            if tree[KIND][c] == TERMINAL:  # exact: the same as its mean, unless proven since
                q = tree[FIXED_VALUE][c] * side
            elif minimax > 0.0:
                q = ((1.0 - minimax) * (value_sum[c] / n) + minimax * tree[MINIMAX][c]) * side
            else:
                q = value_sum[c] / n * side
            if use_moves_left:
                longer = tree[PLIES_SUM][c] / n - expected_plies
                longer = min(max(longer, -ml_scale), ml_scale)
                q -= winning * ml_factor * longer / ml_scale
        else:
            q = fpu
        score = q + scale * prior[c] / (1 + n)
        if score > best:
            best = score
            pick = c
    return pick


@kernel
def _back_up_minimax(tree, node):
    """The implicit minimax value of ``node`` after a simulation through it: exact for a
    terminal (proven ones too), else the best for its side to move of its visited children's,
    or the network's value of it while none is visited (set when it was reached)."""
    if tree[KIND][node] == TERMINAL:
        tree[MINIMAX][node] = tree[FIXED_VALUE][node]
        return
    if tree[KIND][node] == CHANCE:  # the visited outcomes' values, by their probabilities
        first = tree[FIRST_CHILD][node]
        mass = 0.0
        total = 0.0
        for c in range(first, first + tree[CHILD_COUNT][node]):
            if tree[VISITS][c] > 0:
                mass += tree[PRIOR][c]
                total += tree[PRIOR][c] * tree[MINIMAX][c]
        if mass > 0.0:
            tree[MINIMAX][node] = total / mass
        return
    if tree[KIND][node] != INNER:
        return
    side = tree[SIDE][node]
    first = tree[FIRST_CHILD][node]
    best = -np.inf
    for c in range(first, first + tree[CHILD_COUNT][node]):
        if tree[VISITS][c] > 0:
            best = max(best, tree[MINIMAX][c] * side)
    if best > -np.inf:
        tree[MINIMAX][node] = best * side


@kernel
def _prove(tree, node, in_points):
    """The MCTS-solver's step after the exact ``node`` (a terminal) is reached: its parent is
    proven when it has a child that wins for its side to move, or when every child is exact;
    then the grandparent is looked at, and so on up to (not including) the root. A proven node
    becomes a terminal with its exact value: the best child's, and the plies of the quickest
    win, or of the slowest loss, or the quickest draw. In a game scored ``in_points`` (a win
    may be worth more than one: a game with chance) a winning child proves nothing while
    another child is open, and a chance node is never proven (its value is an average)."""
    parent, kind = tree[PARENT], tree[KIND]
    fixed, fixed_plies = tree[FIXED_VALUE], tree[FIXED_PLIES]
    child = node
    here = parent[child]
    while here > 0:
        if kind[here] == CHANCE:
            return  # an average over outcomes: not proven by one of them
        side = tree[SIDE][here]
        first = tree[FIRST_CHILD][here]
        count = tree[CHILD_COUNT][here]
        wins = fixed[child] * side > 0.5 and not in_points
        best = -np.inf
        plies = 0.0
        for c in range(first, first + count):
            if kind[c] != TERMINAL:
                if wins:
                    continue
                return  # a child still open, and none wins yet
            value = fixed[c] * side
            if value > best + 0.5:
                best, plies = value, fixed_plies[c]
            elif value > best - 0.5:  # as good: the quicker win or draw, the slower loss
                plies = max(plies, fixed_plies[c]) if value < -0.5 else min(plies, fixed_plies[c])
        kind[here] = TERMINAL
        fixed[here] = best * side
        fixed_plies[here] = plies + 1.0
        child = here
        here = parent[child]


@kernel
def _gamma(shape):
    """A Gamma(shape, 1) draw from numba's generator (seeded by the search)."""
    return np.random.gamma(shape, 1.0)


@kernel
def _choose(tree, temperature):
    """The root child to play: drawn with probability ``N ** (1 / temperature)``; at temperature
    0, the most visited (ties: the higher prior, then the first)."""
    visits, prior = tree[VISITS], tree[PRIOR]
    first = tree[FIRST_CHILD][0]
    count = tree[CHILD_COUNT][0]
    pick = first
    for c in range(first + 1, first + count):
        if visits[c] > visits[pick] or (visits[c] == visits[pick] and prior[c] > prior[pick]):
            pick = c
    if temperature <= 0.0 or visits[pick] == 0:
        return pick - first
    total = 0.0
    for c in range(first, first + count):
        if visits[c] > 0:
            total += (visits[c] / visits[pick]) ** (1.0 / temperature)
    draw = np.random.random() * total
    last = pick
    for c in range(first, first + count):
        if visits[c] > 0:
            draw -= (visits[c] / visits[pick]) ** (1.0 / temperature)
            last = c
            if draw < 0.0:
                return c - first
    return last - first  # rounding left a sliver: the last visited child


@kernel
def _simulate(game, params, tree, work, root_index, plies_to_cap, knobs, free, tablebase, deadline):
    """Run ``knobs.simulations`` simulations on the tree whose root is expanded and whose first
    ``free`` nodes are used, or until it is full, or (``deadline`` > 0) until the clock passes
    ``deadline``; returns ``(choice, simulations done, nodes used)`` as :func:`puct_kernel`
    does."""
    # The knobs one by one: the selection, the hottest call, takes only the few it reads.
    c_puct, fpu_reduction = knobs.c_puct, knobs.fpu_reduction
    ml_factor, ml_scale = knobs.moves_left_factor, knobs.moves_left_scale
    ml_threshold, solver, minimax = knobs.moves_left_threshold, knobs.solver, knobs.minimax
    states, keys, window = tree[STATES], tree[KEYS], tree[WINDOW]
    parent, visits = tree[PARENT], tree[VISITS]
    value_sum, plies_sum = tree[VALUE_SUM], tree[PLIES_SUM]
    in_points = games.chance_outcomes(game) > 0  # a game with chance: scored in points
    done = 0
    for _ in range(knobs.simulations):
        if deadline > 0.0 and done % CLOCK_EVERY == CLOCK_EVERY - 1 and _now() > deadline:
            break
        node = 0
        depth = 0
        full = False
        while True:
            while tree[KIND][node] == INNER or tree[KIND][node] == CHANCE:
                if tree[KIND][node] == INNER:
                    child = _select(
                        tree,
                        node,
                        c_puct,
                        fpu_reduction,
                        ml_factor,
                        ml_scale,
                        ml_threshold,
                        minimax,
                    )
                else:  # dice to roll: an outcome drawn with its probability
                    child = _sample(tree, node)
                move = tree[MOVE][child]
                games.play(game, states[depth], move, states[depth + 1])
                keys[root_index + depth + 1] = games.key(game, states[depth + 1])
                window[depth + 1] = (
                    root_index + depth + 1
                    if games.is_irreversible(game, states[depth], move)
                    else window[depth]
                )
                depth += 1
                node = child
            if tree[KIND][node] != UNSEEN:
                value = tree[FIXED_VALUE][node]
                plies = tree[FIXED_PLIES][node]
                break
            ok, value, plies = _reach(
                game,
                params,
                tree,
                work,
                node,
                depth,
                root_index,
                plies_to_cap,
                free,
                tablebase,
                ml_factor > 0.0,
            )
            if not ok:
                full = True
                break
            if tree[KIND][node] != CHANCE:
                if tree[KIND][node] == INNER:
                    free += tree[CHILD_COUNT][node]
                break
            free += tree[CHILD_COUNT][node]  # a chance node: on through an outcome it draws
        if full:
            break  # the tree is full
        if solver and tree[KIND][node] == TERMINAL:
            _prove(tree, node, in_points)
        while node >= 0:
            visits[node] += 1
            value_sum[node] += value
            plies_sum[node] += plies
            plies += 1.0
            if minimax > 0.0:
                _back_up_minimax(tree, node)
            node = parent[node]
        done += 1
    choice = _choose(tree, knobs.temperature) if tree[CHILD_COUNT][0] > 0 else -1
    return choice, done, free


@kernel
def puct_kernel(
    game,
    params,
    root,
    history_keys,
    window_start,
    plies_to_cap,
    knobs,
    seed,
    tree,
    work,
    tablebase=None,
    resume=0,
    deadline=0.0,
):
    """Search ``root`` (not over) with the Zero network ``params`` as ``knobs`` (a
    :data:`PuctKnobs`) says, for ``knobs.simulations`` simulations after expanding it, or until
    the tree is full; returns ``(choice, simulations done, nodes used)``, ``choice`` an index
    into the root's children (``first_child[0]`` on; the moves in the generator's order).
    ``resume``, if not 0, is the nodes used by an earlier search of the same root with the same
    arguments in ``tree``: its tree is kept and the simulations are added to it (a search for
    a time runs in such steps). ``deadline``, if above 0, is a ``time.perf_counter()`` at
    which the simulations stop early.

    ``history_keys`` are the keys of the game's positions up to and including the root's, of
    which those before ``window_start`` cannot recur; ``plies_to_cap`` is -1 or the plies from
    the root to the game's ply cap; ``tablebase`` None or the game's tablebase layers (then the
    positions below the root it holds are exact). Unchecked: :class:`PuctSearch` checks them.
    """
    np.random.seed(_mix(seed) & 0x7FFFFFFF)
    states, keys, window = tree[STATES], tree[KEYS], tree[WINDOW]
    parent, visits = tree[PARENT], tree[VISITS]
    value_sum, plies_sum = tree[VALUE_SUM], tree[PLIES_SUM]
    n_history = history_keys.shape[0]
    for i in range(n_history):
        keys[i] = history_keys[i]
    root_index = n_history - 1
    window[0] = window_start
    states[0, :] = 0
    states[0, : root.shape[0]] = root
    if resume > 0:  # the tree of an earlier step: its root is expanded, its noise drawn
        free = resume
    else:
        parent[0] = -1
        tree[MOVE][0] = -1
        tree[PRIOR][0] = 1.0
        ok, value, plies = _reach(
            game,
            params,
            tree,
            work,
            0,
            0,
            root_index,
            -1,
            1,
            tablebase,
            knobs.moves_left_factor > 0.0,
        )
        visits[0] = 1
        value_sum[0] = value
        plies_sum[0] = plies
        free = 1 + tree[CHILD_COUNT][0]
        first = tree[FIRST_CHILD][0]
        count = tree[CHILD_COUNT][0]
        noise_fraction = knobs.noise_fraction
        if noise_fraction > 0.0 and count > 0:
            total = 0.0
            draws = work[6]  # the priors buffer, free again until the next expansion
            for i in range(count):
                draws[i] = _gamma(knobs.noise_alpha)
                total += draws[i]
            for i in range(count):
                noise = draws[i] / total if total > 0.0 else 1.0 / count
                tree[PRIOR][first + i] = (1.0 - noise_fraction) * tree[PRIOR][first + i] + (
                    noise_fraction * noise
                )
    return _simulate(
        game, params, tree, work, root_index, plies_to_cap, knobs, free, tablebase, deadline
    )


@kernel
def with_temperature(knobs, temperature):
    """``knobs`` (a :data:`PuctKnobs`) with ``temperature`` in place of its own (self-play's
    temperature depends on the ply)."""
    return PuctKnobs(
        knobs.simulations,
        knobs.c_puct,
        knobs.fpu_reduction,
        knobs.noise_alpha,
        knobs.noise_fraction,
        temperature,
        knobs.moves_left_factor,
        knobs.moves_left_scale,
        knobs.moves_left_threshold,
        knobs.solver,
        knobs.minimax,
    )


@kernel
def _follow(game, tree, root, keys, here, child):
    """The node of ``tree`` that the game reached from its root (the position ``root``) by the
    moves whose positions have ``keys``, in order, with its position written into ``here``; -1
    if one of them is not in the tree."""
    here[:] = 0
    here[: root.shape[0]] = root
    node = 0
    for i in range(keys.shape[0]):
        if tree[KIND][node] != INNER and tree[KIND][node] != CHANCE:
            return -1
        first = tree[FIRST_CHILD][node]
        found = -1
        for c in range(first, first + tree[CHILD_COUNT][node]):
            games.play(game, here, tree[MOVE][c], child)
            if games.key(game, child) == keys[i]:
                found = c
                break
        if found < 0:
            return -1
        here[:] = child
        node = found
    return node


@kernel
def _copy_node(old, source, tree, target, parent):
    """Copy node ``source`` of the node arrays ``old`` to node ``target`` of ``tree``."""
    tree[PARENT][target] = parent
    tree[FIRST_CHILD][target] = old[FIRST_CHILD][source]
    tree[CHILD_COUNT][target] = old[CHILD_COUNT][source]
    tree[MOVE][target] = old[MOVE][source]
    tree[PRIOR][target] = old[PRIOR][source]
    tree[VISITS][target] = old[VISITS][source]
    tree[VALUE_SUM][target] = old[VALUE_SUM][source]
    tree[PLIES_SUM][target] = old[PLIES_SUM][source]
    tree[SIDE][target] = old[SIDE][source]
    tree[KIND][target] = old[KIND][source]
    tree[FIXED_VALUE][target] = old[FIXED_VALUE][source]
    tree[FIXED_PLIES][target] = old[FIXED_PLIES][source]
    tree[MINIMAX][target] = old[MINIMAX][source]


@kernel
def _reroot(tree, old, node):
    """Make the subtree of ``node`` the whole tree, its root node 0: ``old`` holds copies of the
    tree's node arrays (its used nodes). Nodes are laid out breadth first, so each node's
    children stay contiguous. Returns the nodes the new tree uses."""
    source = np.empty(old[PARENT].shape[0], dtype=np.int64)  # each new node's old index
    _copy_node(old, node, tree, 0, -1)
    tree[MOVE][0] = -1
    tree[PRIOR][0] = 1.0
    source[0] = node
    free = 1
    here = 0
    while here < free:
        before = source[here]
        tree[FIRST_CHILD][here] = -1  # a leaf's children, if any, are dropped
        tree[CHILD_COUNT][here] = 0
        if old[KIND][before] == INNER or old[KIND][before] == CHANCE:
            first = old[FIRST_CHILD][before]
            count = old[CHILD_COUNT][before]
            tree[FIRST_CHILD][here] = free
            tree[CHILD_COUNT][here] = count
            for i in range(count):
                _copy_node(old, first + i, tree, free + i, here)
                source[free + i] = first + i
            free += count
        here += 1
    return free


@dataclass(frozen=True)
class PuctSettings:
    """How the search runs (``docs/zero.md``, "The search")."""

    simulations: int = 200  # simulations after the root's expansion
    # AlphaZero's c_init: exploration against the value; the scores are in -1..1.
    c_puct: float = 1.25
    # lc0's first-play urgency, the "reduction" strategy: an unvisited child is worth the
    # node's Q minus this times sqrt(the visited children's priors). 0.44 is lc0's FpuValue
    # for that strategy in its 0.2x releases, not tuned here; 0 makes it the node's Q.
    fpu_reduction: float = 0.44
    noise_alpha: float = 0.3  # Dirichlet noise at the root (lc0's and AlphaZero chess's 0.3)
    noise_fraction: float = 0.0  # its weight in the root's priors: 0.25 in self-play, else 0
    temperature: float = 0.0  # 0: play the most visited move; 1: in proportion to the visits
    # lc0's moves-left utility (seed 003: factor 0.05, scale 10, threshold 0.95); 0 is off.
    moves_left_factor: float = 0.0
    moves_left_scale: float = 10.0  # plies: a move 10 plies longer gets the whole factor
    moves_left_threshold: float = 0.95  # |Q| beyond which the game counts as decided
    # The MCTS-solver (Winands et al., 2008): exact values go up the tree. A node with a
    # winning child, or whose children are all exact, becomes exact itself.
    solver: bool = False
    # Implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant, 2014): each node also
    # keeps the minimax of its visited subtree's leaf values, and a child's Q is this share of
    # it plus the rest of its mean. The mean dilutes one refutation among many simulations;
    # the minimax value keeps it. 0 is plain PUCT (AlphaZero's, lc0's).
    minimax: float = 0.0

    def __post_init__(self) -> None:
        if isinstance(self.simulations, bool) or not isinstance(self.simulations, int):
            raise CommandError(f"simulations must be a whole number, not {self.simulations!r}")
        if not 1 <= self.simulations <= LARGEST_TREE:
            raise CommandError(
                f"simulations must be between 1 and {LARGEST_TREE}, not {self.simulations}"
            )
        bounds = {
            "c_puct": (0.0, 100.0),
            "fpu_reduction": (-10.0, 10.0),
            "noise_alpha": (1e-3, 100.0),
            "noise_fraction": (0.0, 1.0),
            "temperature": (0.0, 100.0),
            "moves_left_factor": (0.0, 1.0),
            "moves_left_scale": (1e-3, 1000.0),
            "moves_left_threshold": (0.0, 1.0),
            "minimax": (0.0, 1.0),
        }
        if not isinstance(self.solver, bool):
            raise CommandError(f"solver must be True or False, not {self.solver!r}")
        for name, (low, high) in bounds.items():
            value = getattr(self, name)
            if not (isinstance(value, int | float) and low <= value <= high):
                raise CommandError(f"{name} must be between {low} and {high}, not {value!r}")

    def knobs(self) -> PuctKnobs:
        """These settings as the compiled search takes them (:data:`PuctKnobs`), each of the
        type numba compiles it for."""
        return PuctKnobs(
            int(self.simulations),
            float(self.c_puct),
            float(self.fpu_reduction),
            float(self.noise_alpha),
            float(self.noise_fraction),
            float(self.temperature),
            float(self.moves_left_factor),
            float(self.moves_left_scale),
            float(self.moves_left_threshold),
            bool(self.solver),
            float(self.minimax),
        )


@dataclass(frozen=True)
class PuctResult:
    """What a search found: the root's legal moves (codes, in the generator's order), their
    visits and priors (with the noise), the chosen move, and the root's value (its side to
    move's view, -1..1: the mean over every simulation)."""

    moves: tuple[int, ...]
    visits: np.ndarray
    priors: np.ndarray
    values: np.ndarray  # each move's Q for the side to move (0 where unvisited)
    chosen: int  # index into moves
    value: float
    simulations: int
    nodes: int
    full: bool  # the tree filled up before every simulation ran
    seconds: float
    reused: int = 0  # simulations kept from the last search's tree (tree reuse), besides these
    # The chosen move, then the most visited line below it, as far as children were visited.
    principal_variation: tuple[int, ...] = ()
    # Plies to a win that the search proved for the side to move (its chosen move is an exact
    # win: a win in one, or with the solver one proven deeper), or None.
    forced_plies: int | None = None

    @property
    def best_move(self) -> int:
        return self.moves[self.chosen]

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else 0.0


class PuctSearch:
    """Owns a tree of ``max_nodes`` nodes for one game and runs searches on encoded positions.

    Not thread-safe: give each thread or process its own.
    """

    def __init__(self, game: int, max_nodes: int = 1 << 16) -> None:
        """A search for the game numbered ``game``; raises ValueError for a number that names no
        game or a tree too small for any root's moves or too large."""
        self.sizes = games.compiled_game(game)
        self.game = int(game)
        self.actions = game_actions.action_count(game)
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int | np.integer):
            raise ValueError(f"max_nodes must be a whole number, not {max_nodes!r}")
        smallest = smallest_tree(game)
        if not smallest <= max_nodes <= LARGEST_TREE:
            raise ValueError(
                f"a {self.sizes.title} tree holds {smallest} to {LARGEST_TREE} nodes, "
                f"not {max_nodes}"
            )
        self.max_nodes = int(max_nodes)
        self.tree = new_tree(self.max_nodes, games.STATE_SIZE)
        self.work = new_work(game)
        # What the tree holds: the last search's network, tablebase, history keys (the root's
        # last), plies to the cap, root and nodes used; None when it is not a whole search.
        self._last: tuple | None = None

    def forget(self) -> None:
        """Keep nothing of the last search: the next one starts a new tree even if it could
        reuse part of this one."""
        self._last = None

    def _kept(
        self,
        params: np.ndarray,
        root: np.ndarray,
        history_keys: np.ndarray,
        plies_to_cap: int,
        tablebase: tuple[np.ndarray, ...] | None,
    ) -> int:
        """Tree reuse: if the game went on from the last search's root by moves that its tree
        holds, make the subtree of this position the tree and return the nodes it uses; else 0
        (a new tree). A subtree over half the tree is not kept, so that the search has room."""
        last, self._last = self._last, None
        if last is None:
            return 0
        old_params, old_tablebase, old_keys, old_cap, old_root, used = last
        plies = len(history_keys) - len(old_keys)
        if (
            plies < 1
            or not np.array_equal(history_keys[: len(old_keys)], old_keys)
            or (plies_to_cap < 0) != (old_cap < 0)
            or (plies_to_cap >= 0 and plies_to_cap != old_cap - plies)
            or tablebase is not old_tablebase
            or not np.array_equal(params, old_params)
        ):
            return 0
        here = np.zeros(games.STATE_SIZE, dtype=np.int64)
        child = np.zeros(games.STATE_SIZE, dtype=np.int64)
        node = _follow(
            self.game, self.tree, old_root, np.ascontiguousarray(history_keys[-plies:]), here, child
        )
        if (
            node < 1
            or self.tree[KIND][node] != INNER
            or not np.array_equal(here[: len(root)], root)
        ):
            return 0
        old = tuple(array[:used].copy() for array in self.tree[:NODE_ARRAYS])
        kept = int(_reroot(self.tree, old, node))
        return kept if kept <= self.max_nodes // 2 else 0

    def _check_tablebase(self, tablebase: tuple[np.ndarray, ...]) -> None:
        """Raise ValueError unless ``tablebase`` is the layers of this game's tablebase, as the
        game's ``search`` part checks them; a game without that check has no tablebase."""
        part = descriptor_of(self.game).part("search")
        check = getattr(part, "check_tablebase", None)
        if check is None:
            raise ValueError(f"{self.sizes.title} has no tablebase")
        check(self.game, tablebase)

    def search(
        self,
        params: np.ndarray,
        root: np.ndarray,
        history_keys: np.ndarray,
        window_start: int,
        settings: PuctSettings,
        seed: int = 0,
        plies_to_cap: int | None = None,
        tablebase: tuple[np.ndarray, ...] | None = None,
        seconds: float | None = None,
        reuse: bool = False,
    ) -> PuctResult:
        """Search ``root`` (the game's encoding; not over) with the Zero network ``params``.
        With ``seconds``, the search runs in steps of :data:`TIMED_STEP` simulations and stops
        within :data:`CLOCK_EVERY` simulations of that time, or at ``settings.simulations``, or
        when the tree is full.

        ``history_keys`` are the keys of the game's positions so far, ending with the root's;
        ``window_start`` is the first of them that could still recur; ``plies_to_cap`` the plies
        left before the game's ply cap (None: no cap); ``tablebase`` the layers of a tablebase
        for this game's rules (``Tablebase.layers``) or None. Raises ValueError for arrays that
        do not fit the game or a root that is over.

        With ``reuse``, a search of a position that the game reached from the last search's
        root, by moves in its tree, keeps that position's subtree and adds its simulations to
        it (``PuctResult.reused`` counts the simulations kept). Not with root noise: the
        kept root's priors have none.
        """
        from samuel.evaluation.networks import check_zero_network

        shape = check_zero_network(params, self.game)
        if params.dtype != np.float32 or not params.flags.c_contiguous:
            params = np.ascontiguousarray(params, dtype=np.float32)
        if self.work[-1].shape[0] < shape.forward_scratch:
            self.work = new_work(self.game, shape.forward_scratch)
        root = np.asarray(root)
        if root.shape != (self.sizes.state_words,) or root.dtype != np.int64:
            raise ValueError(
                f"a {self.sizes.title} position is {self.sizes.state_words} int64 words, not "
                f"an array of shape {root.shape} and type {root.dtype}"
            )
        history_keys = np.asarray(history_keys)
        if history_keys.ndim != 1 or len(history_keys) == 0:
            raise ValueError("history_keys must list the game's keys, the root's last")
        all_keys = np.array(history_keys, dtype=np.int64)  # before trimming: for tree reuse
        dropped = max(0, len(history_keys) - HISTORY_CAPACITY)
        history_keys = np.ascontiguousarray(history_keys[dropped:], dtype=np.int64)
        window_start = min(max(0, int(window_start) - dropped), len(history_keys) - 1)
        cap = -1 if plies_to_cap is None else int(plies_to_cap)
        if plies_to_cap is not None and cap < 1:
            raise ValueError(f"the root is at the ply cap: {plies_to_cap} plies left")
        if tablebase is not None:
            self._check_tablebase(tablebase)
        room = games.move_room(self.game)
        outcomes = np.empty(room, dtype=np.int64)
        weights = np.empty(room, dtype=np.float64)
        if games.chance(self.game, np.ascontiguousarray(root), outcomes, weights) > 0:
            raise ValueError("the dice are still to roll in this position: search it after a roll")
        moves, _ = game_actions.legal_actions(self.game, root)
        if len(moves) == 0 or games.result(self.game, root, len(moves)) != games.NOT_OVER:
            raise ValueError("the game is over in this position: there is nothing to search")
        if seconds is not None and not (isinstance(seconds, int | float) and seconds > 0):
            raise ValueError(f"seconds must be a positive number, not {seconds!r}")
        arguments = (self.game, params, np.ascontiguousarray(root), history_keys, window_start, cap)
        knobs = settings.knobs()
        seed = int(seed) & 0x7FFFFFFFFFFFFFFF
        started = time.perf_counter()
        kept = 0
        if reuse and settings.noise_fraction == 0.0:
            kept = self._kept(params, arguments[2], all_keys, cap, tablebase)
        self._last = None
        reused = int(self.tree[VISITS][0]) - 1 if kept else 0  # the simulations below it
        deadline = 0.0 if seconds is None else started + seconds
        step = settings.simulations if seconds is None else min(TIMED_STEP, settings.simulations)
        choice, done, used = puct_kernel(
            *arguments,
            knobs._replace(simulations=step),
            seed,
            self.tree,
            self.work,
            tablebase,
            kept,
            deadline,
        )
        # A step stops short when the tree is full or at the deadline (checked every
        # CLOCK_EVERY simulations): short before the deadline means full.
        full = done < step and (seconds is None or time.perf_counter() < deadline)
        while (
            seconds is not None
            and not full
            and done < settings.simulations
            and time.perf_counter() < deadline
        ):
            step = min(TIMED_STEP, settings.simulations - done)
            seed = (seed + 1) & 0x7FFFFFFFFFFFFFFF  # each step's draws of its own
            choice, more, used = puct_kernel(
                *arguments,
                knobs._replace(simulations=step),
                seed,
                self.tree,
                self.work,
                tablebase,
                used,
                deadline,
            )
            full = more < step and time.perf_counter() < deadline
            done += more
        elapsed = time.perf_counter() - started
        self._last = (params.copy(), tablebase, all_keys, cap, arguments[2].copy(), int(used))
        first = int(self.tree[FIRST_CHILD][0])
        count = int(self.tree[CHILD_COUNT][0])
        children = slice(first, first + count)
        visits = self.tree[VISITS][children].copy()
        side = int(self.tree[SIDE][0])
        chosen = first + int(choice)
        forced = None
        if self.tree[KIND][chosen] == TERMINAL and self.tree[FIXED_VALUE][chosen] * side > 0.5:
            forced = int(self.tree[FIXED_PLIES][chosen]) + 1
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(visits > 0, self.tree[VALUE_SUM][children] / visits * side, 0.0)
        return PuctResult(
            moves=tuple(int(m) for m in self.tree[MOVE][children]),
            visits=visits,
            priors=self.tree[PRIOR][children].copy(),
            values=values,
            chosen=int(choice),
            value=float(self.tree[VALUE_SUM][0] / self.tree[VISITS][0] * side),
            simulations=int(done),
            nodes=int(used),
            full=bool(full),
            seconds=elapsed,
            reused=reused,
            principal_variation=self._principal_variation(chosen),
            forced_plies=forced,
        )

    def _principal_variation(self, chosen: int) -> tuple[int, ...]:
        """The chosen root child's move, then the most visited line below it (ties: the
        first)."""
        tree, node, line = self.tree, chosen, [int(self.tree[MOVE][chosen])]
        while tree[KIND][node] in (INNER, CHANCE) and len(line) < MAX_DEPTH:
            first = int(tree[FIRST_CHILD][node])
            visits = tree[VISITS][first : first + int(tree[CHILD_COUNT][node])]
            if visits.max() == 0:
                break
            node = first + int(np.argmax(visits))
            line.append(int(tree[MOVE][node]))
        return tuple(line)
