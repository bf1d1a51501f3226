"""Estonian NER checks (ner.md §6): N1 port fidelity, N2 end-to-end agreement, N3 speed.

  et.py texts CORPUS OUT.jsonl N   N LibreOffice help paragraphs (seeded sample) and the
                                   template sentences with inflected names
  et.py table PACKAGE ANALYSED TA  the table, from estnltk's dump (et_package.py), ta's
                                   labels and features on estnltk's words and analyses
                                   (ner_et analysed) and ta's own run (ner_et text)

Entities are compared as (start, end, type) in the original text, label-aware and exact.
Info rows: ta's own analyses of estnltk's words (all of them, in order), and the labels they
give, which separate morphology from tokenization. The package's entities come from its labels decoded by ner.md §5.1 (estnltk's own layer also
drops an entity that ends the text; its count is printed beside). Exits non-zero when a
target is missed.
"""
import json
import random
import sys
from collections import Counter

from nerlib import align

PERSONS = [  # nominative, comitative, genitive
    ("Mari Tamm", "Mari Tammega", "Mari Tamme"),
    ("Jaan Kask", "Jaan Kasega", "Jaan Kase"),
    ("Peeter Saar", "Peeter Saarega", "Peeter Saare"),
    ("Kati Karu", "Kati Karuga", "Kati Karu"),
    ("Kersti Kaljulaid", "Kersti Kaljulaiuga", "Kersti Kaljulaiu"),
    ("Jüri Ratas", "Jüri Ratasega", "Jüri Ratase"),
    ("Kaja Kallas", "Kaja Kallasega", "Kaja Kallase"),
    ("Arvo Pärt", "Arvo Pärdiga", "Arvo Pärdi"),
    ("Lennart Meri", "Lennart Meriga", "Lennart Meri"),
    ("Toomas Hendrik Ilves", "Toomas Hendrik Ilvesega", "Toomas Hendrik Ilvese"),
    ("Liina Lepp", "Liina Lepaga", "Liina Lepa"),
    ("Andres Mägi", "Andres Mäega", "Andres Mäe"),
]
PLACES = [  # elative, illative, inessive, nominative
    ("Tallinnast", "Tallinna", "Tallinnas", "Tallinn"),
    ("Tartust", "Tartusse", "Tartus", "Tartu"),
    ("Pärnust", "Pärnusse", "Pärnus", "Pärnu"),
    ("Narvast", "Narva", "Narvas", "Narva"),
    ("Viljandist", "Viljandisse", "Viljandis", "Viljandi"),
    ("Rakverest", "Rakverre", "Rakveres", "Rakvere"),
    ("Soomest", "Soome", "Soomes", "Soome"),
    ("Lätist", "Lätti", "Lätis", "Läti"),
    ("Saksamaalt", "Saksamaale", "Saksamaal", "Saksamaa"),
    ("Riiast", "Riiga", "Riias", "Riia"),
    ("Helsingist", "Helsingisse", "Helsingis", "Helsingi"),
]
ORGS = [  # nominative, genitive, comitative, inessive
    ("Eesti Pank", "Eesti Panga", "Eesti Pangaga", "Eesti Pangas"),
    ("Tartu Ülikool", "Tartu Ülikooli", "Tartu Ülikooliga", "Tartu Ülikoolis"),
    ("NATO", "NATO", "NATO-ga", "NATO-s"),
    ("Euroopa Liit", "Euroopa Liidu", "Euroopa Liiduga", "Euroopa Liidus"),
    ("Elering", "Eleringi", "Eleringiga", "Eleringis"),
    ("Swedbank", "Swedbanki", "Swedbankiga", "Swedbankis"),
    ("Riigikogu", "Riigikogu", "Riigikoguga", "Riigikogus"),
    ("Eesti Energia", "Eesti Energia", "Eesti Energiaga", "Eesti Energias"),
]
TEMPLATES = [
    "{p0} kolis {l0} {l1}.",
    "Eile kohtus {p0} {q1} {l2}.",
    "{o0} teatas, et {p0} juhib nüüd {o1} osakonda.",
    "Eesti sõlmis lepingu {o2} juba ammu.",
    "{p0} on sündinud {l2} ja töötab {o3}.",
    "Delegatsioon sõitis {l0} {m1}, kus {p0} pidas kõne.",
    "Reedel rääkis {p0} {o2} tehtud koostööst.",
    "{q2} sõnul on {m3} ja {l3} vahel hea ühendus.",
    "Kontsert toimub {l2} ning sellel esineb {p0}.",
    "Me sõitsime rongiga {l0} {m1} ja jõudsime õhtuks kohale.",
    "Ilm oli ilus ja lapsed mängisid õues.",
]


def template_texts():
    out = []
    n = max(len(PERSONS), len(PLACES), len(ORGS))
    for i in range(n * 3):
        p, q = PERSONS[i % len(PERSONS)], PERSONS[(i + 5) % len(PERSONS)]
        l, m = PLACES[i % len(PLACES)], PLACES[(i + 3) % len(PLACES)]
        o = ORGS[i % len(ORGS)]
        for t in TEMPLATES:
            values = {f"p{k}": v for k, v in enumerate(p)} | {f"q{k}": v for k, v in enumerate(q)}
            values |= {f"l{k}": v for k, v in enumerate(l)} | {f"m{k}": v for k, v in enumerate(m)}
            values |= {f"o{k}": v for k, v in enumerate(o)}
            out.append(t.format(**values))
    return sorted(set(out))


def texts(corpus, dst, n):
    paragraphs = [json.loads(line)["text"] for line in open(corpus, encoding="utf-8")]
    paragraphs = [p for p in paragraphs if p.strip()]
    random.Random(0).shuffle(paragraphs)
    with open(dst, "w", encoding="utf-8") as out:
        for t in paragraphs[: int(n)] + template_texts():
            out.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")


def decode(labels):
    """BIO → (first, last, type) runs (ner.md §5.1)."""
    out, open_ = [], None
    for i, label in enumerate(labels + ["O"]):
        if label == "O":
            if open_:
                out.append(open_)
            open_ = None
            continue
        kind = label[2:]
        if label[0] == "B" or open_ is None or open_[2] != kind:
            if open_:
                out.append(open_)
            open_ = [i, i, kind]
        else:
            open_[1] = i
    return [tuple(e) for e in out]



def normalized(feature):
    """A feature string with gazetteer label sets sorted (Python's set order is not)."""
    name, _, value = feature.partition("=")
    return f"{name}={'|'.join(sorted(value.split('|')))}" if "gaz" in name else feature


def table(package, analysed, ta):
    pkg = [json.loads(line) for line in open(package, encoding="utf-8")]
    ana = [json.loads(line) for line in open(analysed, encoding="utf-8")]
    own = [json.loads(line) for line in open(ta, encoding="utf-8")]
    # N1
    tokens = same_label = same_features = same_analyses = same_morph_label = 0
    for p, a in zip(pkg, ana, strict=True):
        rows = zip(p["labels"], a["labels"], p["features"], a["features"], strict=True)
        for (lp, la, fp, fa), pa, ta_a, lm in zip(rows, p["analyses"], a["ta_analyses"], a["ta_analyses_labels"]):
            tokens += 1
            same_label += lp == la
            same_features += Counter(map(normalized, fp)) == Counter(map(normalized, fa))
            same_analyses += pa == ta_a
            same_morph_label += lp == lm
    # N2
    gold_n = pred_n = hit = layer_n = 0
    per_type = Counter()
    for p, o in zip(pkg, own, strict=True):
        words = p["words"]
        gold = {(words[f][0], words[l][1], k) for f, l, k in decode(p["labels"])}
        layer_n += len(p["entities"])
        spans = align(p["text"], o["tokens"])
        pred = set()
        for f, l, k in o["entities"]:
            if spans[f] and spans[l]:
                pred.add((spans[f][0], spans[l][1], k))
            else:
                pred.add((-1 - f, -1 - l, k))
        gold_n, pred_n, hit = gold_n + len(gold), pred_n + len(pred), hit + len(gold & pred)
        per_type.update(k for _, _, k in gold)
    precision = hit / pred_n if pred_n else 0.0
    recall = hit / gold_n if gold_n else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hit else 0.0
    # N3
    pkg_s, ta_s = sum(p["seconds"] for p in pkg), sum(o["seconds"] for o in own)
    pkg_rate, ta_rate = len(pkg) / pkg_s, len(own) / ta_s
    ratio = ta_rate / pkg_rate
    n1 = same_label / tokens
    rows = [
        ("N1 labels, estnltk words+analyses", f"{same_label}/{tokens} = {n1:.4%}", ">= 99.5%", n1 >= 0.995),
        ("N1 feature strings equal (per token)", f"{same_features}/{tokens} = {same_features / tokens:.4%}", "-", True),
        ("info: ta's analyses equal estnltk's", f"{same_analyses}/{tokens} = {same_analyses / tokens:.4%}", "-", True),
        ("info: labels, estnltk words, ta analyses", f"{same_morph_label}/{tokens} = {same_morph_label / tokens:.4%}", "-", True),
        ("N2 exact-span F1 vs package", f"{f1:.4f} (P {precision:.4f}, R {recall:.4f})", ">= 0.97", f1 >= 0.97),
        ("N2 package entities", f"{gold_n} ({dict(per_type)}; estnltk layer {layer_n})", ">= 300", gold_n >= 300),
        ("N3 texts/s, one thread", f"ta {ta_rate:.1f}, estnltk {pkg_rate:.1f} = {ratio:.1f}x", ">= 10x", ratio >= 10),
    ]
    print(f"Estonian NER, {len(pkg)} texts ({tokens} estnltk words)")
    print(f"{'check':40} {'figure':60} {'target':9} ok")
    for name, figure, target, ok in rows:
        print(f"{name:40} {figure:60} {target:9} {'yes' if ok else 'NO'}")
    return all(ok for *_, ok in rows)


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "texts":
        texts(*args)
    elif cmd == "table":
        sys.exit(0 if table(*args) else 1)
    else:
        sys.exit(f"unknown command {cmd}")
