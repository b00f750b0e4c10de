"""The Jinja environment of every template (boilerplate only; user code is printed by
``cprinter``). Templates see the generated-name contract as ``N``."""
from __future__ import annotations

from pathlib import Path

import jinja2

from . import names

ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
                         keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
ENV.globals["N"] = names


def render(template: str, **values) -> str:
    return ENV.get_template(template).render(**values)
