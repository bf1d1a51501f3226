#!/usr/bin/env bash
# Neural tagger benchmark: `ta torchtagger train` (fastText, TextRNN, RCNN; 3 seeds each) on the
# every-5th split of labelled.jsonl (spam vs ham) with an embedding `ta embedding train` made from
# the training part, then `ta torchtagger tag` over the held-out part; beside it the peer kit's
# scikit-learn pipeline (bench_classifier.py --peer sklearn, the figure the acceptance line is
# drawn from) on the same file in the same run. Prints per architecture the median F1 macro, the
# seed spread, training seconds, tagging docs/s and peak RSS, and the time to train 10,000
# documents x 5 epochs. Not part of CI (needs Python, the registries and many minutes).
#
# usage: scripts/bench/torchtagger/run.sh [--architectures fastText,TextRNN,RCNN] [--seeds 42,43,44]
#                                         [--epochs 5] [--optimizer adam|sgd] [--no-timing] [--no-peer]
# env:   PEERS_DIR, PEERS_VENV, CORPORA (scripts/bench/peers.sh)
set -euo pipefail
source "$(dirname "$0")/../peers.sh"
run_driver scripts/bench/torchtagger/bench.py labelled.jsonl work-torchtagger "$@"
