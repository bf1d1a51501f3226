//! `_source` filtering of search hits, as Elasticsearch does it.

use serde_json::{json, Map, Value};

/// Elasticsearch `_source` filtering: `false`, a path or list of paths, or
/// `{includes, excludes}`; paths may end in `*`.
pub(super) fn filter_source(source: Value, spec: Option<&Value>) -> Value {
    let (includes, excludes): (Vec<&str>, Vec<&str>) = match spec {
        None | Some(Value::Bool(true)) => return source,
        Some(Value::Bool(false)) => return json!({}),
        Some(Value::String(one)) => (vec![one.as_str()], vec![]),
        Some(Value::Array(list)) => (list.iter().filter_map(Value::as_str).collect(), vec![]),
        Some(Value::Object(obj)) => {
            let list = |k: &str, alt: &str| -> Vec<&str> {
                let v = obj.get(k).or_else(|| obj.get(alt));
                match v {
                    Some(Value::String(s)) => vec![s.as_str()],
                    Some(Value::Array(l)) => l.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                }
            };
            (list("includes", "include"), list("excludes", "exclude"))
        }
        Some(_) => return source,
    };
    filter_object(source, "", &includes, &excludes)
}

fn filter_object(value: Value, prefix: &str, includes: &[&str], excludes: &[&str]) -> Value {
    let Value::Object(map) = value else {
        return value;
    };
    let mut out = Map::new();
    for (key, child) in map {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if excludes.iter().any(|p| path_matches(p, &path)) {
            continue;
        }
        let included = includes.is_empty() || includes.iter().any(|p| path_matches(p, &path));
        if included {
            out.insert(key, filter_object(child, &path, &[], excludes));
        } else if includes.iter().any(|p| p.starts_with(&format!("{path}.")) || p.starts_with('*')) {
            let filtered = filter_object(child, &path, includes, excludes);
            if filtered.as_object().is_some_and(|o| !o.is_empty()) {
                out.insert(key, filtered);
            }
        }
    }
    Value::Object(out)
}

fn path_matches(pattern: &str, path: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => pattern == path || path.starts_with(&format!("{pattern}.")),
    }
}
