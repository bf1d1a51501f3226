# Sourced by the model benchmarks' run.sh: `run_driver DRIVER CORPUS_FILE WORK_NAME ARGS...`
# installs the peer kit's venv (its setup.sh), fetches the corpora when CORPUS_FILE is missing
# (its corpora.sh), builds ta in release mode and replaces the shell with
# `python DRIVER TA PEERS_DIR PEERS_VENV CORPORA/CORPUS_FILE .cache/peers/WORK_NAME ARGS...`
# (CORPUS_FILE "." passes the corpora directory itself).
# env: PEERS_DIR  peer kit           [../shared/peers next to the checkout]
#      PEERS_VENV peer venv          [.cache/peers/venv]
#      CORPORA    corpora directory  [.cache/peers/corpora]
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
PEERS_DIR=${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/peers}
PEERS_VENV=${PEERS_VENV:-$ROOT/.cache/peers/venv}
CORPORA=${CORPORA:-$ROOT/.cache/peers/corpora}

run_driver() {
  local driver=$1 corpus=$2 work=$3
  shift 3
  [ -f "$PEERS_DIR/setup.sh" ] || { echo "run.sh: no peer kit at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; }
  bash "$PEERS_DIR/setup.sh" "$PEERS_VENV" >&2 || { echo "run.sh: peer setup failed" >&2; exit 1; }
  local probe=$corpus
  [ "$corpus" = . ] && probe=en.jsonl
  [ -f "$CORPORA/$probe" ] || bash "$PEERS_DIR/corpora.sh" "$CORPORA" >&2
  echo "== cargo build --release" >&2
  cargo build --release --quiet --bin ta
  local ta="${CARGO_TARGET_DIR:-$ROOT/target}/release/ta"
  local data="$CORPORA/$corpus"
  [ "$corpus" = . ] && data=$CORPORA
  exec "$PEERS_VENV/bin/python" "$ROOT/$driver" "$ta" "$PEERS_DIR" "$PEERS_VENV" "$data" "$ROOT/.cache/peers/$work" "$@"
}
