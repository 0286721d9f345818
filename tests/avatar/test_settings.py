"""``GeneratorSettings``: one object for the generator's options, built by the CLI's one
decorator, written back as command-line arguments that parse to an equal object."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kpr.avatar import GeneratorSettings, generate, generate_with
from kpr.cli.avatar import GENERATOR_PARAMS, avatarize_command, settings_of
from kpr.cli.ksweep import reproduce_command, sweep_command, tune_command
from kpr.inputs.reading import ReadSettings

#: Column names, including the awkward ones: commas, quotes, spaces, non-ASCII, dashes.
NAMES = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1
).filter(lambda s: s == s.strip())

SETTINGS = st.builds(
    GeneratorSettings,
    k=st.integers(1, 10**6),
    ncp=st.integers(1, 50),
    seed=st.none() | st.integers(0, 2**63 - 1),
    synthesis=st.sampled_from(["full", "reduced"]),
    decoding=st.sampled_from(["draw", "mode"]),
    categorical=st.lists(NAMES, max_size=3).map(tuple),
    numeric=st.lists(NAMES, max_size=3).map(tuple),
    keep_identifiers=st.lists(NAMES, max_size=2).map(tuple),
    drop=st.lists(NAMES, max_size=2).map(tuple),
)


def parse(args: list[str]) -> GeneratorSettings:
    """What ``kpr avatarize`` builds from these arguments (parsed, not run)."""
    ctx = avatarize_command.make_context("avatarize", ["in.csv", "-o", "out.csv", *args])
    return settings_of(ctx.params)


@given(SETTINGS)
def test_to_args_parses_back_to_an_equal_object(settings: GeneratorSettings) -> None:
    assert parse(settings.to_args()) == settings


def test_defaults_and_a_name_with_a_comma() -> None:
    assert parse([]) == GeneratorSettings()  # the command line's defaults are the API's
    odd = GeneratorSettings(k=7, seed=3, categorical=("income, net", 'say "hi"'))
    assert parse(odd.to_args()) == odd
    command = reproduce_command("my data.csv", odd, ReadSettings(";", None, ("", "NA")))
    assert command.startswith("kpr avatarize 'my data.csv' -o avatars.parquet --k 7 --seed 3")
    assert command.endswith("--delimiter ';' --na-value NA")


def test_one_decorator_for_the_three_commands() -> None:
    """avatarize, sweep and tune take the generator's options from the same decorator:
    the same option names, types and defaults."""

    def described(command: object) -> dict[str, tuple[object, ...]]:
        return {
            p.name: (tuple(p.opts), p.default, type(p.type).__name__)
            for p in command.params  # type: ignore[attr-defined]
            if p.name in GENERATOR_PARAMS
        }

    first = described(avatarize_command)
    assert len(first) == 7
    assert described(sweep_command) == first == described(tune_command)


def test_generate_with_equals_generate() -> None:
    rng = np.random.default_rng(0)
    table = pl.DataFrame({"a": rng.normal(size=60), "b": rng.choice(["x", "y", "z"], 60)})
    settings = GeneratorSettings(k=4, ncp=2, seed=11, decoding="mode", categorical=("b",))
    direct = generate(table, k=4, ncp=2, seed=11, categorical_decoding="mode", categorical=["b"])
    assert generate_with(table, settings).avatars.equals(direct.avatars)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.k = 5


def test_sweep_takes_the_settings_whole_or_as_keywords() -> None:
    from kpr.avatar import sweep

    rng = np.random.default_rng(0)
    table = pl.DataFrame({"a": rng.integers(0, 50, 120), "b": rng.choice(["x", "y"], 120)})
    by_keywords = sweep(table, ["a", "b"], ks=(3,), seed=4, ncp=2, categorical_decoding="mode")
    whole = GeneratorSettings(seed=4, ncp=2, decoding="mode")
    for result in (
        sweep(table, ["a", "b"], ks=(3,), generator=whole),
        sweep(table, ["a", "b"], ks=(3,), seed=4, generator=dataclasses.replace(whole, seed=None)),
    ):
        assert result.rows[0].kpr == by_keywords.rows[0].kpr
        assert result.generator == by_keywords.generator == whole
        assert result.settings(3, 1) == dataclasses.replace(whole, k=3, seed=5)


def test_sweep_leaves_the_drop_columns_out() -> None:
    """``drop`` in the settings is honoured by the API as by ``--drop``: the sweep equals
    the sweep of the table without those columns; a misspelt one is refused."""
    from kpr.avatar import sweep
    from kpr.errors import InputError

    rng = np.random.default_rng(1)
    table = pl.DataFrame(
        {"a": rng.integers(0, 50, 120), "b": rng.choice(["x", "y"], 120), "z": rng.normal(size=120)}
    )
    dropped = sweep(table, ["a", "b"], ks=(3,), generator=GeneratorSettings(seed=2, drop=("z",)))
    without = sweep(table.drop("z"), ["a", "b"], ks=(3,), seed=2)
    assert dropped.rows[0].kpr == without.rows[0].kpr
    assert dropped.rows[0].utility.to_dict() == without.rows[0].utility.to_dict()
    with pytest.raises(InputError, match="did you mean 'z'"):
        sweep(table, ["a"], ks=(3,), generator=GeneratorSettings(seed=2, drop=("zz",)))
