"""Registers each result type's HTML views in ``kpr.results.views`` when imported
(``views.RENDERERS`` names this module: the first page asked for loads it)."""

from kpr.render import analysis, inference, ksweep, membership, protect, utility
from kpr.render.html import render_report, repr_html, write_report
from kpr.results import views
from kpr.results.analysis import AnalysisResult
from kpr.results.evaluation import KprResult
from kpr.results.inference import InferenceResult
from kpr.results.ksweep import KSweepResult
from kpr.results.ksweep_tune import TuneResult
from kpr.results.membership import MembershipResult
from kpr.results.protect import ProtectResult
from kpr.results.utility import UtilityResult

views.register(KprResult, views.Views(render_report, write_report, repr_html))
views.register(
    AnalysisResult,
    views.Views(analysis.render_analysis, analysis.write_analysis, analysis.repr_analysis),
)
views.register(
    ProtectResult,
    views.Views(protect.render_protect, protect.write_protect, protect.repr_protect),
)
views.register(
    KSweepResult, views.Views(ksweep.render_sweep, ksweep.write_sweep, ksweep.repr_sweep)
)
views.register(TuneResult, views.Views(ksweep.render_tune, ksweep.write_tune, ksweep.repr_tune))
views.register(
    UtilityResult,
    views.Views(utility.render_utility, utility.write_utility, utility.repr_utility),
)
views.register(
    MembershipResult,
    views.Views(
        membership.render_membership, membership.write_membership, membership.repr_membership
    ),
)
views.register(
    InferenceResult,
    views.Views(
        inference.render_inference,
        inference.write_inference,
        inference.repr_inference,
        inference.inference_section,
    ),
)
