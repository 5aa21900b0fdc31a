"""`streamcheck ...` and `python -m streamcheck ...`: the bundled binary,
run in this process's place (its exit status and signals are the command's)."""
import os
import sys

from . import executable


def main():
    binary = executable()
    if binary is None:
        sys.stderr.write("streamcheck: this Python package has no streamcheck binary (streamcheck/_prefix/bin/) "
                         "and none is on PATH; install the streamcheck wheel or package\n")
        return 2
    os.execv(binary, [binary] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
