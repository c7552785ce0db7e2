//! The Monte-Carlo strategy: UCT tree search with random playouts and
//! solver flags, over any rules [`Game`].
//!
//! Each iteration walks down the tree by UCB1, expands the leaf it reaches
//! (all its children at once, in a seeded random order), plays one random
//! game from the first unvisited child and credits the result to the nodes
//! on the way. All randomness comes from the seeded generator, and the
//! iteration count is the work, so the search is deterministic.
//!
//! When a node is expanded every child is checked: a move that ends the game
//! is marked won (or drawn), and a move after which the opponent can win at
//! once is marked lost (the opponent's reply is found with
//! [`Game::threats`]). Marks propagate up (a node with a won child is lost
//! for whoever moved into it; one whose children are all lost is won), the
//! walk never enters a lost child while another is left, and the search
//! stops once the root is decided. So immediate wins are always taken and
//! immediate losses always avoided when they can be.

use rand::Rng;
use rand::seq::SliceRandom;

use super::limits::Meter;
use super::{Evaluation, Outcome};
use tabula_rules::{Game, Player};

/// How a search is run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settings {
    /// The UCB1 exploration constant (rewards are in 0..=1).
    pub exploration: f64,
    /// The most memory the tree may take, in bytes.
    pub memory: usize,
}

/// The tree always has room for this many nodes (more than any one
/// expansion adds), whatever the memory setting.
const MIN_NODES: usize = 128;

/// The result of a search.
#[derive(Clone, Copy, Debug)]
pub(super) struct Found<M> {
    /// The move to play.
    pub mv: M,
    /// How the position stands for the mover.
    pub evaluation: Evaluation,
}

/// What is known for sure about a node, from the view of the player who made
/// the move into it; the number is the plies until the game ends, counting
/// that move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    Unknown,
    Win(u32),
    Loss(u32),
    Draw(u32),
}

/// A node of the tree; children are stored side by side.
#[derive(Clone, Copy, Debug)]
struct Node<M> {
    mv: Option<M>,
    parent: u32,
    first: u32,
    len: u16,
    expanded: bool,
    visits: u32,
    /// The sum of the rewards of the player who moved into this node.
    reward: f32,
    proof: Proof,
}

impl<M> Node<M> {
    fn new(mv: Option<M>, parent: u32) -> Node<M> {
        Node {
            mv,
            parent,
            first: 0,
            len: 0,
            expanded: false,
            visits: 0,
            reward: 0.0,
            proof: Proof::Unknown,
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        let first = self.first as usize;
        first..first + usize::from(self.len)
    }

    fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.5
        } else {
            f64::from(self.reward) / f64::from(self.visits)
        }
    }
}

/// Searches `game` (not over) for the side to move. `None` when it is over.
pub(super) fn search<G: Game>(
    game: &G,
    settings: Settings,
    rng: &mut impl Rng,
    meter: &mut Meter,
) -> Option<Found<G::Move>> {
    if game.is_over() {
        return None;
    }
    grow(game, settings, rng, meter).best()
}

/// The tree of a search of `game` (not over).
fn grow<G: Game>(
    game: &G,
    settings: Settings,
    rng: &mut impl Rng,
    meter: &mut Meter,
) -> Tree<G::Move> {
    // Half the memory, so that the vector's doubling stays within it.
    let node = std::mem::size_of::<Node<G::Move>>();
    let capacity = (settings.memory / 2 / node).max(MIN_NODES);
    let mut nodes = Vec::with_capacity(capacity.min(1 << 16));
    nodes.push(Node::new(None, 0));
    let mut tree = Tree {
        nodes,
        capacity,
        exploration: settings.exploration,
        root_player: game.to_move(),
        moves: Vec::new(),
        path: Vec::new(),
    };
    tree.expand(0, game, rng);
    while tree.nodes[0].proof == Proof::Unknown && meter.tick() {
        tree.iterate(game, rng);
    }
    tree
}

struct Tree<M> {
    nodes: Vec<Node<M>>,
    capacity: usize,
    exploration: f64,
    root_player: Player,
    /// A reused move buffer.
    moves: Vec<M>,
    /// The nodes of the current walk, root first.
    path: Vec<u32>,
}

impl<M: Copy> Tree<M> {
    fn index(i: usize) -> u32 {
        u32::try_from(i).unwrap_or(u32::MAX)
    }

    /// Creates the children of `node`, whose position is `state`, and marks
    /// those that are decided.
    fn expand<G: Game<Move = M>>(&mut self, node: usize, state: &G, rng: &mut impl Rng) {
        state.legal_moves_into(&mut self.moves);
        if self.nodes.len() + self.moves.len() > self.capacity {
            return;
        }
        self.moves.shuffle(rng);
        let first = self.nodes.len();
        let me = state.to_move();
        for i in 0..self.moves.len() {
            let m = self.moves[i];
            let mut child = Node::new(Some(m), Tree::<M>::index(node));
            let mut next = state.clone();
            next.play_unchecked(m);
            child.proof = if next.winner().is_some() {
                Proof::Win(1)
            } else if next.is_over() {
                Proof::Draw(1)
            } else if next.threats().iter().any(|t| t.player == me.other()) {
                Proof::Loss(2)
            } else {
                Proof::Unknown
            };
            self.nodes.push(child);
        }
        let n = &mut self.nodes[node];
        n.first = Tree::<M>::index(first);
        n.len = u16::try_from(self.moves.len()).unwrap_or(u16::MAX);
        n.expanded = true;
        self.settle(node);
    }

    /// Re-derives the proof of `node` from its children, and so on upwards
    /// while proofs change.
    fn settle(&mut self, mut node: usize) {
        loop {
            let n = self.nodes[node];
            if !n.expanded || n.len == 0 {
                return;
            }
            let mut win = None::<u32>;
            let mut all_decided = true;
            let mut draw = None::<u32>;
            let mut loss = 0;
            for c in n.children() {
                match self.nodes[c].proof {
                    Proof::Win(k) => win = Some(win.map_or(k, |w| w.min(k))),
                    Proof::Draw(k) => draw = Some(draw.map_or(k, |d| d.max(k))),
                    Proof::Loss(k) => loss = loss.max(k),
                    Proof::Unknown => all_decided = false,
                }
            }
            let proof = match (win, draw) {
                (Some(k), _) => Proof::Loss(k + 1),
                (None, Some(k)) if all_decided => Proof::Draw(k + 1),
                (None, None) if all_decided => Proof::Win(loss + 1),
                _ => Proof::Unknown,
            };
            if proof == n.proof {
                return;
            }
            self.nodes[node].proof = proof;
            if node == 0 {
                return;
            }
            node = n.parent as usize;
        }
    }

    /// The child of `node` to walk into: unvisited first (in the shuffled
    /// order), then by UCB1; lost children only when nothing else is left.
    fn select(&self, node: usize) -> usize {
        let n = self.nodes[node];
        let log = f64::from(n.visits.max(1)).ln();
        let mut best = None;
        let mut best_value = f64::NEG_INFINITY;
        for c in n.children() {
            let child = &self.nodes[c];
            let value = match child.proof {
                Proof::Loss(_) => continue,
                Proof::Win(_) => f64::INFINITY,
                _ if child.visits == 0 => return c,
                Proof::Draw(_) => 0.5 + self.exploration * (log / f64::from(child.visits)).sqrt(),
                Proof::Unknown => {
                    child.mean() + self.exploration * (log / f64::from(child.visits)).sqrt()
                }
            };
            if value > best_value {
                best_value = value;
                best = Some(c);
            }
        }
        best.unwrap_or(n.first as usize)
    }

    /// Steps from `node` to its selected child, on the tree's path and on
    /// `state`; returns the child.
    fn descend<G: Game<Move = M>>(&mut self, node: usize, state: &mut G) -> usize {
        let c = self.select(node);
        if let Some(m) = self.nodes[c].mv {
            state.play_unchecked(m);
        }
        self.path.push(Tree::<M>::index(c));
        c
    }

    /// One walk, expansion, playout and update.
    fn iterate<G: Game<Move = M>>(&mut self, root: &G, rng: &mut impl Rng) {
        let mut state = root.clone();
        let mut node = 0;
        self.path.clear();
        self.path.push(0);
        loop {
            if self.nodes[node].proof != Proof::Unknown {
                break;
            }
            if !self.nodes[node].expanded {
                self.expand(node, &state, rng);
                if !self.nodes[node].expanded || self.nodes[node].proof != Proof::Unknown {
                    break;
                }
                node = self.descend(node, &mut state);
                break;
            }
            node = self.descend(node, &mut state);
        }
        let winner = match self.nodes[node].proof {
            Proof::Unknown => playout(&mut state, &mut self.moves, rng),
            proof => {
                // Who made the move into `node`: the root's side to move at
                // odd depths.
                let depth = self.path.len() - 1;
                let mover = if depth % 2 == 1 {
                    self.root_player
                } else {
                    self.root_player.other()
                };
                match proof {
                    Proof::Win(_) => Some(mover),
                    Proof::Loss(_) => Some(mover.other()),
                    _ => None,
                }
            }
        };
        for (depth, &i) in self.path.iter().enumerate() {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            let mover = if depth % 2 == 1 {
                self.root_player
            } else {
                self.root_player.other()
            };
            n.reward += match winner {
                Some(w) if w == mover => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
        }
    }

    /// The move to play: a proven win (the quickest), else the most visited
    /// child that is not proven lost, else the slowest loss.
    fn best(&self) -> Option<Found<M>> {
        let root = self.nodes[0];
        let children = &self.nodes[root.children()];
        let quickest_win = children
            .iter()
            .filter_map(|c| match c.proof {
                Proof::Win(k) => Some((k, c)),
                _ => None,
            })
            .min_by_key(|&(k, _)| k);
        if let Some((k, c)) = quickest_win {
            return Some(Found {
                mv: c.mv?,
                evaluation: Evaluation::proven(Outcome::Win, k),
            });
        }
        let alive = children
            .iter()
            .filter(|c| !matches!(c.proof, Proof::Loss(_)))
            .max_by(|a, b| a.visits.cmp(&b.visits).then(a.mean().total_cmp(&b.mean())));
        if let Some(c) = alive {
            let evaluation = if let (Proof::Draw(_), Proof::Draw(k)) = (root.proof, c.proof) {
                Evaluation::proven(Outcome::Draw, k)
            } else {
                // In -999.0..=999.0, so the cast cannot overflow.
                let squeezed = ((c.mean() * 2.0 - 1.0) * 999.0).round();
                Evaluation::heuristic(squeezed as i32)
            };
            return Some(Found {
                mv: c.mv?,
                evaluation,
            });
        }
        let slowest_loss = children
            .iter()
            .filter_map(|c| match c.proof {
                Proof::Loss(k) => Some((k, c)),
                _ => None,
            })
            .max_by_key(|&(k, _)| k)?;
        Some(Found {
            mv: slowest_loss.1.mv?,
            evaluation: Evaluation::proven(Outcome::Loss, slowest_loss.0),
        })
    }
}

/// Plays uniformly random moves to the end; the winner.
fn playout<G: Game>(state: &mut G, moves: &mut Vec<G::Move>, rng: &mut impl Rng) -> Option<Player> {
    while !state.is_over() {
        state.legal_moves_into(moves);
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        state.play_unchecked(m);
    }
    state.winner()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use tabula_rules::ultimate::{Move, Ultimate};

    #[test]
    fn the_tree_stays_within_its_memory() {
        let node = std::mem::size_of::<Node<Move>>();
        let memory = 4096 * node;
        let settings = Settings {
            exploration: 1.0,
            memory,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut meter = Meter::new(20_000, Duration::from_mins(1));
        let game = Ultimate::new();
        let tree = grow(&game, settings, &mut rng, &mut meter);
        assert!(tree.nodes.len() <= 2048, "{}", tree.nodes.len());
        assert!(tree.nodes.capacity() * node <= memory);
        // It went on playing out from the leaves it could not expand.
        assert_eq!(tree.nodes[0].visits, 20_000);
        assert!(tree.best().is_some_and(|f| game.check(f.mv).is_ok()));
    }
}
