"""Cut a Samuel Zero network's value out as a value network, for the alpha-beta player.

A Zero network's parameters start with a whole value network, moves-left head included
(docs/zero.md, "The file"); this writes those as a value network's file, so that its value can
be played as ``net`` plays its own (docs/zero-journal.md, "The seventh stage"):

    .venv/bin/python benchmarks/zero_value.py runs/z14/gen-020.bin /tmp/z14-value.bin
    .venv/bin/samuel match /tmp/z14-value.bin net --time 0.02 --games 400 --seed 2026 --workers 2
"""

from __future__ import annotations

import argparse
import sys

from samuel.nn.shape import POLICY, network_of, without_head
from samuel.nn.weights import WeightsFileError, read_network, save_network_array


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zero", help="a Zero network's weights file")
    parser.add_argument("out", help="where to write its value network")
    args = parser.parse_args()
    try:
        loaded = read_network(args.zero)
    except (OSError, WeightsFileError) as error:
        sys.exit(f"zero_value: {error}")
    if not loaded.network.has(POLICY):
        sys.exit(f"zero_value: {args.zero} is a value network already, not a Zero network")
    value = without_head(loaded.array, POLICY)  # the value and the moves-left head, as they were
    save_network_array(value, args.out, loaded.game)
    count = network_of(value).parameter_count
    print(f"{args.out}: the value of {args.zero} ({count} parameters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
