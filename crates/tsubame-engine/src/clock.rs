//! The engine's monotonic clock: the standard library's everywhere it has one. A browser's
//! WebAssembly (`wasm32-unknown-unknown`) has none, so there the clock is the host's
//! `performance.now()`, which the page's loader provides as the import `env.tsubame_now_ms`.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use host::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host {
    use std::time::Duration;

    #[link(wasm_import_module = "env")]
    unsafe extern "C" {
        /// Milliseconds since the host's time origin, monotonic (`performance.now()`).
        fn tsubame_now_ms() -> f64;
    }

    /// A moment of the host's monotonic clock, as `std::time::Instant` is elsewhere.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub struct Instant(Duration);

    impl Instant {
        /// Now.
        pub fn now() -> Instant {
            // SAFETY: the import takes nothing and returns a number; the loader must provide it.
            let millis = unsafe { tsubame_now_ms() };
            Instant(Duration::from_secs_f64(millis.max(0.0) / 1000.0))
        }

        /// The time since this moment (zero if the host's clock went back).
        pub fn elapsed(&self) -> Duration {
            Instant::now().0.saturating_sub(self.0)
        }
    }
}
