"""Static fallbacks for kslab's widgets: what a saved notebook shows where no widget code runs.

GitHub, nbviewer and nbconvert's HTML show a widget output by its ``text/html`` (or, without
one, its ``text/plain``: ``DriverExplorer(children=(HBox(...``). ``StaticFallback`` adds both
to a widget's display bundle: the widget tree rendered as plain HTML (every HTML view's
content, every tab's page under its title, controls as their label and value; buttons left
out) and a one-line summary. Jupyter front ends with the widget manager keep rendering the
live widget: its view mime type ranks above ``text/html``. Invariant: the fallback is computed
from the widgets' own values when the output is displayed, so it is exactly what the widget
showed then (a later change of the live widget is not written back into the saved output).
"""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as w

__all__ = ["StaticFallback", "static_html"]

_STYLE = ("<style>.kslab-static{border-left:3px solid #ddd;padding-left:8px}"
          ".kslab-static-tab{font-weight:bold;margin:6px 0 2px}</style>")


def static_html(widget: Any) -> str:
    """``widget`` and its children as plain HTML, as it looks now."""
    if getattr(widget, "layout", None) is not None and widget.layout.display == "none":
        return ""
    if isinstance(widget, w.Tab):
        titles = list(widget.titles)
        return "".join(
            f'<div class="kslab-static-tab">{escape(titles[i] if i < len(titles) else "")}'
            f"</div>{static_html(child)}" for i, child in enumerate(widget.children))
    if isinstance(widget, w.Box):
        parts = [static_html(child) for child in widget.children]
        joined = "".join(p for p in parts if p)
        if isinstance(widget, w.HBox):
            return f'<div style="display:flex;flex-wrap:wrap;gap:12px">{joined}</div>'
        return f"<div>{joined}</div>"
    if isinstance(widget, (w.HTML, w.HTMLMath)):
        return f"<div>{widget.value}</div>"
    if isinstance(widget, (w.Button, w.ToggleButton, w.Play, w.IntProgress, w.FloatProgress)):
        return ""  # controls that only act; their effect is in the views
    if isinstance(widget, w.ValueWidget):
        label = escape(getattr(widget, "description", "") or "")
        value = escape(str(widget.value))
        return f"<div>{label + ': ' if label else ''}<code>{value}</code></div>"
    return ""


class StaticFallback:
    """Mixin for an ipywidgets ``DOMWidget`` subclass: its display bundle carries
    ``text/html`` (``static_html``, with a note that it is a saved picture) and a short
    ``text/plain`` (``static_text``) beside the live widget view."""

    def static_text(self) -> str:
        """The one line a plain-text viewer shows."""
        return f"<kslab {type(self).__name__}: open in Jupyter to use it>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        if bundle is None:
            return None
        bundle["text/plain"] = self.static_text()
        bundle["text/html"] = (
            f'{_STYLE}<div class="kslab-static {type(self).__name__}">'
            f'<div class="kslab-muted"><i>{escape(type(self).__name__)}, as it was when this '
            f"output was made (a static copy: run the notebook to use the widget)</i></div>"
            f"{static_html(self)}</div>")
        return bundle
