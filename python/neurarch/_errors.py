"""The errors the C++ core raises, one class per kind.

Each carries the core's one-line message (``str(e)``, the same line ``neurarch-trace`` prints after
``neurarch-trace: error:``), ``where`` (the file, key or byte offset it names) and the command
line's ``exit_code`` for that kind. Each also derives from the built-in exception a Python caller
would catch for it.
"""


class Error(Exception):
    """A failure the core reports: bad input, a model not found, an unsupported model, I/O."""

    exit_code = 1
    where = ""


class InvalidInput(Error, ValueError):
    """Malformed or absurd config, hostile safetensors header, or an option value that makes no sense."""

    exit_code = 2


class NotFound(Error, LookupError):
    """A model id, file or class that does not exist (the message says where it looked)."""

    exit_code = 3


class Unsupported(Error):
    """A model_type or class neurarch does not build (yet)."""

    exit_code = 4


class IoError(Error, OSError):
    """The operating system or the network refused a read or a write."""

    exit_code = 5
