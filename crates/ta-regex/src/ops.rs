//! Result shaping for the regex tagger and regex tagger group endpoints (`api.md` §8–9,
//! `regex-tagger.md` §5). Pure functions over compiled [`Matcher`]s; results serialize with
//! `serde_json` to the exact wire JSON.
//!
//! Input assumption: request `text`/`texts` values are trimmed (Python `str.strip`, see
//! `ta_text::pytext::strip`) and checked non-blank by the validation layer before they reach these
//! functions; spans then refer to the trimmed text. Document field values are never trimmed.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Match, MatchError, Matcher};
use ta_text::lines::{flat_get, DocTree};

/// A group member or standalone tagger: (tagger id, tagger description, matcher).
pub type Member<'a> = (i64, &'a str, &'a Matcher);

/// `regex_taggers/{id}/tag_text|tag_texts|tag_doc` result.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TagResult {
    pub tagger_id: i64,
    pub tag: String,
    pub result: bool,
    pub matches: Vec<Match>,
}

impl TagResult {
    /// The result as compact JSON, byte for byte what `serde_json` writes for it, with the
    /// field names written as literals (batch runs write one a line; the derived serializer
    /// escapes every key anew).
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(b"{\"tagger_id\":");
        serde_json::to_writer(&mut *out, &self.tagger_id)?;
        out.extend_from_slice(b",\"tag\":");
        serde_json::to_writer(&mut *out, &self.tag)?;
        out.extend_from_slice(if self.result { b",\"result\":true" } else { b",\"result\":false" });
        out.extend_from_slice(b",\"matches\":[");
        for (i, m) in self.matches.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"str_val\":");
            serde_json::to_writer(&mut *out, &m.str_val)?;
            out.extend_from_slice(b",\"span\":");
            serde_json::to_writer(&mut *out, &m.span)?;
            if let Some(field) = &m.field {
                out.extend_from_slice(b",\"field\":");
                serde_json::to_writer(&mut *out, field)?;
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }
}

/// `regex_taggers/multitag_text` entry.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct MultiTagEntry {
    pub tagger_id: i64,
    pub tag: String,
    pub matches: Vec<Match>,
}

/// A member tagger's matches inside a group result.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GroupTag {
    pub tag: String,
    pub tagger_id: i64,
    pub matches: Vec<Match>,
}

/// `regex_tagger_groups/{id}/tag_text|tag_doc` result.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GroupTagResult {
    pub tagger_group_id: i64,
    pub tagger_group_tag: String,
    pub result: bool,
    pub tags: Vec<GroupTag>,
}

/// `regex_tagger_groups/{id}/tag_texts` result: one tag list per text.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GroupTagTextsResult {
    pub tagger_group_id: i64,
    pub tagger_group_tag: String,
    pub tags: Vec<Vec<GroupTag>>,
}

/// `regex_tagger_groups/multitag_text` entry.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GroupMultiTagEntry {
    pub tagger_group_id: i64,
    pub tagger_group_tag: String,
    pub tags: Vec<GroupTag>,
}

/// A group: (group id, group description, members sorted by tagger id).
pub type Group<'a> = (i64, &'a str, &'a [Member<'a>]);

pub fn tag_text(id: i64, tag: &str, matcher: &Matcher, text: &str) -> Result<TagResult, MatchError> {
    Ok(tag_result(id, tag, matcher.find(text)?))
}

pub fn tag_texts(id: i64, tag: &str, matcher: &Matcher, texts: &[String]) -> Result<Vec<TagResult>, MatchError> {
    texts.iter().map(|t| tag_text(id, tag, matcher, t)).collect()
}

pub fn tag_doc(id: i64, tag: &str, matcher: &Matcher, doc: &impl DocTree, fields: &[String]) -> Result<TagResult, MatchError> {
    Ok(tag_result(id, tag, doc_matches(matcher, doc, fields)?))
}

fn tag_result(id: i64, tag: &str, matches: Vec<Match>) -> TagResult {
    TagResult {
        tagger_id: id,
        tag: tag.to_string(),
        result: !matches.is_empty(),
        matches,
    }
}

/// Taggers with at least one match, in the given (ascending id) order.
pub fn multitag_text(taggers: &[Member], text: &str) -> Result<Vec<MultiTagEntry>, MatchError> {
    Ok(group_tags(taggers, text)?
        .into_iter()
        .map(|t| MultiTagEntry {
            tagger_id: t.tagger_id,
            tag: t.tag,
            matches: t.matches,
        })
        .collect())
}

/// Members with at least one match in `text`, in member order.
fn group_tags(members: &[Member], text: &str) -> Result<Vec<GroupTag>, MatchError> {
    let mut tags = Vec::new();
    for &(id, tag, matcher) in members {
        let matches = matcher.find(text)?;
        if !matches.is_empty() {
            tags.push(GroupTag {
                tag: tag.to_string(),
                tagger_id: id,
                matches,
            });
        }
    }
    Ok(tags)
}

pub fn group_tag_text(group_id: i64, group_tag: &str, members: &[Member], text: &str) -> Result<GroupTagResult, MatchError> {
    let tags = group_tags(members, text)?;
    Ok(GroupTagResult {
        tagger_group_id: group_id,
        tagger_group_tag: group_tag.to_string(),
        result: !tags.is_empty(),
        tags,
    })
}

pub fn group_tag_texts(group_id: i64, group_tag: &str, members: &[Member], texts: &[String]) -> Result<GroupTagTextsResult, MatchError> {
    let tags = texts.iter().map(|t| group_tags(members, t)).collect::<Result<_, _>>()?;
    Ok(GroupTagTextsResult {
        tagger_group_id: group_id,
        tagger_group_tag: group_tag.to_string(),
        tags,
    })
}

/// Per-tagger grouping: ordered by the first field in which a tagger matched, then member order.
pub fn group_tag_doc(
    group_id: i64,
    group_tag: &str,
    members: &[Member],
    doc: &impl DocTree,
    fields: &[String],
) -> Result<GroupTagResult, MatchError> {
    let mut tags: Vec<GroupTag> = Vec::new();
    for field in fields {
        for &(id, tag, matcher) in members {
            let matches = field_matches(matcher, doc, field)?;
            if matches.is_empty() {
                continue;
            }
            match tags.iter_mut().find(|t| t.tagger_id == id) {
                Some(t) => t.matches.extend(matches),
                None => tags.push(GroupTag {
                    tag: tag.to_string(),
                    tagger_id: id,
                    matches,
                }),
            }
        }
    }
    Ok(GroupTagResult {
        tagger_group_id: group_id,
        tagger_group_tag: group_tag.to_string(),
        result: !tags.is_empty(),
        tags,
    })
}

/// Groups with at least one matching member, in the given (ascending id) order.
pub fn group_multitag_text(groups: &[Group], text: &str) -> Result<Vec<GroupMultiTagEntry>, MatchError> {
    let mut out = Vec::new();
    for &(id, description, members) in groups {
        let tags = group_tags(members, text)?;
        if !tags.is_empty() {
            out.push(GroupMultiTagEntry {
                tagger_group_id: id,
                tagger_group_tag: description.to_string(),
                tags,
            });
        }
    }
    Ok(out)
}

/// Distinct descriptions of matching members, in member (ascending id) order.
pub fn simple_tag_text(members: &[Member], text: &str) -> Result<Vec<String>, MatchError> {
    let mut out: Vec<String> = Vec::new();
    for tag in group_tags(members, text)? {
        if !out.contains(&tag.tag) {
            out.push(tag.tag);
        }
    }
    Ok(out)
}

/// `{group description: [matching tagger descriptions]}` for groups with matches.
pub fn simple_multitag_text(groups: &[Group], text: &str) -> Result<Map<String, Value>, MatchError> {
    let mut out = Map::new();
    for &(_, description, members) in groups {
        let tags = simple_tag_text(members, text)?;
        if !tags.is_empty() {
            out.insert(description.to_string(), Value::from(tags));
        }
    }
    Ok(out)
}

/// apply_tagger_group on one document source: appends one fact per member match in each field,
/// keeps existing facts, removes exact duplicates (keys sorted) and writes `texta_facts` sorted
/// by canonical JSON. Returns whether the source changed.
pub fn apply_group_to_doc(group_description: &str, members: &[Member], source: &mut Value, fields: &[String]) -> Result<bool, MatchError> {
    let mut facts: Vec<Value> = match source.get("texta_facts") {
        Some(Value::Array(existing)) => existing.clone(),
        _ => Vec::new(),
    };
    for field in fields {
        for &(_, tag, matcher) in members {
            for m in field_matches(matcher, source, field)? {
                facts.push(fact(group_description, tag, field, m.span));
            }
        }
    }
    let mut seen = HashSet::new();
    let mut unique: Vec<(String, Value)> = facts
        .into_iter()
        .map(|f| (canonical(&f), f))
        .filter(|(key, _)| seen.insert(key.clone()))
        .collect();
    unique.sort_by(|a, b| a.0.cmp(&b.0));
    let new_facts = Value::Array(unique.into_iter().map(|(_, f)| f).collect());
    let Some(obj) = source.as_object_mut() else {
        return Ok(false);
    };
    let changed = obj.get("texta_facts") != Some(&new_facts);
    obj.insert("texta_facts".to_string(), new_facts);
    Ok(changed)
}

fn fact(group: &str, tag: &str, field: &str, span: [usize; 2]) -> Value {
    let mut f = Map::new();
    f.insert("fact".into(), group.into());
    f.insert("str_val".into(), tag.into());
    f.insert("spans".into(), format!("[[{}, {}]]", span[0], span[1]).into());
    f.insert("doc_path".into(), field.into());
    Value::Object(f)
}

/// JSON text with object keys sorted at every level.
fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

/// Flattens nested objects with `.`-joined keys; arrays are leaves; later keys win on collision.
pub fn flatten(doc: &Value) -> Map<String, Value> {
    fn walk(prefix: &str, v: &Value, out: &mut Map<String, Value>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{}.{}", prefix, k)
                    };
                    if v.is_object() {
                        walk(&key, v, out);
                    } else {
                        out.shift_remove(&key);
                        out.insert(key, v.clone());
                    }
                }
            }
            other => {
                out.insert(prefix.to_string(), other.clone());
            }
        }
    }
    let mut out = Map::new();
    walk("", doc, &mut out);
    out
}

/// Matches of one document field; only non-empty strings are matched (as stored, untrimmed).
fn field_matches(matcher: &Matcher, doc: &impl DocTree, field: &str) -> Result<Vec<Match>, MatchError> {
    let text = match flat_get(doc, field).and_then(DocTree::text) {
        Some(s) if !s.is_empty() => s,
        _ => return Ok(Vec::new()),
    };
    let mut matches = matcher.find(text)?;
    for m in &mut matches {
        m.field = Some(field.to_string());
    }
    Ok(matches)
}

fn doc_matches(matcher: &Matcher, doc: &impl DocTree, fields: &[String]) -> Result<Vec<Match>, MatchError> {
    let Some((first, rest)) = fields.split_first() else {
        return Ok(Vec::new());
    };
    let mut out = field_matches(matcher, doc, first)?;
    for field in rest {
        out.extend(field_matches(matcher, doc, field)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_json_is_what_serde_writes() {
        let m = |s: &str, span: [usize; 2], field: Option<&str>| Match {
            str_val: s.into(),
            span,
            field: field.map(Into::into),
        };
        let results = [
            tag_result(7, "cats", vec![m("kass", [0, 4], None), m("k\"a\\s\u{1}s", [5, 12], None)]),
            tag_result(
                1,
                "t\"ä\n",
                vec![m("õun", [3, 6], Some("body.text")), m("", [2, 1], Some("\"\u{7f}"))],
            ),
            tag_result(-3, "", Vec::new()),
        ];
        for r in results {
            let mut out = Vec::new();
            r.write_json(&mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&r).unwrap());
        }
    }

    #[test]
    fn flat_get_agrees_with_flatten() {
        let doc = serde_json::json!({
            "a": {"b": "inner", "c": {"d": 1}}, "a.b": "dotted", "x.y": {"z": "first"},
            "x": {"y.z": "second", "y": {"z": "third"}}, "e": {}, "f": [1], "s": "top"
        });
        let flat = flatten(&doc);
        for field in ["a.b", "a.c.d", "a.c", "x.y.z", "e", "f", "s", "a", "", "missing", "a.b.c"] {
            assert_eq!(flat_get(&doc, field), flat.get(field), "{field}");
        }
        assert_eq!(flat_get(&Value::from("t"), ""), Some(&Value::from("t")));
    }
}
