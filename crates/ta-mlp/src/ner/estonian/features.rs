//! The CRF features of estnltk 1.7.5's NER (`ner/fex.py` and the model's `settings.py`
//! templates, ner.md §5.1): per word, attributes from its Vabamorf analyses and its
//! characters, sentence starts, gazetteer hits and the text's repeated capitalised lemmas,
//! then the templates turn them into `name[offset]=value` strings.
//!
//! Character classes follow Python's `str` methods (`pystr`).

use super::gazetteer::{Gazetteer, Labels};

/// One morphological analysis of a word, with the attributes of estnltk's `morph_analysis`
/// layer the features read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The root's compound parts, markers removed (`["raud", "tee"]`).
    pub root_tokens: Vec<String>,
    /// `0` for a zero ending, empty for words that take none.
    pub ending: String,
    /// Case and number (`sg el`) or the verb form (`s`).
    pub form: String,
    pub partofspeech: String,
}

/// A word with its analyses (estnltk's order: the first one counts most), as the features read it.
pub struct Word<'a> {
    pub text: &'a str,
    pub analyses: &'a [Analysis],
}

/// One word's attributes (fex.py's `ner_features` layer); `None`/`false` are left out.
#[derive(Debug, Default)]
struct Attrs {
    lem: String,
    pos: String,
    prop: bool,
    pref: Option<String>,
    post: Option<String>,
    case: Option<String>,
    ending: Option<String>,
    pun: bool,
    iu: bool,
    au: bool,
    ad: bool,
    ao: bool,
    aan: bool,
    cu: bool,
    cd: bool,
    cp: bool,
    cds: bool,
    cdt: bool,
    cs: bool,
    fsnt: bool,
    gaz: Labels,
    iuoc: bool,
    pprop: bool,
    nprop: bool,
    pgaz: Labels,
    ngaz: Labels,
}

/// A template field (fex.py attribute names; `ending` is written `end` when alone).
#[derive(Debug, Clone, Copy)]
enum Field {
    Iu,
    Fsnt,
    P3,
    P4,
    S3,
    S4,
    Bdash,
    Adash,
    Au,
    Ad,
    Ao,
    Aan,
    Cu,
    Cd,
    Cs,
    Cp,
    Cds,
    Cdt,
    Lem,
    Pos,
    Pref,
    Post,
    Pun,
    Case,
    Ending,
    Prop,
    Iuoc,
    Nprop,
    Pprop,
    Ngaz,
    Pgaz,
    Gaz,
}

/// A field's value at one word.
enum Value<'a> {
    Str(&'a str),
    Labels(Labels),
}

impl Field {
    fn name(self) -> &'static str {
        use Field::*;
        match self {
            Iu => "iu",
            Fsnt => "fsnt",
            P3 => "p3",
            P4 => "p4",
            S3 => "s3",
            S4 => "s4",
            Bdash => "bdash",
            Adash => "adash",
            Au => "au",
            Ad => "ad",
            Ao => "ao",
            Aan => "aan",
            Cu => "cu",
            Cd => "cd",
            Cs => "cs",
            Cp => "cp",
            Cds => "cds",
            Cdt => "cdt",
            Lem => "lem",
            Pos => "pos",
            Pref => "pref",
            Post => "post",
            Pun => "pun",
            Case => "case",
            Ending => "ending",
            Prop => "prop",
            Iuoc => "iuoc",
            Nprop => "nprop",
            Pprop => "pprop",
            Ngaz => "ngaz",
            Pgaz => "pgaz",
            Gaz => "gaz",
        }
    }

    fn value(self, a: &Attrs) -> Option<Value<'_>> {
        fn opt(s: &Option<String>) -> Option<Value<'_>> {
            s.as_deref().map(Value::Str)
        }
        use Field::*;
        let flag = |b: bool| b.then_some(Value::Str("y"));
        let labels = |l: Labels| (!l.is_empty()).then_some(Value::Labels(l));
        let lem = a.lem.as_str();
        match self {
            Iu => flag(a.iu),
            Fsnt => flag(a.fsnt),
            P3 => prefix(lem, 3).map(Value::Str),
            P4 => prefix(lem, 4).map(Value::Str),
            S3 => suffix(lem, 3).map(Value::Str),
            S4 => suffix(lem, 4).map(Value::Str),
            Bdash => lem.split_once('-').map(|(b, _)| Value::Str(b)),
            Adash => lem.split_once('-').map(|(_, a)| Value::Str(a)),
            Au => flag(a.au),
            Ad => flag(a.ad),
            Ao => flag(a.ao),
            Aan => flag(a.aan),
            Cu => flag(a.cu),
            Cd => flag(a.cd),
            Cs => flag(a.cs),
            Cp => flag(a.cp),
            Cds => flag(a.cds),
            Cdt => flag(a.cdt),
            Lem => Some(Value::Str(lem)),
            Pos => Some(Value::Str(&a.pos)),
            Pref => opt(&a.pref),
            Post => opt(&a.post),
            Pun => flag(a.pun),
            Case => opt(&a.case),
            Ending => opt(&a.ending),
            Prop => flag(a.prop),
            Iuoc => flag(a.iuoc),
            Nprop => flag(a.nprop),
            Pprop => flag(a.pprop),
            Ngaz => labels(a.ngaz),
            Pgaz => labels(a.pgaz),
            Gaz => labels(a.gaz),
        }
    }
}

/// The first `n` characters, when there are at least `n`.
fn prefix(s: &str, n: usize) -> Option<&str> {
    match s.char_indices().nth(n) {
        Some((i, _)) => Some(&s[..i]),
        None => (s.chars().count() == n).then_some(s),
    }
}

/// The last `n` characters, when there are at least `n`.
fn suffix(s: &str, n: usize) -> Option<&str> {
    if n == 0 {
        return Some("");
    }
    s.char_indices().rev().nth(n - 1).map(|(i, _)| &s[i..])
}

/// settings.py `TEMPLATES` (112), grouped: fields taken at each of some offsets. `au` is
/// listed twice per neighbour there, and counts twice.
const SINGLE: &[(&[Field], &[i32])] = {
    use Field::*;
    &[
        (
            &[Iu, Fsnt, P3, P4, S3, S4, Bdash, Adash, Au, Ad, Ao, Aan, Cu, Cd, Cs, Cp, Cds, Cdt],
            &[0],
        ),
        (&[Iu, Au, Au, Ad, Cu, Cd, Cs, Cp, Cds, Cdt, Adash, Fsnt], &[-1, -2, 1, 2]),
        (&[Lem, Pos, Pref, Post, Pun, Case, Ending], &[0]),
        (&[Lem, Prop, Pos, Pun, Post], &[-1, -2, 1, 2]),
        (&[Iuoc, Nprop, Pprop, Ngaz, Pgaz], &[0]),
        (&[Gaz], &[0, -1, -2, 1, 2]),
    ]
};

/// settings.py's composite templates (`a[i]|b[j]=va|vb`).
const PAIRS: &[[(Field, i32); 2]] = {
    use Field::*;
    &[
        [(Iu, 0), (Fsnt, 0)],
        [(Lem, 0), (Lem, -1)],
        [(Lem, 0), (Lem, 1)],
        [(Pos, 0), (Pos, -1)],
        [(Pos, 0), (Pos, 1)],
        [(Iu, 0), (Iu, 1)],
        [(Iu, 0), (Iu, -1)],
        [(Gaz, 0), (Gaz, 1)],
        [(Gaz, -1), (Gaz, 0)],
    ]
};

/// Every template, as its (field, offset) list.
fn templates() -> impl Iterator<Item = &'static [(Field, i32)]> {
    static ALL: std::sync::LazyLock<Vec<Vec<(Field, i32)>>> = std::sync::LazyLock::new(|| {
        let singles = SINGLE
            .iter()
            .flat_map(|(fields, offsets)| offsets.iter().flat_map(move |o| fields.iter().map(move |f| vec![(*f, *o)])));
        singles.chain(PAIRS.iter().map(|p| p.to_vec())).collect()
    });
    ALL.iter().map(Vec::as_slice)
}

/// Longest gazetteer phrase, in words (fex.py `look_ahead`).
const LOOK_AHEAD: usize = 3;

/// The feature strings of every word of a text (sentences in order), flattened: each string
/// is given to `emit` with the index of its word.
pub fn extract(sentences: &[Vec<Word>], gazetteer: &Gazetteer, mut emit: impl FnMut(usize, &str)) {
    let attrs = attributes(sentences, gazetteer);
    let mut buf = String::new();
    let mut start = 0;
    for sentence in sentences {
        let snt = &attrs[start..start + sentence.len()];
        for t in 0..snt.len() {
            for template in templates() {
                if render(template, snt, t, &mut buf) {
                    emit(start + t, &buf);
                }
            }
        }
        start += sentence.len();
    }
}

/// Writes one template's string at word `t` of `snt` into `buf`; false when an offset falls
/// outside the sentence or a value is missing.
fn render(template: &[(Field, i32)], snt: &[Attrs], t: usize, buf: &mut String) -> bool {
    let mut values: [Option<Value>; 2] = [None, None];
    for (k, (field, offset)) in template.iter().enumerate() {
        let p = t as i64 + i64::from(*offset);
        if p < 0 || p >= snt.len() as i64 {
            return false;
        }
        match field.value(&snt[p as usize]) {
            Some(v) => values[k] = Some(v),
            None => return false,
        }
    }
    buf.clear();
    for (k, (field, offset)) in template.iter().enumerate() {
        if k > 0 {
            buf.push('|');
        }
        let name = match (field, template.len()) {
            (Field::Ending, 1) => "end",
            _ => field.name(),
        };
        buf.push_str(name);
        buf.push('[');
        buf.push_str(&offset.to_string());
        buf.push(']');
    }
    buf.push('=');
    for (k, value) in values.iter().flatten().enumerate() {
        if k > 0 {
            buf.push('|');
        }
        match value {
            Value::Str(s) => buf.push_str(s),
            Value::Labels(l) => {
                for (i, name) in l.names().enumerate() {
                    if i > 0 {
                        buf.push('|');
                    }
                    buf.push_str(name);
                }
            }
        }
    }
    true
}

/// The attributes of every word (fex.py's five feature taggers).
fn attributes(sentences: &[Vec<Word>], gazetteer: &Gazetteer) -> Vec<Attrs> {
    let words: Vec<&Word> = sentences.iter().flatten().collect();
    let mut attrs: Vec<Attrs> = words.iter().map(|w| word_attrs(w)).collect();
    let mut start = 0;
    for sentence in sentences {
        if let Some(a) = attrs.get_mut(start) {
            if !sentence.is_empty() {
                a.fsnt = true;
            }
        }
        start += sentence.len();
    }
    gazetteer_hits(&mut attrs, gazetteer);
    global_context(sentences, &words, &mut attrs);
    attrs
}

/// NerMorphFeatureTagger + NerLocalFeatureTagger.
fn word_attrs(word: &Word) -> Attrs {
    let text = word.text;
    let first = word.analyses.first();
    let pos = pos_of(word.analyses);
    let roots = first.map_or(&[][..], |a| &a.root_tokens[..]);
    let (pref, post) = match roots {
        [a, .., b] => (Some(a.to_lowercase()), Some(b.to_lowercase())),
        _ => (None, None),
    };
    let case = first.and_then(|a| a.form.split(' ').nth(1)).map(str::to_string);
    Attrs {
        lem: lemma_of(word),
        prop: word.analyses.len() == 1 && word.analyses[0].partofspeech == "H",
        pun: pos == "_Z_",
        pos,
        pref,
        post,
        case,
        ending: ending_of(word.analyses),
        iu: text.chars().next().is_some_and(char::is_uppercase),
        au: pystr::is_upper(text),
        ad: !text.is_empty() && text.chars().all(pystr::is_digit),
        ao: !text.chars().any(pystr::is_alnum),
        aan: !text.is_empty() && text.chars().all(pystr::is_alnum),
        cu: text.chars().any(char::is_uppercase),
        cd: text.chars().any(pystr::is_digit),
        cp: text.contains('\''),
        cds: text.contains('-'),
        cdt: text.contains('.'),
        cs: text.chars().any(|c| !pystr::is_alnum(c)),
        ..Attrs::default()
    }
}

/// fex.py `LEM` through `get_lemma`: the first analysis' root tokens joined by `_`, plus
/// `+ending`; cut at the last `=` (else `+`) when that is not the first character; `_`
/// between alphanumeric characters removed; lower-cased. The word itself when there is no root.
fn lemma_of(word: &Word) -> String {
    let mut raw = String::new();
    if let Some(a) = word.analyses.first() {
        raw = a.root_tokens.join("_");
        if !a.ending.is_empty() {
            raw.push('+');
            raw.push_str(&a.ending);
        }
    }
    if raw.is_empty() {
        raw = word.text.to_string();
    }
    if raw.chars().count() <= 1 {
        return raw.to_lowercase();
    }
    let cut = raw.rfind('=').or_else(|| raw.rfind('+')).unwrap_or(raw.len());
    let lemma = if cut > 0 { &raw[..cut] } else { &raw[..] };
    let chars: Vec<char> = lemma.chars().collect();
    let kept: String = chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| !(c == '_' && i > 0 && i + 1 < chars.len() && pystr::is_alnum(chars[i - 1]) && pystr::is_alnum(chars[i + 1])))
        .map(|(_, c)| *c)
        .collect();
    kept.to_lowercase()
}

/// `_` + the sorted distinct POS letters joined by `|` + `_`.
fn pos_of(analyses: &[Analysis]) -> String {
    let mut tags: Vec<&str> = analyses.iter().map(|a| a.partofspeech.as_str()).collect();
    tags.sort_unstable();
    tags.dedup();
    format!("_{}_", tags.join("|"))
}

/// The sorted distinct endings joined by `|`; none when the only one is `` or `0`.
fn ending_of(analyses: &[Analysis]) -> Option<String> {
    let mut endings: Vec<&str> = analyses.iter().map(|a| a.ending.as_str()).collect();
    endings.sort_unstable();
    endings.dedup();
    match endings[..] {
        ["" | "0"] => None,
        _ => Some(endings.join("|")),
    }
}

/// NerGazetteerFeatureTagger: from every capitalised word, phrases of 1–3 words (over the
/// whole text, sentence ends included) looked up by their lemmas; a hit labels every word of
/// the phrase, and later hits overwrite earlier ones.
fn gazetteer_hits(attrs: &mut [Attrs], gazetteer: &Gazetteer) {
    let mut phrase = String::new();
    for i in 0..attrs.len() {
        if !attrs[i].iu {
            continue;
        }
        for j in i + 1..=i + LOOK_AHEAD {
            let end = j.min(attrs.len());
            phrase.clear();
            for (k, a) in attrs[i..end].iter().enumerate() {
                if k > 0 {
                    phrase.push(' ');
                }
                phrase.push_str(&a.lem);
            }
            let labels = gazetteer.get(&phrase);
            if !labels.is_empty() {
                for a in &mut attrs[i..end] {
                    a.gaz = labels;
                }
            }
        }
    }
}

/// NerGlobalContextFeatureTagger. U: the lemmas of capitalised words that do not start a
/// sentence and do not follow a closing or opening double quote (`”`, `„`, `“`). Every word
/// whose lemma is in U gets `iuoc`; `pprop`/`nprop` when any occurrence of the lemma has a
/// proper-noun-only neighbour before/after it in its sentence; `pgaz`/`ngaz`: the union of
/// those neighbours' gazetteer labels over all occurrences.
fn global_context(sentences: &[Vec<Word>], words: &[&Word], attrs: &mut [Attrs]) {
    use std::collections::HashMap;
    let mut upper: HashMap<String, (bool, bool, Labels, Labels)> = HashMap::new();
    for i in 0..attrs.len() {
        let after_quote = i > 0 && matches!(words[i - 1].text, "\u{201d}" | "\u{201e}" | "\u{201c}");
        if attrs[i].iu && !attrs[i].fsnt && !after_quote {
            upper.entry(attrs[i].lem.clone()).or_default();
        }
    }
    if upper.is_empty() {
        return;
    }
    let mut start = 0;
    for sentence in sentences {
        let end = start + sentence.len();
        for i in start..end {
            if let Some(e) = upper.get_mut(&attrs[i].lem) {
                if i > start {
                    e.0 |= attrs[i - 1].prop;
                    e.2 .0 |= attrs[i - 1].gaz.0;
                }
                if i + 1 < end {
                    e.1 |= attrs[i + 1].prop;
                    e.3 .0 |= attrs[i + 1].gaz.0;
                }
            }
        }
        start = end;
    }
    for a in attrs.iter_mut() {
        if let Some(&(pprop, nprop, pgaz, ngaz)) = upper.get(&a.lem) {
            a.iuoc = true;
            a.pprop = pprop;
            a.nprop = nprop;
            a.pgaz = pgaz;
            a.ngaz = ngaz;
        }
    }
}

/// Python `str` character classes (the features are defined by them).
mod pystr {
    /// `c.isalnum()`: a letter or a numeric character.
    pub fn is_alnum(c: char) -> bool {
        c.is_alphanumeric()
    }

    /// `c.isdigit()`: decimal digits and digit symbols (superscripts, circled digits), not
    /// fractions or Roman numerals.
    pub fn is_digit(c: char) -> bool {
        c.is_ascii_digit() || (c.is_numeric() && !matches!(c, '\u{bc}'..='\u{be}' | '\u{2150}'..='\u{218f}' | '\u{16ee}'..='\u{16f0}'))
    }

    /// Titlecase letters (`ǅ`, Greek with prosgegrammeni).
    fn is_title(c: char) -> bool {
        matches!(c, '\u{1c5}' | '\u{1c8}' | '\u{1cb}' | '\u{1f2}' | '\u{1f88}'..='\u{1f8f}' | '\u{1f98}'..='\u{1f9f}' | '\u{1fa8}'..='\u{1faf}' | '\u{1fbc}' | '\u{1fcc}' | '\u{1ffc}')
    }

    /// `s.isupper()`: at least one upper-case letter and no lower-case or title-case one.
    pub fn is_upper(s: &str) -> bool {
        s.chars().any(char::is_uppercase) && !s.chars().any(|c| c.is_lowercase() || is_title(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(roots: &[&str], ending: &str, form: &str, pos: &str) -> Analysis {
        Analysis {
            root_tokens: roots.iter().map(|r| r.to_string()).collect(),
            ending: ending.into(),
            form: form.into(),
            partofspeech: pos.into(),
        }
    }

    #[test]
    fn lemmas_cut_endings_and_join_compounds() {
        let lem = |roots: &[&str], ending: &str, text: &str| {
            let a = [analysis(roots, ending, "", "S")];
            lemma_of(&Word { text, analyses: &a })
        };
        assert_eq!(lem(&["Tallinn"], "st", "Tallinnast"), "tallinn");
        assert_eq!(lem(&["koli"], "s", "kolis"), "koli");
        assert_eq!(lem(&["raud", "tee"], "0", "Raudtee"), "raudtee");
        assert_eq!(lem(&["NATO"], "ga", "NATO-ga"), "nato");
        assert_eq!(lem(&[], "", "?"), "?");
        assert_eq!(lem(&["+"], "", "+"), "+");
    }

    #[test]
    fn templates_are_the_models_112() {
        assert_eq!(templates().count(), 112);
        assert_eq!(templates().filter(|t| t.len() == 2).count(), 9);
    }

    #[test]
    fn character_slices_count_code_points() {
        assert_eq!(prefix("öö", 3), None);
        assert_eq!(prefix("ööd", 3), Some("ööd"));
        assert_eq!(prefix("ööde", 3), Some("ööd"));
        assert_eq!(suffix("ööde", 3), Some("öde"));
        assert_eq!(suffix("öö", 3), None);
    }

    #[test]
    fn python_string_classes() {
        assert!(!pystr::is_upper("NATO-ga") && pystr::is_upper("NATO-") && !pystr::is_upper("12"));
        assert!(pystr::is_digit('7') && pystr::is_digit('²') && !pystr::is_digit('½') && !pystr::is_digit('Ⅻ'));
        assert!(pystr::is_alnum('õ') && !pystr::is_alnum('-'));
    }
}
