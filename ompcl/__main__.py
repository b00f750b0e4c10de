"""The ``ompcl`` command's entry point: ``ompcl cc`` goes to the compiler driver before any
option parser (or the translator) is imported; everything else to the click commands."""
from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["cc"]:
        from .driver import entry
        sys.argv = [sys.argv[0], *sys.argv[2:]]
        entry()
    from .cli import main as cli_main
    cli_main()


if __name__ == "__main__":
    main()
