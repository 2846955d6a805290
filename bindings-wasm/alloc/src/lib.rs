//! The global allocator of each @acp-fs/wasm module (a module's crate links it with
//! `use acp_fs_wasm_alloc as _;`): talc rather than Rust's default dlmalloc, a few KB smaller
//! for the same speed, and built at opt-level 3 in the `wasm-fs` profile. With the feature
//! `small-blocks` (the fs/* module), free lists for small blocks in front of it
//! ([`small_blocks`]). A module has one thread (no `atomics`): the allocator takes no lock.
//! Natively nothing is installed: the tests use the system allocator.

#[cfg(any(test, all(not(target_feature = "atomics"), target_family = "wasm", feature = "small-blocks")))]
mod small_blocks;

#[cfg(all(not(target_feature = "atomics"), target_family = "wasm", feature = "small-blocks"))]
#[global_allocator]
static ALLOCATOR: small_blocks::SmallBlocks<talc::wasm::WasmDynamicTalc> =
    small_blocks::SmallBlocks::new(talc::wasm::new_wasm_dynamic_allocator());

#[cfg(all(not(target_feature = "atomics"), target_family = "wasm", not(feature = "small-blocks")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
