# A3: POS/lemma agreement of ta (JSON lines from bench MLP_DUMP_ET) with estnltk 1.7.3 Vabamorf on the same tokens.
import json, sys
from estnltk.vabamorf.morf import Vabamorf
vm = Vabamorf.instance()
def clean(l):
    if len(l) > 2: l = l.replace('_', '').replace('=', '')
    return l or 'X'
pos_ok = lem_ok = n = 0
bad = []
for line in open(sys.argv[1]):
    rows = json.loads(line)
    words = [r[0] for r in rows]
    res = vm.analyze(words, disambiguate=True, guess=True, propername=True)
    for r, a in zip(rows, res):
        an = a['analysis']
        lem, pos = (clean(an[0]['lemma']), an[0]['partofspeech']) if an else (r[0], 'X')
        n += 1; pos_ok += pos == r[2]; lem_ok += lem == r[1]
        if (pos != r[2] or lem != r[1]) and len(bad) < 8: bad.append((r, lem, pos))
print(f"A3 et: POS agreement {pos_ok}/{n} = {100*pos_ok/n:.2f}%, lemma agreement {lem_ok}/{n} = {100*lem_ok/n:.2f}%")
for b in bad: print(b)
