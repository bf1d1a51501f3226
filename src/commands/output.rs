//! Rendering results: JSON (pipes, `--json`) or a readable table on a terminal, and
//! the one-line error message.
use crate::engine::error::Error;
use serde_json::Value;

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => a.iter().map(cell).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn table(rows: &[Value]) -> String {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        if let Value::Object(o) = r {
            for (k, v) in o {
                if !v.is_object() && !cols.contains(k) {
                    cols.push(k.clone());
                }
            }
        }
    }
    let grid: Vec<Vec<String>> = rows
        .iter()
        .map(|r| cols.iter().map(|c| cell(r.get(c).unwrap_or(&Value::Null))).collect())
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            grid.iter()
                .map(|row| row[i].chars().count())
                .chain([c.len()])
                .max()
                .unwrap_or(0)
                .min(60)
        })
        .collect();
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{:<w$}", c.chars().take(*w).collect::<String>(), w = *w))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = vec![line(cols.iter().map(|c| c.to_uppercase()).collect())];
    out.extend(grid.into_iter().map(line));
    out.join("\n")
}

fn fields(o: &serde_json::Map<String, Value>, indent: usize) -> String {
    let w = o.keys().map(|k| k.len()).max().unwrap_or(0);
    o.iter()
        .map(|(k, v)| match v {
            Value::Object(inner) if !inner.is_empty() => {
                format!("{:indent$}{k}:\n{}", "", fields(inner, indent + 2))
            }
            _ => format!("{:indent$}{k:<w$}  {}", "", cell(v)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Print a result on stdout.
pub fn print(v: &Value, json: bool) {
    let text = if json {
        serde_json::to_string(v).unwrap_or_default()
    } else {
        match v {
            Value::Array(a) if a.iter().all(Value::is_object) && !a.is_empty() => table(a),
            Value::Object(o) if o.contains_key("results") && o.contains_key("count") => {
                let rows = o["results"].as_array().cloned().unwrap_or_default();
                format!("{}\n({} in all)", table(&rows), o["count"])
            }
            Value::Object(o) => fields(o, 0),
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        }
    };
    println!("{text}");
}

/// The error as one line.
pub fn error_line(e: &Error) -> String {
    match e {
        Error::Invalid(v) => format!("invalid input: {}", serde_json::to_string(v).unwrap_or_default()),
        other => other.to_string(),
    }
}
