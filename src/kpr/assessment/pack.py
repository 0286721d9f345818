"""The evidence pack: ``report.html``, ``results.json``, ``manifest.json``,
``README.txt`` and the policy as read, written into a temporary folder beside the
target and renamed into place, so nothing is ever half-written."""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from kpr.errors import InputError
from kpr.inputs.writers import _sigterm_as_exit, check_output_path, write_atomic
from kpr.render.assess import assess_page
from kpr.version import __version__

from .compute import AssessResult

#: The packages whose versions can change a figure.
DEPENDENCIES = ("numpy", "polars", "narwhals", "pyarrow", "scipy")

README = """\
kpr evidence pack
=================

What this folder is: the assessment of a synthetic table against its original by
kpr {version} (`kpr assess`), filed for a data-protection officer.

  report.html    one section per item the controller documents (open in a browser)
  results.json   every figure, the policy's verdicts (schema: kpr docs/schema/assess.schema.json)
  manifest.json  SHA-256 and rows/columns of every input by role, versions, parameters,
                 the exact command
  policy.toml    the controller's policy as read (absent when none was given)

It holds no row of the original and no value of a group of fewer than {min_count}
people; the pairing is referenced by its hash only.

To verify it, with the same files:

  kpr verify {folder} {roles}

exit 0: every hash and figure matches; exit 1: the differences are listed.
"""


def versions() -> dict[str, str | None]:
    """kpr's, Python's and the dependencies' versions (None: not installed)."""
    out: dict[str, str | None] = {"kpr": __version__, "python": platform.python_version()}
    for name in DEPENDENCIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def manifest(result: AssessResult, command: str) -> dict[str, Any]:
    return {
        "schema": "kpr-assess-manifest/1",
        "inputs": {f.role: f.to_dict() for f in result.inputs},
        "versions": versions(),
        "seeds": {"seed": result.parameters.seed},
        "parameters": result.parameters.to_dict(),
        "command": command,
    }


def check_pack_folder(folder: str | os.PathLike[str]) -> Path:
    """Refuse, before any work, a target that exists and is not an empty folder (a
    symlink, even to an empty folder, is refused: the pack replaces what it names)."""
    path = Path(folder)
    if path.is_symlink():
        raise InputError(f"-o {folder}: it is a symbolic link; give a new folder")
    if path.exists() and not path.is_dir():
        raise InputError(f"-o {folder}: it exists and is not a folder; give a new folder")
    if path.is_dir() and any(path.iterdir()):
        raise InputError(f"-o {folder}: the folder is not empty; give a new or empty folder")
    return path


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def pack_files(result: AssessResult, folder: Path, command: str) -> dict[str, bytes]:
    """Every file of the pack by name, as bytes (the policy as it was read)."""
    results = result.to_dict()
    man = manifest(result, command)
    roles = " ".join(
        f"--{f.role.replace('_', '-')} {f.path.name}" for f in result.inputs if f.role != "policy"
    )
    readme = README.format(version=__version__, min_count=result.policy.min_count,
                           folder=folder.name, roles=roles)  # fmt: skip
    files = {
        "results.json": _dump(results),
        "manifest.json": _dump(man),
        "report.html": assess_page(results, man),
        "README.txt": readme,
    }
    out = {name: text.encode("utf-8") for name, text in files.items()}
    if result.policy_bytes is not None:
        out["policy.toml"] = result.policy_bytes
    return out


def _bytes(data: bytes) -> Callable[[Path], object]:
    return lambda p: p.write_bytes(data)


def _write_all(tmp: Path, files: dict[str, bytes], inputs: list[Path]) -> None:
    for name, data in files.items():
        path = check_output_path(tmp / name, name, inputs)
        write_atomic(path, _bytes(data))
    os.chmod(tmp, 0o755)


def write_pack(result: AssessResult, folder: str | os.PathLike[str], command: str) -> Path:
    """Write the pack to ``folder`` (new or empty): every file through
    ``kpr.inputs.writers`` into a temporary sibling folder, renamed into place once
    whole, so an error or an interruption leaves no pack and no temporary folder."""
    target = check_pack_folder(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    files = pack_files(result, target, command)
    # SIGTERM as SystemExit for the whole folder, as writers does for one file: the
    # temporary folder is removed whatever the moment it comes
    with _sigterm_as_exit():
        tmp = Path(tempfile.mkdtemp(prefix=".kpr-pack-", dir=target.parent))
        try:
            _write_all(tmp, files, [f.path for f in result.inputs])
            check_pack_folder(target)  # still new or empty: nothing came in meanwhile
            os.rename(tmp, target)  # over an empty folder too (POSIX)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return target
