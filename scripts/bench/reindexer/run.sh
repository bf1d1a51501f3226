#!/usr/bin/env bash
# Reindexer and index splitter benchmark (issue 33): `ta import` of a JSONL corpus, then a
# reindex of all its documents, a reindex of a field subset with a rename, a random sample
# and an index split, each timed in the same run on the same index; docs/s, CPU seconds,
# peak RSS and each one's ratio to the import. The target: a copy within 1.5x of the import.
# Not part of CI (minutes of machine time).
#
# usage: scripts/bench/reindexer/run.sh
# env:   PEERS_DIR  peer kit (corpora.sh)       [../shared/peers next to the checkout]
#        CORPORA    corpora directory           [.cache/peers/corpora, built with corpora.sh]
#        DOCS       documents                   [200000]
#        TMPDIR     where the temporary directory goes
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}
if [ ! -f "$CORPORA/en.jsonl" ]; then
  echo "== corpora: $CORPORA" >&2
  bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
fi
echo "== cargo build --release" >&2
nice -n 10 cargo build --release --quiet --bin ta
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ta-reindex-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset TA_SERVER TA_TOKEN TA_SEARCH_URL
exec python3 "$ROOT/scripts/bench/reindexer/bench.py" "${CARGO_TARGET_DIR:-$ROOT/target}/release/ta" "$CORPORA" "$WORK" "${DOCS:-200000}"
