#!/usr/bin/env bash
# Regex tagger benchmark: ta's batch tagging vs the Python peers (texta-lexicon-matcher for
# the 200-entry prefix lexicon + counter lexicon, flashtext/pyahocorasick for the plain
# lexicon), same corpus and config, outputs checked for agreement; prints a short table.
# Not part of CI (needs Python, the registries and minutes of machine time).
#
# usage: scripts/bench/regex/run.sh [--repeats N] [--limit N]
# env:   PEERS_DIR  peer kit            [../shared/peers next to the checkout]
#        PEERS_VENV peer venv           [.cache/peers/venv, built with the kit's setup.sh]
#        CORPORA    corpora directory   [.cache/peers/corpora, built with the kit's corpora.sh]
#        CORPUS     corpus name         [en]
# Fails (non-zero) when a peer cannot be installed, a run fails or the outputs disagree.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"  # relative paths in the variables below are taken from the checkout root
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}
CORPUS=${CORPUS:-en}

[ -f "$PEERS_DIR/bench_regex.py" ] || { echo "run.sh: no peer kit at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
echo "== peers: $PEERS_VENV" >&2
bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2 || { echo "run.sh: peer setup failed" >&2; exit 1; }
"$PEERS_VENV/bin/python" -c "import texta_lexicon_matcher, flashtext, ahocorasick" \
  || { echo "run.sh: a peer package is missing from $PEERS_VENV" >&2; exit 1; }
if [ ! -f "$CORPORA/$CORPUS.jsonl" ]; then
  echo "== corpora: $CORPORA" >&2
  bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
fi
echo "== cargo build --release" >&2
cargo build --release --quiet
RELEASE="${CARGO_TARGET_DIR:-$ROOT/target}/release"
WORK="$ROOT/.cache/peers/work"
mkdir -p "$WORK"
rustc --edition 2021 -O scripts/bench/regex/engine.rs --extern ta="$RELEASE/libta.rlib" \
  -L dependency="$RELEASE/deps" -o "$WORK/engine"
exec python3 scripts/bench/regex/bench.py "$RELEASE/ta" "$WORK/engine" "$PEERS_DIR" "$PEERS_VENV" \
  "$CORPORA/$CORPUS.jsonl" "$WORK" "$@"
