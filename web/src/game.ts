// A game's page: loads the game, keeps it current from its event stream,
// and hands drawing and the controls to the other game modules.
import { api, ApiFailure, forgetSeat, type Game, type GameEvent, heldSeat, type Move, type MoveRecord, ok, type Side } from "./api.js";
import { moveKey } from "./board.js";
import { h } from "./dom.js";
import { askAgain } from "./game-actions.js";
import { render, renderClocks } from "./game-render.js";
import { type GameScreen, newScreen } from "./game-screen.js";
import { dropReview } from "./review.js";
import { main, onLeave, status } from "./shell.js";
import { kinds, levelsOf, offerWhat } from "./ui.js";

/** How often a page waiting in quick match asks again. */
const ASK_AGAIN_MS = 5_000;
/** The most games of a series read for its score. */
const SERIES_MAX = 30;

export async function showGame(id: string): Promise<void> {
  let game: Game;
  try {
    game = await ok(api.GET("/v1/games/{id}", { params: { path: { id } } }));
  } catch (e) {
    if (!(e instanceof ApiFailure && e.status === 404)) throw e;
    // One text says so, with the way back.
    forgetSeat(id);
    status.textContent = "No such game";
    main.replaceChildren(h("section", { class: "card" }, h("p", {}, "This game does not exist: it was deleted, or it expired."), h("a", { href: "/play", "data-link": "" }, "Lobby")));
    return;
  }
  const st = newScreen(id, game, heldSeat(id));
  const el = st.el;
  main.replaceChildren(
    h("section", { class: "card game" }, el.title, el.info, el.invite, el.clocks, el.boardBox, el.threats, el.offerBox, el.controls, el.dialogBox, el.stepper, el.moveList),
    el.reviewBox,
  );
  // On a touch screen, the first tap on a small cell only points at it.
  el.boardBox.addEventListener("pointerdown", (e) => (st.pointer = e.pointerType));
  const tick = window.setInterval(() => renderClocks(st), 250);
  const asking = window.setInterval(() => void askAgain(st), ASK_AGAIN_MS);
  const stopLive = startLive(st);
  onLeave(() => {
    st.reviewing?.abort();
    window.clearInterval(asking);
    window.clearInterval(tick);
    stopLive();
  });
  render(st);
  void kinds()
    .then((info) => {
      st.levels = levelsOf(info, st.game.kind);
      render(st);
    })
    .catch(() => {});
  void loadRatings(st).catch(() => {});
  void loadSeries(st).catch(() => {});
  await syncMoves(st).catch(() => {});
}

/** Live: the game's event stream. EventSource reconnects by itself and
 * sends `Last-Event-ID`, so changes made while away arrive in order. A
 * stream can look open while the server is gone (it stops taking
 * connections first): the server is asked now and then, and the page says
 * so when it is away. Returns what stops it all. */
function startLive(st: GameScreen): () => void {
  let source: EventSource | null = null;
  let retry: number | undefined;
  const connect = () => {
    source = new EventSource(`/v1/games/${encodeURIComponent(st.id)}/events?last_event_id=${st.game.version}`);
    source.onopen = () => {
      st.live = "live";
      render(st);
    };
    source.onerror = () => {
      st.live = "reconnecting";
      render(st);
      if (source?.readyState === EventSource.CLOSED) {
        // The browser gave up (an HTTP error): start afresh after a pause.
        source = null;
        retry = window.setTimeout(connect, 2000);
      }
    };
    for (const type of ["move", "join", "restart", "resign", "offer", "offer_declined", "offer_withdrawn", "takeback", "draw", "timeout", "rematch"]) {
      source.addEventListener(type, (e) => {
        const event = JSON.parse((e as MessageEvent<string>).data) as GameEvent;
        if (!event.game || st.busy) return;
        if (event.type === "move" && event.move && event.version > st.game.version) {
          st.last = [event.move.move];
          st.fresh = event.move.move;
        }
        if (event.type === "restart" || event.type === "takeback") st.last = [];
        // The person who offered hears of a decline; the other of a withdrawal.
        const was = st.game.offer;
        if (was && st.held && !st.held.hotseat && event.version > st.game.version) {
          if (event.type === "offer_declined" && was.by === st.held.seat) st.note = `Your offer of ${offerWhat(was.type)} was declined`;
          if (event.type === "offer_withdrawn" && was.by !== st.held.seat) st.note = `${st.game.seats[was.by].name ?? was.by} withdrew the offer of ${offerWhat(was.type)}`;
        }
        update(st, event.game);
      });
    }
    source.addEventListener("deleted", () => {
      source?.close();
      forgetSeat(st.id);
      st.live = "closed";
      status.textContent = "This game was deleted";
      st.el.boardBox.replaceChildren();
    });
  };
  connect();
  const ping = window.setInterval(() => {
    if (st.live !== "live") return;
    void fetch("/readyz", { cache: "no-store", signal: AbortSignal.timeout(3000) })
      .then((r) => r.ok)
      .catch(() => false)
      .then((up) => {
        if (!up && st.live === "live") {
          st.live = "reconnecting";
          render(st);
          // Start the stream afresh: its `open` says when the server is back.
          source?.close();
          window.clearTimeout(retry);
          retry = window.setTimeout(connect, 1000);
        }
      });
  }, 4000);

  return () => {
    source?.close();
    window.clearTimeout(retry);
    window.clearInterval(ping);
  };
}

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
