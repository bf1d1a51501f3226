//! The browsable API: JSON responses rendered as a self-contained HTML page for
//! browsers, with the response, the allowed methods and a raw-JSON request form.
use axum::body::{to_bytes, Body};
use axum::http::{header, Method};
use axum::response::{IntoResponse, Response};

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Wrap a JSON response in the browsable page; other responses pass through.
pub async fn render(resp: Response, method: &Method, path: &str) -> Response {
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let pretty = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
    let allow = parts
        .headers
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let page = format!(
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>ta API — {path}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:70em}}pre{{background:#f4f4f4;padding:1em;overflow:auto}}
textarea{{width:100%;height:10em;font-family:monospace}}.status{{color:#555}}</style></head><body>
<h1>ta API</h1><p><a href="/api/v1/">API root</a> · <a href="/api/v1/swagger/">Swagger</a> · <a href="/api/v1/redoc/">ReDoc</a></p>
<h2>{method} {path}</h2><p class="status">HTTP {status}{allow_line}</p><pre>{body}</pre>
<h3>Send a request</h3><form id="f"><select id="m"><option>POST</option><option>PUT</option><option>PATCH</option><option>DELETE</option><option>GET</option></select>
<textarea id="b">{{}}</textarea><button type="submit">Send</button></form><pre id="out"></pre>
<script>document.getElementById('f').onsubmit=async e=>{{e.preventDefault();const m=document.getElementById('m').value;
const r=await fetch(location.pathname+'?format=json',{{method:m,headers:{{'Content-Type':'application/json'}},body:m==='GET'?undefined:document.getElementById('b').value}});
document.getElementById('out').textContent='HTTP '+r.status+'\n'+await r.text();}};</script></body></html>"#,
        path = escape(path),
        method = method,
        status = parts.status.as_u16(),
        allow_line = if allow.is_empty() {
            String::new()
        } else {
            format!(" · Allow: {}", escape(&allow))
        },
        body = escape(&pretty),
    );
    parts
        .headers
        .insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/html; charset=utf-8"));
    parts.headers.remove(header::CONTENT_LENGTH);
    (parts, Body::from(page)).into_response()
}
