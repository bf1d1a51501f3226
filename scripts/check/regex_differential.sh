#!/usr/bin/env bash
# Differential check of the regex tagger matcher against the reference implementation
# (texta-lexicon-matcher, from the peer kit's venv): random configs and texts, both
# matchers, every difference printed. Not part of CI (needs the peer venv).
#
# usage: scripts/check/regex_differential.sh [--seed N] [--cases N]
# env:   PEERS_DIR, PEERS_VENV as for scripts/bench/regex/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2
cargo build --release --quiet
RELEASE="${CARGO_TARGET_DIR:-$ROOT/target}/release"
WORK="$ROOT/.cache/peers/work"
mkdir -p "$WORK"
serde_json=$(ls -t "$RELEASE"/deps/libserde_json-*.rlib | head -1)
rustc --edition 2021 -O scripts/check/regex_harness.rs --extern ta="$RELEASE/libta.rlib" \
  --extern serde_json="$serde_json" -L dependency="$RELEASE/deps" -o "$WORK/regex_harness"
exec "$PEERS_VENV/bin/python" scripts/check/regex_differential.py "$WORK/regex_harness" "$@"
