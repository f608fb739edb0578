//! A size-class allocator for agentmem's WebAssembly modules (the main one and
//! agentmem-supabase/ids), instead of dlmalloc, whose general-purpose machinery (bins,
//! coalescing, trimming) would be a large part of a module as small as the ids one, and
//! buys nothing for calls that free what they allocate (below).
//!
//! Every request is rounded up to a power of two (at least 8 bytes, at least its
//! alignment) and served from that size's free list, or else carved from fresh memory,
//! aligned to its own size. Freed blocks go back on their list and are never coalesced or
//! returned to the host. That trades up to 2x per block for very little code,
//! and it is enough here: a call frees what it allocated by the time it returns (the
//! strings it reads, the strings it builds, the result once the glue has copied it), so
//! the heap holds the working set of the calls in flight, and memory stays at the largest
//! such working set seen so far per size class. deno/ids_entry_test.ts and
//! deno/reliability_test.ts check that repeated large calls do not grow it.
//!
//! Only wasm32 has an implementation; elsewhere the crate is empty.

#![no_std]
#![cfg(target_arch = "wasm32")]

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32::{memory_grow, memory_size};
use core::cell::UnsafeCell;
use core::ptr::null_mut;

const PAGE: usize = 65536;

struct Heap {
    /// Heads of the free lists, by log2 of the block size; a free block stores the next one.
    free: [*mut u8; usize::BITS as usize],
    /// Fresh memory: [next, end) has never been handed out.
    next: usize,
    end: usize,
}

pub struct SizeClasses(UnsafeCell<Heap>);

impl SizeClasses {
    pub const fn new() -> Self {
        SizeClasses(UnsafeCell::new(Heap { free: [null_mut(); usize::BITS as usize], next: 0, end: 0 }))
    }
}

impl Default for SizeClasses {
    fn default() -> Self {
        Self::new()
    }
}

// wasm32-unknown-unknown without the atomics feature has one thread: the allocator is
// never entered twice at once.
unsafe impl Sync for SizeClasses {}

/// The block size for a layout, or None when no power of two on wasm32 can hold it.
fn block_size(layout: Layout) -> Option<usize> {
    layout.size().max(layout.align()).max(8).checked_next_power_of_two()
}

unsafe impl GlobalAlloc for SizeClasses {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded, and no reference into the heap outlives this call.
        let heap = unsafe { &mut *self.0.get() };
        let Some(size) = block_size(layout) else { return null_mut() };
        let class = size.trailing_zeros() as usize;
        let head = heap.free[class];
        if !head.is_null() {
            // SAFETY: a free block of this class stores the next free block in its first word.
            heap.free[class] = unsafe { *head.cast::<*mut u8>() };
            return head;
        }
        if heap.end == 0 {
            // First use: fresh memory begins where the module's initial memory ends.
            heap.next = memory_size(0) * PAGE;
            heap.end = heap.next;
        }
        loop {
            let Some(start) = heap.next.checked_add(size - 1).map(|n| n & !(size - 1)) else { return null_mut() };
            let Some(stop) = start.checked_add(size) else { return null_mut() };
            if stop <= heap.end {
                heap.next = stop;
                return start as *mut u8;
            }
            let pages = (stop - heap.end).div_ceil(PAGE);
            let old = memory_grow(0, pages);
            if old == usize::MAX {
                return null_mut();
            }
            if old * PAGE != heap.end {
                // Someone else grew the memory since: continue from the new pages.
                heap.next = old * PAGE;
            }
            heap.end = (old + pages) * PAGE;
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as in alloc; `ptr` came from alloc with this layout, so its block size is
        // at least 8 bytes and aligned to 8: room for the list link.
        let heap = unsafe { &mut *self.0.get() };
        let Some(size) = block_size(layout) else { return };
        let class = size.trailing_zeros() as usize;
        unsafe { *ptr.cast::<*mut u8>() = heap.free[class] };
        heap.free[class] = ptr;
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: GlobalAlloc's contract guarantees a valid layout for new_size.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if block_size(new_layout) == block_size(layout) {
            return ptr;
        }
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            unsafe {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}
