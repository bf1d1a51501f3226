//! The answer to `OPTIONS` on an API path, in the shape of DRF's metadata: the view's name and
//! description, the media types it renders and parses, and for a view that takes a body the
//! fields of its POST (a collection or an action) or PUT (a single resource) body, each with
//! its type, whether it is required or read-only, and a label. Everything is derived from the
//! operation catalogue: the request and response types' schemas.
use crate::engine::operations::{self, Method, Operation};
use serde_json::{json, Map, Value};

/// The methods `path` (relative to the API root) answers; empty when no operation has it.
pub fn methods(path: &str) -> Vec<Method> {
    let mut found: Vec<Method> = operations_of(path).iter().map(|o| o.method).collect();
    found.sort();
    found.dedup();
    found
}

/// The operations of the one path template `path` resolves to (literal segments win over
/// parameters, as in the router).
fn operations_of(path: &str) -> Vec<&'static Operation> {
    let Some((best, _)) = operations::all()
        .iter()
        .filter_map(|o| o.matches(path).map(|p| (o, p.len())))
        .min_by_key(|(_, params)| *params)
    else {
        return Vec::new();
    };
    operations::all().iter().filter(|o| o.path == best.path).collect()
}

/// The metadata of `path`, or `None` when no operation has it.
pub fn metadata(path: &str) -> Option<Value> {
    let ops = operations_of(path);
    let first = ops.first()?;
    let segments: Vec<&str> = first.path.trim_matches('/').split('/').collect();
    let last = segments.last().copied().unwrap_or("");
    let writes = ops
        .iter()
        .find(|o| o.method == Method::Post)
        .map(|o| ("POST", *o))
        .or_else(|| ops.iter().find(|o| o.method == Method::Put).map(|o| ("PUT", *o)));
    let name = if last.starts_with('{') {
        format!("{} Instance", noun(segments.iter().rev().nth(1).copied().unwrap_or("")))
    } else if ops.iter().any(|o| o.method == Method::Get) && writes.is_some_and(|(m, _)| m == "POST") {
        format!("{} List", noun(last))
    } else {
        sentence(last)
    };
    let mut out = json!({
        "name": name,
        "description": first.summary,
        "renders": ["application/json", "text/html"],
        "parses": ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"],
    });
    if let Some((method, op)) = writes {
        let fields = fields(op);
        if !fields.is_empty() {
            out["actions"] = json!({ method: fields });
        }
    }
    Some(out)
}

/// `regex_taggers` → `Regex Tagger`.
fn noun(segment: &str) -> String {
    let words: Vec<String> = segment.split('_').map(capitalize).collect();
    let mut name = words.join(" ");
    for (plural, singular) in [("ies", "y"), ("ches", "ch"), ("ices", "ex"), ("s", "")] {
        if let Some(stem) = name.strip_suffix(plural).filter(|_| !name.ends_with("ss")) {
            name = format!("{stem}{singular}");
            break;
        }
    }
    name
}

/// `tag_text` → `Tag text`.
fn sentence(segment: &str) -> String {
    capitalize(&segment.replace('_', " "))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The properties and required names of a catalogue type's schema, with `allOf` parts (a
/// flattened struct) and references to named schemas resolved.
fn object(f: operations::SchemaFn) -> (Map<String, Value>, Vec<String>) {
    let mut nested = Vec::new();
    let root = serde_json::to_value(f(&mut nested)).unwrap_or(Value::Null);
    let named: Map<String, Value> = nested
        .into_iter()
        .filter_map(|(n, s)| Some((n, serde_json::to_value(s).ok()?)))
        .collect();
    let (mut properties, mut required) = (Map::new(), Vec::new());
    collect(&root, &named, &mut properties, &mut required, 0);
    (properties, required)
}

fn collect(schema: &Value, named: &Map<String, Value>, properties: &mut Map<String, Value>, required: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    if let Some(target) = schema["$ref"]
        .as_str()
        .and_then(|r| r.rsplit('/').next())
        .and_then(|n| named.get(n))
    {
        return collect(target, named, properties, required, depth + 1);
    }
    for part in schema["allOf"].as_array().into_iter().flatten() {
        collect(part, named, properties, required, depth + 1);
    }
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        properties.insert(name.clone(), inline_choices(property, named));
    }
    required.extend(
        schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string),
    );
}

/// `property` with references to named enum schemas (closed choices) replaced by the enum,
/// also inside `oneOf` (an optional field) and `items` (a list).
fn inline_choices(property: &Value, named: &Map<String, Value>) -> Value {
    let target = property["$ref"]
        .as_str()
        .and_then(|r| r.rsplit('/').next())
        .and_then(|n| named.get(n));
    if let Some(t) = target.filter(|t| t.get("enum").is_some()) {
        return t.clone();
    }
    let mut out = property.clone();
    if let Some(items) = property.get("items") {
        out["items"] = inline_choices(items, named);
    }
    if let Some(parts) = property["oneOf"].as_array() {
        out["oneOf"] = parts.iter().map(|p| inline_choices(p, named)).collect();
    }
    out
}

/// The closed choices of a property: its own enum, an optional enum's, or a list's items'
/// (then `true`: a multiple choice).
fn choices(property: &Value) -> Option<(&Vec<Value>, bool)> {
    if let Some(values) = property["enum"].as_array() {
        return Some((values, false));
    }
    if let Some(values) = property["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|p| p["enum"].as_array())
    {
        return Some((values, false));
    }
    property["items"]["enum"].as_array().map(|values| (values, true))
}

/// The field descriptions of `op`'s body, with the read-only fields of what it answers.
fn fields(op: &Operation) -> Map<String, Value> {
    let mut out = Map::new();
    let (writable, required) = op.request.map(object).unwrap_or_default();
    let required = |name: &str| required.iter().any(|r| r == name);
    let (answer, _) = op.response.map(object).unwrap_or_default();
    for (name, property) in &answer {
        let source = writable.get(name).unwrap_or(property);
        out.insert(name.clone(), describe(name, source, required(name), !writable.contains_key(name)));
    }
    for (name, property) in &writable {
        if !out.contains_key(name) {
            out.insert(name.clone(), describe(name, property, required(name), false));
        }
    }
    out
}

fn describe(name: &str, property: &Value, required: bool, read_only: bool) -> Value {
    let mut d = json!({"type": field_type(property), "required": required, "read_only": read_only, "label": sentence(name)});
    if let Some((values, multiple)) = choices(property) {
        d["type"] = json!(if multiple { "multiple choice" } else { "choice" });
        if !read_only {
            let listed = values.iter().filter(|v| !v.is_null());
            d["choices"] = listed.map(|v| json!({"value": v, "display_name": v})).collect();
        }
    }
    if let Some(max) = property["maxLength"].as_u64() {
        d["max_length"] = json!(max);
    }
    if let Some(text) = property["description"].as_str() {
        d["help_text"] = json!(text);
    }
    d
}

/// DRF's type names: `string`, `integer`, `float`, `boolean`, `datetime`, `list`,
/// `nested object`, `field`.
fn field_type(property: &Value) -> &'static str {
    let types: Vec<&str> = match &property["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => Vec::new(),
    };
    if property.get("$ref").is_some() || property.get("allOf").is_some() || property.get("oneOf").is_some() {
        return "nested object";
    }
    match (types.first().copied(), property["format"].as_str()) {
        (Some("string"), Some("date-time")) => "datetime",
        (Some("string"), _) => "string",
        (Some("integer"), _) => "integer",
        (Some("number"), _) => "float",
        (Some("boolean"), _) => "boolean",
        (Some("array"), _) => "list",
        (Some("object"), _) => "nested object",
        _ => "field",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_view_kind() {
        assert_eq!(noun("regex_taggers"), "Regex Tagger");
        assert_eq!(noun("indices"), "Index");
        assert_eq!(noun("searches"), "Search");
        assert_eq!(noun("address"), "Address");
        assert_eq!(sentence("tag_text"), "Tag text");
    }

    #[test]
    fn a_collection_describes_its_create_body() {
        let m = metadata("/projects/1/regex_taggers/").unwrap();
        assert_eq!(m["name"], "Regex Tagger List");
        let post = &m["actions"]["POST"];
        assert_eq!(
            post["description"],
            json!({"type": "string", "required": true, "read_only": false, "label": "Description"})
        );
        assert_eq!(
            post["id"],
            json!({"type": "integer", "required": false, "read_only": true, "label": "Id"})
        );
        let instance = metadata("/projects/1/regex_taggers/7/").unwrap();
        assert_eq!(instance["name"], "Regex Tagger Instance");
        assert!(instance["actions"]["PUT"].is_object(), "{instance}");
        assert!(metadata("/projects/1/nothing_here/").is_none());
    }

    #[test]
    fn closed_fields_list_their_choices_in_declaration_order() {
        let choices = |path: &str, field: &str| {
            let m = metadata(path).unwrap();
            let f = &m["actions"]["POST"][field];
            assert_eq!(f["type"], "choice", "{field}: {f}");
            f["choices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["value"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            choices("/projects/1/taggers/", "vectorizer"),
            ["Hashing Vectorizer", "Count Vectorizer", "TfIdf Vectorizer"]
        );
        assert_eq!(choices("/projects/1/taggers/", "classifier"), ["Logistic Regression", "LinearSVC"]);
        assert_eq!(
            choices("/projects/1/torchtaggers/", "model_architecture"),
            ["TextRNN", "fastText", "RCNN"]
        );
        assert_eq!(choices("/projects/1/regex_taggers/", "operator"), ["or", "and"]);
        let m = metadata("/projects/1/taggers/").unwrap();
        assert_eq!(
            m["actions"]["POST"]["vectorizer"]["choices"][0],
            json!({"value": "Hashing Vectorizer", "display_name": "Hashing Vectorizer"})
        );
    }
}
