#!/usr/bin/env bash
# Set up a fresh machine and run every check: lint, types, tests.
# Used as is by CI (.ci/run) and quoted at the top of the README; each step is
# described in docs/development.md.
set -euo pipefail
cd "$(dirname "$0")/.."

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

echo "== python environment"
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,report,spark,dask,docs]'

echo "== ruff"
.venv/bin/ruff check src tests tests_sdmetrics benchmarks scripts
.venv/bin/ruff format --check src tests tests_sdmetrics
echo "== mypy"
.venv/bin/mypy
echo "== docs (mkdocs build --strict: a warning is an error)"
.venv/bin/mkdocs build --strict --quiet
echo "== pytest"
.venv/bin/python -m pytest "$@"

# SDMetrics pins pandas < 3: the SDMetrics metric is tested in its own environment,
# with the latest SDMetrics, as a user installs it (pip install 'kpr[sdmetrics]').
echo "== sdmetrics (own environment)"
python3 -m venv .venv-sdmetrics
.venv-sdmetrics/bin/python -m pip install -q --upgrade pip
.venv-sdmetrics/bin/python -m pip install -q --upgrade -e '.[sdmetrics]' pytest
.venv-sdmetrics/bin/python -m pytest -p no:cacheprovider tests_sdmetrics

# The bounds in pyproject.toml must be true: the suite (engines but Spark) also runs
# with every direct dependency at the lowest version pyproject allows, and on the
# newest Python it claims. KPR_SKIP_BOUNDS=1 skips both (local runs).
if [ "${KPR_SKIP_BOUNDS:-0}" != "1" ]; then
  .venv/bin/python -m pip install -q uv
  UV=.venv/bin/uv
  SLICE=(-q -p no:cacheprovider --deselect tests/test_readme.py tests)

  echo "== pytest at the lowest direct versions"
  start=$SECONDS
  "$UV" venv -q --allow-existing --python .venv/bin/python .venv-lowest
  "$UV" pip install -q --python .venv-lowest/bin/python --resolution lowest-direct \
    -e '.[test,report,dask]'
  .venv-lowest/bin/python -m pytest "${SLICE[@]}" -k "not spark"
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
    echo "== pytest on Python $newest ($py)"
    start=$SECONDS
    "$UV" venv -q --allow-existing --python "$py" .venv-newest
    "$UV" pip install -q --python .venv-newest/bin/python -e '.[test,report,dask]'
    .venv-newest/bin/python -m pytest "${SLICE[@]}" -k "not spark"
    echo "== Python $newest: $((SECONDS - start)) s"
  else
    echo "== Python $newest (the newest pyproject claims) not found: not tested here" >&2
  fi
fi
