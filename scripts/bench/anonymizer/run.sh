#!/usr/bin/env bash
# Anonymizer benchmark: ta's streaming `anonymizer run` vs texta-anonymizer (the reference), same mails and
# names (the peer kit's configs/anonymizer_en.json on the SpamAssassin corpus), plus an exact output check with
# fixed replacers; prints a short table with texts/s of both and the ratio.
# Not part of CI (needs Python, the registries and minutes of machine time).
#
# usage: scripts/bench/anonymizer/run.sh [--repeats N] [--limit N]
# env:   PEERS_DIR  peer kit            [../shared/peers next to the checkout]
#        PEERS_VENV peer venv           [.cache/peers/venv, built with the kit's setup.sh]
#        CORPORA    corpora directory   [.cache/peers/corpora, built with the kit's corpora.sh]
# Fails (non-zero) when a peer cannot be installed, a run fails or the outputs disagree.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"  # relative paths in the variables below are taken from the checkout root
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}

[ -f "$PEERS_DIR/bench_anonymizer.py" ] || { echo "run.sh: no peer kit at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
echo "== peers: $PEERS_VENV" >&2
bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2 || { echo "run.sh: peer setup failed" >&2; exit 1; }
"$PEERS_VENV/bin/python" -c "import texta_anonymizer" \
  || { echo "run.sh: texta-anonymizer is missing from $PEERS_VENV" >&2; exit 1; }
if [ ! -f "$CORPORA/labelled.jsonl" ]; then
  echo "== corpora: $CORPORA" >&2
  bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
fi
echo "== cargo build --release" >&2
cargo build --release --quiet --bin ta
TA="${CARGO_TARGET_DIR:-$ROOT/target}/release/ta"
exec python3 "$ROOT/scripts/bench/anonymizer/bench.py" "$TA" "$PEERS_DIR" "$PEERS_VENV" \
  "$CORPORA/labelled.jsonl" "$ROOT/.cache/peers/work" "$@"
