//! The opening book: exact scores of early positions, computed offline by
//! `crates/tools/examples/c4book.rs` and compiled into the binary (`include_bytes!`), so
//! it is there from the start without any file to read.
//!
//! # Format (version 1)
//!
//! | bytes | content |
//! |-------|---------|
//! | 0..4 | magic `C4BK` |
//! | 4 | version, 1 |
//! | 5 | depth: the most stones of a position in the book |
//! | 6..8 | 0 |
//! | 8..12 | `n`, the number of positions, little-endian |
//! | 12..12 + 4n | their [`Position::book_key`]s, ascending, little-endian `u32` |
//! | 12 + 4n..12 + 5n | their scores, one signed byte each, in the same order |
//!
//! The key of a position and of its mirror image is the same, so the book
//! holds one of each pair. A position the side to move wins at once is
//! never looked up and never stored.
//!
//! [`Position::book_key`]: super::solver::Position::book_key

use std::fmt;
use std::sync::LazyLock;

use super::solver::{MAX_SCORE, MIN_SCORE, Openings};

/// The book built by `crates/tools/examples/c4book.rs`.
static BOOK_BYTES: &[u8] = include_bytes!("../../data/connect-four-book.bin");

/// The embedded book, checked once on first use.
static EMBEDDED: LazyLock<Book<'static>> =
    LazyLock::new(|| Book::parse(BOOK_BYTES).expect("the embedded opening book is well-formed"));

/// Bytes before the keys.
const HEADER: usize = 12;
/// The first bytes of a book.
const MAGIC: &[u8; 4] = b"C4BK";
/// The format written and read.
const VERSION: u8 = 1;
/// The deepest book whose keys fit in 32 bits.
pub const MAX_DEPTH: u32 = 14;

/// Exact scores of positions up to a number of stones, read from bytes in
/// the format of the module docs.
#[derive(Clone, Copy)]
pub struct Book<'a> {
    depth: u32,
    keys: &'a [u8],
    scores: &'a [u8],
}

impl fmt::Debug for Book<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Book")
            .field("depth", &self.depth)
            .field("positions", &self.len())
            .finish()
    }
}

/// Why bytes are not a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// Not the magic, version or padding of the format.
    #[error("not a connect four book of version {VERSION}")]
    Header,
    /// The depth is above [`MAX_DEPTH`].
    #[error("book depth above {MAX_DEPTH}")]
    Depth,
    /// The length does not match the number of positions.
    #[error("book length does not match its number of positions")]
    Length,
    /// Keys out of order or repeated.
    #[error("book keys are not strictly ascending")]
    Order,
    /// A score outside the protocol's range.
    #[error("book score out of range")]
    Score,
}

impl Book<'static> {
    /// The book compiled into this binary.
    ///
    /// # Panics
    /// If the committed book file is malformed (caught by the unit tests).
    #[must_use]
    pub fn embedded() -> &'static Book<'static> {
        &EMBEDDED
    }
}

impl<'a> Book<'a> {
    /// Reads a book, checking its header, length, order and scores.
    ///
    /// # Errors
    /// [`BookError`] for bytes that are not a book.
    pub fn parse(bytes: &'a [u8]) -> Result<Book<'a>, BookError> {
        let header = bytes.get(..HEADER).ok_or(BookError::Header)?;
        if &header[..4] != MAGIC || header[4] != VERSION || header[6..8] != [0, 0] {
            return Err(BookError::Header);
        }
        let depth = u32::from(header[5]);
        if depth > MAX_DEPTH {
            return Err(BookError::Depth);
        }
        let count = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        let count = usize::try_from(count).map_err(|_| BookError::Length)?;
        let body = &bytes[HEADER..];
        if count.checked_mul(5) != Some(body.len()) {
            return Err(BookError::Length);
        }
        let (keys, scores) = body.split_at(4 * count);
        let book = Book {
            depth,
            keys,
            scores,
        };
        let ascending = (1..count).all(|i| book.key(i - 1) < book.key(i));
        if !ascending {
            return Err(BookError::Order);
        }
        if scores
            .iter()
            .any(|&s| !(MIN_SCORE..=MAX_SCORE).contains(&i32::from(s.cast_signed())))
        {
            return Err(BookError::Score);
        }
        Ok(book)
    }

    /// The number of positions in the book.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether the book holds no position.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// The `i`-th key.
    fn key(&self, i: usize) -> u32 {
        let b = &self.keys[4 * i..4 * i + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl Openings for Book<'_> {
    fn depth(&self) -> u32 {
        self.depth
    }

    fn score(&self, key: u64) -> Option<i32> {
        let key = u32::try_from(key).ok()?;
        // Binary search over the packed keys.
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key(mid).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some(i32::from(self.scores[mid].cast_signed()));
                }
            }
        }
        None
    }
}

/// The bytes of a book of `depth` holding `entries` (book key, score).
///
/// # Errors
/// [`BookError`] when the depth is above [`MAX_DEPTH`], a key does not fit
/// in 32 bits, a key repeats or a score is out of range.
pub fn write(depth: u32, entries: &[(u64, i32)]) -> Result<Vec<u8>, BookError> {
    let depth = u8::try_from(depth)
        .ok()
        .filter(|&d| u32::from(d) <= MAX_DEPTH)
        .ok_or(BookError::Depth)?;
    let mut sorted = entries
        .iter()
        .map(|&(key, score)| {
            let key = u32::try_from(key).map_err(|_| BookError::Depth)?;
            let score = i8::try_from(score)
                .ok()
                .filter(|s| (MIN_SCORE..=MAX_SCORE).contains(&i32::from(*s)))
                .ok_or(BookError::Score)?;
            Ok((key, score))
        })
        .collect::<Result<Vec<(u32, i8)>, BookError>>()?;
    sorted.sort_unstable_by_key(|&(key, _)| key);
    if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(BookError::Order);
    }
    let count = u32::try_from(sorted.len()).map_err(|_| BookError::Length)?;
    let mut out = Vec::with_capacity(HEADER + 5 * sorted.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[VERSION, depth, 0, 0]);
    out.extend_from_slice(&count.to_le_bytes());
    for &(key, _) in &sorted {
        out.extend_from_slice(&key.to_le_bytes());
    }
    out.extend(sorted.iter().map(|&(_, score)| score.cast_unsigned()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_book_reads_back() {
        let bytes = write(3, &[(70, -2), (5, 1), (900, 0)]).unwrap();
        let book = Book::parse(&bytes).unwrap();
        assert_eq!((book.depth(), book.len()), (3, 3));
        assert_eq!(book.score(5), Some(1));
        assert_eq!(book.score(70), Some(-2));
        assert_eq!(book.score(900), Some(0));
        assert_eq!(book.score(6), None);
        assert_eq!(book.score(1 << 40), None);
    }

    #[test]
    fn malformed_books_are_refused() {
        let bytes = write(3, &[(5, 1), (70, -2)]).unwrap();
        assert_eq!(
            Book::parse(&bytes[..bytes.len() - 1]).unwrap_err(),
            BookError::Length
        );
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(Book::parse(&bad).unwrap_err(), BookError::Header);
        let mut bad = bytes.clone();
        bad[HEADER..HEADER + 4].copy_from_slice(&80u32.to_le_bytes());
        assert_eq!(Book::parse(&bad).unwrap_err(), BookError::Order);
        let mut bad = bytes;
        let last = bad.len() - 1;
        bad[last] = 100;
        assert_eq!(Book::parse(&bad).unwrap_err(), BookError::Score);
        assert_eq!(write(3, &[(5, 1), (5, 2)]).unwrap_err(), BookError::Order);
        assert_eq!(write(15, &[]).unwrap_err(), BookError::Depth);
    }

    #[test]
    fn the_embedded_book_is_well_formed() {
        let book = Book::embedded();
        assert!(book.depth() <= MAX_DEPTH);
    }
}
