"""The HTML reports: of one evaluation (``kpr evaluate --report``,
``KprResult.to_html``) and of an attacker-knowledge analysis (``kpr analyze
--report``, ``AnalysisResult.to_html``).

The full reports draw plots and need the ``report`` extra (matplotlib); the
compact Jupyter view (``KprResult._repr_html_``) does not. The analysis report
is imported on use (``kpr.report.analysis``), so importing this package stays
light.
"""

from kpr.report.html import render_report, repr_html, write_report
from kpr.report.page import require_matplotlib

__all__ = ["render_report", "repr_html", "require_matplotlib", "write_report"]
