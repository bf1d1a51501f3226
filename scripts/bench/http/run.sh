#!/usr/bin/env bash
# HTTP load benchmark (issue 15 §3): a real `ta serve` (release build) on loopback under wrk, at
# concurrency 1, 16, 64 and 256: regex tag_text on a short text, anonymize_text, search_by_query,
# /mlp/texts/ (when the language data is installed) and the project list. Prints requests/s,
# p50/p99 latency and errors per row, the server's resident memory after warm-up and at the end,
# and whether a trickled (slow) request holds other clients back. Not part of CI.
#
# usage: scripts/bench/http/run.sh [--seconds 10] [--concurrency 1,16,64,256]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
  else sudo apt-get install -y wrk >/dev/null; fi
fi
echo "== cargo build --release" >&2
cargo build --release --quiet --bin ta
exec python3 "$ROOT/scripts/bench/http/bench.py" "${CARGO_TARGET_DIR:-$ROOT/target}/release/ta" "$ROOT/.cache/bench-http" "$@"
