#!/usr/bin/env bash
# Set up a fresh machine and run every check: lint, types, tests.
# Used as is by CI (.ci/run) and quoted at the top of the README.
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
.venv/bin/python -m pip install -q -e '.[test,report,spark,dask]'

echo "== ruff"
.venv/bin/ruff check src tests tests_sdmetrics benchmarks scripts
.venv/bin/ruff format --check src tests tests_sdmetrics
echo "== mypy"
.venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest "$@"

# SDMetrics pins pandas < 3: the SDMetrics metric is tested in its own environment,
# with the latest SDMetrics, as a user installs it (pip install 'kpr[sdmetrics]').
echo "== sdmetrics (own environment)"
python3 -m venv .venv-sdmetrics
.venv-sdmetrics/bin/python -m pip install -q --upgrade pip
.venv-sdmetrics/bin/python -m pip install -q --upgrade -e '.[sdmetrics]' pytest
.venv-sdmetrics/bin/python -m pytest -p no:cacheprovider tests_sdmetrics
