"""``python -m runscore`` and the ``runscore`` script.

Nothing here but the guard: importing the CLI (click, the engine's errors) is the first
tenth of a second of every start, and a Ctrl-C in it was a traceback and a death by
SIGINT. From here on it is exit 130 and one line, as once the CLI runs.
"""

import sys


def main() -> None:
    try:
        from runscore.cli.main import run

        run()
    except KeyboardInterrupt:
        # Literal, not ExitCode.INTERRUPTED: importing that is what may be interrupted.
        sys.stderr.write("error: interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    main()
