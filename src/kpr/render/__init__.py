"""The HTML reports: of one evaluation (``kpr evaluate --report``,
``KprResult.to_html``) and of an attacker-knowledge analysis (``kpr analyze
--report``, ``AnalysisResult.to_html``).

The full reports draw plots and need the ``report`` extra (matplotlib, imported
only when a plot is drawn); the compact Jupyter views do not. ``registry``
registers each result type's views in ``kpr.results.views``, which is how
``to_html``/``_repr_html_`` reach them without results importing renderers; it is
loaded on the first page asked for. This package itself imports nothing, so that
``kpr.render.risk`` (the advice the command line prints) comes without the pages.
"""
