# A4: lemma/UPOS agreement of ta (JSON lines [[word, lemma, tag], ...] from bench MLP_DUMP_RU) with pymorphy3 first parse.
import json, sys, re
import pymorphy3
m = pymorphy3.MorphAnalyzer()
SCONJ = {"что","чтобы","если","когда","как","потому","хотя","пока","ли","будто","словно","раз","поскольку","ибо","чем","дабы","едва"}
def upos(tag, lemma):
    g = set(re.split('[, ]', str(tag))); p = str(tag).split(',')[0].split(' ')[0]
    if p == 'NOUN': return 'PROPN' if g & {'Name','Surn','Patr','Geox','Orgn'} else 'NOUN'
    if p == 'ADJF' and 'Apro' in g: return 'DET'
    if p in ('ADJF','ADJS'): return 'ADJ'
    if p == 'COMP': return 'ADV'
    if p in ('VERB','INFN','PRTF','PRTS','GRND'): return 'AUX' if lemma == 'быть' else 'VERB'
    return {'NUMR':'NUM','NUMB':'NUM','ADVB':'ADV','PRED':'ADV','NPRO':'PRON','PREP':'ADP','PRCL':'PART','INTJ':'INTJ','PNCT':'PUNCT'}.get(p, 'SCONJ' if p=='CONJ' and lemma in SCONJ else ('CCONJ' if p=='CONJ' else None))
n = lo = po = 0; bad = []
for line in open(sys.argv[1]):
    for w, lem, tag in json.loads(line):
        if not re.search('[а-яё]', w.lower()): continue
        p = m.parse(w)[0]
        gl = p.normal_form.replace('ё','е'); gu = upos(p.tag, p.normal_form) or 'X'
        n += 1; lo += gl == lem.replace('ё','е'); po += gu == tag
        if (gl != lem.replace('ё','е') or gu != tag) and len(bad) < 10: bad.append((w, lem, tag, gl, gu))
print(f"A4 ru (Cyrillic tokens): lemma {lo}/{n} = {100*lo/n:.2f}%, UPOS {po}/{n} = {100*po/n:.2f}%")
for b in bad: print(b)
