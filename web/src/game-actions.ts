// What a game's controls do: play (a tap, a move), hint, offers and their
// answers, resign and restart, rematch, join, cancel a waiting game, ask
// quick match again, copy the notation, step through the history.
import { askForMatch, ensurePlayer, holdMatched, savedName, saveName } from "./account.js";
import { api, asMe, bearer, deleteGame, forgetSeat, holdSeat, type Move, ok, type Schemas } from "./api.js";
import { applyLocally, moveKey } from "./board.js";
import { h } from "./dom.js";
import { matching, render } from "./game-render.js";
import { type GameScreen, nameOf } from "./game-screen.js";
import { update } from "./game-sync.js";
import { clearError, copy, navigate, showError } from "./shell.js";
import { key } from "./ui.js";

/** The round as one line of the kind's notation, copied; shown only where
 * the browser does not let the page copy. */
export const copyNotation = async (st: GameScreen) => {
  try {
    const round = st.view?.round ?? st.game.round;
    const res = await ok(api.GET("/v1/games/{id}/notation", { params: { path: { id: st.id }, query: { round } } }));
    if (await copy(res.moves)) return void st.el.notationBox.replaceChildren();
    st.el.notationBox.replaceChildren(h("input", { readonly: "", value: res.moves, "aria-label": "Notation", class: "link" }));
  } catch (e) {
    showError(e);
  }
};

export const offer = async (st: GameScreen, type: "draw" | "takeback" | "restart") => {
  if (!st.held) return;
  try {
    const g = await ok(api.POST("/v1/games/{id}/offers", { params: { path: { id: st.id } }, headers: bearer(st.held.token), body: { type } }));
    clearError();
    update(st, g);
  } catch (e) {
    showError(e);
  }
};

export const answer = async (st: GameScreen, what: "accept" | "decline" | "withdraw") => {
  if (!st.held) return;
  try {
    const token = bearer(st.held.token);
    const path = { params: { path: { id: st.id } }, headers: token };
    const g =
      what === "withdraw"
        ? await ok(api.DELETE("/v1/games/{id}/offers", path))
        : what === "decline"
          ? await ok(api.POST("/v1/games/{id}/offers/decline", path))
          : await ok(api.POST("/v1/games/{id}/offers/accept", path));
    clearError();
    // A rematch accepted: its new game, this seat in it.
    if ("token" in g) return void toGrant(st, g);
    update(st, g);
  } catch (e) {
    showError(e);
  }
};

/** Goes to the new game a rematch made, holding the seat it gives. */
const toGrant = (st: GameScreen, grant: Schemas["SeatGrant"]) => {
  if (!st.held) return;
  holdSeat(grant.game.id, { ...st.held, seat: grant.seat, match: undefined });
  navigate(`/play/games/${grant.game.id}`);
};

/** Claims the round: the side to move has been gone too long. */
export const claim = async (st: GameScreen, result: "win" | "draw") => {
  if (!st.held) return;
  try {
    const g = await ok(api.POST("/v1/games/{id}/claim", { params: { path: { id: st.id } }, headers: bearer(st.held.token), body: { result } }));
    clearError();
    update(st, g);
  } catch (e) {
    showError(e);
  }
};

export const step = async (st: GameScreen, round: number, ply: number) => {
  try {
    const plies = st.view?.round === round ? st.view.plies : st.game.ply;
    if (round === st.game.round && ply >= st.game.ply) {
      st.view = null;
    } else {
      const g = await ok(api.GET("/v1/games/{id}/positions/{ply}", { params: { path: { id: st.id, ply }, query: { round } } }));
      st.view = { round, ply, plies, game: g };
    }
    clearError();
    render(st);
  } catch (e) {
    showError(e);
  }
};

export const pickRound = async (st: GameScreen, round: number) => {
  try {
    if (round === st.game.round) return void (await step(st, round, st.game.ply));
    const past = await ok(api.GET("/v1/games/{id}/moves", { params: { path: { id: st.id }, query: { round } } }));
    const plies = past.items.length;
    const g = await ok(api.GET("/v1/games/{id}/positions/{ply}", { params: { path: { id: st.id, ply: plies }, query: { round } } }));
    st.view = { round, ply: plies, plies, game: g };
    render(st);
  } catch (e) {
    showError(e);
  }
};

export const tap = (st: GameScreen, m: Move) => {
  const key = moveKey(m);
  const cell = st.el.boardBox.querySelector<HTMLElement>(`[data-move="${key}"]`);
  const small = (cell?.getBoundingClientRect().width ?? 99) < 30;
  if (st.pointer === "touch" && small && st.aim !== key) {
    st.aim = key;
    for (const e of st.el.boardBox.querySelectorAll(".aim")) e.classList.remove("aim");
    cell?.classList.add("aim");
    return;
  }
  st.aim = null;
  void play(st, m);
};

export const play = async (st: GameScreen, m: Move) => {
  if (!st.held || st.busy) return;
  clearError();
  st.busy = true;
  const player = st.game.turn ?? st.held.seat;
  // Draw the move at once; the answer brings the game (and a bot's reply).
  const before = st.game;
  const started = performance.now();
  st.game = { ...st.game, board: applyLocally(st.game, m, player), threats: [], turn: player === "X" ? "O" : "X" };
  st.last = [m];
  st.fresh = m;
  st.hint = null;
  st.note = "";
  render(st);
  try {
    const res = await ok(
      api.POST("/v1/games/{id}/moves", {
        params: { path: { id: st.id } },
        headers: { ...bearer(st.held.token), "Idempotency-Key": key() },
        body: m,
      }),
    );
    if (res.replies.length) {
      // Let the move be seen before the bot's reply appears.
      await new Promise((done) => setTimeout(done, Math.max(0, 400 - (performance.now() - started))));
    }
    st.game = before;
    st.busy = false;
    if (res.replies.length) {
      st.note = res.replies.map((r) => `${r.player} (bot) played ${nameOf(st, r.move)}`).join("; ");
    }
    st.fresh = res.replies.at(-1)?.move ?? null;
    update(st, res.game, [res.move, ...res.replies]);
  } catch (e) {
    st.busy = false;
    st.game = before;
    st.last = [];
    render(st);
    showError(e);
  }
};

export const askHint = async (st: GameScreen) => {
  if (!st.held) return;
  try {
    const res = await ok(
      api.GET("/v1/games/{id}/hint", { params: { path: { id: st.id }, query: { level: st.hintLevel } }, headers: bearer(st.held.token) }),
    );
    st.hint = { move: res.move, level: res.level };
    clearError();
    render(st);
  } catch (e) {
    showError(e);
  }
};

/** This seat's place in the rematch `next`: the other letter, the same token. */
export const toRematch = (st: GameScreen, next: string) => {
  if (!st.held) return;
  const seat = st.held.hotseat ? st.held.seat : st.held.seat === "X" ? "O" : "X";
  holdSeat(next, { ...st.held, seat, match: undefined });
  navigate(`/play/games/${next}`);
};

/** Asks for a rematch: between two people an offer (the game shows it;
 * the other side accepts), else, or when the other side asked first, the
 * new game at once. */
export const rematch = async (st: GameScreen) => {
  if (!st.held) return;
  try {
    const res = await ok(api.POST("/v1/games/{id}/rematch", { params: { path: { id: st.id } }, headers: bearer(st.held.token) }));
    clearError();
    if ("token" in res) return void toGrant(st, res);
    st.view = null;
    update(st, res);
  } catch (e) {
    showError(e);
  }
};

/** Calls off a waiting game: deleted, and back to the lobby. */
export const cancel = async (st: GameScreen) => {
  if (!st.held) return;
  const failed = await deleteGame(st.id, st.held.token);
  if (failed) return showError(failed);
  forgetSeat(st.id);
  navigate("/play");
};

/** While quick match's game waits, asks again now and then: a person who
 * asked meanwhile (whose game this one did not meet: it had waited too
 * long) is met, and this game stays found by those who ask next. */
export const askAgain = async (st: GameScreen) => {
  const terms = st.held?.match;
  if (!st.held || !terms || !matching(st)) return;
  const grant = await askForMatch(terms, st.held).catch(() => null);
  if (!grant || grant.game.id === st.id) return;
  // Seated elsewhere: this game goes, unless someone took it meanwhile.
  // A lost answer counts as gone: the next ask finds out.
  const failed = await deleteGame(st.id, st.held.token);
  if (failed && failed.status !== 0) {
    if (grant.game.status === "waiting") await deleteGame(grant.game.id, grant.token);
    return;
  }
  forgetSeat(st.id);
  holdMatched(grant, terms);
  navigate(`/play/games/${grant.game.id}`, true);
};

export const act = async (st: GameScreen, what: "restart" | "resign") => {
  if (!st.held) return;
  try {
    const path = what === "restart" ? "/v1/games/{id}/restart" : "/v1/games/{id}/resign";
    const g = await ok(api.POST(path, { params: { path: { id: st.id } }, headers: bearer(st.held.token) }));
    st.note = "";
    st.view = null;
    clearError();
    update(st, g);
  } catch (e) {
    showError(e);
  }
};

export const joinHere = async (st: GameScreen, name: string, nameInput: HTMLInputElement) => {
  try {
    const code = new URLSearchParams(location.hash.slice(1)).get("invite");
    const body = { ...(name ? { name } : {}), ...(code ? { invite: code } : {}) };
    // A rated game seats players only: one is made for this browser if need be.
    if (st.game.rated) await ensurePlayer(name || savedName(), nameInput, "a rated game is between players: your name makes you one");
    const grant = await ok(api.POST("/v1/games/{id}/join", { params: { path: { id: st.id } }, body, headers: asMe() }));
    saveName(name);
    st.held = { seat: grant.seat, token: grant.token, hotseat: false };
    holdSeat(st.id, st.held);
    clearError();
    update(st, grant.game);
  } catch (e) {
    showError(e);
  }
};
