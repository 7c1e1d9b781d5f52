"""A run's config is a frozen dataclass, and its command's options are its fields: each field
that is an option says so in its metadata (:func:`option`: its help, and what argparse needs
beyond the field's name and default), :func:`add_config_options` adds those options to a parser
in field order, and :func:`config_from` builds the config back from the parsed namespace. So an
option is written once, beside its field and default.

The checked option types live here too (:mod:`samuel.options` re-exports them): a bad value is
refused by argparse with a message saying what is wrong, before any work starts. Light on
purpose, below every config: it imports argparse and nothing of Samuel.

>>> import argparse, dataclasses
>>> @dataclasses.dataclass(frozen=True)
... class Run:
...     games: int = option_field(4, "games to play", type=whole_number(1))
...     quiet: bool = option_field(False, "say less", store=True)
>>> parser = argparse.ArgumentParser()
>>> add_config_options(parser, Run)
>>> parser.format_help().splitlines()[-2:]
['  --games GAMES  games to play (4)', '  --quiet        say less']
>>> config_from(Run, parser.parse_args(["--games", "7"]))
Run(games=7, quiet=False)
>>> whole_number(1, 20)("7")
7
>>> fraction("0.25")
0.25
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

_MISSING = object()


def option(
    help: str,
    *,
    flag: str | None = None,
    default_text: str = "({default})",
    positional: bool = False,
    store: bool | None = None,
    parser_default: Any = _MISSING,
    **argparse_options: Any,
) -> dict[str, Any]:
    """A config field's metadata making it a command-line option.

    ``help`` is the option's help; the parser's default follows it, as ``default_text`` says
    (its ``{default}`` the default), unless the default is None or the option a flag. The flag
    is ``--`` and the field's name with dashes (``flag`` to say another, such as
    ``--no-tables``); ``positional`` makes it an argument without a flag. ``store`` True or
    False makes a flag that stores that value (``store_true``, ``store_false``). The parser's
    default is the field's unless ``parser_default`` says another; ``argparse_options`` (type,
    metavar, choices, nargs) go to :meth:`~argparse.ArgumentParser.add_argument` as they are.
    """
    return {
        "option": {
            "help": help,
            "flag": flag,
            "default_text": default_text,
            "positional": positional,
            "store": store,
            "parser_default": parser_default,
            "argparse": argparse_options,
        }
    }


def option_field(default: Any, help: str, **settings: Any) -> Any:
    """A dataclass field with this ``default`` that is a command-line option (:func:`option`
    says what ``help`` and ``settings`` are)."""
    return dataclasses.field(default=default, metadata=option(help, **settings))


def _options(config: type) -> Iterable[tuple[dataclasses.Field, dict[str, Any]]]:
    for field in dataclasses.fields(config):
        spec = field.metadata.get("option")
        if spec is not None:
            yield field, spec


def add_config_options(
    parser: argparse.ArgumentParser,
    config: type,
    first: str | None = None,
    last: str | None = None,
    only: Iterable[str] | None = None,
    per_game: Mapping[str, Mapping[str, object]] | None = None,
) -> None:
    """Add to ``parser`` the options of the dataclass ``config``'s fields (those with
    :func:`option` metadata), in field order: all, or those from the field ``first`` to the
    field ``last`` (both included); ``only``: just the fields named, in that order.
    ``per_game`` gives games' own defaults by game name and field: such an option's help says
    them ("(3; backgammon 1)") and it defaults to None, so the command can tell it was not
    given and take the game's (:func:`game_value`)."""
    per_game = per_game or {}
    specs = {field.name: (field, spec) for field, spec in _options(config)}
    names = [field.name for field in dataclasses.fields(config)]
    if only is None:
        low = 0 if first is None else names.index(first)
        high = len(names) if last is None else names.index(last) + 1
        only = [name for name in names[low:high] if name in specs]
    for name in only:
        field, spec = specs[name]
        default = field.default
        if default is dataclasses.MISSING and field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        if spec["parser_default"] is not _MISSING:
            default = spec["parser_default"]
        help_text = spec["help"]
        games = [f"{game} {values[name]}" for game, values in per_game.items() if name in values]
        if (default is not None or games) and spec["store"] is None:
            shown = "; ".join(["none" if default is None else str(default), *games])
            help_text = f"{help_text} {spec['default_text'].format(default=shown)}"
        kwargs = dict(spec["argparse"])
        if spec["store"] is not None:
            kwargs["action"] = "store_true" if spec["store"] else "store_false"
        elif default is not None and not games:
            kwargs["default"] = default
        if spec["positional"]:
            parser.add_argument(field.name, help=help_text, **kwargs)
            continue
        flag = spec["flag"] or "--" + field.name.replace("_", "-")
        if flag.lstrip("-").replace("-", "_") != field.name:
            kwargs["dest"] = field.name  # and argparse's metavar is the field's name
        parser.add_argument(flag, help=help_text, **kwargs)


def game_value(args: argparse.Namespace, name: str, game_config: Any) -> Any:
    """An option with games' own defaults (``add_config_options``' ``per_game``): the value
    given, else the game's configuration's (``game_config``, the game's defaults applied)."""
    given = getattr(args, name, None)
    return getattr(game_config, name) if given is None else given


def config_from(config: type, args: argparse.Namespace, **overrides: Any) -> Any:
    """The dataclass ``config`` made from the parsed ``args``: each field the namespace has
    (an option's value), then ``overrides``; a field in neither keeps its default."""
    values = {
        field.name: getattr(args, field.name)
        for field in dataclasses.fields(config)
        if hasattr(args, field.name)
    }
    values.update(overrides)
    return config(**values)


def number(
    kind: type, low: float | None = None, high: float | None = None, low_open: bool = False
) -> Callable[[str], float]:
    """An option type reading a finite ``kind`` (int or float) in ``[low, high]`` (``(low,
    high]`` when ``low_open``); either bound may be None."""

    def parse(text: str):
        noun = "a whole number" if kind is int else "a number"
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if low is not None and (value <= low if low_open else value < low):
            limit = "more than" if low_open else "at least"
            raise argparse.ArgumentTypeError(f"{text!r} must be {limit} {low:g}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text!r} must be at most {high:g}")
        return value

    parse.__name__ = "whole number" if kind is int else "number"  # argparse's fallback wording
    return parse


def whole_number(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An option type reading a whole number in ``[low, high]``."""
    return number(int, low, high)


positive_int = whole_number(1)
non_negative_int = whole_number(0)
finite_float = number(float)
positive_float = number(float, 0.0, low_open=True)
fraction = number(float, 0.0, 1.0)  # a probability or a blend, 0 to 1


def hidden_widths(text: str) -> tuple[int, ...]:
    """A network's hidden layers: one to three widths, comma-separated (``256,128``), each 1 to
    4096 units."""
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not hidden layers' widths: give one to three whole numbers, such as "
            "256,128"
        ) from None
    if not 1 <= len(widths) <= 3 or not all(1 <= w <= 4096 for w in widths):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a network has one to three hidden layers of 1 to 4096 units"
        )
    return widths


def even_games(text: str) -> int:
    """A number of games for a match: at least 2, and even (each opening is played twice)."""
    value = whole_number(2)(text)
    if value % 2:
        raise argparse.ArgumentTypeError(
            f"{text!r} is odd: a match is pairs of games (each opening is played twice)"
        )
    return value
