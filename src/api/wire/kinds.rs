//! The kinds of game on the wire: board sizes, move shapes, options,
//! defaults and bot levels.

use serde::Serialize;
use utoipa::ToSchema;

use super::game::options_of;
use super::{BotLevel, GameOptions, Kind, Rule};
use crate::rules::{AnyGame, GameKind, Setup, gomoku};
use crate::service;

/// A range option of a kind.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RangeOption {
    pub min: u8,
    pub max: u8,
    pub default: u8,
}

/// A choice option of a kind.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChoiceOption {
    pub values: Vec<Rule>,
    pub default: Rule,
}

/// The options a kind takes at creation (Gomoku: `size` and `rule`; the
/// other kinds: none).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct KindOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub size: Option<RangeOption>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rule: Option<ChoiceOption>,
}

/// The shape of a kind's moves.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveShape {
    /// `{"row", "col"}`
    Cell,
    /// `{"column"}`
    Column,
    /// `{"board", "cell"}`
    BoardCell,
}

/// A kind of game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct KindInfo {
    pub kind: Kind,
    /// Grid size with default options.
    pub rows: u8,
    pub columns: u8,
    /// Stones in a row that win (ultimate: three inner boards in a row).
    pub win_length: u8,
    #[serde(rename = "move")]
    pub move_shape: MoveShape,
    pub options: KindOptions,
    /// The default options, as a game reports them.
    pub defaults: GameOptions,
    /// The bot levels this kind offers (for bots, hints and analyses),
    /// weakest first; other levels are refused with 422 `invalid_option`.
    pub levels: Vec<BotLevel>,
}

/// The kinds of game.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = crate::api::examples::kind_list)]
pub struct KindList {
    pub items: Vec<KindInfo>,
}

impl KindList {
    #[must_use]
    pub fn all() -> KindList {
        let items = GameKind::ALL
            .into_iter()
            .map(|kind| {
                let setup = Setup::default_for(kind);
                let position = AnyGame::new(setup);
                let (rows, columns) = position.dims();
                let (win_length, move_shape) = match kind {
                    GameKind::TicTacToe => (3, MoveShape::Cell),
                    GameKind::ConnectFour => (4, MoveShape::Column),
                    GameKind::Gomoku => (5, MoveShape::Cell),
                    GameKind::UltimateTicTacToe => (3, MoveShape::BoardCell),
                };
                let options = if kind == GameKind::Gomoku {
                    KindOptions {
                        size: Some(RangeOption {
                            min: gomoku::MIN_SIZE,
                            max: gomoku::MAX_SIZE,
                            default: gomoku::DEFAULT_SIZE,
                        }),
                        rule: Some(ChoiceOption {
                            values: vec![Rule::Freestyle, Rule::Standard],
                            default: Rule::Freestyle,
                        }),
                    }
                } else {
                    KindOptions {
                        size: None,
                        rule: None,
                    }
                };
                KindInfo {
                    kind: kind.into(),
                    rows,
                    columns,
                    win_length,
                    move_shape,
                    options,
                    defaults: options_of(setup, &position),
                    levels: service::available_levels(setup)
                        .into_iter()
                        .map(Into::into)
                        .collect(),
                }
            })
            .collect();
        KindList { items }
    }
}
