//! Free lists for small block sizes, in front of a general allocator (talc in the fs/* module,
//! [`lib.rs`](super)).
//!
//! Why: a small read makes a few dozen allocations, nearly all small, and frees them all when it
//! ends; talc searches, splits and merges its free chunks for each. Here a block of a size seen
//! before is the head of its list: a load and a store each way. What that saves, and the profile
//! that led here: docs/benchmarks.md, "Small reads, fifteenth pass".
//!
//! Sizes are rounded up to a multiple of [`GRAIN`] up to [`FINE`], and to a power of two up to
//! [`LARGEST`] (a small file's bytes, its text and the copy the read ledger keeps: three blocks
//! of a 4 KB read); larger blocks, and alignments above [`GRAIN`], go to the general allocator as
//! they are. The cost: a block in use between [`FINE`] and [`LARGEST`] takes up to twice its size
//! (8,193 bytes take 16 KiB), and growing it to the next power of two always moves it, where talc
//! might have grown it in place. Larger blocks, a large file's text among them, cost nothing more.
//!
//! A list keeps [`LIST_BYTES`] of freed blocks, or two blocks of its size if that is more, and
//! gives the rest back: at most 192 KiB stays held in the lists for sizes the module stops using
//! (4 KiB for each of the 34 lists up to 2 KiB, then 8, 16 and 32 KiB). Nothing is ever handed
//! out twice.
//!
//! Not thread-safe: `Sync` only where the module has one thread (wasm without `atomics`).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// Block sizes are multiples of this, and blocks are aligned to it.
const GRAIN: usize = 16;
/// Sizes up to this have a list for each multiple of [`GRAIN`].
const FINE: usize = 512;
/// Above [`FINE`], a list for each power of two from 1 KiB up to this, the largest block kept.
const LARGEST: usize = 16 * 1024;
/// How many lists: one for each multiple of [`GRAIN`] up to [`FINE`], one for each power of two
/// above it up to [`LARGEST`].
const CLASSES: usize = FINE / GRAIN + (LARGEST / (2 * FINE)).trailing_zeros() as usize + 1;
/// Bytes of freed blocks a list keeps before it gives blocks back, unless two of its blocks are
/// more.
const LIST_BYTES: usize = 4096;

/// A general allocator with a free list for each small size in front of it.
pub struct SmallBlocks<A> {
    general: A,
    lists: UnsafeCell<[List; CLASSES]>,
}

/// Freed blocks of one size, linked through their first word.
#[derive(Clone, Copy)]
struct List {
    head: *mut u8,
    bytes: usize,
}

// One thread: no two calls ever run at once (the module is built without `atomics`).
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for SmallBlocks<A> {}

impl<A> SmallBlocks<A> {
    /// `general` behind empty lists.
    pub const fn new(general: A) -> SmallBlocks<A> {
        SmallBlocks { general, lists: UnsafeCell::new([List { head: ptr::null_mut(), bytes: 0 }; CLASSES]) }
    }

    /// The list for blocks of `layout`, if they are small.
    #[inline]
    fn class(layout: Layout) -> Option<usize> {
        let size = layout.size();
        if size == 0 || layout.align() > GRAIN {
            return None;
        }
        if size <= FINE {
            return Some((size - 1) / GRAIN);
        }
        // 513..=1024 bytes: the first list after the fine ones.
        let above = (size.next_power_of_two() / (2 * FINE)).trailing_zeros() as usize;
        (size <= LARGEST).then_some(FINE / GRAIN + above)
    }

    /// The layout the general allocator gives a block of list `class` (below [`CLASSES`]) with.
    #[inline]
    fn block(class: usize) -> Layout {
        debug_assert!(class < CLASSES);
        let size = match class.checked_sub(FINE / GRAIN) {
            None => (class + 1) * GRAIN,
            Some(above) => (2 * FINE) << above,
        };
        // For a list's index: nonzero, a multiple of its power-of-two alignment, at most LARGEST.
        unsafe { Layout::from_size_align_unchecked(size, GRAIN) }
    }

    /// Bytes of freed blocks list `class` keeps.
    #[inline]
    fn keeps(class: usize) -> usize {
        LIST_BYTES.max(2 * Self::block(class).size())
    }

    /// Bytes held in the lists (for the tests).
    #[cfg(test)]
    fn held(&self) -> usize {
        unsafe { (*self.lists.get()).iter().map(|list| list.bytes).sum() }
    }
}

unsafe impl<A: GlobalAlloc> GlobalAlloc for SmallBlocks<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = Self::class(layout) else { return self.general.alloc(layout) };
        let list = &mut (*self.lists.get())[class];
        if list.head.is_null() {
            return self.general.alloc(Self::block(class));
        }
        let block = list.head;
        // A freed block's first word links to the next (`dealloc`); blocks are GRAIN-aligned.
        list.head = block.cast::<*mut u8>().read();
        list.bytes -= Self::block(class).size();
        block
    }

    #[inline]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = Self::class(layout) else { return self.general.dealloc(block, layout) };
        let list = &mut (*self.lists.get())[class];
        let size = Self::block(class).size();
        if list.bytes + size > Self::keeps(class) {
            return self.general.dealloc(block, Self::block(class));
        }
        block.cast::<*mut u8>().write(list.head);
        list.head = block;
        list.bytes += size;
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The caller guarantees this layout is valid.
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (Self::class(layout), Self::class(new)) {
            (None, None) => self.general.realloc(block, layout, new_size),
            (Some(old), Some(now)) if old == now => block,
            _ => {
                let moved = self.alloc(new);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    /// The system allocator, checking the contract the lists rely on talc for: every block is
    /// given back (or reallocated) with the layout it was taken with, once. `full`: it has no
    /// memory left. Each block has as much again behind it, so that a list that hands out a
    /// block too small for its size fails an assertion (`backs`), not the process.
    #[derive(Default)]
    struct Checked {
        live: RefCell<HashMap<usize, Layout>>,
        full: std::cell::Cell<bool>,
    }

    impl Checked {
        fn took(&self, block: *mut u8, layout: Layout) {
            if !block.is_null() {
                assert!(self.live.borrow_mut().insert(block as usize, layout).is_none(), "handed out twice");
            }
        }

        /// Whether `block` is one this allocator handed out, with room for `size` bytes.
        fn backs(&self, block: *mut u8, size: usize) -> bool {
            self.live.borrow().get(&(block as usize)).is_some_and(|taken| taken.size() >= size)
        }

        fn gives_back(&self, block: *mut u8, layout: Layout) {
            let taken = self.live.borrow_mut().remove(&(block as usize));
            assert_eq!(taken, Some(layout), "given back with another layout than it was taken with");
        }
    }

    fn padded(layout: Layout) -> Layout {
        Layout::from_size_align(2 * layout.size() + 64, layout.align()).unwrap()
    }

    unsafe impl GlobalAlloc for Checked {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if self.full.get() {
                return ptr::null_mut();
            }
            let block = std::alloc::System.alloc(padded(layout));
            self.took(block, layout);
            block
        }

        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            self.gives_back(block, layout);
            std::alloc::System.dealloc(block, padded(layout));
        }

        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            self.gives_back(block, layout);
            let new = Layout::from_size_align(new_size, layout.align()).unwrap();
            let moved = if self.full.get() {
                ptr::null_mut()
            } else {
                std::alloc::System.realloc(block, padded(layout), padded(new).size())
            };
            if moved.is_null() {
                self.took(block, layout);
            } else {
                self.took(moved, new);
            }
            moved
        }
    }

    #[test]
    fn every_size_gets_the_smallest_block_that_fits() {
        type S = SmallBlocks<Checked>;
        for size in 1..=LARGEST + 1 {
            let Some(class) = S::class(layout(size, 1)) else {
                assert_eq!(size, LARGEST + 1, "{size} bytes have no list");
                continue;
            };
            let block = S::block(class).size();
            assert!(block >= size, "{size} bytes in a block of {block}");
            let step = if size <= FINE { GRAIN } else { block / 2 };
            assert!(block - size < step, "{size} bytes in a block of {block}: a smaller one fits");
            assert_eq!(block % GRAIN, 0);
        }
        assert_eq!(S::class(layout(LARGEST, GRAIN)), Some(CLASSES - 1));
        assert_eq!(S::class(layout(16, 32)), None);
    }

    #[test]
    fn the_lists_hold_at_most_192_kib() {
        let keeps: usize = (0..CLASSES).map(SmallBlocks::<Checked>::keeps).sum();
        assert_eq!(keeps, 192 * 1024);
    }

    #[test]
    fn a_freed_small_block_is_the_next_of_its_size() {
        let a = SmallBlocks::new(Checked::default());
        unsafe {
            let first = a.alloc(layout(24, 8));
            a.dealloc(first, layout(24, 8));
            // 17..=32 bytes share a list.
            assert_eq!(a.alloc(layout(32, 4)), first);
            let other = a.alloc(layout(33, 8));
            assert_ne!(other, first);
            a.dealloc(first, layout(32, 4));
            a.dealloc(other, layout(33, 8));
            // So do 2049..=4096 bytes.
            let page = a.alloc(layout(4096, 16));
            a.dealloc(page, layout(4096, 16));
            assert_eq!(a.alloc(layout(3000, 1)), page);
            a.dealloc(page, layout(3000, 1));
        }
    }

    #[test]
    fn large_or_overaligned_blocks_are_not_kept() {
        let a = SmallBlocks::new(Checked::default());
        unsafe {
            for l in [layout(LARGEST + 1, 8), layout(64, 32), layout(4096, 4096), layout(1 << 20, 16)] {
                let block = a.alloc(l);
                assert_eq!(block as usize % l.align(), 0);
                a.dealloc(block, l);
                assert_eq!(a.held(), 0);
            }
            assert!(a.general.live.borrow().is_empty());
        }
    }

    #[test]
    fn a_list_gives_back_what_is_over_its_bytes() {
        // 16 bytes: 4 KiB of blocks; 16 KiB: two blocks.
        for (size, kept) in [(16, LIST_BYTES / 16), (LARGEST, 2)] {
            let a = SmallBlocks::new(Checked::default());
            let l = layout(size, 8);
            unsafe {
                let blocks: Vec<_> = (0..1000).map(|_| a.alloc(l)).collect();
                for &b in &blocks {
                    a.dealloc(b, l);
                }
                assert_eq!(a.held(), kept * size);
                assert_eq!(a.general.live.borrow().len(), kept, "the rest went back");
                // What the list kept is handed out again, then new blocks.
                let again: Vec<_> = (0..1000).map(|_| a.alloc(l)).collect();
                assert_eq!(a.held(), 0);
                for b in again {
                    a.dealloc(b, l);
                }
            }
        }
    }

    #[test]
    fn without_memory_a_call_fails_and_keeps_the_block() {
        let a = SmallBlocks::new(Checked::default());
        unsafe {
            let small = a.alloc(layout(100, 8));
            let large = a.alloc(layout(LARGEST + 1, 8));
            ptr::write_bytes(small, 7, 100);
            ptr::write_bytes(large, 9, LARGEST + 1);
            a.general.full.set(true);
            assert!(a.alloc(layout(24, 8)).is_null());
            assert!(a.alloc(layout(LARGEST + 1, 8)).is_null());
            // Into another list, out of the lists, and between two large blocks.
            for (block, from, to, v) in
                [(small, 100, 1000, 7), (small, 100, LARGEST + 1, 7), (large, LARGEST + 1, 2 * LARGEST, 9)]
            {
                assert!(a.realloc(block, layout(from, 8), to).is_null());
                assert!(std::slice::from_raw_parts(block, from).iter().all(|&x| x == v));
            }
            a.general.full.set(false);
            a.dealloc(small, layout(100, 8));
            a.dealloc(large, layout(LARGEST + 1, 8));
            assert_eq!(a.held(), 112, "the small block went to its list");
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Alloc(usize, u32),
        Free(usize),
        Realloc(usize, usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Sizes around the lists' edges (16, 512, 4 KiB, 16 KiB) and beyond; alignments 1..=32.
        let size = prop_oneof![1usize..40, 490usize..540, 1usize..2000, 4000usize..4200, 16000usize..17000];
        prop_oneof![
            (size.clone(), 0u32..6).prop_map(|(s, a)| Op::Alloc(s, a)),
            any::<usize>().prop_map(Op::Free),
            (any::<usize>(), size).prop_map(|(i, s)| Op::Realloc(i, s)),
        ]
    }

    proptest! {
        /// Live blocks never overlap, have room for their size, keep their alignment, and keep
        /// their bytes through a realloc (up to the smaller size), whatever the order of calls;
        /// the general allocator gets every block back with the layout it gave it with.
        #[test]
        fn live_blocks_stay_apart_aligned_and_intact(ops in proptest::collection::vec(op(), 1..300)) {
            let a = SmallBlocks::new(Checked::default());
            // (block, layout, fill byte)
            let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
            let fill = |b: *mut u8, n: usize, v: u8| unsafe { ptr::write_bytes(b, v, n) };
            let intact = |b: *mut u8, n: usize, v: u8| unsafe { std::slice::from_raw_parts(b, n).iter().all(|&x| x == v) };
            for (step, op) in ops.into_iter().enumerate() {
                let v = step as u8;
                match op {
                    Op::Alloc(size, align) => {
                        let l = layout(size, 1 << align);
                        let b = unsafe { a.alloc(l) };
                        prop_assert!(!b.is_null());
                        prop_assert_eq!(b as usize % l.align(), 0);
                        prop_assert!(a.general.backs(b, size), "{} bytes at a block too small", size);
                        fill(b, size, v);
                        live.push((b, l, v));
                    }
                    Op::Free(i) if !live.is_empty() => {
                        let (b, l, v) = live.swap_remove(i % live.len());
                        prop_assert!(intact(b, l.size(), v));
                        unsafe { a.dealloc(b, l) };
                    }
                    Op::Realloc(i, size) if !live.is_empty() => {
                        let i = i % live.len();
                        let (b, l, old) = live[i];
                        let moved = unsafe { a.realloc(b, l, size) };
                        prop_assert!(!moved.is_null());
                        prop_assert_eq!(moved as usize % l.align(), 0);
                        prop_assert!(a.general.backs(moved, size), "{} bytes at a block too small", size);
                        prop_assert!(intact(moved, l.size().min(size), old));
                        fill(moved, size, v);
                        live[i] = (moved, layout(size, l.align()), v);
                    }
                    _ => {}
                }
                let mut spans: Vec<_> = live.iter().map(|&(b, l, _)| (b as usize, b as usize + l.size())).collect();
                spans.sort_unstable();
                prop_assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "blocks overlap");
            }
            for (b, l, v) in live {
                prop_assert!(intact(b, l.size(), v));
                unsafe { a.dealloc(b, l) };
            }
        }
    }
}
