"""Checked number types for command-line options: a bad value is refused by argparse with a
message saying what is wrong, before any work starts."""

from __future__ import annotations

import argparse
import math


def _number(text: str, kind, noun: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None


def positive_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def finite_float(text: str) -> float:
    value = _number(text, float, "a number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_float(text: str) -> float:
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0")
    return value
