"""The HTML reports: of one evaluation (``kpr evaluate --report``,
``KprResult.to_html``) and of an attacker-knowledge analysis (``kpr analyze
--report``, ``AnalysisResult.to_html``).

The full reports draw plots and need the ``report`` extra (matplotlib, imported
only when a plot is drawn); the compact Jupyter views do not. Importing this
package registers each result type's views in ``kpr.results.views``, which is
how ``to_html``/``_repr_html_`` reach them without results importing renderers.
"""

from kpr.render import analysis, ksweep, utility
from kpr.render.html import render_report, repr_html, write_report
from kpr.render.page import require_matplotlib
from kpr.results import views
from kpr.results.analysis import AnalysisResult
from kpr.results.evaluation import KprResult
from kpr.results.ksweep import SweepOverK
from kpr.results.utility import UtilityResult

views.register(KprResult, views.Views(render_report, write_report, repr_html))
views.register(
    AnalysisResult,
    views.Views(analysis.render_analysis, analysis.write_analysis, analysis.repr_analysis),
)
views.register(SweepOverK, views.Views(ksweep.render_sweep, ksweep.write_sweep, ksweep.repr_sweep))
views.register(
    UtilityResult,
    views.Views(utility.render_utility, utility.write_utility, utility.repr_utility),
)

__all__ = ["render_report", "repr_html", "require_matplotlib", "write_report"]
