//! A low limit of open files: the soft one raised to the hard one at start,
//! and event streams refused before files run out.

use super::*;

/// The soft and hard open-file limits of process `pid`.
fn open_file_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap()
        .to_owned();
    let mut fields = line["Max open files".len()..].split_whitespace();
    (
        fields.next().unwrap().to_owned(),
        fields.next().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn a_low_soft_open_file_limit_is_raised_to_the_hard_one() {
    let dir = tempfile::tempdir().unwrap();
    let service = start_with_ulimit(&dir.path().join("t.db"), "-Sn 256").await;
    let (soft, hard) = open_file_limits(service.child.id());
    assert_eq!(soft, hard, "the soft limit stayed below the hard one");
}

#[tokio::test]
async fn at_a_low_open_file_limit_streams_are_refused_before_files_run_out() {
    let dir = tempfile::tempdir().unwrap();
    let service = start_with_ulimit(&dir.path().join("t.db"), "-n 256").await;
    let client = Client::new();
    let base = &service.base;
    let (id, _, _) = create_hotseat(&client, base, "connect_four").await;
    // Open streams until the server refuses one: it must refuse with 503
    // `busy`, never fail to accept or to open its database.
    let mut streams = Vec::new();
    let refused = loop {
        let res = client
            .get(format!("{base}/v1/games/{id}/events"))
            .send()
            .await
            .expect("the connection is accepted");
        if res.status() != 200 {
            break res;
        }
        streams.push(res);
        assert!(streams.len() < 256, "more streams than files");
    };
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "busy", "{body}");
    assert!(streams.len() >= 50, "only {} streams", streams.len());
    // With every stream held, the database and other requests still work.
    let res = client
        .post(format!("{base}/v1/games"))
        .json(&json!({"kind": "tic_tac_toe"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let res = client.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(res.status(), 200);
}
