"""Files and arguments made to break the program: every one ends in a one-line error, promptly.

Each loader of a user's file (network weights, classic weights, labelled positions, tablebase
layers, game records) is given a FIFO, a folder, a huge sparse file and damaged contents; every
array that a file carries into a compiled kernel is given each kind of bad value. What could
hang (a FIFO) or crash the process (a kernel reading out of bounds) runs in a subprocess with a
timeout, so that a regression fails the test instead of hanging or killing the test run.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from samuel.errors import SamuelError
from samuel.games.tigers.classic import FEATURES
from samuel.games.tigers.rules import Position
from samuel.games.tigers.tablebase.counts import LayerCounts
from samuel.games.tigers.tablebase.files import HEADER_SIZE, TablebaseError, open_codes, write_layer
from samuel.games.tigers.tablebase.index import layer_size
from samuel.tune.dataset import DatasetError, LabelledPositions, load_positions, save_positions
from samuel.tune.gradient import SparseFeatures, dense_features

TIMEOUT = 120  # seconds: a loader that waits on a FIFO fails instead of hanging the run
SPARSE_BYTES = 8 * 10**9  # more than any kind of file may be; sparse, so it takes no disk

# Each kind of file: the function that loads it and what it names the file in errors.
LOADERS = {
    "weights": ("samuel.nn.weights", "read_network", "weights file"),
    "classic": ("samuel.games.tigers.classic", "load_weights", "classic weights file"),
    "draughts classic": ("samuel.games.draughts.classic", "load_weights", "classic weights file"),
    "positions": ("samuel.tune.dataset", "load_positions", "labelled positions file"),
    "layer": ("samuel.games.tigers.tablebase.files", "open_codes", "tablebase layer"),
    "records": ("samuel.games.record", "read_records", "records file"),
}


def load_in_subprocess(kind: str, path) -> subprocess.CompletedProcess:
    """Run the loader of ``kind`` on ``path`` in a fresh process: status 2 and the message for
    the project's own error, anything else (a traceback, a signal) as it comes."""
    module, function, _ = LOADERS[kind]
    script = (
        "import sys\n"
        "from samuel.errors import SamuelError\n"
        f"from {module} import {function} as load\n"
        "try:\n"
        "    load(sys.argv[1])\n"
        "except SamuelError as error:\n"
        "    print(f'{type(error).__name__}: {error}')\n"
        "    sys.exit(2)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=TIMEOUT
    )


def samuel(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def load(kind: str, path):
    module, function, _ = LOADERS[kind]
    return getattr(__import__(module, fromlist=[function]), function)(path)


# --- the file itself: a FIFO, a folder, a huge sparse file --------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", LOADERS)
def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path, kind):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    run = load_in_subprocess(kind, path)  # raises TimeoutExpired if it waits for a writer
    assert run.returncode == 2, run.stderr
    assert "FIFO" in run.stdout and "Traceback" not in run.stderr
    assert len(run.stdout.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", LOADERS)
def test_a_folder_is_refused(tmp_path, kind):
    with pytest.raises(SamuelError, match="is a folder"):
        load(kind, tmp_path)


@pytest.mark.parametrize("kind", LOADERS)
def test_a_huge_sparse_file_is_refused_by_its_size_before_any_read(tmp_path, kind):
    path = tmp_path / "huge"
    with open(path, "wb") as file:
        file.truncate(SPARSE_BYTES)
    with pytest.raises(SamuelError, match=r"is 8\.0 GB, more than"):
        load(kind, path)


@pytest.mark.parametrize("kind", LOADERS)
def test_a_missing_file_is_named(tmp_path, kind):
    with pytest.raises(SamuelError, match="does not exist"):
        load(kind, tmp_path / "nothing")


@pytest.mark.slow
def test_the_command_line_refuses_fifos_with_status_2(tmp_path):
    path = tmp_path / "pipe.bin"
    os.mkfifo(path)
    for args in (
        ("tune", str(path), "--out", str(tmp_path / "w.json")),
        ("tune", str(path), "--start", str(path), "--out", str(tmp_path / "w.json")),
        ("analyse", "start", "--player", f"classic:weights={path}"),
        ("analyse", "start", "--player", str(path)),  # a network's weights
        ("train", "1", "2", str(tmp_path / "run"), "--from", str(path)),
    ):
        run = samuel(*args)
        assert run.returncode == 2, (args, run.stderr)
        assert "FIFO" in run.stderr and "Traceback" not in run.stderr, args


# --- labelled positions: every array that reaches a kernel ---------------------------------------


def positions(rows: int = 4) -> LabelledPositions:
    """A small valid data set: the start position, two games of two rows."""
    return LabelledPositions(
        states=np.tile(Position.initial().encode(), (rows, 1)),
        results=np.zeros(rows, dtype=np.int8),
        games=np.arange(rows, dtype=np.int32) // 2,
        plies=np.arange(rows, dtype=np.int16) % 2,
        random_moves=np.zeros(rows, dtype=np.bool_),
        scores=np.zeros(rows, dtype=np.float32),
        config={"games": rows // 2},
    )


def spoiled(**changes) -> LabelledPositions:
    data = positions()
    arrays = {name: getattr(data, name).copy() for name in ("states", "results", "games")}
    arrays |= {name: getattr(data, name).copy() for name in ("plies", "random_moves", "scores")}
    for name, change in changes.items():
        change(arrays[name])
    return LabelledPositions(**arrays, config=data.config)


def set_state(row: int, column: int, value: int):
    def change(states: np.ndarray) -> None:
        states[row, column] = value

    return change


def set_row(row: int, value):
    def change(array: np.ndarray) -> None:
        array[row] = value

    return change


def flag_byte(row: int, byte: int):
    def change(flags: np.ndarray) -> None:
        flags.view(np.uint8)[row] = byte

    return change


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({"states": set_state(0, 0, 1 << 30)}, "states row 0 .*tigers' mask .*outside"),
        ({"states": set_state(2, 0, -1)}, "states row 2 .*tigers' mask .*outside"),
        ({"states": set_state(1, 1, 1 << 25)}, "states row 1 .*sheep's mask .*outside"),
        ({"states": set_state(3, 0, 0b111)}, "states row 3 .*not exactly 4 tigers"),
        ({"states": set_state(1, 1, 1)}, "states row 1 .*a tiger and a sheep .*same point"),
        ({"states": set_state(0, 2, 21)}, "states row 0 .*in hand .*not 0 to 20"),
        ({"states": set_state(0, 2, -1)}, "states row 0 .*in hand .*not 0 to 20"),
        ({"states": set_state(0, 1, 0b10)}, "states row 0 .*more than 20"),
        ({"states": set_state(0, 3, 2)}, "states row 0 .*tiger to move .*not 0 or 1"),
        ({"states": set_state(0, 3, 1)}, "states row 0 .*20 sheep in hand"),
        ({"results": set_row(3, 2)}, "results row 3 .*1, 0 or -1"),
        ({"games": set_row(1, -1)}, "games row 1"),
        ({"plies": set_row(2, -5)}, "plies row 2"),
        ({"random_moves": flag_byte(1, 7)}, "random_moves row 1"),
        ({"scores": set_row(0, np.nan)}, "scores row 0 .*finite"),
        ({"scores": set_row(3, 1.5)}, "scores row 3 .*-1..1"),
    ],
)
def test_each_kind_of_bad_value_is_named_with_its_array_and_row(tmp_path, changes, phrase):
    path = tmp_path / "bad.npz"
    save_positions(spoiled(**changes), path)
    with pytest.raises(DatasetError, match=phrase):
        load_positions(path)


def test_a_good_file_loads(tmp_path):
    save_positions(positions(), tmp_path / "good.npz")
    assert len(load_positions(tmp_path / "good.npz")) == 4


def write_npz(path, **arrays) -> None:
    """An .npz of exactly these arrays (np.savez, which adds nothing)."""
    np.savez(path, **arrays)


def good_arrays() -> dict:
    data = positions()
    return {
        "states": data.states,
        "results": data.results,
        "games": data.games,
        "plies": data.plies,
        "random_moves": data.random_moves,
        "scores": data.scores,
        "config": np.array('{"games": 2}'),
    }


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({"states": np.zeros((4, 4), dtype=np.float64)}, "states is float64"),
        ({"states": np.zeros((4, 3), dtype=np.int64)}, "states is int64 of shape .4x3."),
        ({"games": np.zeros(3, dtype=np.int32)}, "games is int32 of shape .3."),
        ({"results": np.zeros((4, 1), dtype=np.int8)}, "results is int8 of shape .4x1."),
        ({"config": np.array("{not json")}, "config is not JSON"),
        ({"config": np.array("[1, 2]")}, "config is not a JSON object"),
        ({"config": np.array("[" * 100_000)}, "config is not JSON"),
        ({"config": np.zeros(3)}, "config is not a string of JSON"),
    ],
)
def test_each_kind_of_bad_array_is_refused(tmp_path, changes, phrase):
    path = tmp_path / "bad.npz"
    write_npz(path, **(good_arrays() | changes))
    with pytest.raises(DatasetError, match=phrase):
        load_positions(path)


def test_no_positions_is_refused(tmp_path):
    arrays = {name: value[:0] if value.ndim else value for name, value in good_arrays().items()}
    write_npz(tmp_path / "empty.npz", **arrays)
    with pytest.raises(DatasetError, match="holds no positions"):
        load_positions(tmp_path / "empty.npz")


def test_an_array_header_claiming_a_huge_array_allocates_nothing(tmp_path):
    """The header says 10**15 results; the loader refuses it before reading or allocating."""
    path = tmp_path / "liar.npz"
    write_npz(path, **good_arrays())
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = members["results.npy"]
    members["results.npy"] = header.replace(b"(4,)", b"(1000000000000000,)", 1)
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    with pytest.raises(DatasetError, match="more than"):
        load_positions(path)


@pytest.mark.parametrize("cut", [0, 1, 30, 200, -100, -22])
def test_a_truncated_or_empty_file_is_refused(tmp_path, cut):
    save_positions(positions(), tmp_path / "good.npz")
    content = (tmp_path / "good.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(content[:cut])
    with pytest.raises(DatasetError, match="not a labelled positions file|damaged"):
        load_positions(tmp_path / "cut.npz")


def test_every_damaged_byte_gives_a_dataset_error(tmp_path):
    """Every byte of a small file changed in turn: the loader says DatasetError or loads."""
    save_positions(positions(), tmp_path / "good.npz")
    content = (tmp_path / "good.npz").read_bytes()
    path = tmp_path / "damaged.npz"
    for i in range(0, len(content), 3):
        path.write_bytes(content[:i] + bytes([content[i] ^ 0x5A]) + content[i + 1 :])
        try:
            load_positions(path)
        except DatasetError:
            pass


@pytest.mark.slow
def test_tune_on_an_out_of_range_bitboard_says_so_and_does_not_crash(tmp_path):
    data = spoiled(states=set_state(0, 0, 1 << 30))
    save_positions(data, tmp_path / "bad.npz")
    run = samuel("tune", str(tmp_path / "bad.npz"), "--out", str(tmp_path / "w.json"))
    assert run.returncode == 2, (run.returncode, run.stderr)  # a segfault is -11
    assert run.stderr.strip().splitlines() == [
        f"samuel tune: error: {tmp_path / 'bad.npz'}: states row 0 is not a position: "
        "the tigers' mask (column 0) has points outside the board's 25"
    ]


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 cut short"])
def test_tune_on_an_empty_or_truncated_file_says_so(tmp_path, content):
    (tmp_path / "bad.npz").write_bytes(content)
    run = samuel("tune", str(tmp_path / "bad.npz"), "--out", str(tmp_path / "w.json"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "not a labelled positions file" in run.stderr


def test_the_kernel_wrappers_check_their_arrays():
    with pytest.raises(ValueError, match="states row 1 .*outside"):
        dense_features(np.array([Position.initial().encode(), [1 << 40, 0, 20, 0]]))
    with pytest.raises(ValueError, match="rows of 4"):
        dense_features(np.zeros((2, 3), dtype=np.int64))
    starts = np.array([0, 1], dtype=np.int64)
    with pytest.raises(ValueError, match="indices"):
        SparseFeatures(starts, np.array([len(FEATURES)], dtype=np.uint8), np.ones(1, np.float32))
    with pytest.raises(ValueError, match="starts must run"):
        SparseFeatures(starts + 1, np.zeros(1, dtype=np.uint8), np.ones(1, np.float32))


# --- network weights --------------------------------------------------------------------------


def test_a_file_of_another_kind_is_named_without_quoting_it(tmp_path):
    from samuel.nn.shape import Network
    from samuel.nn.weights import WeightsFileError, read_network

    path = tmp_path / "passwd"
    path.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n" + bytes(4 * Network(52).parameter_count))
    with pytest.raises(WeightsFileError) as error:
        read_network(path)
    assert "not a TSNN network (it does not start with TSNN)" in str(error.value)
    assert "root" not in str(error.value).replace(str(tmp_path), "")


def test_infinite_parameters_are_refused(tmp_path):
    from samuel.nn.shape import Network
    from samuel.nn.weights import HEAD_RECORD, HEADERS, WeightsFileError, read_network

    params = np.zeros(Network(52).parameter_count, dtype="<f4")
    params[-1] = np.inf
    path = tmp_path / "inf.bin"
    path.write_bytes(HEADERS[1].pack(b"TSNN", 1, 52, 64, 32) + params.tobytes())
    with pytest.raises(WeightsFileError, match="not finite"):
        read_network(path)
    path.write_bytes(HEADERS[2].pack(b"TSNN", 2, 1, 52, 64, 32) + params.tobytes())
    with pytest.raises(WeightsFileError, match="not finite"):
        read_network(path)
    # version 5: the value head on layer 2 (index 1)
    v5 = HEADERS[5].pack(b"TSNN", 5, 1, 52, 2, 64, 32, 0, 1) + HEAD_RECORD.pack(0, 1, 1, 0, 0, 0)
    path.write_bytes(v5 + params.tobytes())
    with pytest.raises(WeightsFileError, match="not finite"):
        read_network(path)
    params[-1] = 1e5  # finite, but past the largest weight a network may have
    path.write_bytes(v5 + params.tobytes())
    with pytest.raises(WeightsFileError, match=r"a weight of magnitude 1e\+05"):
        read_network(path)


# --- classic weights --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        ("1" + "0" * 400, "captured is not a finite number"),  # an int too big for a float
        ("1" + "0" * 5000, "not JSON that this program reads"),  # Python refuses to parse it
        ("1e999", "captured is not a finite number"),  # inf
        ('"secret"', "captured is not a finite number"),
    ],
)
def test_bad_classic_weights_are_named_without_quoting_them(tmp_path, value, phrase):
    from samuel.games.tigers.classic import WeightsError, load_weights

    entries = ", ".join(f'"{name}": {value if name == "captured" else 1}' for name in FEATURES)
    path = tmp_path / "w.json"
    path.write_text(f'{{"weights": {{{entries}}}}}')
    with pytest.raises(WeightsError, match=phrase) as error:
        load_weights(path)
    assert "secret" not in str(error.value) and len(str(error.value)) < 300


def test_unknown_names_are_counted_not_quoted_unless_they_look_like_features(tmp_path):
    from samuel.games.tigers.classic import WeightsError, load_weights

    entries = {name: 1 for name in FEATURES} | {"captures": 1, "root:x:0:0:/bin/bash": 2}
    path = tmp_path / "w.json"
    path.write_text(str(entries).replace("'", '"').join(['{"weights": ', "}"]))
    with pytest.raises(WeightsError, match=r"unknown \['captures'\] and 1 other name") as error:
        load_weights(path)
    assert "bin/bash" not in str(error.value)


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        ("NaN", "men is not a finite number"),
        ("1" + "0" * 400, "men is not a finite number"),
        ("1" + "0" * 5000, "not JSON that this program reads"),
        ('"secret"', "men is not a finite number"),
        ("400", "could score 4.*beyond the 500"),  # finite, but past what the search can tell
    ],
)
def test_bad_draughts_classic_weights_are_named_without_quoting_them(tmp_path, value, phrase):
    from samuel.games.draughts.classic import FEATURES as DRAUGHTS_FEATURES
    from samuel.games.draughts.classic import WeightsError, load_weights

    entries = {name: 0.01 for name in DRAUGHTS_FEATURES}
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"weights": entries}).replace('"men": 0.01', f'"men": {value}'))
    with pytest.raises(WeightsError, match=phrase) as error:
        load_weights(path)
    assert "secret" not in str(error.value) and len(str(error.value)) < 300
    path.write_text(json.dumps({"weights": entries | {"root:x:0:0:/bin/bash": 2}}))
    with pytest.raises(WeightsError, match="unknown none and 1 other name") as error:
        load_weights(path)
    assert "bin/bash" not in str(error.value)


# --- tablebase layers -------------------------------------------------------------------------


@pytest.fixture
def layer(tmp_path):
    """A layer file of the 1-capture game (all draws: the codes are not checked)."""
    size = layer_size(0)
    counts = LayerCounts(size, 0, size, 0, 0, 0, 0, 0, 0, 0)
    return write_layer(tmp_path, 1, 0, False, np.zeros(size, dtype=np.uint8), counts)


def patched(path, offset: int, fmt: str, value: int):
    content = bytearray(path.read_bytes())
    struct.pack_into(fmt, content, offset, value)
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("offset", "fmt", "value", "phrase"),
    [
        (12, "<I", 200, "describes no layer"),  # captures to win
        (12, "<I", 0, "describes no layer"),
        (16, "<I", 1, "describes no layer"),  # captured, not below captures to win
        (20, "<I", 7, "describes no layer"),  # tiger to move
        (24, "<Q", 5, "describes no layer"),  # positions
        (0, "<Q", 0x746F6F72, "not a tablebase layer file"),  # magic
    ],
)
def test_impossible_layer_headers_are_refused(layer, offset, fmt, value, phrase):
    with pytest.raises(TablebaseError, match=phrase) as error:
        open_codes(patched(layer, offset, fmt, value))
    assert "root" not in str(error.value).replace(str(layer), "")


def test_a_layer_of_the_wrong_length_is_refused(layer):
    with open(layer, "ab") as file:
        file.write(b"\0")
    with pytest.raises(TablebaseError, match=f"{HEADER_SIZE + layer_size(0) + 1} bytes"):
        open_codes(layer)


def test_a_good_layer_maps(layer):
    assert len(open_codes(layer)) == layer_size(0)


def test_a_tablebase_whose_layer_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "captured-0-sheep.tb")
    script = (
        "import sys\n"
        "from samuel.games.tigers.tablebase.probe import load_tablebase\n"
        "from samuel.errors import SamuelError\n"
        "try:\n"
        "    load_tablebase(sys.argv[1])\n"
        "except SamuelError as error:\n"
        "    print(error)\n"
        "    sys.exit(2)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert run.returncode == 2 and "FIFO" in run.stdout, run.stderr


# --- perft ------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", ["100000000000000000000", "1000000000", "16"])
def test_perft_refuses_a_depth_past_its_counter(depth):
    run = samuel("perft", depth, "--divide")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "too deep: perft counts up to 15 plies" in run.stderr
