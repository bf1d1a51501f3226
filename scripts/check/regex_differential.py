#!/usr/bin/env python3
"""Differential check of ta's regex tagger matcher against the reference (texta-lexicon-matcher).

usage: regex_differential.py HARNESS [--seed N] [--cases N]
Generates random tagger configs (every parameter, including phrase_slop with fuzzy edits and
lexicon entries with regex repeats) and random texts (English, Estonian and Russian words,
punctuation, extra spaces), runs each case through the reference's LexiconMatcher and through
HARNESS (ta's Matcher), and prints the cases whose matches differ, then `N cases, M differ`.
Exits 1 when any case differs.
"""
import argparse
import json
import random
import subprocess
import sys

from texta_lexicon_matcher.lexicon_matcher import LexiconMatcher

WORDS = ["cat", "dog", "big dog", "black cat", "house", "kass", "koer", "suur koer", "tere", "hello world",
         "the cat", "sat", "mat", "red", "fox", "quick brown", "jumps", "õun", "süsi", "кот", "большой дом"]
REGEXES = [r"a\s*b", r"ab*c", r"(ab){,2}c", r"a\s*(b\s+)?c", r"a b", r"ab+", r"a(b|c)d", r"a\w*b",
           r"x\s*(\S+\s+){,2}y", r"cab", r"a\s+b", r"ko\w+", r"(?<!x)ab"]
TEXT_WORDS = ["the", "cat", "cats", "dog", "dgo", "big", "bigg", "black", "blak", "house", "hous", "kass",
              "koer", "suur", "tere", "hello", "helo", "world", "sat", "on", "mat", "red", "fox", "quick",
              "brown", "jumps", "a", "Cat", "DOG", "kaas", "catt", "ct", "õun", "ÕUN", "süsi", "кот", "Кот",
              "дом", "большой", ",", ".", "!", "?", "-", "ab", "abc", "xy", "x", "y", "cab", "abbc"]


def case(rng):
    pool = REGEXES if rng.random() < 0.3 else WORDS
    cfg = {"lexicon": rng.sample(pool, rng.randint(1, 3)), "counter_lexicon": rng.sample(WORDS, rng.randint(0, 1)),
           "operator": rng.choice(["or", "and"]), "match_type": rng.choice(["prefix", "exact", "subword"]),
           "required_words": rng.choice([1.0, 0.5]), "phrase_slop": rng.choice([0, 1, 2]),
           "counter_slop": rng.choice([0, 1, 2]), "n_allowed_edits": rng.choice([0, 1, 2]),
           "return_fuzzy_match": rng.choice([True, False]), "ignore_case": rng.choice([True, False]),
           "ignore_punctuation": rng.choice([True, False])}
    sep = lambda: rng.choice([" ", " ", " ", "  ", ""])
    text = "".join(rng.choice(TEXT_WORDS) + sep() for _ in range(rng.randint(1, 12)))
    return {"config": cfg, "text": text}


def spans(matches):
    return [{"str_val": m["str_val"], "span": list(m["span"])} for m in matches]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("harness")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=5000)
    a = p.parse_args()
    rng = random.Random(a.seed)
    cases = [case(rng) for _ in range(a.cases)]
    run = subprocess.run([a.harness], input="".join(json.dumps(c) + "\n" for c in cases),
                         capture_output=True, text=True, check=True)
    differ = 0
    for c, line in zip(cases, run.stdout.splitlines()):
        cfg = dict(c["config"])
        lexicon = cfg.pop("lexicon")
        try:
            ref = spans(LexiconMatcher(lexicon, **cfg).get_matches(c["text"]))
        except Exception as e:  # the reference rejects the config or crashes on it
            ref = f"error: {e!r}"
        got = json.loads(line)
        ours = spans(got["matches"]) if "matches" in got else f"error: {got['error']}"
        if isinstance(ref, str) and isinstance(ours, str):
            continue
        if ref != ours:
            differ += 1
            if differ <= 10:
                print(json.dumps(c, ensure_ascii=False), "\n  reference:", ref, "\n  ta:       ", ours)
    print(f"{a.cases} cases, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
