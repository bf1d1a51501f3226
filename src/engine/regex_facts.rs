//! Regex matches as facts, the form TEXTA's web client reads (`texta-client.md` §4.10–4.11,
//! reference 2.10.15): `{fact, str_val, doc_path, spans, source}` with `spans` and `source`
//! as JSON strings. The answers keep `api.md`'s fields (`str_val`, `span`, `field`, `tags`)
//! beside them; tag_text answers `api.md`'s form alone unless the caller is the web client
//! (`operations::Dialect`).
use super::pytext::json_dumps;
use super::regex_tagger::ops::{GroupTag, GroupTagResult, TagResult};
use super::regex_tagger::Match;
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::openapi::schema::{AnyOfBuilder, Ref, Schema};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// One match as a fact, with `api.md`'s `span` and `field` where the match has them.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct MatchFact {
    /// The tagger's description (a group's, for a group's match).
    pub fact: String,
    /// The matched text (the member tagger's description, for a group's match).
    pub str_val: String,
    pub doc_path: String,
    /// `[[start, end]]` as a JSON string.
    pub spans: String,
    /// `{"regextagger_id": id}` (with `regextaggergroup_id` for a group) as a JSON string.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// A regex tagger's answer to tag_text and tag_random_doc: `api.md`'s result, the text
/// tagged (tag_text) or the document (tag_random_doc), and the matches as facts.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TaggerFactsOut {
    pub tagger_id: i64,
    pub tag: String,
    pub result: bool,
    #[serde(flatten)]
    pub facts: Facts,
}

/// What the web client reads of any regex answer: the text tagged (tag_text) or the document
/// (tag_random_doc), and the matches as facts.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Facts {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub matches: Vec<MatchFact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub document: Option<Value>,
}

/// A regex tagger group's answer to tag_text and tag_random_doc: `api.md`'s per-member
/// `tags`, the text or document, and every member's matches as the group's facts.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GroupFactsOut {
    pub tagger_group_id: i64,
    pub tagger_group_tag: String,
    pub result: bool,
    pub tags: Vec<GroupTag>,
    #[serde(flatten)]
    pub facts: Facts,
}

/// A regex tagger's tag_text answer in the caller's dialect.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TagTextOut {
    Reference(TagResult),
    WebClient(TaggerFactsOut),
}

/// A group's tag_text answer in the caller's dialect.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GroupTagTextOut {
    Reference(GroupTagResult),
    WebClient(GroupFactsOut),
}

/// The schema of an answer in either dialect: `anyOf` the two forms, since an answer without
/// matches fits both (which `oneOf` would forbid).
fn either<A: ToSchema, B: ToSchema>(description: &str) -> RefOr<Schema> {
    AnyOfBuilder::new()
        .item(Ref::from_schema_name(A::name()))
        .item(Ref::from_schema_name(B::name()))
        .description(Some(description))
        .into()
}

/// `A` and `B` with the schemas they refer to, for the document's components.
fn both<A: ToSchema, B: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    for (name, schema) in [(A::name(), A::schema()), (B::name(), B::schema())] {
        schemas.push((name.into_owned(), schema));
    }
    A::schemas(schemas);
    B::schemas(schemas);
}

impl PartialSchema for TagTextOut {
    fn schema() -> RefOr<Schema> {
        either::<TagResult, TaggerFactsOut>("A regex tagger's tag_text answer in the caller's dialect.")
    }
}

impl ToSchema for TagTextOut {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        both::<TagResult, TaggerFactsOut>(schemas);
    }
}

impl PartialSchema for GroupTagTextOut {
    fn schema() -> RefOr<Schema> {
        either::<GroupTagResult, GroupFactsOut>("A regex tagger group's tag_text answer in the caller's dialect.")
    }
}

impl ToSchema for GroupTagTextOut {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        both::<GroupTagResult, GroupFactsOut>(schemas);
    }
}

/// Where a match was found: its field, or `text` for a tagged text.
fn doc_path(m: &Match) -> String {
    m.field.clone().unwrap_or_else(|| "text".to_string())
}

fn spans(m: &Match) -> String {
    json_dumps(&json!([m.span]))
}

/// A regex tagger's result with its matches as facts.
pub fn tagger_facts(result: TagResult, text: Option<String>, document: Option<Value>) -> TaggerFactsOut {
    let source = json_dumps(&json!({"regextagger_id": result.tagger_id}));
    let matches = result
        .matches
        .into_iter()
        .map(|m| MatchFact {
            fact: result.tag.clone(),
            doc_path: doc_path(&m),
            spans: spans(&m),
            source: source.clone(),
            span: Some(m.span),
            str_val: m.str_val,
            field: m.field,
        })
        .collect();
    TaggerFactsOut {
        tagger_id: result.tagger_id,
        tag: result.tag,
        result: result.result,
        facts: Facts { text, matches, document },
    }
}

/// A group's result with every member's matches as the group's facts, in member order.
pub fn group_facts(result: GroupTagResult, text: Option<String>, document: Option<Value>) -> GroupFactsOut {
    let group = result.tagger_group_id;
    let matches = result
        .tags
        .iter()
        .flat_map(|tag| {
            let source = json_dumps(&json!({"regextaggergroup_id": group, "regextagger_id": tag.tagger_id}));
            let fact = &result.tagger_group_tag;
            tag.matches.iter().map(move |m| MatchFact {
                fact: fact.clone(),
                str_val: tag.tag.clone(),
                doc_path: doc_path(m),
                spans: spans(m),
                source: source.clone(),
                span: None,
                field: None,
            })
        })
        .collect();
    GroupFactsOut {
        tagger_group_id: group,
        tagger_group_tag: result.tagger_group_tag,
        result: result.result,
        tags: result.tags,
        facts: Facts { text, matches, document },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_carry_both_forms() {
        let result = TagResult {
            tagger_id: 4,
            tag: "politsei".into(),
            result: true,
            matches: vec![Match {
                str_val: "varas".into(),
                span: [27, 32],
                field: None,
            }],
        };
        let out = serde_json::to_value(tagger_facts(result, Some("t".into()), None)).unwrap();
        assert_eq!(
            out,
            json!({"tagger_id": 4, "tag": "politsei", "result": true, "text": "t", "matches": [{
                "fact": "politsei", "str_val": "varas", "doc_path": "text", "spans": "[[27, 32]]",
                "source": "{\"regextagger_id\": 4}", "span": [27, 32]}]})
        );
        let group = GroupTagResult {
            tagger_group_id: 2,
            tagger_group_tag: "Hädaabi".into(),
            result: true,
            tags: vec![GroupTag {
                tag: "politsei".into(),
                tagger_id: 4,
                matches: vec![Match {
                    str_val: "varas".into(),
                    span: [0, 5],
                    field: Some("body".into()),
                }],
            }],
        };
        let out = serde_json::to_value(group_facts(group, None, Some(json!({"body": "Varas"})))).unwrap();
        assert_eq!(
            out["matches"],
            json!([{"fact": "Hädaabi", "str_val": "politsei", "doc_path": "body", "spans": "[[0, 5]]",
                    "source": "{\"regextaggergroup_id\": 2, \"regextagger_id\": 4}"}])
        );
        assert_eq!(out["document"], json!({"body": "Varas"}));
    }
}
