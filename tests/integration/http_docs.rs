//! HTTP tests of the documentation `ta serve` publishes (conventions §2): the Swagger and
//! ReDoc pages, the OpenAPI document and what it says of each answer, and that every
//! documented operation is routed.
use crate::common::Server;
use serde_json::{json, Value};

#[test]
fn docs_pages_and_schema() {
    let s = Server::start();
    for path in ["/swagger/", "/redoc/", "/redoc"] {
        let r = s.call("GET", path, None, None);
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        assert!(r.header("content-type").starts_with("text/html"), "{path}: {:?}", r.headers);
        assert!(r.text.to_ascii_lowercase().contains("<html"), "{path}");
    }
    let doc = s.get("/swagger.json", None).ok(200);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"].as_object().is_some_and(|p| !p.is_empty()));
    let yaml = s.get("/swagger.yaml", None);
    assert_eq!(yaml.status, 200);
    assert!(yaml.text.contains("openapi: 3.1.0"), "{}", &yaml.text[..yaml.text.len().min(200)]);
    // Either form of every docs path, as for API paths.
    assert_eq!(s.get("/swagger.json/", None).ok(200), doc);
    assert_eq!(s.get("/swagger.yaml/", None).text, yaml.text);
}

/// The OpenAPI document describes what the server answers, as an outside client reads it
/// (scripts/check/api_fuzz.sh, issue 15 §1): every `$ref` resolves (paginated lists once
/// referred to item schemas the document lacked), every operation lists its error answers
/// and its security, list operations their query parameters, and request bodies the fields
/// the engine reads (the document insert once described `{"index", "documents": {}}`;
/// search_by_query once required `query`; a regex tagger body was an `allOf` fuzzers could
/// not generate from).
#[test]
fn openapi_document_describes_the_answers() {
    let s = Server::start();
    let doc = s.get("/swagger.json", None).ok(200);
    fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r);
                }
                m.values().for_each(|x| refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    refs(&doc, &mut all);
    let dangling: Vec<&&str> = all
        .iter()
        .filter(|r| r.strip_prefix('#').and_then(|p| doc.pointer(p)).is_none())
        .collect();
    assert!(!all.is_empty() && dangling.is_empty(), "unresolved: {dangling:?}");
    let error = |name: &str| json!({"$ref": format!("#/components/responses/{name}")});
    let list = &doc["paths"]["/projects/{project_pk}/lexicons/"]["get"];
    assert_eq!(
        list["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["results"],
        json!({"type": "array", "items": {"$ref": "#/components/schemas/LexiconOut"}})
    );
    assert_eq!(list["security"], json!([{"Token": []}]));
    let names: Vec<&Value> = list["parameters"].as_array().unwrap().iter().map(|p| &p["name"]).collect();
    assert_eq!(names, ["project_pk", "page", "page_size", "ordering", "description", "task_status"]);
    assert_eq!(list["parameters"][1]["in"], "query");
    let statuses = |op: &Value| -> Vec<String> { op["responses"].as_object().unwrap().keys().cloned().collect() };
    assert_eq!(statuses(list), ["200", "403", "404", "406"]);
    assert_eq!(list["responses"]["404"], error("NotFound"));
    let create = &doc["paths"]["/projects/"]["post"];
    assert_eq!(statuses(create), ["201", "400", "403", "406", "413", "415"]);
    assert_eq!(create["responses"]["400"], error("BadRequest"));
    assert_eq!(doc["paths"]["/health/"]["get"]["security"], json!([{}, {"Token": []}]));
    assert_eq!(
        doc["components"]["securitySchemes"]["Token"],
        json!({"type": "apiKey", "in": "header", "name": "Authorization",
               "description": "`Token <key>`, the key from /rest-auth/login/ or /rest-auth/registration/"})
    );
    assert_eq!(
        doc["components"]["responses"]["Forbidden"]["content"]["application/json"]["schema"],
        json!({"$ref": "#/components/schemas/Detail"})
    );
    let body = |path: &str| doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"].clone();
    assert_eq!(
        body("/projects/{project_pk}/elastic/documents/"),
        json!({"type": "object", "description": "`{\"documents\": [...]}` of a document insert (at most 10 000 documents).",
               "required": ["documents"],
               "properties": {"documents": {"type": "array", "items": {"$ref": "#/components/schemas/DocumentIn"},
                                            "minItems": 1, "maxItems": 10000}}})
    );
    assert_eq!(body("/projects/{project_pk}/search_by_query/").get("required"), None);
    let regex = body("/projects/{project_pk}/regex_taggers/");
    assert_eq!(regex["type"], "object");
    assert_eq!(regex["required"], json!(["description"]));
    let fields: Vec<&String> = regex["properties"].as_object().unwrap().keys().collect();
    assert!(
        fields.contains(&&"lexicon".to_string()) && fields.contains(&&"description".to_string()),
        "{fields:?}"
    );
}

/// Every operation in the OpenAPI document is routed: its path answers the other methods
/// with 405 and an `Allow` header that lists the documented ones, and documented GETs
/// without path parameters answer something other than 404.
#[test]
fn every_documented_operation_is_routed() {
    let s = Server::start();
    let t = s.admin_token();
    s.create_project(&t, "Doc", &[]);
    let doc = s.get("/swagger.json", None).ok(200);
    let methods = ["get", "post", "put", "patch", "delete"];
    let mut problems = Vec::new();
    let mut count = 0;
    let placeholder = regex::Regex::new(r"\{[^}]+\}").unwrap();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let documented: Vec<&str> = methods.iter().copied().filter(|m| item.get(*m).is_some()).collect();
        count += documented.len();
        let concrete = placeholder.replace_all(path, "1").into_owned();
        if let Some(probe) = methods.iter().find(|m| !documented.contains(m)) {
            let probe = probe.to_uppercase();
            let r = s.call(&probe, &concrete, Some(&t), None);
            let allow = r.header("allow").to_uppercase();
            if r.status != 405 {
                problems.push(format!(
                    "{probe} {concrete}: expected 405 (path routed), got {} {}",
                    r.status, r.text
                ));
            } else {
                for m in &documented {
                    if !allow.split(',').any(|a| a.trim() == m.to_uppercase()) {
                        problems.push(format!("{concrete}: documented {} missing from Allow {allow:?}", m.to_uppercase()));
                    }
                }
            }
        }
        if documented.contains(&"get") && !path.contains('{') {
            let r = s.get(path, Some(&t));
            if r.status == 404 {
                problems.push(format!("GET {path}: 404"));
            }
        }
    }
    assert!(count > 0, "the document lists operations");
    assert!(problems.is_empty(), "unrouted documented operations:\n{}", problems.join("\n"));
}
