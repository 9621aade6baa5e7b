//! Random text for the server's secrets and ids, below every module that makes them (the hub,
//! the worker jobs).

use rand::Rng;

/// `bytes` random bytes as hexadecimal text: seat tokens, invites, chat line ids, worker keys
/// and leases.
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut rng = rand::thread_rng();
    (0..bytes)
        .map(|_| format!("{:02x}", rng.r#gen::<u8>()))
        .collect()
}
