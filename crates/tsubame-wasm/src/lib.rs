//! The engine for a browser: built for `wasm32-unknown-unknown` by `scripts/build-web-engine`
//! and run by the web UI in a Web Worker (`web/src/engine-worker.ts`), it answers the questions
//! of [`tsubame_analysis::request`] (the server's analysis and mate search) in the page, so that
//! a player's analysis takes nothing from the server.
//!
//! The interface is a plain C one, so that a small loader is all the page needs:
//!
//! - `tsubame_question(len) -> ptr`: room for a question of `len` bytes (UTF-8 JSON), which the
//!   host writes there;
//! - `tsubame_ask(len)`: answers the question, calling the host's `env.tsubame_iteration(ptr,
//!   len)` with each iteration of an analysis (the answer so far) and `env.tsubame_answer(ok,
//!   ptr, len)` once with the answer (`ok` 1) or the refusal (`ok` 0, `{"error", "code"}`);
//! - the host also gives `env.tsubame_now_ms()`, its monotonic clock (see
//!   `tsubame_engine::clock`);
//! - `tsubame_network(len) -> ptr` and `tsubame_provide_network(name_len, len) -> ok`: the
//!   module leaves Wa's two networks (4 MB each) out, so a question about Wa is refused with
//!   `{"network": "wa", ...}` (with drops) or `{"network": "wa-nodrops", ...}` until the host
//!   has fetched that file and given it:
//!   the name written at `tsubame_question(name_len)`'s room, the file's `len` bytes at
//!   `tsubame_network(len)`'s. It answers 1 once the network is taken, or 0 with the reason
//!   told to `env.tsubame_answer(0, ...)`.
//!
//! A search runs until its limits: the host stops one by ending the worker. Elsewhere than in
//! WebAssembly the crate is empty: the questions are answered natively by
//! [`tsubame_analysis::request::answer`], which the tests check.

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod exports {
    use std::sync::Mutex;
    use tsubame_analysis::request::{MAX_REQUEST_BYTES, answer};
    use tsubame_engine::nnue::{BuiltInNetwork, ProvideError};

    /// The largest network file taken: each of Wa's is 4 MB.
    const MAX_NETWORK_BYTES: usize = 16 * 1024 * 1024;

    #[link(wasm_import_module = "env")]
    unsafe extern "C" {
        fn tsubame_iteration(text: *const u8, len: usize);
        fn tsubame_answer(ok: u32, text: *const u8, len: usize);
    }

    /// The question being written by the host.
    static QUESTION: Mutex<Vec<u8>> = Mutex::new(Vec::new());
    /// A network file being written by the host.
    static NETWORK: Mutex<Vec<u8>> = Mutex::new(Vec::new());

    /// Room for a question of `len` bytes (at most `MAX_REQUEST_BYTES`; null beyond).
    #[unsafe(no_mangle)]
    pub extern "C" fn tsubame_question(len: usize) -> *mut u8 {
        room(&QUESTION, len, MAX_REQUEST_BYTES)
    }

    /// `len` zero bytes in `buffer` for the host to write, if `len` is at most `most`.
    fn room(buffer: &Mutex<Vec<u8>>, len: usize, most: usize) -> *mut u8 {
        if len > most {
            return std::ptr::null_mut();
        }
        let mut bytes = buffer.lock().unwrap_or_else(|e| e.into_inner());
        bytes.clear();
        bytes.resize(len, 0);
        bytes.as_mut_ptr()
    }

    /// Answers the question of `len` bytes written at `tsubame_question`'s room.
    #[unsafe(no_mangle)]
    pub extern "C" fn tsubame_ask(len: usize) {
        let bytes = {
            let question = QUESTION.lock().unwrap_or_else(|e| e.into_inner());
            question.get(..len).map(<[u8]>::to_vec).unwrap_or_default()
        };
        let result = match std::str::from_utf8(&bytes) {
            Ok(text) => answer(text, &mut |so_far| {
                // SAFETY: the host reads `len` bytes from the pointer before returning.
                unsafe { tsubame_iteration(so_far.as_ptr(), so_far.len()) }
            })
            .map_err(|e| e.to_json()),
            Err(e) => Err(format!(
                "{{\"error\": \"the question is not UTF-8 text (byte {})\"}}",
                e.valid_up_to()
            )),
        };
        let (ok, text) = match &result {
            Ok(text) => (1, text),
            Err(text) => (0, text),
        };
        // SAFETY: as above.
        unsafe { tsubame_answer(ok, text.as_ptr(), text.len()) }
    }

    /// Room for a network file of `len` bytes (at most `MAX_NETWORK_BYTES`; null beyond).
    #[unsafe(no_mangle)]
    pub extern "C" fn tsubame_network(len: usize) -> *mut u8 {
        room(&NETWORK, len, MAX_NETWORK_BYTES)
    }

    /// Takes the network named by the `name_len` bytes at `tsubame_question`'s room from the
    /// `len` bytes at `tsubame_network`'s: 1 once taken, 0 with the reason told to
    /// `tsubame_answer`.
    #[unsafe(no_mangle)]
    pub extern "C" fn tsubame_provide_network(name_len: usize, len: usize) -> u32 {
        let name = {
            let question = QUESTION.lock().unwrap_or_else(|e| e.into_inner());
            question
                .get(..name_len)
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        };
        // The file's room is emptied: the network keeps its own weights.
        let bytes = std::mem::take(&mut *NETWORK.lock().unwrap_or_else(|e| e.into_inner()));
        let name = String::from_utf8_lossy(&name);
        let provided = match (BuiltInNetwork::from_name(&name), bytes.get(..len)) {
            (Some(network), Some(file)) => network.provide(file).map_err(|e| e.to_string()),
            (None, _) => Err(ProvideError::UnknownName(name.into_owned()).to_string()),
            (_, None) => Err(format!(
                "{len} bytes of network asked for, {} written",
                bytes.len()
            )),
        };
        match provided {
            Ok(()) => 1,
            Err(reason) => {
                let text = serde_json::json!({ "error": reason }).to_string();
                // SAFETY: the host reads `len` bytes from the pointer before returning.
                unsafe { tsubame_answer(0, text.as_ptr(), text.len()) };
                0
            }
        }
    }
}
