"""The template of a notice as a page for the person: plain HTML with every value escaped, no
script and no style from elsewhere, so it reads the same opened from a file, sent by mail or
served under the service's content security policy."""

from __future__ import annotations

import functools
from typing import Any

from ..exceptions import InputError


@functools.cache
def template() -> Any:
    """The Jinja2 template ``templates/notice.html``, every value escaped."""
    try:
        import jinja2
    except ImportError:
        raise InputError("a notice as HTML needs Jinja2: pip install 'mc3g[serve]'") from None
    environment = jinja2.Environment(loader=jinja2.PackageLoader("mc3g.notice", "templates"), autoescape=True, undefined=jinja2.StrictUndefined)
    return environment.get_template("notice.html")
