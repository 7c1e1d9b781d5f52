"""The project's own error types: a user's mistake, said in one line.

Every error that a bad position, move, option or file can cause derives from
:class:`SamuelError`, so the command line (and the server) can answer exactly those with a
message and let anything else show as the bug it is. The concrete types also derive from the
built-in type that fits (``ValueError``, ``OSError``), so ``except ValueError`` still works.
"""

from __future__ import annotations


class SamuelError(Exception):
    """Something the user gave is wrong; the message says what, in one line."""


class FileError(SamuelError, OSError):
    """A file that cannot be read or written as asked: missing, not a regular file, too big,
    not writable. The message names the file and the reason in words, not an errno."""


class CommandError(SamuelError, ValueError):
    """A command asked for something that cannot be done: an option out of range or at odds with
    another, a position the command cannot use (a game already over), an output path that cannot
    be written."""


class UnsupportedGameError(SamuelError, ValueError):
    """A command or player that Samuel cannot yet offer for the game asked for (training a network
    for a game the network does not know, say): the message says what works for that game."""
