"""estnltk 1.7.5's NER on Estonian texts, dumped for the port-fidelity and agreement checks.

Reads JSONL ({"text": ...}) and writes one JSONL line per text: the words (character spans),
the sentences (word counts), every word's Vabamorf analyses left after disambiguation
(root_tokens, ending, form, partofspeech), estnltk's CRF feature strings, its labels, its
entities ([start, end, label]) and the seconds the text took (tokenization, morphology and
NER; loading excluded). The base sentence tokenizer is an untrained NLTK punkt tokenizer
(the trained Estonian model cannot be fetched).

Usage: python et_package.py IN.jsonl OUT.jsonl   (run with PYTHONHASHSEED=0)
"""
import json
import sys
import time

from nltk.tokenize.punkt import PunktSentenceTokenizer
from estnltk import Text
from estnltk.taggers import SentenceTokenizer
from estnltk.taggers.standard.ner.ner_tagger import NerTagger


def labels_and_features(tagger, text):
    """NerTagger's own steps, keeping the feature strings and the labels."""
    tagger.fex.process([text])
    features = [list(t.ner_features.F[0]) for t in text.ner_features]
    labels = [label for snt in tagger.crf_model.tag(text, tagger.input_layers) for label in snt]
    text.pop_layer("ner_features")
    return features, labels


def analyses(word):
    m = word.morph_analysis
    return [
        {"root_tokens": list(rt), "ending": e, "form": f, "partofspeech": p}
        for rt, e, f, p in zip(m.root_tokens, m.ending, m.form, m.partofspeech)
    ]


def main(src, dst):
    sentences = SentenceTokenizer(base_sentence_tokenizer=PunktSentenceTokenizer())
    ner = NerTagger()
    with open(src, encoding="utf-8") as inp, open(dst, "w", encoding="utf-8") as out:
        for line in inp:
            raw = json.loads(line)["text"]
            start = time.perf_counter()
            text = Text(raw)
            text.tag_layer(["words"])
            sentences.tag(text)
            text.tag_layer(["morph_analysis"])
            ner.tag(text)
            seconds = time.perf_counter() - start
            features, labels = labels_and_features(ner, text)
            record = {
                "text": raw,
                "words": [[w.start, w.end] for w in text.words],
                "sentences": [len(s) for s in text.sentences],
                "analyses": [analyses(w) for w in text.words],
                "features": features,
                "labels": labels,
                "entities": [[e.start, e.end, e.nertag] for e in text.ner],
                "seconds": seconds,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
