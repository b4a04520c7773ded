//! The keep table of every knapsack DP that reconstructs its choice: one
//! bit per (row, cell), each row whole 64-bit words, so that a row update
//! can OR a word of bits at a time.

/// Keep bits: `rows` rows of `words` words.
pub(crate) struct KeepTable {
    bits: Vec<u64>,
    words: usize,
}

impl KeepTable {
    /// A zeroed table whose size a guard has already bounded.
    pub(crate) fn new(rows: usize, columns: usize) -> Self {
        let words = columns.div_ceil(64);
        KeepTable {
            bits: vec![0; rows * words],
            words,
        }
    }

    /// Row `row`'s words, for a row update.
    pub(crate) fn row_mut(&mut self, row: usize) -> &mut [u64] {
        &mut self.bits[row * self.words..(row + 1) * self.words]
    }

    /// Rows `first..first + count`, contiguous: a class's version rows for
    /// [`class_row`](super::row::class_row).
    pub(crate) fn rows_mut(&mut self, first: usize, count: usize) -> &mut [u64] {
        &mut self.bits[first * self.words..(first + count) * self.words]
    }

    pub(crate) fn set(&mut self, row: usize, c: usize) {
        self.bits[row * self.words + c / 64] |= 1 << (c % 64);
    }

    pub(crate) fn get(&self, row: usize, c: usize) -> bool {
        self.bits[row * self.words + c / 64] >> (c % 64) & 1 == 1
    }
}
