//! wasm-bindgen binding for acp-fs (placeholder until the binding lands).
