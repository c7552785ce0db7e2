//! Notation: random legal games of every kind, written out and read back,
//! reach the same position after every move; and text that is not a line
//! of legal moves is refused at its first bad move, never with a panic.

use proptest::collection::vec;
use proptest::prelude::*;
use tabula_rules::notation::{self, Problem};
use tabula_rules::{AnyGame, AnyMove, GameKind, GomokuOptions, GomokuRule, Setup};

/// Any setup: every kind, gomoku on every size under both rules.
fn setup() -> impl Strategy<Value = Setup> {
    prop_oneof![
        Just(Setup::TicTacToe),
        Just(Setup::ConnectFour),
        Just(Setup::UltimateTicTacToe),
        (
            5i64..=25,
            prop_oneof![Just(GomokuRule::Freestyle), Just(GomokuRule::Standard)]
        )
            .prop_map(|(size, rule)| Setup::Gomoku(GomokuOptions::new(size, rule).unwrap())),
    ]
}

/// A legal game of `setup` picked by `choices` (each picks among the legal
/// moves), with the position after every move (the start first).
fn random_game(setup: Setup, choices: &[usize]) -> (Vec<AnyMove>, Vec<AnyGame>) {
    let mut game = AnyGame::new(setup);
    let mut positions = vec![game.clone()];
    let mut moves = Vec::new();
    for &choice in choices {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[choice % legal.len()];
        game.try_play(mv).unwrap();
        moves.push(mv);
        positions.push(game.clone());
    }
    (moves, positions)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_random_game_goes_to_text_and_back_to_the_same_positions(
        setup in setup(),
        choices in vec(any::<usize>(), 0..90),
    ) {
        let (moves, positions) = random_game(setup, &choices);
        let text = notation::format_line(setup, &moves);
        let line = notation::parse_line(setup, &text).unwrap();
        prop_assert_eq!(line.moves(), &moves[..]);
        prop_assert_eq!(line.position(), positions.last().unwrap());
        prop_assert_eq!(line.text(), text.clone());
        // Every prefix of the line reaches the position after that many moves.
        for (n, expected) in positions.iter().enumerate() {
            let prefix = notation::format_line(setup, &moves[..n]);
            prop_assert!(text.starts_with(&prefix));
            let read = notation::parse_line(setup, &prefix).unwrap();
            prop_assert_eq!(read.position(), expected);
        }
        // Each move's text is its own, and reads back alone on the start
        // position as the same move when it is legal there.
        for &mv in &moves {
            let one = notation::format_move(setup, mv);
            if AnyGame::new(setup).check(mv).is_ok() {
                let alone = notation::parse_line(setup, &one).unwrap();
                prop_assert_eq!(alone.moves(), &[mv][..]);
            }
        }
    }

    #[test]
    fn a_line_that_goes_on_after_the_end_is_refused_as_game_over_at_the_first_extra_move(
        setup in setup(),
        choices in vec(any::<usize>(), 700..701),
    ) {
        let (moves, positions) = random_game(setup, &choices);
        let end = positions.last().unwrap();
        prop_assume!(end.is_over());
        // Any move of the start position, after the end.
        let extra = AnyGame::new(setup).legal_moves()[0];
        let mut longer = moves.clone();
        longer.push(extra);
        let err = notation::parse_line(setup, &notation::format_line(setup, &longer)).unwrap_err();
        prop_assert_eq!(err.index, moves.len());
        prop_assert_eq!(err.problem.reason(), "game_over");
        prop_assert_eq!(&*err.position, end);
    }

    #[test]
    fn any_text_is_read_or_refused_at_a_move_it_holds_without_a_panic(
        setup in setup(),
        text in "[a-z0-9 ]{0,40}|\\PC{0,20}",
    ) {
        match notation::parse_line(setup, &text) {
            Ok(line) => {
                // What is read is written back exactly as it was.
                prop_assert_eq!(line.text(), text);
            }
            Err(e) => {
                let separated = matches!(setup.kind(), GameKind::Gomoku | GameKind::UltimateTicTacToe);
                let count = if separated { text.split(' ').count() } else { text.chars().count() };
                prop_assert!(e.index < count, "{} of {}", e.index, count);
                if e.problem == Problem::Unreadable {
                    prop_assert!(!e.to_string().is_empty());
                }
                // The moves before the bad one are a line of their own,
                // which reaches the position the bad one was tried on.
                let prefix: String = if separated {
                    text.split(' ').take(e.index).collect::<Vec<_>>().join(" ")
                } else {
                    text.chars().take(e.index).collect()
                };
                let before = notation::parse_line(setup, &prefix).unwrap();
                prop_assert_eq!(before.position(), &*e.position);
            }
        }
    }
}
