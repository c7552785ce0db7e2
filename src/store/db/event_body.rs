//! A webhook event's body as stored: LZ4-compressed (`lz4_flex`'s block
//! format, its size first as four little-endian bytes), against a
//! dictionary of typical bodies.
//!
//! Each byte an event stores is written on the writer's path, with the
//! move it reports, and again by the checkpoint. A body alone shrinks about
//! a third with LZ4; most of it (the keys, a game's shape) is the same in
//! every body, so compressed against a few typical bodies a Connect Four
//! move's 960 bytes take ~190 instead of ~660, for ~0.4 µs more.
//!
//! The size's top bit says which: clear, the body was compressed alone
//! (as every body stored before the dictionary); set, against
//! [`DICTIONARY_1`]. A stored body must always decode, so that file never
//! changes (a test holds its hash): a better dictionary would be number 2,
//! with a marker of its own.
//!
//! Compressing is done here, in LZ4's block format, and decoding by
//! `lz4_flex`: its compressor hashes the whole dictionary into a fresh
//! table on every call (~1,300 entries, ~0.8 µs of a body's ~1.3), a cost
//! on the writer's path for each event. [`Compressor`] hashes it once and
//! copies the table (8 KiB) for each body instead; the blocks it writes are
//! plain LZ4 that any decoder given the dictionary reads.

/// Typical bodies (a Connect Four game's end, moves of Ultimate
/// tic-tac-toe, tic-tac-toe and Connect Four, the most common last, where
/// LZ4 looks first). Frozen: see the module's documentation.
const DICTIONARY_1: &[u8] = include_bytes!("event_dictionary_1.txt");

/// The size prefix's marker of [`DICTIONARY_1`].
const WITH_DICTIONARY_1: u32 = 1 << 31;

/// The largest body [`unpack`] decodes (a 25x25 Gomoku game's is ~13 KB):
/// a corrupt size decodes to nothing rather than to a huge allocation.
const LARGEST: usize = 16 << 20;

/// `body` compressed against [`DICTIONARY_1`], its size first.
pub(super) fn pack(body: &str) -> Vec<u8> {
    let mut packed = if DICTIONARY_1.len() + body.len() < Compressor::REACH {
        COMPRESSOR.with_borrow_mut(|c| c.compress(body.as_bytes()))
    } else {
        lz4_flex::block::compress_prepend_size_with_dict(body.as_bytes(), DICTIONARY_1)
    };
    // Bodies are far below 2 GiB: the top bit of the size is free.
    let size = u32::try_from(body.len()).unwrap_or(u32::MAX >> 1) | WITH_DICTIONARY_1;
    packed[..4].copy_from_slice(&size.to_le_bytes());
    packed
}

thread_local! {
    /// The writer's compressor (one thread: one table, one buffer).
    static COMPRESSOR: std::cell::RefCell<Compressor> = std::cell::RefCell::new(Compressor::new());
}

/// The hash table's size: 2^12 entries, as LZ4's fast compressor for
/// inputs under 64 KiB.
const HASH_BITS: u32 = 12;

/// Where the last 4 bytes at each hash were seen: positions in the
/// dictionary followed by the body.
type Table = [u16; 1 << HASH_BITS];

/// The table of [`DICTIONARY_1`] alone, computed once.
static DICTIONARY_TABLE: std::sync::LazyLock<Box<Table>> = std::sync::LazyLock::new(|| {
    let mut table = Box::new([0; 1 << HASH_BITS]);
    for at in 0..=DICTIONARY_1.len().saturating_sub(4) {
        // Later positions win: the dictionary's end is the commonest body.
        table[hash(read_u32(DICTIONARY_1, at))] = position(at);
    }
    table
});

/// A greedy LZ4 block compressor over [`DICTIONARY_1`] followed by the
/// input, with the dictionary's table copied rather than computed.
struct Compressor {
    table: Box<Table>,
    /// The dictionary, then the body being compressed.
    window: Vec<u8>,
}

impl Compressor {
    /// The dictionary and a body together must stay under this size, the
    /// table's positions being 16 bits (and LZ4's offsets at most 65,535).
    const REACH: usize = 1 << 16;
    /// LZ4's block rules: the last 5 bytes are literals, and no match starts
    /// within the last 12.
    const LAST_LITERALS: usize = 5;
    const MATCH_LIMIT: usize = 12;
    const MIN_MATCH: usize = 4;

    fn new() -> Compressor {
        Compressor {
            table: DICTIONARY_TABLE.clone(),
            window: DICTIONARY_1.to_vec(),
        }
    }

    /// `input` as an LZ4 block referring back into the dictionary, after 4
    /// bytes left for the size. `input` is shorter than
    /// `REACH - DICTIONARY_1.len()`.
    fn compress(&mut self, input: &[u8]) -> Vec<u8> {
        let start = DICTIONARY_1.len();
        self.table.copy_from_slice(&DICTIONARY_TABLE[..]);
        self.window.truncate(start);
        self.window.extend_from_slice(input);
        let w = &self.window;
        let end = w.len();
        let mut out = Vec::with_capacity(4 + input.len() + input.len() / 255 + 16);
        out.extend_from_slice(&[0; 4]);
        let mut anchor = start;
        let mut at = start;
        if input.len() > Self::MATCH_LIMIT {
            let last_start = end - Self::MATCH_LIMIT;
            let match_end = end - Self::LAST_LITERALS;
            while at < last_start {
                let here = read_u32(w, at);
                let slot = &mut self.table[hash(here)];
                let candidate = usize::from(*slot);
                *slot = position(at);
                if candidate >= at || read_u32(w, candidate) != here {
                    // As LZ4 does, step further the longer nothing matches.
                    at += 1 + ((at - anchor) >> 6);
                    continue;
                }
                // Back over literals that match too, then forward.
                let (mut from, mut back) = (at, candidate);
                while from > anchor && back > 0 && w[from - 1] == w[back - 1] {
                    from -= 1;
                    back -= 1;
                }
                let len = at - from + Self::MIN_MATCH;
                let len = len + common_prefix(&w[back + len..], &w[from + len..match_end]);
                sequence(&mut out, &w[anchor..from], Some((from - back, len)));
                at = from + len;
                anchor = at;
                // The match's last positions, for the next ones to find.
                if at < last_start {
                    self.table[hash(read_u32(w, at - 2))] = position(at - 2);
                }
            }
        }
        sequence(&mut out, &w[anchor..end], None);
        out
    }
}

/// One LZ4 sequence: `literals`, then the match (`offset` back, `len`
/// bytes), none for the block's last.
fn sequence(out: &mut Vec<u8>, literals: &[u8], matched: Option<(usize, usize)>) {
    let extra = matched.map_or(0, |(_, len)| len - Compressor::MIN_MATCH);
    let nibble = |n: usize| u8::try_from(n.min(15)).unwrap_or(15);
    out.push((nibble(literals.len()) << 4) | nibble(extra));
    if literals.len() >= 15 {
        length(out, literals.len() - 15);
    }
    out.extend_from_slice(literals);
    if let Some((offset, _)) = matched {
        let offset = u16::try_from(offset).unwrap_or(u16::MAX);
        out.extend_from_slice(&offset.to_le_bytes());
        if extra >= 15 {
            length(out, extra - 15);
        }
    }
}

/// A length's continuation bytes (255 while more follow).
fn length(out: &mut Vec<u8>, mut n: usize) {
    while n >= 255 {
        out.push(255);
        n -= 255;
    }
    out.push(u8::try_from(n).unwrap_or(u8::MAX));
}

/// How many bytes `a` and `b` have in common from their starts, compared
/// eight at a time (a match runs for hundreds of bytes in a body).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut len = 0;
    for (x, y) in a[..n].chunks_exact(8).zip(b[..n].chunks_exact(8)) {
        let diff = u64::from_le_bytes(x.try_into().unwrap_or_default())
            ^ u64::from_le_bytes(y.try_into().unwrap_or_default());
        if diff != 0 {
            return len + usize::try_from(diff.trailing_zeros() / 8).unwrap_or(0);
        }
        len += 8;
    }
    len + a[len..n]
        .iter()
        .zip(&b[len..n])
        .take_while(|(x, y)| x == y)
        .count()
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

fn hash(word: u32) -> usize {
    usize::try_from(word.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)).unwrap_or(0)
}

/// A position in the window as the table holds it (the window is shorter
/// than [`Compressor::REACH`]).
fn position(at: usize) -> u16 {
    u16::try_from(at).unwrap_or(u16::MAX)
}

/// A stored body back as text: `None` if it does not decode.
pub(super) fn unpack(stored: &[u8]) -> Option<String> {
    let (size, data) = stored.split_first_chunk::<4>()?;
    let size = u32::from_le_bytes(*size);
    let dictionary: &[u8] = if size & WITH_DICTIONARY_1 == 0 {
        b""
    } else {
        DICTIONARY_1
    };
    let size = usize::try_from(size & !WITH_DICTIONARY_1).ok()?;
    if size > LARGEST {
        return None;
    }
    let bytes = lz4_flex::block::decompress_with_dict(data, size, dictionary).ok()?;
    String::from_utf8((bytes.len() == size).then_some(bytes)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    const MOVE: &str = r#"{"type":"move.played","timestamp":"2026-11-27T09:12:33.123456Z","data":{"game":{"id":"01a2b3c4-0000-7000-8000-123456789abc","kind":"connect_four","options":{"rows":6,"columns":7},"status":"in_progress","end_reason":null,"turn":"O","winner":null,"winning_line":null,"board":[".......",".......",".......",".......",".......","...X..."],"ultimate":null,"legal_moves":[{"column":0},{"column":1},{"column":2},{"column":3},{"column":4},{"column":5},{"column":6}],"threats":[],"round":1,"ply":1,"version":2,"seats":{"X":{"type":"human","taken":true,"name":null,"player":null},"O":{"type":"human","taken":true,"name":null,"player":null}},"visibility":"public","offer":null,"clock":null,"rated":false,"rating_change":null,"created_at":"2026-11-27T09:12:33.100000Z","updated_at":"2026-11-27T09:12:33.123456Z"},"move":{"round":1,"ply":1,"player":"X","move":{"column":3},"at":"2026-11-27T09:12:33.123456Z"}}}"#;

    #[test]
    fn the_dictionary_never_changes() {
        // Bodies stored with it must decode for as long as they are kept.
        assert_eq!(
            hex::encode(sha2::Sha256::digest(DICTIONARY_1)),
            "6a8cd6a1061ad402a8e3f27f6b7089ad28a95bcd26c24c9b1a9dd06089ec0a29"
        );
    }

    #[test]
    fn bodies_come_back_as_they_went_and_far_smaller_than_alone() {
        let packed = pack(MOVE);
        assert_eq!(unpack(&packed).as_deref(), Some(MOVE));
        let alone = lz4_flex::block::compress_prepend_size(MOVE.as_bytes());
        assert!(
            packed.len() * 2 < alone.len(),
            "{} bytes with the dictionary, {} without",
            packed.len(),
            alone.len()
        );
        for body in ["", "{}", "é", &"x".repeat(100_000)] {
            assert_eq!(unpack(&pack(body)).as_deref(), Some(body));
        }
    }

    #[test]
    fn every_input_comes_back_from_the_compressor_and_as_small_as_lz4_flex_makes_it() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"{".to_vec(),
            b"twelve bytes".to_vec(),
            b"thirteen byte".to_vec(),
            MOVE.as_bytes().to_vec(),
            DICTIONARY_1.to_vec(),
            MOVE.repeat(40).into_bytes(),
            vec![b'.'; 5000],
        ];
        for _ in 0..300 {
            // Bodies edited at random: runs from the dictionary and noise.
            let mut input = Vec::new();
            while input.len() < rng.random_range(0..3000) {
                if rng.random_bool(0.5) {
                    let from = rng.random_range(0..DICTIONARY_1.len());
                    let to = (from + rng.random_range(1..200)).min(DICTIONARY_1.len());
                    input.extend_from_slice(&DICTIONARY_1[from..to]);
                } else {
                    for _ in 0..rng.random_range(1..20) {
                        input.push(rng.random_range(b' '..=b'~'));
                    }
                }
            }
            inputs.push(input);
        }
        let (mut ours, mut theirs) = (0, 0);
        for input in &inputs {
            let text = String::from_utf8(input.clone()).expect("ASCII");
            let packed = pack(&text);
            assert_eq!(unpack(&packed).as_deref(), Some(text.as_str()));
            ours += packed.len();
            theirs += lz4_flex::block::compress_prepend_size_with_dict(input, DICTIONARY_1).len();
        }
        // The same format and a like search: sizes within a tenth.
        assert!(
            ours * 10 < theirs * 11,
            "{ours} bytes here, {theirs} by lz4_flex"
        );
        // Beyond the compressor's reach (16-bit positions), lz4_flex's.
        let large = "é".repeat(40_000);
        assert_eq!(unpack(&pack(&large)).as_deref(), Some(large.as_str()));
    }

    #[test]
    fn bodies_stored_before_the_dictionary_still_decode() {
        let old = lz4_flex::block::compress_prepend_size(MOVE.as_bytes());
        assert_eq!(unpack(&old).as_deref(), Some(MOVE));
    }

    #[test]
    fn what_does_not_decode_is_none() {
        let mut packed = pack(MOVE);
        assert_eq!(unpack(&packed[..3]), None);
        // A size that disagrees with the data.
        packed[0] = packed[0].wrapping_add(1);
        assert_eq!(unpack(&packed), None);
        assert_eq!(unpack(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]), None);
    }
}
