"""The Jinja environment of every template (boilerplate only; user code is printed by
``cprinter``). Templates see the generated-name contract as ``N``."""
from __future__ import annotations

from pathlib import Path

import jinja2

from ..runtime import cache_root
from . import names


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the cache directory: compiling them costs each ``ompcl cc``
    process more than translating a small file."""
    root = cache_root()
    if root is None:
        return None
    d = Path(root, "templates")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(d))


ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
                         keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                         bytecode_cache=_bytecode_cache(), auto_reload=True)
ENV.globals["N"] = names


def render(template: str, **values) -> str:
    return ENV.get_template(template).render(**values)
