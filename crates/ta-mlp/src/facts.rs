//! Fact extraction over the tokenized text (mlp.md §4, texta-mlp 1.4 parsers and `Document`):
//! EMAIL and PHONE (`contacts`), list entities (`entities`), NAMEMAIL (`namemail`) and
//! BOUNDED groups (`bounded`). Spans are code-point offsets into `text.text`.

use fancy_regex::Regex as FancyRegex;
use regex::Regex;

use super::entities::EntityMapper;

/// One fact; spans are `[start, end)` in code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub kind: String,
    pub value: String,
    pub spans: Vec<(usize, usize)>,
    pub lemma: Option<String>,
}

impl Fact {
    pub(crate) fn new(kind: &str, value: String, span: (usize, usize)) -> Fact {
        Fact {
            kind: kind.to_string(),
            value,
            spans: vec![span],
            lemma: None,
        }
    }

    /// The wire form: `spans` JSON-encoded the way Python's `json.dumps` writes it.
    pub fn to_json(&self) -> serde_json::Value {
        let spans: Vec<String> = self.spans.iter().map(|(s, e)| format!("[{s}, {e}]")).collect();
        serde_json::json!({
            "fact": self.kind,
            "str_val": self.value,
            "spans": format!("[{}]", spans.join(", ")),
            "doc_path": "text.text",
            "lemma": self.lemma,
        })
    }
}

/// Months (et/en/ru, full and abbreviated) used to reject dates posing as phone numbers.
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "jaanuar",
    "veebruar",
    "märts",
    "aprill",
    "mai",
    "juuni",
    "juuli",
    "oktoober",
    "detsember",
    "jaan",
    "veebr",
    "okt",
    "dets",
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
    "январь",
    "февраль",
    "март",
    "апрель",
    "май",
    "июнь",
    "июль",
    "август",
    "сентябрь",
    "октябрь",
    "ноябрь",
    "декабрь",
    "янв",
    "фев",
    "апр",
    "авг",
    "сен",
    "окт",
    "ноя",
    "дек",
];

/// Text between two facts that ends a BOUNDED group (a new message or paragraph).
const SPACE_BETWEEN_NOT_OK: &str = r"\n\n|From:|Sent:|Kellelt:|Saadetud:|От:|Отправлено:";

const EMAIL_PATTERN: &str = r"([^\s]+\s?\.\s?)?[^\s@]+\s?@\s?[^@.\s]+\s?[.]\s?[^\s]{1,20}";

const PHONE_PATTERN: &str = r"(?<![0-9]{2}[\./][0-9]{2}[\./])(?<![0-9]{2} [\./] [0-9]{2} [\./] )(?<!Date: )(?<!Date : )(?:\b|\+|\+\s)\d{1,4}(\s\(\s[0-9]+\s\)\s?)?[ -]?\(?\d{2,4}\)?(?:[ -]?\d{1,4}?\b)+(\s\([0-9]+\))?(?! ?:? ?[0-9]{2}( ?: ?[0-9]{2}){0,2} (GMT)?\+[0-9]{2} ?\:? ?[0-9]{2})";

const NAMEMAIL_PATTERN: &str = r#"(?:^|(?<=[\s:"]))\p{L}+\s\p{L}+"?\s(< )?([^\s]+\s?\.\s?)?[^\s@]+\s?@\s?[^@.\s]+\s?[.]\s?[^\s]{1,20}"#;

/// Characters Python's `str.strip("><\)\(:;-\.,\!\?")` removes (the backslash included).
const STRIP_CHARS: &[char] = &['>', '<', '\\', ')', '(', ':', ';', '-', '.', ',', '!', '?'];

const CLOSE_FACT_DISTANCE: usize = 150;

/// Compiled fact patterns; build once and share.
pub struct FactExtractor {
    email: Regex,
    phone: FancyRegex,
    namemail: FancyRegex,
    date_before: Regex,
    reply_header: Regex,
    space_not_ok: Regex,
    datetime_between: Regex,
}

/// The tokenized text with a byte → code-point offset table.
pub struct Doc<'a> {
    pub text: &'a str,
    pub words: &'a [String],
    pub lemmas: &'a [String],
    char_at: Vec<usize>,
}

impl<'a> Doc<'a> {
    pub fn new(text: &'a str, words: &'a [String], lemmas: &'a [String]) -> Doc<'a> {
        let mut char_at = vec![0; text.len() + 1];
        let mut count = 0;
        for (i, c) in text.char_indices() {
            char_at[i..i + c.len_utf8()].fill(count);
            count += 1;
        }
        char_at[text.len()] = count;
        Doc {
            text,
            words,
            lemmas,
            char_at,
        }
    }

    pub(crate) fn span(&self, start: usize, end: usize) -> (usize, usize) {
        (self.char_at[start], self.char_at[end])
    }

    /// Substring by code-point offsets (empty when `start >= end`, as Python slicing).
    fn slice_chars(&self, start: usize, end: usize) -> &str {
        if start >= end {
            return "";
        }
        let byte = |c: usize| self.char_at.partition_point(|&x| x < c).min(self.text.len());
        &self.text[byte(start)..byte(end)]
    }
}

fn month_alternation() -> String {
    MONTHS.join("|")
}

impl Default for FactExtractor {
    fn default() -> Self {
        let months = month_alternation();
        FactExtractor {
            email: Regex::new(EMAIL_PATTERN).expect("email pattern"),
            phone: FancyRegex::new(PHONE_PATTERN).expect("phone pattern"),
            namemail: FancyRegex::new(NAMEMAIL_PATTERN).expect("namemail pattern"),
            date_before: Regex::new(&format!(
                r"(?:[0-9]{{1,2}} ?(?:{months})\.? ?|(?:{months}) ?\.?\s[0-9]{{1,2}} ?,? ?)$"
            ))
            .expect("date pattern"),
            reply_header: Regex::new(r"\p{L}@\p{L}{3,10}\.\p{L}{2,3} {0,2}>? ?:\s").expect("reply pattern"),
            space_not_ok: Regex::new(SPACE_BETWEEN_NOT_OK).expect("space pattern"),
            datetime_between: Regex::new(&format!(
                r"[0-9]{{1,2}} ?(?:{months}) ?\.? ?[0-9]{{4}}( г\.)? ?, ?в? [0-9]{{2}} ?: ?[0-9]{{2}}"
            ))
            .expect("datetime pattern"),
        }
    }
}

impl FactExtractor {
    /// EMAIL facts: the match with `mailto:` and spaces removed.
    pub fn emails(&self, doc: &Doc) -> Vec<Fact> {
        self.email
            .find_iter(doc.text)
            .map(|m| {
                let value = m.as_str().replace(' ', "").replace("mailto:", "");
                Fact::new("EMAIL", value, doc.span(m.start(), m.end()))
            })
            .collect()
    }

    /// PHONE facts (1.4 high-recall regex, > 5 characters, not right after a day-and-month).
    pub fn phones(&self, doc: &Doc) -> Vec<Fact> {
        let mut facts = Vec::new();
        for m in self.phone.find_iter(doc.text).filter_map(Result::ok) {
            if m.as_str().chars().count() <= 5 || self.follows_date(&doc.text[..m.start()]) {
                continue;
            }
            let value: String = m.as_str().chars().filter(|c| !matches!(c, ' ' | '-' | '+' | '(' | ')')).collect();
            facts.push(Fact::new("PHONE", value, doc.span(m.start(), m.end())));
        }
        facts
    }

    fn follows_date(&self, before: &str) -> bool {
        let tail_start = before.char_indices().rev().nth(40).map_or(0, |(i, _)| i);
        self.date_before.is_match(&before[tail_start..].to_lowercase())
    }

    /// NAMEMAIL facts: two capitalised words (> 2 letters each) right before an e-mail.
    pub fn namemails(&self, doc: &Doc) -> Vec<Fact> {
        self.namemail
            .find_iter(doc.text)
            .filter_map(Result::ok)
            .filter(|m| {
                let parts: Vec<&str> = m.as_str().split(' ').collect();
                parts.len() > 1 && [parts[0], parts[1]].iter().all(|w| w.chars().count() > 2 && is_title(w))
            })
            .map(|m| Fact::new("NAMEMAIL", m.as_str().to_string(), doc.span(m.start(), m.end())))
            .collect()
    }

    /// List-entity facts from the entity mapper.
    pub fn entities(&self, doc: &Doc, mapper: &EntityMapper) -> Vec<Fact> {
        mapper
            .map(doc.text)
            .into_iter()
            .map(|hit| Fact::new(&hit.label, hit.value, hit.span))
            .collect()
    }

    /// BOUNDED facts (1.4 `Document.bounded`). Strips `STRIP_CHARS` from every fact's value
    /// as a side effect, as the reference does.
    pub fn bounded(&self, doc: &Doc, facts: &mut [Fact]) -> Vec<Fact> {
        for f in facts.iter_mut() {
            f.value = strip_value(&f.value).to_string();
        }
        let members = split_namemails(facts);
        let groups = self.group_close(doc, members);
        let groups: Vec<Group> = groups.into_iter().filter_map(drop_overlapping).collect();
        merge_subsets(groups).into_iter().map(|g| g.into_fact(doc)).collect()
    }

    fn space_between_ok(&self, doc: &Doc, first: (usize, usize), second: (usize, usize)) -> bool {
        if first.1 > 15 && self.reply_header.is_match(doc.slice_chars(first.1 - 15, second.0)) {
            return false;
        }
        let between = doc.slice_chars(first.1, second.0);
        !self.space_not_ok.is_match(between) && !self.datetime_between.is_match(&between.to_lowercase())
    }

    fn group_close(&self, doc: &Doc, mut facts: Vec<Fact>) -> Vec<Group> {
        facts.sort_by_key(|f| f.spans[0].0);
        let mut groups: Vec<Group> = Vec::new();
        let mut current = Group::default();
        for fact in facts {
            let joins = current.spans.last().is_some_and(|&last| {
                fact.spans[0].0.abs_diff(last.1) < CLOSE_FACT_DISTANCE && self.space_between_ok(doc, last, fact.spans[0])
            });
            if !joins && !current.spans.is_empty() {
                groups.extend(std::mem::take(&mut current).keep_if_several());
            }
            current.push(fact);
        }
        groups.extend(current.keep_if_several());
        groups
    }
}

fn strip_value(value: &str) -> &str {
    value.trim_matches(STRIP_CHARS)
}

/// Python's `s.title() == s` for one word.
fn is_title(word: &str) -> bool {
    let mut chars = word.chars();
    let Some(first) = chars.next() else { return false };
    let rest: String = chars.collect();
    first.to_uppercase().eq(std::iter::once(first)) && rest.to_lowercase() == rest
}

/// NAMEMAIL → a PER (first two words) and an EMAIL; facts starting/ending there are dropped.
fn split_namemails(facts: &[Fact]) -> Vec<Fact> {
    let mut members = Vec::new();
    let mut starts = Vec::new();
    let mut ends = Vec::new();
    for f in facts.iter().filter(|f| f.kind == "NAMEMAIL") {
        let words: Vec<&str> = f.value.split(' ').collect();
        let name = words[..2.min(words.len())].join(" ");
        let email = words.get(2..).map(|w| w.join(" ")).unwrap_or_default();
        let (start, end) = f.spans[0];
        let email_fact = Fact::new(
            "EMAIL",
            strip_value(&email).to_string(),
            (end.saturating_sub(email.chars().count()), end),
        );
        let name_fact = Fact::new("PER", strip_value(&name).to_string(), (start, start + name.chars().count()));
        starts.extend([email_fact.spans[0].0, name_fact.spans[0].0]);
        ends.extend([email_fact.spans[0].1, name_fact.spans[0].1]);
        members.extend([email_fact, name_fact]);
    }
    members.extend(
        facts
            .iter()
            .filter(|f| f.kind != "NAMEMAIL" && !starts.contains(&f.spans[0].0) && !ends.contains(&f.spans[0].1))
            .cloned(),
    );
    members
}

/// Ordered `{kind: [values]}`, as a Python dict keeps insertion order.
type KindValues = Vec<(String, Vec<String>)>;

fn add_value(map: &mut KindValues, kind: &str, value: String) {
    match map.iter_mut().find(|(k, _)| k == kind) {
        Some((_, values)) => values.push(value),
        None => map.push((kind.to_string(), vec![value])),
    }
}

#[derive(Default)]
struct Group {
    spans: Vec<(usize, usize)>,
    members: Vec<(String, String)>,
    kinds: KindValues,
}

impl Group {
    fn push(&mut self, fact: Fact) {
        self.spans.extend(fact.spans.iter().copied());
        self.members.push((fact.kind, fact.value));
    }

    fn keep_if_several(self) -> Option<Group> {
        (self.spans.len() > 1).then_some(self)
    }

    fn pairs(&self) -> Vec<(&str, &str)> {
        self.kinds
            .iter()
            .flat_map(|(k, vs)| vs.iter().map(move |v| (k.as_str(), v.as_str())))
            .collect()
    }

    fn into_fact(self, doc: &Doc) -> Fact {
        let lemmas: KindValues = self
            .kinds
            .iter()
            .map(|(k, vs)| {
                (
                    k.clone(),
                    vs.iter().map(|v| entity_lemma(doc, v).unwrap_or_else(|| "UNK".into())).collect(),
                )
            })
            .collect();
        Fact {
            kind: "BOUNDED".into(),
            value: python_repr(&self.kinds),
            spans: self.spans,
            lemma: Some(python_repr(&lemmas)),
        }
    }
}

/// Among members sharing a start offset keeps the longest, then cleans the values and keeps
/// the group if it still has ≥ 2 spans and (≥ 2 kinds or ≥ 2 values of one kind).
fn drop_overlapping(group: Group) -> Option<Group> {
    let spans = &group.spans;
    let mut deleted = vec![false; spans.len()];
    for (i, a) in spans.iter().enumerate() {
        for (j, b) in spans.iter().enumerate() {
            if i != j && a.0 == b.0 {
                if a.1 > b.1 {
                    deleted[j] = true;
                } else if a.1 < b.1 {
                    deleted[i] = true;
                }
            }
        }
    }
    let mut kept = Group::default();
    let mut raw = KindValues::new();
    for (i, span) in spans.iter().enumerate().filter(|(i, _)| !deleted[*i]) {
        kept.spans.push(*span);
        let (kind, value) = &group.members[i];
        add_value(&mut raw, kind, value.clone());
    }
    kept.kinds = clean_similar(&raw);
    let several_values = kept.kinds.iter().any(|(_, vs)| vs.len() > 1);
    (kept.spans.len() > 1 && (several_values || kept.kinds.len() > 1)).then_some(kept)
}

/// Whether `needle` occurs in `haystack` after its start or a whitespace and before its end, a
/// whitespace or (with `email_tail`) an e-mail domain `@[a-z]{4,5}.[a-z]{2}`: the reference's
/// `(^|\s)needle(\s|$…)` search, without compiling a pattern per pair of values.
fn contains_word(haystack: &str, needle: &str, email_tail: bool) -> bool {
    let mut from = 0;
    while let Some(found) = haystack.get(from..).and_then(|rest| rest.find(needle)) {
        let at = from + found;
        let rest = &haystack[at + needle.len()..];
        let starts = haystack[..at].chars().next_back().is_none_or(char::is_whitespace);
        let ends = rest.chars().next().is_none_or(char::is_whitespace) || (email_tail && email_domain(rest));
        if starts && ends {
            return true;
        }
        from = at + haystack[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Whether `rest` starts with `@[a-z]{4,5}\.[a-z]{2}`.
fn email_domain(rest: &str) -> bool {
    let Some(domain) = rest.strip_prefix('@') else { return false };
    let letters = domain.bytes().take_while(u8::is_ascii_lowercase).count();
    let tld = &domain.as_bytes()[letters..];
    (4..=5).contains(&letters) && tld.len() >= 3 && tld[0] == b'.' && tld[1..3].iter().all(u8::is_ascii_lowercase)
}

fn star_quotes(value: &str) -> String {
    value.replace(['\'', '"'], "*")
}

/// 1.4 `clean_similar_in_strval`: a value contained in a longer one of the group is replaced
/// by the longer one; values are de-duplicated keeping first occurrence.
fn clean_similar(raw: &KindValues) -> KindValues {
    let mut by_value: Vec<(String, String)> = Vec::new();
    for (kind, values) in raw {
        for v in values {
            match by_value.iter_mut().find(|(val, _)| val == v) {
                Some(entry) => entry.1 = kind.clone(),
                None => by_value.push((v.clone(), kind.clone())),
            }
        }
    }
    let mut out = KindValues::new();
    let mut absorbed = vec![false; by_value.len()];
    for i in 0..by_value.len() {
        let (v1, _) = &by_value[i];
        let s1 = strip_value(v1);
        let mut is_sub = false;
        for j in 0..by_value.len() {
            if i == j || absorbed[i] || absorbed[j] {
                continue;
            }
            let (_, k2) = &by_value[j];
            let s2 = strip_value(&by_value[j].0);
            let longer = s1.chars().count() <= s2.chars().count();
            if longer && contains_word(s2, s1, true) {
                add_value(&mut out, k2, s2.to_string());
            } else if longer && v1.split(' ').all(|part| contains_word(s2, strip_value(part), false)) {
                add_value(&mut out, k2, star_quotes(s2));
            } else {
                continue;
            }
            absorbed[i] = true;
            is_sub = true;
        }
        if !is_sub {
            add_value(&mut out, &by_value[i].1, star_quotes(s1));
        }
    }
    for (_, values) in out.iter_mut() {
        let mut seen = Vec::new();
        values.retain(|v| {
            !seen.contains(v) && {
                seen.push(v.clone());
                true
            }
        });
    }
    out
}

/// 1.4 `concatenate_subset_bounds`: a group whose (kind, value) pairs are a subset of
/// another's gives that one its spans and disappears.
fn merge_subsets(mut groups: Vec<Group>) -> Vec<Group> {
    let mut absorbed = vec![false; groups.len()];
    for i in 0..groups.len() {
        for j in 0..groups.len() {
            if i == j || absorbed[i] || absorbed[j] {
                continue;
            }
            let (mine, theirs) = (groups[i].pairs(), groups[j].pairs());
            if mine.iter().all(|p| theirs.contains(p)) {
                let spans = groups[i].spans.clone();
                groups[j].spans.extend(spans);
                absorbed[i] = true;
            }
        }
    }
    groups.into_iter().zip(absorbed).filter(|(_, a)| !a).map(|(g, _)| g).collect()
}

/// 1.4 `entity_lemmas`: the first word's lemma plus the remaining words as written.
fn entity_lemma(doc: &Doc, value: &str) -> Option<String> {
    let parts: Vec<&str> = value.split(' ').collect();
    for (i, word) in doc.words.iter().enumerate() {
        if word != parts[0] {
            continue;
        }
        let rest = &parts[1..];
        let follows = rest
            .iter()
            .enumerate()
            .all(|(k, p)| doc.words.get(i + 1 + k).is_some_and(|w| w == p));
        if rest.is_empty() || follows {
            let lemma = doc.lemmas.get(i).cloned().unwrap_or_else(|| word.clone());
            return Some(
                std::iter::once(lemma.as_str())
                    .chain(rest.iter().copied())
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
    }
    None
}

/// Python `repr` of a `{str: [str]}` dict.
fn python_repr(map: &KindValues) -> String {
    let items: Vec<String> = map
        .iter()
        .map(|(k, vs)| {
            let values: Vec<String> = vs.iter().map(|v| ta_text::pytext::repr(v)).collect();
            format!("{}: [{}]", ta_text::pytext::repr(k), values.join(", "))
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// Removes identical facts and sorts by (first span, kind, value) (mlp.md §4.1).
pub fn finish(mut facts: Vec<Fact>) -> Vec<Fact> {
    facts.sort_by(|a, b| (a.spans[0], &a.kind, &a.value, &a.spans, &a.lemma).cmp(&(b.spans[0], &b.kind, &b.value, &b.spans, &b.lemma)));
    facts.dedup();
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_word_agrees_with_the_reference_pattern() {
        let reference = |haystack: &str, needle: &str, email_tail: bool| {
            let tail = if email_tail { r"(\s|$|@[a-z]{4,5}\.[a-z]{2})" } else { r"(\s|$)" };
            Regex::new(&format!(r"(^|\s){}{tail}", regex::escape(needle)))
                .unwrap()
                .is_match(haystack)
        };
        let haystacks = [
            "",
            "a",
            "a a a",
            "xa a a",
            "jaan tamm",
            "jaan.tamm@gmail.com",
            "x@mail.ee",
            "tamm@posti.eex",
            "tamm@post.ee",
            "tamm@abcdef.ee",
            "tamm@abcd.e",
            "ütle  jaan\u{a0}tamm",
            "aaa",
            "tamm\ttamm",
            "TAMM tamm",
            "a+b (c)",
        ];
        let needles = [
            "",
            "a",
            "a a",
            "tamm",
            "jaan",
            "x",
            "jaan tamm",
            "aa",
            "ee",
            "tamm@posti",
            "a+b",
            "(c)",
            "ütle",
        ];
        for haystack in haystacks {
            for needle in needles {
                for email_tail in [false, true] {
                    assert_eq!(
                        contains_word(haystack, needle, email_tail),
                        reference(haystack, needle, email_tail),
                        "{haystack:?} {needle:?} {email_tail}"
                    );
                }
            }
        }
    }

    fn doc_of(text: &str) -> (Vec<String>, String) {
        let words: Vec<String> = text.split(' ').map(String::from).collect();
        (words, text.to_string())
    }

    #[test]
    fn email_and_phone() {
        let ex = FactExtractor::default();
        let (w, t) = doc_of("Please write to info@example.com for details .");
        let d = Doc::new(&t, &w, &w);
        assert_eq!(ex.emails(&d), vec![Fact::new("EMAIL", "info@example.com".into(), (16, 32))]);
        let (w, t) = doc_of("Helista numbril 5123 4567 .");
        let d = Doc::new(&t, &w, &w);
        assert_eq!(ex.phones(&d), vec![Fact::new("PHONE", "51234567".into(), (16, 25))]);
        let (w, t) = doc_of("Звоните по телефону +7 495 123-45-67 .");
        let d = Doc::new(&t, &w, &w);
        assert_eq!(ex.phones(&d), vec![Fact::new("PHONE", "74951234567".into(), (20, 36))]);
    }

    #[test]
    fn dates_are_not_phones() {
        let ex = FactExtractor::default();
        let (w, t) = doc_of("Kohtume 12 mai 2020 kell 10");
        assert!(ex.phones(&Doc::new(&t, &w, &w)).is_empty());
    }

    #[test]
    fn bounded_worked_example() {
        let ex = FactExtractor::default();
        let (w, t) = doc_of("Kirjuta Mari Tamm mari.tamm@example.ee");
        let d = Doc::new(&t, &w, &w);
        let mut facts = ex.emails(&d);
        facts.extend(ex.namemails(&d));
        let bounded = ex.bounded(&d, &mut facts);
        facts.extend(bounded);
        let json: Vec<_> = finish(facts).iter().map(Fact::to_json).collect();
        assert_eq!(
            serde_json::Value::Array(json),
            serde_json::json!([
                {"fact": "BOUNDED", "str_val": "{'PER': ['Mari Tamm'], 'EMAIL': ['mari.tamm@example.ee']}",
                 "spans": "[[8, 17], [18, 38]]", "doc_path": "text.text",
                 "lemma": "{'PER': ['Mari Tamm'], 'EMAIL': ['mari.tamm@example.ee']}"},
                {"fact": "NAMEMAIL", "str_val": "Mari Tamm mari.tamm@example.ee", "spans": "[[8, 38]]",
                 "doc_path": "text.text", "lemma": null},
                {"fact": "EMAIL", "str_val": "mari.tamm@example.ee", "spans": "[[18, 38]]",
                 "doc_path": "text.text", "lemma": null}
            ])
        );
    }
}
