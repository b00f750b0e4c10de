"""click for the benchmark commands, as for every other ``ompcl`` command.

Each ``ompcl bench`` subcommand is a click command defined in its module (``nas.command``,
``kernels.command``, ...); ``ompcl.cli`` loads a module only when its command is asked for
(``LazyGroup``), and ``python -m ompcl.bench.X`` and the tests call the module's
``main(argv)``, which runs the same command and returns its exit status (``run_command``).
"""
from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Sequence

import click

HELP = {"help_option_names": ["-h", "--help"]}


class Command(click.Command):
    """A click command that keeps its argument list in ``ctx.meta["argv"]`` (results record
    the command that made them)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["argv"] = list(args)
        return super().parse_args(ctx, args)


def bench_command(name: str, short_help: str, help: str | None = None) -> Callable:
    """Decorator: a benchmark command whose function returns its exit status."""
    def wrap(f: Callable) -> click.Command:
        @functools.wraps(f)
        def callback(**kw):
            click.get_current_context().exit(f(**kw) or 0)
        return click.command(name, cls=Command, context_settings=HELP, short_help=short_help,
                             help=help or f.__doc__)(callback)
    return wrap


def argv() -> list[str]:
    """The arguments of the command being run."""
    return click.get_current_context().meta.get("argv", [])


def run_command(cmd: click.Command, args: Sequence[str] | None, prog: str) -> int:
    """Runs ``cmd`` on ``args`` (default: the process's) and returns its exit status: 2 after
    a bad command line, said on one line as ``ompcl: error: ...``."""
    try:
        rv = cmd.main(list(sys.argv[1:] if args is None else args), prog_name=prog,
                      standalone_mode=False)
    except click.UsageError as e:
        print(f"ompcl: error: {e.format_message()}", file=sys.stderr)
        return 2
    except click.Abort:
        print("ompcl: interrupted", file=sys.stderr)
        return 130
    return rv if isinstance(rv, int) else 0


class LazyGroup(click.Group):
    """A group whose commands live in modules imported only when one is used (matplotlib,
    tqdm and the benchmarks' trees stay out of ``ompcl translate``)."""

    def __init__(self, *a, lazy: dict[str, str] | None = None, **kw):
        super().__init__(*a, **kw)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module, attr = self.lazy[name].rsplit(":", 1)
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)
