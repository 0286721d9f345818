#!/usr/bin/env bash
# Set up a fresh machine and run every check: lint, types, tests.
# Used as is by CI (.ci/run) and quoted at the top of the README; each step is
# described in docs/development.md.
set -uo pipefail
cd "$(dirname "$0")/.."
# Each step's heading says when it starts, in seconds since this script started.
step() { echo "== $* (at ${SECONDS} s)"; }
# A failed check does not stop the others: every check runs, the failures are listed at
# the end and the script exits 1 if there was any. `check NAME CMD…` returns CMD's status,
# so a step's own set-up chains its tests with &&. The main environment is `setup`: if it
# cannot be made, no check can run, so the script stops there.
FAILED=()
check() {
  local name=$1
  shift
  "$@" && return 0
  local rc=$?
  FAILED+=("$name (exit $rc)")
  echo "== FAILED: $name (exit $rc)" >&2
  return $rc
}
setup() { "$@" || { echo "== set-up failed: $*" >&2; exit 1; }; }

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing chromium (browser test of the HTML report)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "== chromium not found and not root: the browser test will be skipped" >&2
  fi
fi

if ! command -v java >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing java (Spark engine tests)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  fi
fi

step "python environment"
setup python3 -m venv .venv
setup .venv/bin/python -m pip install -q --upgrade pip uv
# uv resolves and installs what pip would, in a fraction of pip's time.
UV=.venv/bin/uv
# Bytecode written once, as pip does when it installs a wheel (uv does not unless asked):
# where PYTHONDONTWRITEBYTECODE is set, every process the suite starts (its workers,
# the kpr commands it runs, Spark's and Dask's workers) would otherwise compile again
# each module it imports: numpy, polars, pyarrow, pandas... and kpr itself (editable,
# so compiled apart). Measured on the cluster, process-exit and start-up tests: 75 s
# of CPU against 133 s.
setup "$UV" pip install -q --compile-bytecode --python .venv/bin/python \
  -e '.[test,report,spark,dask,docs]'
.venv/bin/python -m compileall -q src >/dev/null

step "ruff"
check "ruff check" .venv/bin/ruff check src tests tests_sdmetrics benchmarks scripts
check "ruff format" .venv/bin/ruff format --check src tests tests_sdmetrics
step "mypy"
check mypy .venv/bin/mypy
step "docs (mkdocs build --strict: a warning is an error)"
check "mkdocs build" .venv/bin/mkdocs build --strict --quiet
# The suite runs on every core (pytest-xdist); arguments given to this script come after,
# so `bash scripts/test.sh -n 0 -x` runs it in one process. `--dist worksteal`: a worker
# that runs out of tests takes half of the other's queue, so the run does not end on one
# worker still running a long tail. (Not `--dist loadgroup`: with pytest 9.2 and
# pytest-xdist 3.8 it does not keep a group on one worker, as xdist renames
# `item._nodeid`, which pytest 9 no longer reads.)
step "pytest"
start=$SECONDS
check pytest .venv/bin/python -m pytest -n auto --dist worksteal "$@"
echo "== pytest: $((SECONDS - start)) s"

# SDMetrics pins pandas < 3: the SDMetrics metric is tested in its own environment,
# with the latest SDMetrics, as a user installs it (pip install 'kpr[sdmetrics]').
step "sdmetrics (own environment)"
check "sdmetrics venv" python3 -m venv .venv-sdmetrics \
  && check "sdmetrics install" "$UV" pip install -q --python .venv-sdmetrics/bin/python \
    --upgrade -e '.[sdmetrics]' pytest hypothesis \
  && check "pytest (sdmetrics)" .venv-sdmetrics/bin/python -m pytest -p no:cacheprovider tests_sdmetrics

# The bounds in pyproject.toml must be true: the tests that touch the dependencies'
# APIs (engines but Spark, inputs, metric, generator, report) also run with every
# direct dependency at the lowest version pyproject allows, and on the newest Python it
# claims. Not the whole suite again: hostile inputs, the CLI, the docs, the schemas and the
# slow end-to-end sweeps do not depend on a version, and the whole of CI must stay under
# 30 minutes on a 2-core machine. KPR_SKIP_BOUNDS=1 skips both (local runs).
if [ "${KPR_SKIP_BOUNDS:-0}" != "1" ]; then
  # Each entry says which dependency API it holds at its bound. Not in it: tests that
  # only repeat, on random tables, calls these files already make at the bounds
  # (tests/engine/test_hypothesis.py: DuckDB, Dask and polars' hashed path on
  # hypothesis tables, whose API calls test_engines.py and test_conformance.py make on
  # every edge case; tests/analysis/test_shared_sweep.py: the sweep against kpr.evaluate,
  # both on polars); and, by --fixed-cases-only (tests/conftest.py), every other
  # hypothesis test of these files: the fixed cases make the same calls on every edge
  # case, the properties run in the main suite.
  SLICE=(-q -p no:cacheprovider -n auto --dist worksteal -k "not spark" --fixed-cases-only
    tests/engine  # every engine but Spark: polars, pandas, pyarrow, DuckDB, Dask, narwhals
    --ignore=tests/engine/test_hypothesis.py
    tests/inputs  # readers: pyarrow's CSV, polars' CSV and Parquet, pandas, file formats
    tests/test_metric.py tests/metric/test_exact.py tests/test_pairing.py  # the rate: polars, numpy
    tests/avatar/test_generator.py tests/avatar/test_projection.py  # the generator: scipy, saiph
    tests/avatar/test_metrics.py tests/avatar/test_distance.py  # its metrics: scipy, pandas
    tests/render/test_html.py)  # the HTML report: matplotlib

  step "pytest at the lowest direct versions"
  start=$SECONDS
  check "lowest venv" "$UV" venv -q --allow-existing --python .venv/bin/python .venv-lowest \
    && check "lowest install" "$UV" pip install -q --python .venv-lowest/bin/python \
      --resolution lowest-direct -e '.[test,report,dask]' \
    && check "pytest (lowest versions)" .venv-lowest/bin/python -m pytest "${SLICE[@]}"
  echo "== lowest versions: $((SECONDS - start)) s"

  newest=$(sed -n 's/.*"Programming Language :: Python :: \(3\.[0-9]*\)".*/\1/p' pyproject.toml \
    | sort -V | tail -1)
  # the first interpreter that runs (a pyenv shim on PATH may exist and fail)
  py=""
  for cand in \
    "$(command -v pyenv >/dev/null 2>&1 \
      && ls -d "$(pyenv root)"/versions/"$newest".*/bin/python"$newest" 2>/dev/null | tail -1)" \
    "$(command -v "python$newest" || true)" \
    "$("$UV" python find "$newest" 2>/dev/null || true)"; do
    if [ -n "$cand" ] && "$cand" -c 'import sys' >/dev/null 2>&1; then
      py=$cand
      break
    fi
  done
  if [ -n "$py" ]; then
    step "pytest on Python $newest ($py)"
    start=$SECONDS
    check "Python $newest venv" "$UV" venv -q --allow-existing --python "$py" .venv-newest \
      && check "Python $newest install" "$UV" pip install -q \
        --python .venv-newest/bin/python -e '.[test,report,dask]' \
      && check "pytest (Python $newest)" .venv-newest/bin/python -m pytest "${SLICE[@]}"
    echo "== Python $newest: $((SECONDS - start)) s"
  else
    echo "== Python $newest (the newest pyproject claims) not found: not tested here" >&2
  fi
fi
if [ ${#FAILED[@]} -gt 0 ]; then
  step "FAILED: ${#FAILED[@]} check(s)"
  printf '   - %s\n' "${FAILED[@]}"
  exit 1
fi
step "done: every check passed"
