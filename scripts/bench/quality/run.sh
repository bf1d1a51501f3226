#!/usr/bin/env bash
# Model quality suite: ta's taggers (every vectorizer x classifier), tagger groups and torch taggers
# beside the reference tagger (texta-tagger, the peer kit's package) and scikit-learn, on held-out
# test splits of the peer kit's corpora fixed by seed: per language (et, en, ru) a binary task (one
# LibreOffice help module against the rest) and a 5-topic task (five help modules), plus the
# labelled mail (spam vs ham). Training samples are balanced as taggers train (the same sample for
# ta and the reference); scikit-learn also trains on all the non-test data. Prints one table: F1
# macro (top-1 for groups) as the median and spread over the seeds, train time, prediction rate.
# Not part of CI (needs Python, the registries and many minutes).
#
# usage: scripts/bench/quality/run.sh [--size 3000] [--seeds 1,2,3] [--langs et,en,ru,mail]
#                                     [--parts taggers,groups,torch] [--configs tfidf-lr,...]
# env:   PEERS_DIR, PEERS_VENV, CORPORA (scripts/bench/peers.sh)
set -euo pipefail
source "$(dirname "$0")/../peers.sh"
run_driver scripts/bench/quality/bench.py . work-quality "$@"
