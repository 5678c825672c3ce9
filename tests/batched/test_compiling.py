"""The kernels' building blocks: borrowed arrays, scratch arrays on the stack, functions compiled
by the rules' record type, functions compiled into their callers only, record types' text written
once, cache lines of a record's fields, counting seats round the table, and a view's scaled
entries read from a table of quotients."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from snail_envs.batched.chance import agent_pick_among, game_record, seed_games
from snail_envs.batched.compiling import (
    PACKAGE,
    WRITTEN_RECORD_TEXT,
    LinkedOnlyLibrary,
    borrowed,
    compiled,
    stack_zeros,
    where_rules_have,
)
from snail_envs.batched.core import (
    agent_pick_bit,
    count_bits,
    fraction,
    next_seat,
    quotients,
    scaled,
    seat_after,
    seats_after,
)
from snail_envs.batched.records import LINE, field_lines, fields, record_dtype


@numba.njit
def _write_through_borrowed(values: np.ndarray, rows: np.ndarray) -> float:
    values, rows = borrowed((values, rows))
    values = borrowed(values)
    for i in range(rows.shape[0]):
        row = rows[i]  # a view of a borrowed array: no reference to count
        row[:] = i
    values[0] = rows.sum()
    return values[0]


def test_a_borrowed_array_is_the_same_memory_without_a_reference_count() -> None:
    values = np.zeros(3)
    rows = np.zeros((4, 2), np.int64)
    assert _write_through_borrowed(values, rows) == 2 * (0 + 1 + 2 + 3)
    assert rows.tolist() == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert values[0] == 12


def test_only_arrays_can_be_borrowed() -> None:
    @numba.njit
    def borrow_a_number(number: int) -> int:
        return borrowed(number)

    with pytest.raises(TypingError):
        borrow_a_number(3)


ROWS = 3
COLUMNS = 5


@numba.njit
def _scratch_sums(calls: int) -> tuple[float, int, int]:
    """Each call's scratch arrays, zero when made, written and summed: the sums of the last."""
    total, flags, width = 0.0, 0, 0
    for call in range(calls):
        grid = stack_zeros((ROWS, COLUMNS), np.float64)
        marks = stack_zeros(COLUMNS, np.bool_)
        total, flags = grid.sum(), marks.sum()
        grid[call % ROWS, :] = call + 1
        marks[call % COLUMNS] = True
        total, flags, width = total + grid.sum(), flags + marks.sum(), grid.shape[1]
    return total, flags, width


def test_a_stack_array_is_zero_and_shaped_as_asked_each_time_it_is_made() -> None:
    total, flags, width = _scratch_sums(4)
    assert (total, flags, width) == (4.0 * COLUMNS, 1, COLUMNS)  # nothing left from call 3


def test_a_stack_array_needs_a_size_known_when_compiling() -> None:
    @numba.njit
    def sized_by_an_argument(size: int) -> int:
        return stack_zeros(size, np.int64).shape[0]

    with pytest.raises(Exception, match="the shape must be made of constants"):
        sized_by_an_argument(3)


@compiled
def _doubled(g, rules, value: int) -> int:
    return 2 * value


@where_rules_have("variant", otherwise=_doubled)
def _rule(g, rules, value: int) -> int:
    return rules.factor * value


@where_rules_have("variant")
def _note(g, rules, value: int) -> None:
    g[0] = value


@numba.njit
def _play(g: np.ndarray, rules: np.ndarray, value: int) -> int:
    _note(g, rules[0], value)
    return _rule(g, rules[0], value)


def test_a_function_compiles_by_whether_the_rules_record_has_a_field() -> None:
    """`where_rules_have`: the function where the record has the field, `otherwise` (or
    nothing) where it has not; a call from Python raises, naming it."""
    variant = np.array([(3, 1)], np.dtype([("factor", np.int64), ("variant", np.uint8)]))
    standard = np.array([(3,)], np.dtype([("factor", np.int64)]))
    noted = np.zeros(1, np.int64)
    assert _play(noted, variant, 5) == 15
    assert noted[0] == 5
    noted[0] = 0
    assert _play(noted, standard, 5) == 10
    assert noted[0] == 0
    with pytest.raises(TypeError, match="_rule"):
        _rule(noted, variant[0], 5)


@compiled
def _tripled(value: int) -> int:
    return 3 * value


@numba.njit
def _tripled_and_one(value: int) -> int:
    return _tripled(value) + 1


def test_a_function_without_wrappers_has_no_machine_code_of_its_own() -> None:
    """Its callers run it; its library has no address to give, and its environment pointer is
    in numba's engine, filled in as numba fills in every function's."""
    assert _tripled_and_one(7) == 22
    (result,) = _tripled.overloads.values()
    assert isinstance(result.library, LinkedOnlyLibrary)
    with pytest.raises(RuntimeError, match="_tripled is compiled into its callers only"):
        result.library.get_pointer_to_function(result.fndesc.mangled_name)
    assert result.library.get_pointer_to_function(result.fndesc.llvm_cpython_wrapper_name) == 0
    engine = result.library.codegen._engine
    assert engine.get_global_value_address(result.fndesc.env_name) != 0


LINKED_ONLY = """
import numpy as np
from snail_envs.batched.compiling import LinkedOnlyLibrary, compiled, entry_point

@compiled
def twice(value):
    return 2 * value

@compiled
def checked_double(value):
    print("doubling", value, np.arange(2))
    if value < 0:
        raise ValueError("negative", value)
    return twice(value)

@entry_point
def first_caller(value):
    return checked_double(value) + 1

@entry_point
def second_caller(value):
    return checked_double(value) - 1
"""


def test_a_function_without_wrappers_is_cached_and_loaded_as_linked_only(tmp_path: Path) -> None:
    """A first process compiles it into a caller and caches it; a second loads it from the cache,
    with the function it calls, and links it into a caller of its own, then loads the first
    caller; each prints, raises its own error and returns what it computes."""
    (tmp_path / "linked_only.py").write_text(LINKED_ONLY)
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    environment["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *sys.path])
    play = textwrap.dedent(
        """
        import sys
        import pytest
        import linked_only as m
        for caller in sys.argv[1:]:
            kernel = getattr(m, caller)
            assert kernel(4) == (9 if caller == "first_caller" else 7)
            with pytest.raises(ValueError, match="negative"):
                kernel(-1)
        (result,) = m.checked_double.overloads.values()
        assert isinstance(result.library, m.LinkedOnlyLibrary)
        print("hits", sum(m.checked_double.stats.cache_hits.values()))
        print("loaded", sum(m.first_caller.stats.cache_hits.values()))
        """
    )

    def run(*callers: str) -> str:
        command = [sys.executable, "-c", play, *callers]
        return subprocess.run(
            command, env=environment, capture_output=True, text=True, check=True
        ).stdout

    first = run("first_caller")
    assert "doubling 4 [0 1]" in first
    assert "hits 0" in first
    second = run("second_caller", "first_caller")
    assert "doubling 4 [0 1]" in second
    assert "hits 1" in second
    assert "loaded 1" in second


SHARED_CACHE = """
import numpy as np

from snail_envs.batched.compiling import entry_point


@entry_point
def sorted_halves(values):
    return np.sort(values) / 2  # numba's sort: a compile of about a second
"""


def test_processes_started_at_once_on_one_cache_compile_a_function_once(tmp_path: Path) -> None:
    """Two processes call one function at the same moment, on an empty cache: one compiles it
    and caches it, the other waits for the cache and loads it (`one_process_a_cache`), where
    both compiled it, and numba, numbering each function's cached signatures without a lock,
    could save one's index over the other's."""
    (tmp_path / "shared_cache.py").write_text(SHARED_CACHE)
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    environment["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *sys.path])
    play = textwrap.dedent(
        """
        import sys
        import numpy as np
        import shared_cache as m
        print("ready", flush=True)
        sys.stdin.readline()  # the go, given to both processes at once
        assert list(m.sorted_halves(np.array([6, 2, 4]))) == [1, 2, 3]
        print("compiled", sum(m.sorted_halves.stats.cache_misses.values()))
        print("loaded", sum(m.sorted_halves.stats.cache_hits.values()))
        """
    )
    together = [
        subprocess.Popen(
            [sys.executable, "-c", play],
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in together:
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
    for process in together:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    outputs = [process.communicate()[0].split() for process in together]
    assert [process.returncode for process in together] == [0, 0]
    assert sorted(outputs) == [["compiled", "0", "loaded", "1"], ["compiled", "1", "loaded", "0"]]


PROBE_CALLEE = """
from snail_envs.batched.compiling import compiled


@compiled
def value():
    return {value}
"""

PROBE_CALLER = """
from snail_envs.batched.compiling import entry_point
from snail_envs.probe_callee import value


@entry_point
def read():
    return value()
"""


def test_a_cached_function_compiles_again_when_a_function_it_calls_in_another_file_changes(
    tmp_path: Path,
) -> None:
    """numba stamps a cached function with its own source file: a caller cached before a change
    to its callee's file would load as it was. Stamped with every source of the package too, it
    compiles again, and loads from the cache while nothing changes."""
    source = tmp_path / "source"
    package = source / "snail_envs"
    shutil.copytree(
        PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")
    )
    (package / "probe_callee.py").write_text(PROBE_CALLEE.format(value=1))
    (package / "probe_caller.py").write_text(PROBE_CALLER)
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    environment["PYTHONPATH"] = os.pathsep.join([str(source), *sys.path])
    play = textwrap.dedent(
        """
        import sys
        import snail_envs.probe_caller as m
        assert m.__file__.startswith(sys.argv[1]), m.__file__
        print(m.read(), sum(m.read.stats.cache_hits.values()))
        """
    )

    def run() -> str:
        command = [sys.executable, "-c", play, str(source)]
        return subprocess.run(  # not in the checkout, whose snail_envs `-c` would import
            command, env=environment, cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout.strip()

    assert run() == "1 0"  # compiled
    assert run() == "1 1"  # loaded
    (package / "probe_callee.py").write_text(PROBE_CALLEE.format(value=2))
    assert run() == "2 0"  # compiled again: the caller's own file is as it was
    assert run() == "2 1"


@numba.njit
def _seats(num_players: int) -> np.ndarray:
    out = np.empty((num_players, num_players, 3), np.int64)
    for seat in range(num_players):
        for other in range(num_players):
            out[seat, other, 0] = next_seat(seat, num_players)
            out[seat, other, 1] = seat_after(seat, other, num_players)
            out[seat, other, 2] = seats_after(seat, other, num_players)
    return out


def test_a_record_type_is_written_once_as_numba_writes_it() -> None:
    import snail_envs.batched

    batch = snail_envs.batched.make("snap_v2", 2)
    record = numba.typeof(batch.rules).dtype  # nests the views' layouts
    text = repr(record)
    assert text == WRITTEN_RECORD_TEXT(record)
    assert text.startswith("Record([('num_players', {'type': int64, 'offset': 0,")
    assert repr(record) is text  # kept, not written again
    other = numba.typeof(np.zeros(1, np.dtype([("a", np.int8)]))).dtype
    assert repr(other) == WRITTEN_RECORD_TEXT(other) != text


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_seats_are_counted_round_the_table_as_the_modulo_counts_them(num_players: int) -> None:
    out = _seats(num_players)
    for seat in range(num_players):
        for other in range(num_players):
            assert out[seat, other, 0] == (seat + 1) % num_players
            assert out[seat, other, 1] == (seat + other) % num_players
            assert out[seat, other, 2] == (other - seat) % num_players


@numba.njit
def _bits_counted(values: np.ndarray, out: np.ndarray) -> None:
    for k in range(values.shape[0]):
        out[k] = count_bits(values[k])


def test_the_set_bits_of_an_integer_are_counted_as_its_binary_digits_are() -> None:
    values = np.random.default_rng(0).integers(-(2**63), 2**63 - 1, 1_000, dtype=np.int64)
    values[:4] = [0, -1, 1, -(2**63)]
    out = np.zeros_like(values)
    _bits_counted(values, out)
    expected = [bin(int(value) & (2**64 - 1)).count("1") for value in values]
    assert out.tolist() == expected
    assert out[:4].tolist() == [0, 64, 1, 1]


@numba.njit
def _picks(games: np.ndarray, options: np.ndarray, out: np.ndarray) -> None:
    """Game i's pick among `options[i]` (0/1 marks), by bits in `games[2 i]` and by marks in
    `games[2 i + 1]` (both seeded alike)."""
    for i in range(options.shape[0]):
        bits = np.int64(0)
        for k in range(options.shape[1]):
            bits |= np.int64(options[i, k]) << k
        out[i, 0] = agent_pick_bit(games[2 * i], bits)
        out[i, 1] = agent_pick_among(games[2 * i + 1], options[i])


def test_a_pick_among_set_bits_is_the_pick_among_the_options_they_mark() -> None:
    rng = np.random.default_rng(1)
    options = (rng.random((2_000, 6)) < rng.random((2_000, 1))).astype(np.uint8)
    options[0] = 0  # no option: −1, and the generator moves on as it does for the marks
    games = np.zeros(4_000, game_record(fields((), a=np.int8)))
    seed_games(games, np.uint64(7))
    games["agent_state"][1::2] = games["agent_state"][::2]
    out = np.zeros((2_000, 2), np.int64)
    _picks(games, options, out)
    assert (out[:, 0] == out[:, 1]).all()
    assert (games["agent_state"][::2] == games["agent_state"][1::2]).all()
    assert out[0, 0] == -1
    picked = out[1:, 0][options[1:].any(axis=1)]
    assert options[1:][options[1:].any(axis=1)][np.arange(picked.size), picked].all()
    assert sorted(set(picked.tolist())) == list(range(6))


@numba.njit
def _scaled_entries(out: np.ndarray, table: np.ndarray, denominator: int) -> None:
    for k in range(table.shape[0]):
        out[0, k] = scaled(out, k, table)
        out[1, k] = fraction(out, k, denominator)


@pytest.mark.parametrize("denominator", [72, 5, 18, 7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int16])
def test_a_scaled_entry_is_the_fraction_without_dividing(denominator: int, dtype: type) -> None:
    table = quotients(denominator, 72)
    out = np.full((2, 73), 99, dtype)
    _scaled_entries(out, table, denominator)
    assert out[0].tobytes() == out[1].tobytes()  # the same bits as the division
    if np.issubdtype(dtype, np.floating):
        assert out[0, denominator] == 1 and out[0, 0] == 0
        assert out[0, 1] == dtype(1 / denominator)
    else:
        assert out[0].tolist() == list(range(73))  # a compact view keeps the numerator


@pytest.mark.parametrize("names", [("a",), ("b", "d"), ("a", "c", "e"), ("b", "c", "d", "e")])
def test_the_offsets_of_fields_fall_on_each_line_they_lie_on_wherever_the_record_starts(
    names: tuple[str, ...],
) -> None:
    dtype = record_dtype(
        fields((), a=np.int64),
        fields(100, b=np.int8),
        fields((), c=np.int16),
        fields(40, d=np.int64),
        fields(3, e=np.uint8),
    )
    offsets = field_lines(dtype, names)
    for start in range(LINE):
        field_bytes = [
            start + dtype.fields[name][1] + k
            for name in names
            for k in range(dtype.fields[name][0].itemsize)
        ]
        lines = {byte // LINE for byte in field_bytes}
        assert {(start + offset) // LINE for offset in offsets} == lines
