"""How the library's commands end on a user's mistake: one line on stderr, a non-zero exit.

A command (`snail-train`, `snail-eval`, `snail-play`, ...: its console script's name is its
`prog`) runs its work inside `command_errors(prog)`. A bad value (`ValueError`: an unknown agent,
a bad seat count, a config out of range), a file that is missing or exists already, a cluster
out of reach (`OSError`), or Ctrl-C ends it with one line, `PROG: error: ...` (exit status 1)
or `PROG: interrupted` (130), instead of a traceback. Any other exception is a bug of the
library and keeps its traceback.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import itertools
import sys
import textwrap
from collections.abc import Callable, Iterator

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it."""


def fail(prog: str, message: str, status: int = 1) -> SystemExit:
    """Print `PROG: error: MESSAGE` (one line) on stderr; the `SystemExit` to raise."""
    print(f"{prog}: error: {' '.join(str(message).split())}", file=sys.stderr)
    return SystemExit(status)


@contextlib.contextmanager
def command_errors(prog: str) -> Iterator[None]:
    """Turn a user's mistake or Ctrl-C inside the block into one line and an exit status."""
    try:
        yield
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        raise SystemExit(INTERRUPTED) from None
    except (ValueError, OSError) as problem:
        raise fail(prog, str(problem)) from None


def console_script(main: Callable[[], object]) -> Callable[[], None]:
    """The console script of a command whose `main` returns its result to Python callers (a
    run's summary, a tournament): it runs `main` on the command line and returns nothing, since
    a console script exits with what its function returns."""

    def script() -> None:
        main()

    return script


TRUST_HELP = (
    "let ppo:PATH be a Stable-Baselines3 archive (model.zip, or a policy.save file), which is a "
    "pickle: loading one runs any code it holds, so give this only for files you trust "
    "(weights-only policies need none)"
)


def add_trust_flag(parser: argparse.ArgumentParser, explanation: str = TRUST_HELP) -> None:
    """`--trust-checkpoint`: the person vouches for a pickled archive (`args.trust_checkpoint`)."""
    parser.add_argument("--trust-checkpoint", action="store_true", help=explanation)


def attribute_docs(cls: type) -> dict[str, str]:
    """The docstring under each annotated attribute of the class `cls` (a dataclass of settings,
    say), read from its source, as one line each: the help text of the matching flags."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]  # the class statement
    docs = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = " ".join(following.value.value.split())
    return docs
