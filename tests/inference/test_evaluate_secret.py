"""``kpr evaluate --secret`` (``kpr.evaluate(secret=...)``): the inputs read once for
the rate and the inference, each result equal to its own function's, and the inference
block in the HTML report."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import kpr
from kpr.results import views
from tests.adversarial.conftest import run_cli
from tests.inference.test_cli import KNOWN, files

__all__ = ["files"]

SECRETS = ["<b>sick</b>", "income"]


@pytest.mark.parametrize("with_control", [False, True])
def test_each_result_equals_its_own_function(files: dict[str, Path], with_control: bool) -> None:
    o, a = files["original"], files["avatars"]
    control = {"control": files["control"], "control_subsets": 3, "seed": 4} if with_control else {}
    kinds = {"zip": "categorical", "income": "numeric"}
    rate = kpr.evaluate(o, a, KNOWN, secret=SECRETS, kinds=kinds, **control)
    alone = kpr.evaluate(o, a, KNOWN, kinds={"zip": "categorical"}, **control)
    inferred = kpr.inference(o, a, KNOWN, secret=SECRETS, kinds=kinds, **control).to_dict()
    assert alone.inference is None and "inference" not in alone.to_dict()
    assert rate.inference is not None and rate.inference.to_dict() == inferred
    assert rate.to_dict() == {**alone.to_dict(), "inference": inferred}
    assert (rate.control is None) is not with_control


def test_secrets_refuse_what_would_move_their_classes(files: dict[str, Path]) -> None:
    o, a = files["original"], files["avatars"]
    for options, words in [
        ({"widths": {"zip": 2}}, "drop widths= (--width) and metadata= (--metadata)"),
        ({"grid_offset": 0.5}, "drop grid_offset= (--grid-offset)"),
        ({"secret": "sex"}, "both known and secret"),
    ]:
        with pytest.raises(kpr.InputError, match=re.escape(words)):
            kpr.evaluate(o, a, KNOWN, **{"secret": "income", **options})


def test_the_command_reads_the_inputs_once_and_reports_the_block(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    import kpr.analysis.baselines as loading  # load_inputs: the rate's and the inference's

    calls: list[Any] = []
    real = loading.load

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(loading, "load", counted)
    o, a, c = (str(files[k]) for k in ("original", "avatars", "control"))
    report = tmp_path / "r.html"
    code, out, err = run_cli(
        ["evaluate", o, a, "-k", ",".join(KNOWN), "--secret", ",".join(SECRETS), "--control", c,
         "--control-subsets", "3", "--report", str(report), "-f", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert len(calls) == 1  # one load for the rate and the inference
    data = json.loads(out)
    page = report.read_text("utf-8")
    assert 'id="inference"' in page and "What the attacker infers" in page
    assert "<b>sick</b>" not in page and "&lt;b&gt;sick&lt;/b&gt;" in page
    assert 'id="secret-1"' in page and 'id="control-0"' in page
    assert [s["secret"] for s in data["inference"]["secrets"]] == SECRETS
    linked = data["inference"]["secrets"][0]["linked"]
    assert f"{linked:,}" in page


def test_a_report_without_secrets_has_no_block(files: dict[str, Path]) -> None:
    pytest.importorskip("matplotlib")
    rate = kpr.evaluate(files["original"], files["avatars"], KNOWN)
    assert 'id="inference"' not in rate.to_html()
    with pytest.raises(TypeError, match="no section"):
        views.section_html(rate)
