// The page at /play: a lobby, and games played live. Addresses (the
// contract's "Browsers"): /play, /play/games/{id}, /play/new?kind=…
import {
  api,
  ApiFailure,
  bearer,
  forgetSeat,
  heldGames,
  heldSeat,
  holdSeat,
  ok,
  type Game,
  type GameEvent,
  type Held,
  type Kind,
  type KindInfo,
  type Level,
  type Move,
  type MoveRecord,
  type Side,
} from "./api.js";
import { applyLocally, drawBoard, KIND_NAMES, moveKey, moveName } from "./board.js";
import { button, h } from "./dom.js";

const LEVELS: Level[] = ["random", "easy", "medium", "hard", "perfect"];
const KINDS = Object.keys(KIND_NAMES) as Kind[];
const main = document.getElementById("app") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;
const errorBox = document.getElementById("error") as HTMLElement;

/** Leaves the current view: closes its event stream and timers. */
let leave: () => void = () => {};

function showError(e: unknown): void {
  const text = e instanceof ApiFailure || e instanceof Error ? e.message : String(e);
  errorBox.textContent = text;
  errorBox.hidden = false;
}

function clearError(): void {
  errorBox.hidden = true;
  errorBox.textContent = "";
}

function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  void route();
}

async function route(): Promise<void> {
  leave();
  leave = () => {};
  clearError();
  main.replaceChildren();
  status.textContent = "";
  const path = location.pathname.replace(/\/+$/, "");
  const game = /^\/play\/games\/([^/]+)$/.exec(path);
  try {
    if (game?.[1]) await showGame(decodeURIComponent(game[1]));
    else if (path === "/play/new") await createFromQuery(new URLSearchParams(location.search));
    else await showLobby();
  } catch (e) {
    showError(e);
  }
}

// ---------------------------------------------------------------- lobby

let kindsCache: KindInfo[] | null = null;

async function kinds(): Promise<KindInfo[]> {
  kindsCache ??= (await ok(api.GET("/v1/kinds"))).items;
  return kindsCache;
}

let fields = 0;

/** A labelled control (the label names it exactly, for assistive tools). */
function field(label: string, control: HTMLElement): HTMLElement {
  control.id ||= `field-${++fields}`;
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

function select(name: string, options: [string, string][], value: string): HTMLSelectElement {
  const s = h("select", { name });
  for (const [v, text] of options) s.append(h("option", { value: v, selected: v === value ? "" : null }, text));
  return s;
}

async function showLobby(): Promise<void> {
  document.title = "Tabula: play";
  const info = await kinds();
  status.textContent = "Choose a game to play or join";

  // Create: the form's fields are the parameters of /play/new.
  const kind = select("kind", KINDS.map((k) => [k, KIND_NAMES[k]]), "connect_four");
  const gomoku = info.find((k) => k.kind === "gomoku");
  const size = h("input", {
    name: "size",
    type: "number",
    min: String(gomoku?.options.size?.min ?? 5),
    max: String(gomoku?.options.size?.max ?? 25),
    value: String(gomoku?.options.size?.default ?? 15),
  });
  const rule = select("rule", (gomoku?.options.rule?.values ?? ["freestyle", "standard"]).map((r) => [r, r]), "freestyle");
  const opponent = select("opponent", [["human", "A friend (invite link)"], ["bot", "A bot"], ["hotseat", "Same screen"]], "bot");
  const level = select("level", LEVELS.map((l) => [l, l]), "easy");
  const seat = select("seat", [["X", "X (moves first)"], ["O", "O"]], "X");
  const gomokuFields = h("div", { class: "row" }, field("Size", size), field("Rule", rule));
  const levelField = field("Bot level", level);
  const sync = () => {
    gomokuFields.hidden = kind.value !== "gomoku";
    levelField.hidden = opponent.value !== "bot";
  };
  kind.addEventListener("change", sync);
  opponent.addEventListener("change", sync);
  sync();
  const form = h(
    "form",
    { class: "create", action: "/play/new", method: "get" },
    h("h2", {}, "New game"),
    h("div", { class: "row" }, field("Game", kind), field("Opponent", opponent)),
    gomokuFields,
    h("div", { class: "row" }, levelField, field("Your seat", seat)),
    h("button", { type: "submit", class: "primary" }, "Create game"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ kind: kind.value, opponent: opponent.value, seat: seat.value });
    if (opponent.value === "bot") q.set("level", level.value);
    if (kind.value === "gomoku") {
      q.set("size", size.value);
      q.set("rule", rule.value);
    }
    navigate(`/play/new?${q}`);
  });

  // Open games, newest first, a page at a time.
  const filter = select("filter", [["", "All kinds"], ...KINDS.map((k): [string, string] => [k, KIND_NAMES[k]])], "");
  const list = h("ul", { class: "games", "aria-label": "Open games" });
  const pager = h("div", { class: "row pager" });
  const cursors: (string | null)[] = [null];
  const load = async (page: number) => {
    const cursor = cursors[page] ?? null;
    const query: { status: "waiting"; open: true; limit: number; kind?: Kind; cursor?: string } = {
      status: "waiting",
      open: true,
      limit: 10,
    };
    if (filter.value) query.kind = filter.value as Kind;
    if (cursor) query.cursor = cursor;
    const res = await ok(api.GET("/v1/games", { params: { query } }));
    cursors[page + 1] = res.next_cursor;
    list.replaceChildren(
      ...res.items.map((g) =>
        h(
          "li",
          {},
          h("span", {}, `${KIND_NAMES[g.kind]}${g.kind === "gomoku" ? ` ${g.options.rows}x${g.options.columns}` : ""}`),
          h("small", {}, ` ${openSeat(g) ?? ""} open · ${ago(g.created_at)}`),
          button("Join", () => void join(g.id).catch(showError)),
          h("a", { href: `/play/games/${g.id}`, "data-link": "" }, "Watch"),
        ),
      ),
    );
    if (res.items.length === 0) list.append(h("li", { class: "empty" }, "No open games. Create one!"));
    pager.replaceChildren(
      page > 0 ? button("Newer", () => void load(page - 1).catch(showError)) : "",
      res.next_cursor ? button("Older", () => void load(page + 1).catch(showError)) : "",
    );
  };
  filter.addEventListener("change", () => {
    cursors.length = 1;
    void load(0).catch(showError);
  });

  const mine = heldGames();
  main.replaceChildren(
    h("section", { class: "card" }, form),
    h("section", { class: "card" }, h("h2", {}, "Open games"), field("Show", filter), list, pager),
    mine.length
      ? h(
          "section",
          { class: "card" },
          h("h2", {}, "Your games"),
          h("ul", { class: "games" }, ...mine.map((id) => h("li", {}, h("a", { href: `/play/games/${id}`, "data-link": "" }, `Game ${id.slice(0, 8)}`)))),
        )
      : "",
  );
  await load(0);
}

function openSeat(g: Game): Side | null {
  return !g.seats.X.taken ? "X" : !g.seats.O.taken ? "O" : null;
}

function ago(when: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(when)) / 1000));
  return s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

async function join(id: string): Promise<void> {
  const grant = await ok(api.POST("/v1/games/{id}/join", { params: { path: { id } } }));
  holdSeat(id, { seat: grant.seat, token: grant.token, hotseat: false });
  navigate(`/play/games/${id}`);
}

async function createFromQuery(q: URLSearchParams): Promise<void> {
  const kind = q.get("kind") as Kind | null;
  if (!kind || !KINDS.includes(kind)) throw new Error(`/play/new needs kind=${KINDS.join("|")}`);
  const opponent = q.get("opponent") ?? "human";
  const level = (q.get("level") ?? "medium") as Level;
  const seat = (q.get("seat") ?? "X") as Side;
  const options: { size?: number; rule?: "freestyle" | "standard" } = {};
  if (q.get("size")) options.size = Number(q.get("size"));
  const rule = q.get("rule");
  if (rule === "freestyle" || rule === "standard") options.rule = rule;
  status.textContent = "Creating the game…";
  const grant = await ok(
    api.POST("/v1/games", {
      body: {
        kind,
        options,
        seat,
        hotseat: opponent === "hotseat",
        opponent: opponent === "bot" ? { type: "bot", level } : { type: "human" },
      },
    }),
  );
  holdSeat(grant.game.id, { seat: grant.seat, token: grant.token, hotseat: opponent === "hotseat" });
  navigate(`/play/games/${grant.game.id}`, true);
}

// ----------------------------------------------------------------- game

function statusText(g: Game, held: Held | null): string {
  if (g.status === "won") {
    const how = g.end_reason === "resignation" ? ` (${g.winner === "X" ? "O" : "X"} resigned)` : "";
    return `${g.winner} wins${how}`;
  }
  if (g.status === "draw") return "It's a draw between X and O";
  const open = openSeat(g);
  if (g.status === "waiting" && open) return `Waiting for ${open} to join; ${g.turn} to move`;
  const who = g.turn ?? "X";
  const seat = g.seats[who];
  const you = held && (held.hotseat || held.seat === who) ? " (you)" : seat.type === "bot" ? " (bot)" : "";
  return `${who} to move${you}`;
}

async function showGame(id: string): Promise<void> {
  let game = await ok(api.GET("/v1/games/{id}", { params: { path: { id } } }));
  let held = heldSeat(id);
  let last: Move[] = [];
  let hint: { move: Move; level: Level } | null = null;
  let busy = false;
  let note = "";
  // The position being looked at: null for the live game.
  let view: { round: number; ply: number; plies: number; game: Game } | null = null;
  let live = "connecting";
  let hintLevel: Level = "medium";

  const title = h("h2", {});
  const boardBox = h("div", { class: "board-box" });
  const info = h("div", { class: "info" });
  const threats = h("p", { class: "threats", "aria-live": "polite" });
  const controls = h("div", { class: "controls" });
  const stepper = h("nav", { class: "stepper", "aria-label": "History" });
  const invite = h("div", { class: "invite" });
  main.replaceChildren(h("section", { class: "card game" }, title, info, boardBox, threats, controls, stepper, invite));
  document.title = `Tabula: ${KIND_NAMES[game.kind]}`;

  const canMove = (g: Game) =>
    !busy && !view && g.status === "in_progress" && held !== null && (held.hotseat || held.seat === g.turn);

  const render = () => {
    const shown = view?.game ?? game;
    title.textContent = `${KIND_NAMES[game.kind]}${game.kind === "gomoku" ? ` ${game.options.rows}x${game.options.columns} (${game.options.rule ?? "freestyle"})` : ""}`;
    status.textContent = view
      ? `Round ${view.round}, after move ${view.ply} of ${view.plies}: ${statusText(shown, null)}`
      : statusText(game, held);
    const playable = new Set(canMove(game) ? game.legal_moves.map(moveKey) : []);
    // Keyboard players keep their place on the board across redraws.
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && boardBox.contains(active) ? active.dataset.move : undefined;
    boardBox.replaceChildren(
      drawBoard(
        shown,
        { playable, threats: view ? [] : game.threats, hint: view ? null : (hint?.move ?? null), last: view ? [] : last },
        (m) => void play(m),
      ),
    );
    const again = focused ? boardBox.querySelector<HTMLElement>(`[data-move="${focused}"]`) : null;
    if (again) {
      boardBox.querySelector('[tabindex="0"]')?.setAttribute("tabindex", "-1");
      again.setAttribute("tabindex", "0");
      again.focus();
    }
    const role = held ? (held.hotseat ? "You play both seats on this screen" : `You play ${held.seat}`) : "You are watching";
    const seats = (["X", "O"] as Side[]).map((s) => {
      const seat = game.seats[s];
      return `${s}: ${seat.type === "bot" ? `bot (${seat.level ?? "?"})` : seat.taken ? "human" : "open"}`;
    });
    info.replaceChildren(
      h("span", {}, role),
      h("span", {}, seats.join(" · ")),
      h("span", {}, `Round ${game.round}`),
      h("span", { class: `live ${live}` }, live === "live" ? "● live" : live === "connecting" ? "○ connecting…" : "○ reconnecting…"),
    );
    threats.textContent = view
      ? ""
      : [
          note,
          ...game.threats.map((t) => `${t.player} wins at ${moveName(t.move)} next move`),
          hint ? `Hint (${hint.level}): ${moveName(hint.move)}` : "",
        ]
          .filter(Boolean)
          .join(". ");
    const actions: (HTMLElement | string)[] = [];
    if (!held && openSeat(game) && game.status === "waiting") {
      actions.push(button("Join", () => void joinHere(), { class: "primary" }));
    }
    if (held && !view) {
      if (canMove(game)) {
        const lv = select("hint-level", LEVELS.map((l) => [l, l]), hintLevel);
        lv.addEventListener("change", () => (hintLevel = lv.value as Level));
        actions.push(h("span", { class: "hint-box" }, button("Hint", () => void askHint()), field("level", lv)));
      }
      if (game.status === "in_progress") actions.push(button("Resign", () => void act("resign")));
      if (game.status === "won" || game.status === "draw" || game.ply > 0) {
        actions.push(button("Restart", () => void act("restart"), { class: game.status === "in_progress" ? null : "primary" }));
      }
    }
    actions.push(h("a", { href: "/play", "data-link": "" }, "Lobby"));
    controls.replaceChildren(...actions);
    renderStepper();
    const open = openSeat(game);
    invite.replaceChildren(
      ...(held && open && !held.hotseat && game.seats[open].type === "human"
        ? [
            h("span", {}, `Invite a friend to play ${open}: `),
            h("input", { readonly: "", value: location.href, "aria-label": "Invite link", class: "link" }),
            button("Copy link", () => void navigator.clipboard?.writeText(location.href)),
          ]
        : []),
    );
  };

  const renderStepper = () => {
    const round = view?.round ?? game.round;
    const ply = view?.ply ?? game.ply;
    const plies = view?.plies ?? game.ply;
    const go = (r: number, p: number) => void step(r, p);
    const rounds = select("round", Array.from({ length: game.round }, (_, i): [string, string] => [String(i + 1), `Round ${i + 1}`]), String(round));
    rounds.addEventListener("change", () => void pickRound(Number(rounds.value)));
    stepper.replaceChildren(
      game.round > 1 ? field("Round", rounds) : "",
      button("«", () => go(round, 0), { "aria-label": "First position", disabled: ply === 0 ? "" : null }),
      button("‹", () => go(round, ply - 1), { "aria-label": "Previous move", disabled: ply === 0 ? "" : null }),
      h("span", { class: "ply" }, `Move ${ply} of ${plies}`),
      button("›", () => go(round, ply + 1), { "aria-label": "Next move", disabled: ply >= plies ? "" : null }),
      button("»", () => go(round, plies), { "aria-label": "Last position", disabled: !view ? "" : null }),
    );
  };

  const step = async (round: number, ply: number) => {
    try {
      const plies = view?.round === round ? view.plies : game.ply;
      if (round === game.round && ply >= game.ply) {
        view = null;
      } else {
        const g = await ok(api.GET("/v1/games/{id}/positions/{ply}", { params: { path: { id, ply }, query: { round } } }));
        view = { round, ply, plies, game: g };
      }
      clearError();
      render();
    } catch (e) {
      showError(e);
    }
  };

  const pickRound = async (round: number) => {
    try {
      if (round === game.round) return void (await step(round, game.ply));
      const moves = await ok(api.GET("/v1/games/{id}/moves", { params: { path: { id }, query: { round } } }));
      const plies = moves.items.length;
      const g = await ok(api.GET("/v1/games/{id}/positions/{ply}", { params: { path: { id, ply: plies }, query: { round } } }));
      view = { round, ply: plies, plies, game: g };
      render();
    } catch (e) {
      showError(e);
    }
  };

  /** Takes a newer state of the game (from an answer or the stream). */
  const update = (g: Game, moves: MoveRecord[] = []) => {
    if (g.version < game.version) return;
    if (g.round !== game.round) view = null;
    if (moves.length) last = moves.map((m) => m.move);
    if (g.version > game.version) hint = null;
    game = g;
    render();
  };

  const play = async (m: Move) => {
    if (!held || busy) return;
    clearError();
    busy = true;
    const player = game.turn ?? held.seat;
    // Draw the move at once; the answer brings the game (and a bot's reply).
    const before = game;
    const started = performance.now();
    game = { ...game, board: applyLocally(game, m, player), threats: [], turn: player === "X" ? "O" : "X" };
    last = [m];
    hint = null;
    note = "";
    render();
    try {
      const res = await ok(
        api.POST("/v1/games/{id}/moves", {
          params: { path: { id } },
          headers: { ...bearer(held.token), "Idempotency-Key": key() },
          body: m,
        }),
      );
      if (res.replies.length) {
        // Let the move be seen before the bot's reply appears.
        await new Promise((done) => setTimeout(done, Math.max(0, 400 - (performance.now() - started))));
      }
      game = before;
      busy = false;
      if (res.replies.length) {
        note = res.replies.map((r) => `${r.player} (bot) played ${moveName(r.move)}`).join("; ");
      }
      update(res.game, [res.move, ...res.replies]);
    } catch (e) {
      busy = false;
      game = before;
      last = [];
      render();
      showError(e);
    }
  };

  const askHint = async () => {
    if (!held) return;
    try {
      const res = await ok(
        api.GET("/v1/games/{id}/hint", { params: { path: { id }, query: { level: hintLevel } }, headers: bearer(held.token) }),
      );
      hint = { move: res.move, level: res.level };
      clearError();
      render();
    } catch (e) {
      showError(e);
    }
  };

  const act = async (what: "restart" | "resign") => {
    if (!held) return;
    try {
      const path = what === "restart" ? "/v1/games/{id}/restart" : "/v1/games/{id}/resign";
      const g = await ok(api.POST(path, { params: { path: { id } }, headers: bearer(held.token) }));
      last = [];
      note = "";
      view = null;
      clearError();
      update(g);
    } catch (e) {
      showError(e);
    }
  };

  const joinHere = async () => {
    try {
      const grant = await ok(api.POST("/v1/games/{id}/join", { params: { path: { id } } }));
      held = { seat: grant.seat, token: grant.token, hotseat: false };
      holdSeat(id, held);
      clearError();
      update(grant.game);
    } catch (e) {
      showError(e);
    }
  };

  // Live: the game's event stream. EventSource reconnects by itself and
  // sends `Last-Event-ID`, so changes made while away arrive in order.
  let source: EventSource | null = null;
  let retry: number | undefined;
  const connect = () => {
    source = new EventSource(`/v1/games/${encodeURIComponent(id)}/events?last_event_id=${game.version}`);
    source.onopen = () => {
      live = "live";
      render();
    };
    source.onerror = () => {
      live = "reconnecting";
      render();
      if (source?.readyState === EventSource.CLOSED) {
        // The browser gave up (an HTTP error): start afresh after a pause.
        source = null;
        retry = window.setTimeout(connect, 2000);
      }
    };
    for (const type of ["move", "join", "restart", "resign", "offer", "offer_declined", "offer_withdrawn", "takeback", "draw", "timeout"]) {
      source.addEventListener(type, (e) => {
        const event = JSON.parse((e as MessageEvent<string>).data) as GameEvent;
        if (!event.game || busy) return;
        if (event.type === "move" && event.move && event.version > game.version) last = [event.move.move];
        if (event.type === "restart" || event.type === "takeback") last = [];
        update(event.game);
      });
    }
    source.addEventListener("deleted", () => {
      source?.close();
      forgetSeat(id);
      live = "closed";
      status.textContent = "This game was deleted";
      boardBox.replaceChildren();
    });
  };
  connect();
  leave = () => {
    source?.close();
    window.clearTimeout(retry);
  };
  render();
}

function key(): string {
  return Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 10)).join("");
}

// Links inside the page change the view without a reload.
document.addEventListener("click", (e) => {
  const a = (e.target as HTMLElement).closest?.("a[data-link]");
  if (a instanceof HTMLAnchorElement && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
    e.preventDefault();
    navigate(a.pathname);
  }
});
window.addEventListener("popstate", () => void route());
void route();
