"""The gensim side of scripts/bench/embedding/run.sh, run in the peer venv as its own process (so
its time and peak RSS are its own): gensim `Phrases` on ta's processed sentences, gensim's
phrasing of them against ta's, and `Word2Vec` CBOW on ta's phrased sentences with each seed, with
the settings ta uses (models.md §3). Prints one JSON object.

usage: gensim_side.py PROCESSED.jsonl PHRASED.jsonl CONFIG.json WORDS.json [--seeds 1,2] [--topn 10]
PROCESSED / PHRASED: `ta embedding sentences` without and with --embedding; WORDS: the query words.
"""
import argparse
import json
import time

from gensim.models import Word2Vec
from gensim.models.phrases import Phrases


def sentences(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("processed"), p.add_argument("phrased"), p.add_argument("config"), p.add_argument("words")
    p.add_argument("--seeds", default="1,2")
    p.add_argument("--topn", type=int, default=10)
    a = p.parse_args()
    cfg = json.load(open(a.config))
    processed, phrased = sentences(a.processed), sentences(a.phrased)
    words = json.load(open(a.words))
    start = time.perf_counter()
    phrases = Phrases(processed, min_count=5, threshold=10.0)
    frozen = phrases.freeze()
    ours = [frozen[s] for s in processed]
    phrase_seconds = time.perf_counter() - start
    out = {
        "phrases": phrases.export_phrases(),
        "phrase_seconds": phrase_seconds,
        "phrased_differences": sum(1 for x, y in zip(ours, phrased) if x != y) + abs(len(ours) - len(phrased)),
        "runs": {},
    }
    for seed in map(int, a.seeds.split(",")):
        start = time.perf_counter()
        model = Word2Vec(phrased, vector_size=cfg.get("num_dimensions", 100), window=cfg.get("window_size", 5),
                         min_count=cfg.get("min_freq", 5), epochs=cfg.get("num_epochs", 5), sg=0, hs=0, negative=5,
                         sample=1e-3, alpha=0.025, min_alpha=0.0001, seed=seed, workers=1)
        seconds = time.perf_counter() - start
        wv = model.wv
        if "vocabulary" not in out:
            out["vocabulary"] = {w: int(wv.get_vecattr(w, "count")) for w in wv.index_to_key}
        out["runs"][seed] = {
            "train_seconds": seconds,
            "neighbours": {w: [n for n, _ in wv.most_similar(w, topn=a.topn)] for w in words if w in wv.key_to_index},
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
