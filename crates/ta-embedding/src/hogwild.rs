//! Weight matrices shared by training threads without locks ("Hogwild", as word2vec's C
//! code and gensim do): threads read and update rows concurrently and an occasional lost
//! update is accepted. With one thread there is no concurrency and training is exactly
//! reproducible.

use super::linalg;
use std::marker::PhantomData;

/// A row-major matrix that several threads update in place.
pub(super) struct SharedRows<'a> {
    ptr: *mut f32,
    rows: usize,
    dims: usize,
    _borrow: PhantomData<&'a mut [f32]>,
}

// SAFETY: the matrix is borrowed mutably for 'a, so no one else touches it meanwhile;
// the threads sharing it race on individual f32 values by design (Hogwild), through the
// short-lived slices below and never through references that outlive one operation.
unsafe impl Send for SharedRows<'_> {}
unsafe impl Sync for SharedRows<'_> {}

impl<'a> SharedRows<'a> {
    pub(super) fn new(data: &'a mut [f32], dims: usize) -> Self {
        let rows = data.len() / dims.max(1);
        SharedRows {
            ptr: data.as_mut_ptr(),
            rows,
            dims,
            _borrow: PhantomData,
        }
    }

    #[inline(always)]
    fn row_ptr(&self, row: u32) -> *mut f32 {
        let row = row as usize;
        assert!(row < self.rows, "row {row} out of {}", self.rows);
        // SAFETY: row < rows, so the offset stays inside the borrowed slice.
        unsafe { self.ptr.add(row * self.dims) }
    }

    /// `row · v`.
    #[inline(always)]
    pub(super) fn dot(&self, row: u32, v: &[f32]) -> f32 {
        // SAFETY: the pointer addresses `dims` valid f32s (see `row_ptr`); see the Sync note.
        let row = unsafe { std::slice::from_raw_parts(self.row_ptr(row), self.dims) };
        linalg::dot(row, v)
    }

    /// `out += a * row`.
    #[inline(always)]
    pub(super) fn add_row_to(&self, row: u32, a: f32, out: &mut [f32]) {
        // SAFETY: as in `dot`.
        let row = unsafe { std::slice::from_raw_parts(self.row_ptr(row), self.dims) };
        linalg::axpy(a, row, out);
    }

    /// `row += a * v`.
    #[inline(always)]
    pub(super) fn add_to_row(&self, row: u32, a: f32, v: &[f32]) {
        // SAFETY: as in `dot`; the slice lives only for this update.
        let row = unsafe { std::slice::from_raw_parts_mut(self.row_ptr(row), self.dims) };
        linalg::axpy(a, v, row);
    }
}
