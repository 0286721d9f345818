"""``kpr assess`` / ``kpr verify`` on hostile inputs and outputs: every bad input is
one line (exit 2) and writes nothing; the pack goes through ``kpr.inputs.writers``
into a temporary folder, so no interruption leaves a pack or a temporary behind."""

from __future__ import annotations

import json
import os
import shlex
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

import kpr
from kpr.assessment import pack as pack_module
from kpr.assessment import write_pack
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error, assess_argv, write
from tests.conftest import run_cli


#: A small table whose names hold spaces and accents (the house's hostile names).
def _table(rows: range, age: int = 18) -> str:
    return "âge en années;sexe;revenu net\n" + "".join(
        f"{age + i % 9};{'FM'[i % 2]};{'NA' if i % 5 == 0 else ('bas', 'haut')[i % 3 == 0]}\n"
        for i in rows
    )


TABLE = _table(range(60))


@pytest.fixture
def table(tmp_path: Path) -> Path:
    return Path(write(tmp_path / "données originales.csv", TABLE))


def _args(original: Path | str, synthetic: Path | str, out: Path, *extra: str) -> list[str]:
    return assess_argv(original, synthetic, out, "âge en années,sexe", "--delimiter", ";", *extra)


def _only(folder: Path) -> list[str]:
    """Names in ``folder``: a temporary ``.kpr-pack-*`` left behind would show here."""
    return sorted(p.name for p in folder.iterdir())


# --- reading: every role through the inputs layer, with one ReadSettings ---------------


def test_read_settings_apply_to_every_role_and_round_trip(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pack"
    holdout = write(tmp_path / "holdout.csv", _table(range(45), age=20))
    code, _, err = run_cli(_args(table, table, out, "-s", "revenu net", "--na-value", "NA",
                                 "--holdout", holdout), capsys)  # fmt: skip
    assert code == 0, err
    man = json.loads((out / "manifest.json").read_text("utf-8"))
    read = {"delimiter": ";", "encoding": None, "na_values": ["", "NA"]}
    assert man["parameters"]["read"] == read
    assert man["inputs"]["original"]["columns"] == 3  # the delimiter was applied
    assert "--delimiter ';' --na-value NA" in man["command"]
    # "NA" read as missing: the API with the same settings gives the pack's figures;
    # without the marker "NA" is a third value, and the distances see it
    common = dict(candidates=["âge en années", "sexe"], secret="revenu net", holdout=holdout,
                  delimiter=";")  # fmt: skip
    a = kpr.assess(table, table, na_values=["", "NA"], **common)  # type: ignore[arg-type]
    b = kpr.assess(table, table, **common)  # type: ignore[arg-type]
    assert a.figures == json.loads((out / "results.json").read_text("utf-8"))["figures"]
    dcr = "distance.holdout.median_dcr"
    assert a.figures[dcr] != b.figures[dcr]
    verify = ["verify", str(out), "--original", str(table), "--synthetic", str(table),
              "--holdout", holdout]  # fmt: skip
    code, out_text, _ = run_cli(verify, capsys)
    assert code == 0 and "every hash and figure matches" in out_text
    # the manifest's command writes the same pack again (its options read back)
    words = shlex.split(man["command"])
    words[words.index("--output") + 1] = str(tmp_path / "again")
    assert run_cli(words[1:], capsys)[0] == 0
    again = json.loads((tmp_path / "again" / "manifest.json").read_text("utf-8"))
    assert again["parameters"] == man["parameters"] and again["inputs"] == man["inputs"]
    results = [
        json.loads((d / "results.json").read_text("utf-8")) for d in (out, tmp_path / "again")
    ]
    assert results[0] == results[1]


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda d: str(d / "absent.csv"), "no such file"),
        (lambda d: str(d), "is a directory"),
        (lambda d: write(d / "empty.csv", ""), "is empty"),
        (lambda d: write(d / "header.csv", "âge en années;sexe\n"), "has no row"),
        (lambda d: (d / "latin.csv").write_bytes("âge en années;sexe\n1;é\n".encode("latin-1"))
         and str(d / "latin.csv"), "cannot decode as utf-8"),
    ],
    ids=["missing", "directory", "zero bytes", "header only", "encoding"],
)  # fmt: skip
def test_a_bad_synthetic_is_one_line(
    make: Callable[[Path], str], match: str, table: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    bad = tmp_path / "bad"
    bad.mkdir()
    extra = ["--encoding", "utf-8"] if match.startswith("cannot decode") else []
    assert_cli_refuses(_args(table, make(bad), tmp_path / "pack", *extra), capsys, match)
    assert not (tmp_path / "pack").exists()
    assert ".kpr-pack" not in " ".join(_only(tmp_path))


def test_an_all_missing_secret_is_refused(table: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "o.csv", "a,b,s\n" + "".join(f"{i % 7},{'xy'[i % 2]},\n"
                                                         for i in range(40)))  # fmt: skip
    assert_input_error(lambda: kpr.assess(path, path, candidates=["a", "b"], secret="s"),
                       "'s' is missing in every row")  # fmt: skip


def test_a_pipe_cannot_be_hashed(table: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    assert_input_error(lambda: kpr.assess(table, fifo, candidates=["sexe"], delimiter=";"),
                       "not a regular file")  # fmt: skip


@pytest.mark.parametrize(
    ("policy", "match"),
    [
        ('[criteria.reidentification]\nthreshold = 1\nunit = "points"\n', "unknown criterion"),
        ("[criteria.membership]\nthreshold = 0.6\n", "has no unit"),
        ('[attacker]\ncandidates = ["âge en années", "salaire"]\n', "'salaire', not a column"),
    ],
)
def test_a_bad_policy_is_one_line(
    policy: str, match: str, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "policy.toml", policy)
    assert_cli_refuses(_args(table, table, tmp_path / "pack", "--policy", path), capsys, match)
    assert not (tmp_path / "pack").exists()


def test_a_policy_not_in_utf8_is_one_line(table: Path, tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_bytes('reviewer = "Délégué"\n'.encode("latin-1"))
    assert_input_error(lambda: kpr.assess(table, table, candidates=["sexe"], policy=path,
                                          delimiter=";"), "not UTF-8")  # fmt: skip


# --- the pack folder --------------------------------------------------------------------


def test_a_symlink_in_place_of_the_pack_is_refused(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "pack"
    link.symlink_to(elsewhere, target_is_directory=True)
    assert_cli_refuses(_args(table, table, link), capsys, "symbolic link")
    assert link.is_symlink() and _only(elsewhere) == []


def test_the_folder_of_an_input_is_refused(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert_cli_refuses(_args(table, table, tmp_path), capsys, "not empty")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def _result(table: Path) -> kpr.AssessResult:
    return kpr.assess(table, table, candidates=["âge en années", "sexe"], delimiter=";")


def _kill_on(name_count: int, raise_: Callable[[], None]) -> Callable[[bytes], Callable]:
    """A ``_bytes`` that writes the first files, then writes part of the next one and
    raises (a signal delivered in this thread, or an error: no timing involved)."""
    written: list[bytes] = []

    def writer(data: bytes) -> Callable[[Path], object]:
        def write(p: Path) -> None:
            if len(written) == name_count:
                p.write_bytes(data[: len(data) // 2])
                raise_()
            written.append(data)
            p.write_bytes(data)

        return write

    return writer


def _oserror() -> None:
    raise OSError("disk full")


@pytest.mark.parametrize(
    ("raise_", "raised"),
    [(lambda: signal.raise_signal(signal.SIGTERM), SystemExit),
     (lambda: signal.raise_signal(signal.SIGINT), KeyboardInterrupt), (_oserror, OSError)],
    ids=["SIGTERM", "SIGINT", "error"],
)  # fmt: skip
@pytest.mark.parametrize("after", [0, 2])
def test_an_interrupted_pack_leaves_nothing(
    table: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    raise_: Callable[[], None], raised: type[BaseException], after: int,
) -> None:  # fmt: skip
    result = _result(table)
    monkeypatch.setattr(pack_module, "_bytes", _kill_on(after, raise_))
    before = _only(tmp_path)
    with pytest.raises(raised):
        write_pack(result, tmp_path / "pack", "kpr assess ...")
    assert _only(tmp_path) == before  # no pack, no temporary folder
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_sigterm_between_two_files_leaves_nothing(
    table: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signal comes after a file is in place and before the next one is begun
    (outside every single-file write): the whole pack is still undone."""
    result = _result(table)
    checked: list[Path] = []

    def check(path: Path, option: str, inputs: object) -> Path:
        checked.append(path)
        if len(checked) == 3:
            signal.raise_signal(signal.SIGTERM)
        return path

    monkeypatch.setattr(pack_module, "check_output_path", check)
    before = _only(tmp_path)
    with pytest.raises(SystemExit):
        write_pack(result, tmp_path / "pack", "kpr assess ...")
    assert _only(tmp_path) == before
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_an_empty_folder_is_filled_whole(table: Path, tmp_path: Path) -> None:
    folder = tmp_path / "pack"
    folder.mkdir()
    write_pack(_result(table), folder, "kpr assess ...")
    assert _only(folder) == ["README.txt", "manifest.json", "report.html", "results.json"]
    assert _only(tmp_path) == ["données originales.csv", "pack"]
