"""One network per phase of a game, as one float32 array the compiled evaluator reads.

Seed ``001`` routes each position to the network of its phase (long nardy: the start, the middle
and the race), the phase told from the position's counts. The networks are whole networks
(:mod:`samuel.nn.shape`) that share nothing: each phase learns its own positions. They travel
packed::

    [PHASED_MARK, phases, offset of phase 0, ... offset of phase P-1, 0 ...]   PHASED_PLAN entries
    phase 0's network array, zeros to a multiple of ALIGN entries
    phase 1's network array, ...

so a kernel finds phase ``p``'s network at ``array[int(array[OFFSETS + p]):]``, and each network
keeps the 64-byte alignment its layers have from its own start. :func:`phases_of` checks a packed
array the way :func:`samuel.nn.shape.network_of` checks a network: every offset is the one the
networks' sizes give, so no forged offset reaches a kernel. The views :func:`phase_networks`
returns share the packed array's memory: training a phase's network in place trains the packed
one.
"""

from __future__ import annotations

import numpy as np

from .shape import PLAN, SIZE, Network, ShapeError, network_of

PHASED_MARK = 7.0  # array[0]: tells a packed set of phase networks from one network (5.0)
COUNT = 1
OFFSETS = 2
MAX_PHASES = 8
PHASED_PLAN = 16  # the header: one 64-byte line
ALIGN = 16  # each network starts on a 64-byte boundary of the array
assert OFFSETS + MAX_PHASES <= PHASED_PLAN


def _padded(size: int) -> int:
    return -(-size // ALIGN) * ALIGN


def pack_phases(networks: list[np.ndarray] | tuple[np.ndarray, ...]) -> np.ndarray:
    """The packed array of ``networks``, phase 0's first (each a network array: plan and
    parameters); ShapeError for a count outside 2 to ``MAX_PHASES`` or an array no network's."""
    if not 2 <= len(networks) <= MAX_PHASES:
        raise ShapeError(f"a network per phase needs 2 to {MAX_PHASES} phases, not {len(networks)}")
    sizes = [network_of(np.asarray(net, dtype=np.float32)).size for net in networks]
    total = PHASED_PLAN + sum(_padded(s) for s in sizes)
    packed = np.zeros(total, dtype=np.float32)
    packed[0], packed[COUNT] = PHASED_MARK, len(networks)
    at = PHASED_PLAN
    for p, (net, size) in enumerate(zip(networks, sizes, strict=True)):
        packed[OFFSETS + p] = at
        packed[at : at + size] = net
        at += _padded(size)
    return packed


def is_phased(array) -> bool:
    """Whether ``array`` starts like a packed set of phase networks (not yet checked)."""
    return (
        isinstance(array, np.ndarray)
        and array.ndim == 1
        and len(array) > 0
        and (array[0] == PHASED_MARK)
    )


def phases_of(array: np.ndarray) -> tuple[Network, ...]:
    """Each phase's network shape; ShapeError unless ``array`` is exactly the packed array of
    whole networks (its header, every offset and its length as :func:`pack_phases` writes them)."""
    if not isinstance(array, np.ndarray) or array.ndim != 1 or len(array) <= PHASED_PLAN:
        raise ShapeError("a network per phase is a packed array, not this")
    head = np.asarray(array[:PHASED_PLAN], dtype=np.float64)
    count = head[COUNT]
    if head[0] != PHASED_MARK or count != int(count) or not 2 <= count <= MAX_PHASES:
        raise ShapeError("the array does not start with the header of a network per phase")
    count = int(count)
    if np.any(head[OFFSETS + count :] != 0):
        raise ShapeError("the header of a network per phase has numbers past its phases")
    shapes = []
    at = PHASED_PLAN
    for p in range(count):
        if head[OFFSETS + p] != at or at >= len(array):
            raise ShapeError(f"phase {p}'s network is not where the header says")
        shape = _shape_at(array, at)
        end = at + shape.size
        if np.any(array[end : at + _padded(shape.size)] != 0):
            raise ShapeError(f"phase {p}'s network is followed by numbers that are not padding")
        shapes.append(shape)
        at += _padded(shape.size)
    if at != len(array):
        raise ShapeError(f"the array is {len(array)} long; its {count} networks take {at}")
    return tuple(shapes)


def _shape_at(array: np.ndarray, at: int) -> Network:
    """The shape of the network whose plan starts at ``array[at]`` (its length from the plan)."""
    if at + PLAN > len(array):
        raise ShapeError("a phase's network runs past the array's end")
    size = array[at + SIZE]
    if size != int(size) or not PLAN < size <= len(array) - at:
        raise ShapeError("a phase's network runs past the array's end")
    return network_of(array[at : at + int(size)])


def phase_networks(array: np.ndarray) -> list[np.ndarray]:
    """Each phase's network array, as views of the (checked) packed array."""
    shapes = phases_of(array)
    views, at = [], PHASED_PLAN
    for shape in shapes:
        views.append(array[at : at + shape.size])
        at += _padded(shape.size)
    return views
