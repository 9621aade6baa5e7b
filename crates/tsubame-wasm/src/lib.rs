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
//!   `tsubame_engine::clock`).
//!
//! A search runs until its limits: the host stops one by ending the worker. Elsewhere than in
//! WebAssembly the crate is empty: the questions are answered natively by
//! [`tsubame_analysis::request::answer`], which the tests check.

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod exports {
    use std::sync::Mutex;
    use tsubame_analysis::request::{MAX_REQUEST_BYTES, answer};

    #[link(wasm_import_module = "env")]
    unsafe extern "C" {
        fn tsubame_iteration(text: *const u8, len: usize);
        fn tsubame_answer(ok: u32, text: *const u8, len: usize);
    }

    /// The question being written by the host.
    static QUESTION: Mutex<Vec<u8>> = Mutex::new(Vec::new());

    /// Room for a question of `len` bytes (at most `MAX_REQUEST_BYTES`; null beyond).
    #[unsafe(no_mangle)]
    pub extern "C" fn tsubame_question(len: usize) -> *mut u8 {
        if len > MAX_REQUEST_BYTES {
            return std::ptr::null_mut();
        }
        let mut question = QUESTION.lock().unwrap_or_else(|e| e.into_inner());
        question.clear();
        question.resize(len, 0);
        question.as_mut_ptr()
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
}
