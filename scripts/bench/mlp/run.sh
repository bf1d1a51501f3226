#!/usr/bin/env bash
# The MLP benchmark end to end (mlp.md §11): fetches and extracts the benchmark corpora when
# missing, sets up the spaCy venv for the A2 proxy, builds ta (release), exports the seeded
# samples, runs the Python peers on them (proxies.py) and prints `ta mlp bench`'s table.
# Exits non-zero when a figure misses its target or a data file is missing.
#
# Usage: scripts/bench/mlp/run.sh [extra `ta mlp bench` flags, e.g. --json]
# Env:   TA_MLP_DATA (directory holding mlp/, default data/), TA_MLP_BENCH (corpora,
#        default .cache/mlp/bench), TA (a ta binary; default: cargo build --release)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
CACHE="$ROOT/.cache/mlp"
BENCH="${TA_MLP_BENCH:-$CACHE/bench}"
export TA_MLP_DATA="${TA_MLP_DATA:-$ROOT/data}"

# 1–3. corpora, peers' venvs, ta (TA)
source "$ROOT/scripts/bench/mlp/prepare.sh"

# 4. samples → peers → table
"$TA" mlp bench --corpus "$BENCH" --export "$BENCH/samples.json"
# a peer that fails is recorded in peers.json, and its rows say "not measured: why"
nice "$CACHE/venv/bin/python" "$ROOT/scripts/bench/mlp/proxies.py" "$BENCH/samples.json" "$BENCH/peers.json" \
  --spacy-python "$CACHE/spacy-venv/bin/python" || echo "run.sh: some peers failed (see the table)" >&2
"$TA" mlp bench --corpus "$BENCH" --peers "$BENCH/peers.json" "$@"
