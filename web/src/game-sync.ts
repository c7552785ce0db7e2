// A newer state of a game taken (from an answer or the stream), and what
// goes with it read again: the round's moves, the players' ratings, the
// score of a series of rematches.
import { api, type Game, type Move, type MoveRecord, ok, type Side } from "./api.js";
import { moveKey } from "./board.js";
import { render } from "./game-render.js";
import { type GameScreen } from "./game-screen.js";
import { dropReview } from "./review.js";

/** The most games of a series read for its score. */
const SERIES_MAX = 30;

/** The seats' players' ratings in this kind, shown beside their names. */
export const loadRatings = async (st: GameScreen) => {
  const ids = (["X", "O"] as Side[]).map((s) => st.game.seats[s].player).filter((p): p is string => !!p);
  const stamp = `${ids.join(",")}|${st.game.round}|${st.game.rating_change ? "done" : ""}`;
  if (!ids.length || stamp === st.ratedAt) return;
  st.ratedAt = stamp;
  await Promise.all(
    ids.map(async (pid) => {
      const res = await api.GET("/v1/players/{id}", { params: { path: { id: pid } } });
      const r = res.data?.ratings[st.game.kind];
      if (r) st.ratings.set(pid, r.rating);
    }),
  );
  render(st);
};

/** Reads the round's moves again when the game moved on without them. */
export const syncMoves = async (st: GameScreen) => {
  const current = st.moves.length === st.game.ply && (st.moves[0]?.round ?? st.game.round) === st.game.round;
  if (!current) {
    const res = await ok(api.GET("/v1/games/{id}/moves", { params: { path: { id: st.id }, query: { round: st.game.round } } }));
    st.moves = res.items;
  }
  // The marker is the round's last move, whatever view drew before.
  const end = st.moves.at(-1);
  const marked = end ? moveKey(end.move) : null;
  if (!current || (st.last.at(-1) ? moveKey(st.last.at(-1) as Move) : null) !== marked) {
    st.last = end ? [end.move] : [];
    render(st);
  }
};

/** Takes a newer state of the game (from an answer or the stream). */
export const update = (st: GameScreen, g: Game, played: MoveRecord[] = []) => {
  if (g.version < st.game.version) return;
  if (g.round !== st.game.round || (g.status !== "won" && g.status !== "draw")) dropReview(st);
  if (g.round !== st.game.round) st.view = null;
  if (played.length) st.last = played.map((m) => m.move);
  if (g.version > st.game.version) st.hint = null;
  const ended = (g.status === "won" || g.status === "draw") && g.status !== st.game.status;
  st.game = g;
  render(st);
  if (ended || (g.rematch && !st.series)) void loadSeries(st).catch(() => {});
  void syncMoves(st).catch(() => {});
  void loadRatings(st).catch(() => {});
};

/** The series this game belongs to (its rematches both ways), scored by
 * person: the seats swap with each rematch. */
export const loadSeries = async (st: GameScreen) => {
  const chain: Game[] = [st.game];
  const read = async (other: string | null | undefined) =>
    other ? (await api.GET("/v1/games/{id}", { params: { path: { id: other } } })).data : undefined;
  for (let g = await read(st.game.rematch_of); g && chain.length < SERIES_MAX; g = await read(g.rematch_of)) chain.unshift(g);
  const here = chain.length - 1;
  for (let g = await read(st.game.rematch); g && chain.length < SERIES_MAX; g = await read(g.rematch)) chain.push(g);
  const first = chain[0];
  if (chain.length < 2 || !first) return void (st.series = "");
  // Person A sat X in the first game, so X in every other one after it.
  const mineIsA = st.held && !st.held.hotseat ? (st.held.seat === "X") === (here % 2 === 0) : null;
  const label = (s: Side, isA: boolean) => {
    const seat = first.seats[s];
    return seat.name ?? (seat.type === "bot" ? "Bot" : mineIsA === null ? s : mineIsA === isA ? "You" : "Opponent");
  };
  let a = 0;
  let b = 0;
  chain.forEach((g, i) => {
    const current = i === here ? st.game : g;
    if (current.status !== "won" || !current.winner) return;
    if ((current.winner === "X") === (i % 2 === 0)) a += 1;
    else b += 1;
  });
  st.series = `${label("X", true)} ${a} – ${b} ${label("O", false)}`;
  render(st);
};
