//! Requests and event streams (Server-Sent Events, read for ever), for the
//! examples that play through the service as bots (`tabula-bot`, `bot-load`).

use std::time::Duration;

use serde_json::Value;

/// A stream silent for this long is dead (the service sends a keep-alive
/// every 15 s).
const SILENCE: Duration = Duration::from_secs(30);

/// One request to the service with `key`: its status and its JSON answer
/// (null when it has none).
pub async fn call(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
    headers: &[(&str, String)],
) -> anyhow::Result<(u16, Value)> {
    let mut request = http
        .request(method, format!("{base}{path}"))
        .bearer_auth(key)
        .timeout(Duration::from_secs(30));
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await?;
    let status = response.status().as_u16();
    let text = response.text().await?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

/// An event stream read for ever: reopened with `Last-Event-ID` whenever it
/// drops or stays silent, so no event is missed or repeated.
pub struct Events {
    path: String,
    last: Option<String>,
    response: Option<reqwest::Response>,
    buffer: String,
}

impl Events {
    pub fn new(path: String) -> Events {
        Events {
            path,
            last: None,
            response: None,
            buffer: String::new(),
        }
    }

    /// The next event and its data; `None` when the resource is gone (404).
    pub async fn next(
        &mut self,
        http: &reqwest::Client,
        base: &str,
        key: &str,
    ) -> Option<(String, Value)> {
        loop {
            if let Some(event) = self.take_frame() {
                return Some(event);
            }
            let Some(response) = self.response.as_mut() else {
                let mut request = http.get(format!("{base}{}", self.path)).bearer_auth(key);
                if let Some(last) = &self.last {
                    request = request.header("Last-Event-ID", last);
                }
                match request.send().await {
                    Ok(r) if r.status().is_success() => self.response = Some(r),
                    Ok(r) if r.status() == reqwest::StatusCode::NOT_FOUND => return None,
                    Ok(r) => {
                        eprintln!("{}: {}; again in 1 s", self.path, r.status());
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    Err(e) => {
                        eprintln!("{}: {e}; again in 1 s", self.path);
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
                self.buffer.clear();
                continue;
            };
            match tokio::time::timeout(SILENCE, response.chunk()).await {
                Ok(Ok(Some(bytes))) => self
                    .buffer
                    .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n")),
                _ => self.response = None, // ended, broke or went silent: reopen
            }
        }
    }

    /// Takes one whole frame with data off the buffer, if there is one.
    fn take_frame(&mut self) -> Option<(String, Value)> {
        while let Some(end) = self.buffer.find("\n\n") {
            let frame: String = self.buffer.drain(..end + 2).collect();
            let (mut event, mut data, mut id) = ("message".to_owned(), String::new(), None);
            for line in frame.lines() {
                let (name, value) = line.split_once(':').unwrap_or((line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match name {
                    "event" => value.clone_into(&mut event),
                    "data" => data.push_str(value),
                    "id" => id = Some(value.to_owned()),
                    _ => {} // a comment (keep-alive) or a field we do not use
                }
            }
            if let Some(id) = id {
                self.last = Some(id);
            }
            if !data.is_empty() {
                return Some((event, serde_json::from_str(&data).unwrap_or(Value::Null)));
            }
        }
        None
    }
}
