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
    let mut packed =
        lz4_flex::block::compress_prepend_size_with_dict(body.as_bytes(), DICTIONARY_1);
    // Bodies are far below 2 GiB: the top bit of the size is free.
    let size = u32::try_from(body.len()).unwrap_or(u32::MAX >> 1) | WITH_DICTIONARY_1;
    packed[..4].copy_from_slice(&size.to_le_bytes());
    packed
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
