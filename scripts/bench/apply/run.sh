#!/usr/bin/env bash
# Apply benchmark (issue 32): the same model over the same documents as ta's streaming batch
# command (`ta <model> tag < corpus.jsonl`) and as a run over an index (`ta <model> apply`),
# for a regex tagger, a tagger and language processing (`ta mlp` vs `ta mlp-index create`);
# docs/s, peak RSS and anonymous RSS (/proc) and their ratio, at two index sizes (memory must stay
# flat); then a `ta serve` applying a regex tagger to the larger index while a client calls
# tag_text, reporting that call's p50/p99. Not part of CI (minutes of machine time).
#
# usage: scripts/bench/apply/run.sh
# env:   PEERS_DIR  peer kit (corpora.sh)       [../shared/peers next to the checkout]
#        CORPORA    corpora directory           [.cache/peers/corpora, built with corpora.sh]
#        DOCS       documents of the two sizes  ["50000 200000"]
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
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ta-apply-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset TA_SERVER TA_TOKEN TA_SEARCH_URL
exec python3 "$ROOT/scripts/bench/apply/bench.py" "${CARGO_TARGET_DIR:-$ROOT/target}/release/ta" "$CORPORA" "$WORK" ${DOCS:-50000 200000}
