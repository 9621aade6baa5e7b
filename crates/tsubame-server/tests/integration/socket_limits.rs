//! A game or tournament socket that breaks the protocol hears why before it is closed: 1009
//! for a frame past the 64 KiB limit (refused from its header, before its payload is read, so
//! thirty announced 10 MB frames cost the server no memory), 1002 for a malformed frame; a
//! message within the limit is taken.

use crate::common::*;
use std::io::Write;
use std::time::Duration;
use tungstenite::Message;

/// A client frame header: FIN and `first` opcode bits, masked, with a 64-bit length.
fn masked_header(first: u8, length: u64) -> Vec<u8> {
    let mut header = vec![first, 0x80 | 127];
    header.extend_from_slice(&length.to_be_bytes());
    header.extend_from_slice(&[0x11, 0x22, 0x33, 0x44]);
    header
}

/// Sends `raw` on a fresh spectator socket of `game` and waits for the server's close; its
/// code.
fn close_code_after(server: &Server, game: &str, raw: &[u8]) -> Option<u16> {
    let mut socket = server.socket(game, None);
    socket.wait_for(Duration::from_secs(5), |m| m["type"] == "state");
    close_code_of(socket, raw)
}

/// Sends `raw` on an open socket and waits for the server's close; its code.
fn close_code_of(mut socket: Socket, raw: &[u8]) -> Option<u16> {
    if let tungstenite::stream::MaybeTlsStream::Plain(stream) = socket.0.get_mut() {
        stream.write_all(raw).expect("send the raw frame");
    }
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < until {
        match socket.next_message() {
            Ok(Some(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Ok(_) => {}
            Err(e) => panic!("the socket closed without a close frame: {e}"),
        }
    }
    panic!("no close within 5 s");
}

#[test]
fn broken_frames_are_closed_with_their_code_and_cost_no_memory() {
    let db = Db::sqlite();
    let server = Server::start(&db);
    let (game, _, _) = server.two_player_game("tori", long_clock());

    // Reserved bits set, no extension agreed: a protocol error.
    let mut malformed = vec![0xC1, 0x80];
    malformed.extend_from_slice(&[1, 2, 3, 4]);
    assert_eq!(close_code_after(&server, &game, &malformed), Some(1002));

    std::thread::sleep(Duration::from_millis(300));
    let before = resident_bytes(server.child.id());
    let codes: Vec<Option<u16>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..30)
            .map(|_| {
                let (server, game) = (&server, &game);
                scope.spawn(move || {
                    let mut frame = masked_header(0x81, 10_000_000);
                    frame.extend(std::iter::repeat_n(b'x', 1024));
                    close_code_after(server, game, &frame)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert!(codes.iter().all(|code| *code == Some(1009)), "{codes:?}");
    std::thread::sleep(Duration::from_millis(300));
    let after = resident_bytes(server.child.id());
    assert!(
        after < before + 10_000_000,
        "{:.1} MB before, {:.1} MB after thirty 10 MB frames",
        before as f64 / 1e6,
        after as f64 / 1e6
    );
    let (status, _) = server.get("/healthz");
    assert_eq!(status, 200);
}

/// A tournament's socket keeps to the same limits as a game's: a message of 5 KiB is taken
/// (it was closed at 4 KiB, without a code), a frame past 64 KiB is closed with 1009, a broken
/// one with 1002.
#[test]
fn a_tournament_socket_keeps_the_documented_limits() {
    let db = Db::sqlite();
    let server = Server::start(&db);
    let mut admin = Browser::new(&server);
    admin.sign_up("director", "correct horse battery");
    tsubame_server::cli::run_admin(&tsubame_server::cli::AdminArgs {
        database: db.url(),
        action: tsubame_server::cli::AdminAction::Grant {
            name: "director".into(),
        },
    })
    .expect("granted");
    let (status, made) = admin.post(
        "/api/tournaments",
        serde_json::json!({"name": "Limits", "variant": "tori", "minutes": 60,
            "starts_in_seconds": 3600,
            "clock": {"kind": "fischer", "main_ms": 180000, "increment_ms": 2000}}),
    );
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().expect("id").to_string();
    let open = || {
        let mut socket = Socket::connect(format!("ws://{}/api/tournaments/{id}/ws", server.addr));
        socket.wait_for(Duration::from_secs(5), |m| m["type"] == "tournament");
        socket
    };
    let mut socket = open();
    socket
        .0
        .send(Message::Text("x".repeat(5 * 1024).into()))
        .expect("send 5 KiB");
    let until = std::time::Instant::now() + Duration::from_millis(500);
    while std::time::Instant::now() < until {
        match socket.next_message() {
            Ok(Some(Message::Close(frame))) => panic!("closed for 5 KiB: {frame:?}"),
            Ok(_) => {}
            Err(e) => panic!("closed for 5 KiB: {e}"),
        }
    }
    let mut too_big = masked_header(0x81, 70_000);
    too_big.extend(std::iter::repeat_n(b'x', 1024));
    assert_eq!(close_code_of(open(), &too_big), Some(1009));
    let mut malformed = vec![0xC1, 0x80];
    malformed.extend_from_slice(&[1, 2, 3, 4]);
    assert_eq!(close_code_of(open(), &malformed), Some(1002));
}
