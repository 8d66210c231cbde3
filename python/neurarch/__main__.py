"""``neurarch-trace`` (the installed command) and ``python -m neurarch``: the C++ command line itself."""
import signal
import sys

from . import _native


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    # The core writes through C++ streams; whatever Python buffered must come first.
    sys.stdout.flush()
    sys.stderr.flush()
    # Python ignores SIGPIPE and turns SIGINT into an exception it checks between bytecodes, which
    # never come during a long native call: give both back their default, as the native binary has.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return _native.run_cli(["neurarch-trace", *args])


if __name__ == "__main__":
    sys.exit(main())
