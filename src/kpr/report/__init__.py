"""The HTML report of a result (``kpr evaluate --report``, ``KprResult.to_html``).

The full report draws plots and needs the ``report`` extra (matplotlib); the
compact Jupyter view (``KprResult._repr_html_``) does not.
"""

from kpr.report.html import render_report, repr_html, require_matplotlib, write_report

__all__ = ["render_report", "repr_html", "require_matplotlib", "write_report"]
