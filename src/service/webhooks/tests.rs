use super::*;

#[test]
fn the_guard_refuses_every_address_that_is_not_global_unicast_in_every_spelling() {
    for refused in [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "100.64.0.1",
        "::1",
        "::",
        "fd00::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        // The forms a hostile client found accepted (issue 67).
        "::127.0.0.1",
        "::ffff:0:127.0.0.1",
        "64:ff9b::169.254.169.254",
        "64:ff9b:1::1",
        "2002:a9fe:a9fe::",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "2001:db8::1",
        "3fff::1",
        "fec0::1",
        "ff02::1",
        "ff0e::1",
        "100::1",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "198.18.0.1",
        "192.0.0.170",
        "192.0.2.1",
        "198.51.100.7",
        "203.0.113.9",
    ] {
        assert!(refused_address(refused.parse().unwrap()), "{refused}");
    }
    for allowed in [
        "93.184.216.34",
        "8.8.8.8",
        "2606:4700::1111",
        "172.32.0.1",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ] {
        assert!(!refused_address(allowed.parse().unwrap()), "{allowed}");
    }
}

#[test]
fn signatures_follow_the_standard_webhooks_example() {
    // The example of the Standard Webhooks specification's reference
    // libraries (their test suites use this secret, id and body).
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let body = r#"{"test": 2432232314}"#;
    assert_eq!(
        sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, body).as_deref(),
        Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    );
    assert_eq!(sign("not-a-secret", "id", 1, body), None);
}

#[test]
fn the_default_schedule_has_six_waits() {
    assert_eq!(WebhookSettings::default().retry.len(), 6);
}
