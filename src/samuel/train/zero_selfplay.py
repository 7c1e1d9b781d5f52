"""Samuel Zero's self-play and its training step, compiled (``docs/zero.md``, "The trainer").

Each game is played by the PUCT search (:func:`samuel.search.puct.puct_kernel`) with the Zero
network, ``simulations`` simulations a move, Dirichlet noise at the root, the move drawn in
proportion to the visits for the first ``temperature_plies`` plies and the most visited one
after. The game is a draw on a threefold repetition or at ``ply_cap`` plies, as in TD(lambda)
self-play (:mod:`samuel.train.selfplay`), whose compiled game loop it shares
(:mod:`samuel.train.game_loop`). Each position where a move was played is recorded with

- the position (the game's encoding; the network's inputs are made from it when training, under
  a random symmetry);
- its legal moves' *distinct* actions (:func:`samuel.games.actions.distinct_actions`), and the
  policy target: the share of the root's visits of each (draughts moves sharing an action add
  their visits), summing to 1;
- the game's result in the first player's view (1, 0, -1), turned into the network's view when
  training (as the TD(lambda) targets are);
- the plies from the position to the game's end (the plies-left target);
- the search's value of the position, its root's mean value (first player's view), which the
  value target can mix with the result (``ZeroConfig.q_weight``);
- with a tablebase, the table's value of the position (first player's view; NaN where the table
  does not hold it), which can be its value target (``ZeroConfig.table_targets``).

A game's randomness (the noise, the temperature's draws) comes only from its seed, which the
caller derives from (run seed, generation, game number): the same games on any number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

from samuel.games import actions as game_actions
from samuel.games import kernels as games
from samuel.jit import kernel, parallel_kernel
from samuel.nn import zero
from samuel.nn.batches import GRAD_CHUNK
from samuel.search import puct
from samuel.search.alphabeta import HISTORY_CAPACITY, _mix, _random_below

from . import game_loop

NODES_PER_SIMULATION = 40  # the zero player's tree size per simulation (docs/zero.md)
# Which searches probe the tablebase inside it (``play_zero_game``'s ``in_table``): every search,
# none (only those before the game enters the table), or only one side's, named by its sign
# (:func:`~samuel.games.kernels.sign`: +1 the first player's, -1 the second's).
IN_TABLE_ALL, IN_TABLE_NONE = 2, 0
# The stream of a game's exploring draws is its search seed's, turned by this (so that the
# searches' noise does not change when exploring is turned on).
EXPLORE_SALT = 0x5A17E5B1
EXPLORE_DRAWS = 1 << 30  # a draw below epsilon * this explores


@kernel
def _new_tree(max_nodes, state_size):
    """:func:`samuel.search.puct.new_tree`, made inside a compiled loop (one per game)."""
    depth = puct.MAX_DEPTH + 1
    return (
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.float64),
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.float64),
        np.zeros(max_nodes, dtype=np.float64),
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.int64),
        np.zeros(max_nodes, dtype=np.float64),
        np.zeros(max_nodes, dtype=np.float64),
        np.zeros(max_nodes, dtype=np.float64),
        np.zeros((depth, state_size), dtype=np.int64),
        np.zeros(HISTORY_CAPACITY + depth, dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
    )


@kernel
def _new_work(game, scratch_size):
    """:func:`samuel.search.puct.new_work`, made inside a compiled loop."""
    room = games.move_room_kernel(game)
    return (
        np.zeros(room, dtype=np.int64),
        np.zeros(room, dtype=np.int64),
        np.zeros(room, dtype=np.int64),
        np.zeros(room, dtype=np.int64),
        np.zeros(room, dtype=np.int64),
        np.zeros(room, dtype=np.float32),
        np.zeros(room, dtype=np.float64),
        np.zeros(games.MAX_SET_INPUTS, dtype=np.int64),
        np.zeros(games.MAX_SET_INPUTS, dtype=np.float32),
        np.zeros(scratch_size, dtype=np.float32),
    )


@kernel
def _search(game, params, state, history, plies_to_cap, knobs, seed, tree, work, tablebase):
    """Self-play's search of one move, as ``knobs`` (a :data:`~samuel.search.puct.PuctKnobs`)
    says: the chosen child's index."""
    choice, _, _ = puct.puct_kernel(
        game, params, state, history, 0, plies_to_cap, knobs, _mix(seed), tree, work, tablebase
    )
    return choice


@kernel
def play_zero_game(
    game,
    params,
    root,
    knobs,
    temperature_plies,
    ply_cap,
    seed,
    tree,
    work,
    record,
    tablebase=None,
    in_table=IN_TABLE_ALL,
    table_teaches=False,
    epsilon=0.0,
):
    """Play one game from ``root``, each move searched as ``knobs`` (a
    :data:`~samuel.search.puct.PuctKnobs`) says, at temperature 1 for the first
    ``temperature_plies`` plies and 0 after (its own temperature is not used); fill the per-ply
    arrays of ``record``; return ``(plies, result)``, the result in the first player's view (1,
    0, -1). The game's skeleton (its keys, repetitions, end and moves) is
    :mod:`samuel.train.game_loop`'s.

    With a ``tablebase`` (the game's layers) the searches see the positions it holds as exact,
    and the game is *rescored*, as lc0 rescores its training games: a game that the rules did
    not end (a repetition, the ply cap) after it reached the table has the table's value of the
    last position it reached that the table holds (a won position dawdled into a repetition is
    still won). ``in_table`` says which searches probe the table from the positions it holds:
    ``IN_TABLE_ALL``; ``IN_TABLE_NONE``, so that inside it the network searches alone, as the
    zero player does without a table, and self-play makes (and is scored on) the mistakes the
    player would make there; or the sign of the one side whose searches do, so that the other
    side's mistakes there are played and punished. With ``table_teaches``, a search inside the
    table that does not probe it chooses the move, and a second one that does gives the
    position's targets (its visits and value): the side plays its own mistakes and learns what
    the table would have played. With ``epsilon`` above 0, after the temperature's plies, a
    move is a random one with that probability.

    ``record`` is ``(positions, legal, legal_counts, policy, root_values, table_values,
    explored)``: ``positions[ply]`` is the position where the ply's move was played, ``legal[ply,
    :legal_counts[ply]]`` its distinct actions, ``policy[ply]`` their shares of the root's
    visits, ``root_values[ply]`` the search's value of the position (its root's mean value,
    first player's view), ``table_values[ply]`` the table's (first player's view; left as it
    is where the table does not hold the position) and ``explored[ply]`` True where the move
    was an exploring one (left as it is elsewhere)."""
    positions, legal, legal_counts, policy, root_values, table_values, explored = record
    state, child, keys, moves, outcomes, weights = game_loop.buffers(game, root, ply_cap)
    move_actions = np.empty(moves.shape[0], dtype=np.int64)  # the game's move room
    slot = np.empty(moves.shape[0], dtype=np.int64)
    window = 0
    table_result = 0  # the table's value of the last position it held (0 if none)
    for ply in range(ply_cap):
        _, result = game_loop.arrive(
            game, state, child, keys, window, ply, moves, outcomes, weights, seed
        )
        if result == game_loop.REPEATED:
            return ply, table_result  # a draw, unless the table scored the game
        if result != games.NOT_OVER:
            return ply, result
        found = False
        if tablebase is not None:
            found, outcome, _ = games.tablebase_result(game, state, tablebase)
            if found:  # the side to move's perfect-play outcome, turned to the first player's
                table_result = outcome * games.sign(game, state)
                table_values[ply] = table_result
        # The keys that can recur, at most the search's history capacity, the root's last.
        history = keys[max(window, ply + 1 - HISTORY_CAPACITY) : ply + 1]
        ply_knobs = puct.with_temperature(knobs, 1.0 if ply < temperature_plies else 0.0)
        probes = in_table == IN_TABLE_ALL or in_table == games.sign(game, state)
        if tablebase is not None and (probes or not found):
            choice = _search(
                game, params, state, history, ply_cap - ply, ply_knobs, seed + ply, tree, work,
                tablebase,
            )  # fmt: skip
        else:
            choice = _search(
                game, params, state, history, ply_cap - ply, ply_knobs, seed + ply, tree, work, None
            )
            if found and table_teaches:  # the targets: a search of the same moves that sees it
                _search(
                    game, params, state, history, ply_cap - ply, ply_knobs, seed + ply, tree, work,
                    tablebase,
                )  # fmt: skip
        first = tree[puct.FIRST_CHILD][0]
        count = tree[puct.CHILD_COUNT][0]
        for i in range(count):
            moves[i] = tree[puct.MOVE][first + i]
        game_actions.move_actions(game, state, moves, count, move_actions)
        k = game_actions.distinct_actions(move_actions, count, legal[ply], slot)
        total = 0.0
        for j in range(k):
            policy[ply, j] = 0.0
        for i in range(count):
            visits = tree[puct.VISITS][first + i]
            policy[ply, slot[i]] += visits
            total += visits
        for j in range(k):
            policy[ply, j] = policy[ply, j] / total if total > 0 else 1.0 / k
        legal_counts[ply] = k
        positions[ply, :] = state
        root_values[ply] = tree[puct.VALUE_SUM][0] / tree[puct.VISITS][0]
        if epsilon > 0.0 and ply >= temperature_plies:
            draw, rng = _random_below(_mix(seed + ply) ^ EXPLORE_SALT, EXPLORE_DRAWS)
            if draw < epsilon * EXPLORE_DRAWS:
                choice, _ = _random_below(rng, count)
                explored[ply] = True
        window = game_loop.advance(game, state, child, moves[choice], ply, window)
    return ply_cap, table_result


@parallel_kernel
def play_zero_games(
    game,
    params,
    root,
    knobs,
    temperature_plies,
    ply_cap,
    max_nodes,
    seeds,
    record,
    tablebase=None,
    in_tables=None,
    table_teaches=False,
    epsilon=0.0,
):
    """Play ``len(seeds)`` games in parallel, game ``g`` with ``seeds[g]``, each with its own
    tree of ``max_nodes`` nodes (and the ``tablebase``, if given, probed inside the table by
    the searches ``in_tables[g]`` names, every search's where it is None: :func:`play_zero_game`;
    the caller checks that it has one entry a game). ``record`` is ``(positions, legal,
    legal_counts, policy, root_values, table_values, plies, results, explored)``, each with a
    row a game (:class:`~samuel.train.zero_loop.ZeroGames`' fields, in order): the per-ply
    arrays of :func:`play_zero_game`, the plies each game played and its result; ``explored``
    (games, ply cap) marks the exploring moves of ``epsilon``."""
    # Each array by its index, not unpacked (``a, b = record``): numba's parallel pass does not
    # see that an unpacked array is the caller's, and drops the loop's writes to it.
    positions, legal, legal_counts = record[0], record[1], record[2]
    policy, root_values, table_values = record[3], record[4], record[5]
    plies, results, explored = record[6], record[7], record[8]
    for g in numba.prange(seeds.shape[0]):
        tree = _new_tree(max_nodes, games.STATE_SIZE)
        work = _new_work(game, zero.forward_scratch(params))
        in_table = IN_TABLE_ALL if in_tables is None else in_tables[g]
        n, result = play_zero_game(
            game,
            params,
            root,
            knobs,
            temperature_plies,
            ply_cap,
            seeds[g],
            tree,
            work,
            (
                positions[g],
                legal[g],
                legal_counts[g],
                policy[g],
                root_values[g],
                table_values[g],
                explored[g],
            ),
            tablebase,
            in_table,
            table_teaches,
            epsilon,
        )
        plies[g] = n
        results[g] = result


@kernel
def table_children(game, states, count, tablebase, mistakes_only, children, values):
    """For each of the first ``count`` positions of ``states`` that the ``tablebase`` holds,
    the positions its legal moves lead to (with ``mistakes_only``, only the moves that give its
    value away: a draw into a loss, a win into a draw or a loss, for the side that plays it):
    write each into ``children`` and its value (first player's view: the table's, or the result
    if it ends the game) into ``values``. Returns how many were written: at most ``count *
    move_room(game)`` (:func:`~samuel.games.kernels.move_room`)."""
    room = games.move_room_kernel(game)
    if count > states.shape[0] or states.shape[1] > children.shape[1]:
        raise ValueError("more positions than the states hold, or children too narrow")
    if children.shape[0] < count * room or values.shape[0] < children.shape[0]:
        raise ValueError("children and values must hold count * move_room(game) positions")
    moves = np.empty(room, dtype=np.int64)
    replies = np.empty(room, dtype=np.int64)
    child = np.empty(states.shape[1], dtype=np.int64)
    written = 0
    for i in range(count):
        state = states[i]
        n = games.generate(game, state, moves)
        if games.result(game, state, n) != games.NOT_OVER:
            continue
        found, outcome, _ = games.tablebase_result(game, state, tablebase)
        if not found:
            continue
        mover = games.sign(game, state)
        for m in range(n):
            games.play(game, state, moves[m], child)
            value = games.result(game, child, games.generate(game, child, replies))
            if value == games.NOT_OVER:
                inside, reply_outcome, _ = games.tablebase_result(game, child, tablebase)
                if not inside:
                    continue
                value = reply_outcome * games.sign(game, child)
            if not mistakes_only or value * mover < outcome:  # worse for the mover
                children[written, : child.shape[0]] = child
                values[written] = value
                written += 1
    return written


@kernel
def encode_zero_samples(
    game,
    states,
    symmetries,
    legal,
    legal_counts,
    results,
    active,
    values,
    counts,
    network_legal,
    network_results,
):
    """Write each position's set inputs and its legal actions under its symmetry
    (:func:`~samuel.games.kernels.transform`, :func:`~samuel.games.actions.action_symmetry`;
    the policy targets keep their order), and its result (first player's view) turned by the
    symmetry and into the network's view, as the TD(lambda) trainer turns its targets."""
    image = np.empty(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        symmetry = symmetries[i]
        games.transform(game, states[i], symmetry, image)
        counts[i] = games.zero_network_inputs(game, image, active[i], values[i])
        for j in range(legal_counts[i]):
            network_legal[i, j] = game_actions.action_symmetry(game, symmetry, legal[i, j])
        target = results[i]
        if games.symmetry_sign(game, symmetry) * games.network_sign(game, image) < 0:
            target = -target
        network_results[i] = target


@parallel_kernel
def zero_batch_loss(params, active, values, counts, legal, legal_counts, policy, target, plies):
    """The summed unweighted policy, value and plies losses of the samples, in fixed chunks (the
    same on any number of threads)."""
    n = target.shape[0]
    chunks = (n + GRAD_CHUNK - 1) // GRAD_CHUNK
    losses = np.zeros((chunks, 3), dtype=np.float64)
    for c in numba.prange(chunks):
        scratch = np.empty(2 * zero.forward_scratch(params), dtype=np.float32)
        logits = np.empty(legal.shape[1], dtype=np.float32)
        grad = np.zeros(params.shape[0], dtype=np.float32)  # written, never read
        for i in range(c * GRAD_CHUNK, min(n, (c + 1) * GRAD_CHUNK)):
            policy_loss, value_loss, plies_loss = zero.zero_add_gradient(
                params,
                grad,
                active[i],
                values[i],
                counts[i],
                legal[i],
                legal_counts[i],
                policy[i],
                target[i],
                plies[i],
                1.0,
                1.0,
                1.0,
                logits,
                scratch,
            )
            losses[c, 0] += policy_loss
            losses[c, 1] += value_loss
            losses[c, 2] += plies_loss
    totals = np.zeros(3, dtype=np.float64)
    for c in range(chunks):
        totals += losses[c]
    return totals[0], totals[1], totals[2]
