//! A webhook receiver for the tests: an HTTP/1.1 server on 127.0.0.1 that
//! records every request it is sent and answers with the status set (0:
//! closes the connection without answering), after the delay set; or, once
//! a responder is set, with the status and body the responder makes of the
//! request (a webhook bot).

#![allow(
    dead_code,
    reason = "shared by two test crates (api, faults), each using a part"
)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// A request the receiver was sent.
#[derive(Clone, Debug)]
pub struct Got {
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    pub body: String,
    /// The status it was answered with (0: none).
    pub answered: u16,
    /// When it arrived (its body was read).
    pub at: std::time::SystemTime,
}

impl Got {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }
}

pub struct Receiver {
    pub url: String,
    /// Its port, to start another on after this one is dropped.
    pub port: u16,
    pub got: Arc<Mutex<Vec<Got>>>,
    answer: Arc<AtomicU16>,
    delay_ms: Arc<AtomicU64>,
    responder: Responder,
    task: tokio::task::JoinHandle<()>,
}

/// Makes an answer (status, JSON body) of a request's body.
type Respond = Box<dyn Fn(&serde_json::Value) -> (u16, String) + Send>;
type Responder = Arc<Mutex<Option<Respond>>>;

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    /// A receiver on a free port answering 204.
    pub async fn start() -> Receiver {
        Receiver::start_on(0).await
    }

    /// A receiver on `port` (0: a free one).
    pub async fn start_on(port: u16) -> Receiver {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("the receiver binds");
        let port = listener.local_addr().expect("an address").port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let answer = Arc::new(AtomicU16::new(204));
        let delay_ms = Arc::new(AtomicU64::new(0));
        let responder: Responder = Arc::default();
        let task = {
            let (got, answer, delay_ms, responder) = (
                got.clone(),
                answer.clone(),
                delay_ms.clone(),
                responder.clone(),
            );
            tokio::spawn(async move {
                let mut connections = tokio::task::JoinSet::new();
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        return;
                    };
                    connections.spawn(serve(
                        stream,
                        got.clone(),
                        answer.clone(),
                        delay_ms.clone(),
                        responder.clone(),
                    ));
                }
            })
        };
        Receiver {
            url: format!("http://127.0.0.1:{port}/hook"),
            port,
            got,
            answer,
            delay_ms,
            responder,
            task,
        }
    }

    /// Answers each request with what `respond` makes of its JSON body
    /// (status, body) from now on.
    pub fn respond(&self, respond: impl Fn(&serde_json::Value) -> (u16, String) + Send + 'static) {
        *self.responder.lock().expect("not poisoned") = Some(Box::new(respond));
    }

    /// Answers with `status` from now on (0: no answer, the connection closed).
    pub fn answer(&self, status: u16) {
        self.answer.store(status, Ordering::SeqCst);
    }

    /// Answers after `delay` from now on.
    pub fn delay(&self, delay: Duration) {
        self.delay_ms.store(
            u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            Ordering::SeqCst,
        );
    }

    /// What it was sent so far.
    pub fn got(&self) -> Vec<Got> {
        self.got.lock().expect("not poisoned").clone()
    }

    /// The requests it answered with a 2xx.
    pub fn delivered(&self) -> Vec<Got> {
        self.got()
            .into_iter()
            .filter(|g| (200..300).contains(&g.answered))
            .collect()
    }

    /// Waits until `count` requests were answered with a 2xx (or `within`
    /// passed); returns them.
    pub async fn wait_delivered(&self, count: usize, within: Duration) -> Vec<Got> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let delivered = self.delivered();
            if delivered.len() >= count || tokio::time::Instant::now() >= deadline {
                return delivered;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn serve(
    stream: TcpStream,
    got: Arc<Mutex<Vec<Got>>>,
    answer: Arc<AtomicU16>,
    delay_ms: Arc<AtomicU64>,
    responder: Responder,
) {
    let mut stream = BufReader::new(stream);
    loop {
        let mut headers = HashMap::new();
        let mut line = String::new();
        if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        loop {
            line.clear();
            if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some((name, value)) = trimmed.split_once(':') {
                headers.insert(name.trim().to_lowercase(), value.trim().to_owned());
            }
        }
        let length: usize = headers
            .get("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        if stream.read_exact(&mut body).await.is_err() {
            return;
        }
        let at = std::time::SystemTime::now();
        let delay = delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        let (status, answer_body) = match &*responder.lock().expect("not poisoned") {
            Some(respond) => respond(&serde_json::from_str(&text).unwrap_or_default()),
            None => (answer.load(Ordering::SeqCst), String::new()),
        };
        got.lock().expect("not poisoned").push(Got {
            headers,
            body: text,
            answered: status,
            at,
        });
        if status == 0 {
            return;
        }
        let reply = format!(
            "HTTP/1.1 {status} Answer\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer_body}",
            answer_body.len()
        );
        if stream.get_mut().write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}
