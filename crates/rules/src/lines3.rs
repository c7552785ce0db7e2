//! The eight lines of a 3x3 board as bitmasks (bit `3 * row + col`), shared by
//! tic-tac-toe and the boards of ultimate tic-tac-toe.

/// Rows, columns, then the two diagonals.
pub const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// All nine cells.
pub const FULL: u16 = 0x1ff;

const fn build_table() -> [bool; 512] {
    let mut table = [false; 512];
    let mut mask: u16 = 0;
    while mask < 512 {
        let mut i = 0;
        while i < LINES.len() {
            if mask & LINES[i] == LINES[i] {
                table[mask as usize] = true;
            }
            i += 1;
        }
        mask += 1;
    }
    table
}

const WON: [bool; 512] = build_table();

/// Whether the cells in `mask` contain a full line.
#[must_use]
pub const fn has_line(mask: u16) -> bool {
    WON[(mask & FULL) as usize]
}

/// The union of the full lines in `mask` (0 if none).
#[must_use]
pub fn line_cells(mask: u16) -> u16 {
    LINES
        .iter()
        .filter(|&&l| mask & l == l)
        .fold(0, |acc, &l| acc | l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_agrees_with_lines() {
        assert!(has_line(0b111));
        assert!(has_line(0b100_010_001 | 0b10));
        assert!(!has_line(0b011_101_110 & !0b100_010_001 & 0b011_001_110));
        assert!(!has_line(0b110_001_110));
        for mask in 0u16..512 {
            assert_eq!(has_line(mask), line_cells(mask) != 0, "mask {mask:09b}");
        }
    }
}
