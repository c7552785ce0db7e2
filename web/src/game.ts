// A game's page: loads the game, keeps it current from its event stream,
// and hands drawing and the controls to the other game modules.
import { api, ApiFailure, forgetSeat, type Game, type GameEvent, heldSeat, ok } from "./api.js";
import { h } from "./dom.js";
import * as actions from "./game-actions.js";
import { render, renderClocks } from "./game-render.js";
import { type Controls, type GameScreen, newScreen } from "./game-screen.js";
import { loadRatings, loadSeries, syncMoves, update } from "./game-sync.js";
import { main, onLeave, status } from "./shell.js";
import { chime, kinds, levelsOf, offerWhat } from "./ui.js";

/** How often a page waiting in quick match asks again. */
const ASK_AGAIN_MS = 5_000;

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
  // The controller: the controls and the drawing, handed to the screen.
  const controls: Controls = { ...actions, redraw: render };
  const st = newScreen(id, game, heldSeat(id), controls);
  const el = st.el;
  // From 1,024 px wide two columns: the board on one side; the clocks, the
  // moves and every action on the other, in view beside it.
  main.replaceChildren(
    h(
      "section",
      { class: "card game" },
      h("div", { class: "play-side" }, el.title, el.info, el.invite, el.boardBox, el.threats),
      h("div", { class: "panel" }, el.clocks, el.offerBox, el.claim, el.controls, el.dialogBox, el.stepper, el.moveList),
    ),
    el.reviewBox,
  );
  // On a touch screen, the first tap on a small cell only points at it.
  el.boardBox.addEventListener("pointerdown", (e) => (st.pointer = e.pointerType));
  const tick = window.setInterval(() => renderClocks(st), 250);
  const asking = window.setInterval(() => void actions.askAgain(st), ASK_AGAIN_MS);
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
    const events = ["move", "join", "restart", "resign", "offer", "offer_declined", "offer_withdrawn", "takeback", "draw", "timeout", "claim", "assistance", "rematch"];
    for (const type of events) {
      source.addEventListener(type, (e) => {
        const event = JSON.parse((e as MessageEvent<string>).data) as GameEvent;
        if (!event.game || st.busy) return;
        const fresh = event.version > st.game.version;
        // A sound for what the other side did: a move, an offer, a join.
        const by = event.move?.player ?? event.seat;
        const theirs = fresh && st.held !== null && !st.held.hotseat && by !== undefined && by !== st.held.seat;
        if (theirs && (event.type === "move" || event.type === "offer" || event.type === "join")) chime(event.type);
        // The rematch this seat offered was accepted: on to it.
        const asked = st.game.offer?.type === "rematch" && st.held && st.game.offer.by === st.held.seat;
        if (fresh && event.type === "rematch" && asked && event.game.rematch) {
          st.game = event.game;
          return void actions.toRematch(st, event.game.rematch);
        }
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
