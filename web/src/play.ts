// The page at /play: a lobby, and games played live. Addresses (the
// contract's "Browsers"): /play, /play/games/{id}, /play/new?kind=…, /play/players/{id}
//
// Over 700 lines, on purpose: the game view (`showGame`, about 650 lines) is
// one closure over one game's state (the game, the seat held, its moves, the
// hint, the stream, the review) that every control reads and changes; split
// into files, that state would be passed around instead. The lobby (about
// 350 lines) and the player's page could live in their own modules; they
// share this file's router and error box.
import {
  api,
  ApiFailure,
  asMe,
  bearer,
  forgetMe,
  me,
  setMe,
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
  type MatchTerms,
  type Move,
  type MoveRecord,
  type Schemas,
  type Side,
} from "./api.js";
import { applyLocally, drawBoard, KIND_NAMES, moveKey, moveName, notation } from "./board.js";
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
  // Problem details quote field names in backticks: plain text here.
  errorBox.textContent = text.replaceAll("`", "");
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
    const player = /^\/play\/players\/([^/]+)$/.exec(path);
    if (game?.[1]) await showGame(decodeURIComponent(game[1]));
    else if (player?.[1]) await showPlayer(decodeURIComponent(player[1]));
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
  const name = h("input", { name: "name", type: "text", maxlength: "32", autocomplete: "nickname", value: savedName() });
  const priv = h("input", { name: "private", type: "checkbox" });
  const clock = select("clock", CLOCKS.map(([v, text]) => [v, text]), "");
  const line = h("input", { name: "moves", type: "text", placeholder: "e.g. 4453", autocomplete: "off", spellcheck: "false" });
  const gomokuFields = h("div", { class: "row" }, field("Size", size), field("Rule", rule));
  const levelField = field("Bot level", level);
  const privateField = h("div", { class: "field check" }, priv, h("label", { for: (priv.id ||= `field-${++fields}`) }, "Private"));
  const rated = h("input", { name: "rated", type: "checkbox" });
  const ratedField = h("div", { class: "field check" }, rated, h("label", { for: (rated.id ||= `field-${++fields}`) }, "Rated"));
  const friendFields = h("div", { class: "row" }, privateField, ratedField, field("Clock", clock));
  const sync = () => {
    gomokuFields.hidden = kind.value !== "gomoku";
    levelField.hidden = opponent.value !== "bot";
    friendFields.hidden = opponent.value !== "human";
    // Only the levels this kind offers (`perfect` is Connect Four's).
    const offered = levelsOf(info, kind.value as Kind);
    const keep = offered.includes(level.value as Level) ? level.value : offered.includes("easy") ? "easy" : offered[0];
    level.replaceChildren(...offered.map((l) => h("option", { value: l, selected: l === keep ? "" : null }, l)));
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
    h("div", { class: "row" }, field("Start from moves", line)),
    friendFields,
    h("button", { type: "submit", class: "primary" }, "Create game"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ kind: kind.value, opponent: opponent.value, seat: seat.value });
    if (opponent.value === "bot") q.set("level", level.value);
    if (name.value.trim()) q.set("name", name.value.trim());
    if (line.value.trim()) q.set("moves", line.value.trim());
    if (opponent.value === "human" && priv.checked) q.set("private", "1");
    if (opponent.value === "human" && clock.value) q.set("clock", clock.value);
    if (opponent.value === "human" && rated.checked) q.set("rated", "1");
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
          h("span", {}, `${KIND_NAMES[g.kind]}${g.kind === "gomoku" ? ` ${g.options.rows}x${g.options.columns}` : ""}${g.rated ? " (rated)" : ""}`),
          h("small", {}, ` ${openSeat(g) ?? ""} open${creator(g)}${clockText(g)} · ${ago(g.created_at)}`),
          // Never `Join` a game this browser already holds a seat in.
          heldSeat(g.id)
            ? h("a", { href: `/play/games/${g.id}`, "data-link": "" }, "Your game")
            : button("Join", () => void join(g.id, g.rated, name.value.trim(), name).catch(showError)),
          heldSeat(g.id) ? "" : h("a", { href: `/play/games/${g.id}`, "data-link": "" }, "Watch"),
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

  // Quick match: a seat in the next game of a kind, with whoever asks next;
  // the kind asked for last in this browser comes up again.
  const matchKind = select("match-kind", KINDS.map((k) => [k, KIND_NAMES[k]]), chosenKind(MATCH_KIND_KEY) ?? "connect_four");
  const ratedMatch = h("input", { name: "rated-match", type: "checkbox" });
  const ratedMatchField = h("div", { class: "field check" }, ratedMatch, h("label", { for: (ratedMatch.id ||= `field-${++fields}`) }, "Rated match"));
  const quick = h(
    "form",
    { class: "quick" },
    h("h2", {}, "Quick match"),
    h("div", { class: "row" }, field("Kind", matchKind), ratedMatchField, h("button", { type: "submit", class: "primary" }, "Quick match")),
  );
  quick.addEventListener("submit", (e) => {
    e.preventDefault();
    localStorage.setItem(MATCH_KIND_KEY, matchKind.value);
    const rated = ratedMatch.checked;
    const terms = { kind: matchKind.value as Kind, rated, name: name.value.trim(), clock: rated ? (clockOf(RATED_CLOCK) ?? null) : null };
    const player = rated ? ensurePlayer(terms.name, name, "a rated match is between players: your name makes you one") : Promise.resolve();
    void player
      .then(() => askForMatch(terms))
      .then((grant) => {
        holdMatched(grant, terms);
        navigate(`/play/games/${grant.game.id}`);
      })
      .catch(showError);
  });

  // Who plays: a name, and a player (a key kept in this browser) across games.
  const you = h("section", { class: "card you", "aria-label": "Player" });
  const nameField = field("Your name", name);
  const playAs = button("", () =>
    void ensurePlayer(name.value.trim(), name)
      .then(() => (clearError(), renderYou()))
      .catch(showError),
  );
  const playAsLabel = () => (playAs.textContent = `Play as ${name.value.trim() || "…"}`);
  name.addEventListener("input", playAsLabel);
  const renderYou = (open: "key" | "stop" | "sign-in" | null = null) => {
    const player = me();
    if (player) {
      const extra: HTMLElement[] = [];
      if (open === "key") {
        const key = h("input", { readonly: "", value: player.key, class: "link", "aria-label": "Player key" });
        extra.push(
          h(
            "div",
            { class: "row key" },
            key,
            button("Copy", () => void copy(player.key, "Copied the key")),
          ),
          h("p", { class: "muted" }, "Keep this key somewhere safe: with it you sign in as ", player.name, " in another browser."),
        );
      }
      if (open === "stop") {
        extra.push(
          h(
            "div",
            { role: "dialog", "aria-modal": "true", "aria-label": `Stop playing as ${player.name}?`, class: "dialog" },
            h("p", {}, `This browser forgets ${player.name}'s key. Without a copy of it you cannot play as ${player.name} again.`),
            button("Stop", () => (forgetMe(), renderYou()), { class: "danger" }),
            button("Cancel", () => renderYou()),
          ),
        );
      }
      you.replaceChildren(
        h("h2", {}, "You"),
        h("p", {}, "Playing as ", h("a", { href: `/play/players/${encodeURIComponent(player.id)}`, "data-link": "" }, player.name)),
        nameField,
        h(
          "div",
          { class: "row actions" },
          button(open === "key" ? "Hide key" : "Show key", () => renderYou(open === "key" ? null : "key")),
          button(`Stop playing as ${player.name}`, () => renderYou("stop")),
        ),
        ...extra,
      );
      you.querySelector<HTMLElement>('[role="dialog"] button:last-child')?.focus();
      return;
    }
    playAsLabel();
    const signIn: HTMLElement[] = [];
    if (open === "sign-in") {
      const key = h("input", { type: "password", autocomplete: "off", spellcheck: "false", class: "link", "aria-label": "Player key", placeholder: "tpk_…" });
      const form = h("form", { class: "row key" }, key, h("button", { type: "submit", class: "primary" }, "Sign in"), button("Cancel", () => renderYou()));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        void signInWith(key.value.trim())
          .then(() => (clearError(), renderYou()))
          .catch(showError);
      });
      signIn.push(form);
    }
    you.replaceChildren(
      h("h2", {}, "You"),
      h("p", {}, "Play as a player to keep your games and rating together and to play rated games."),
      nameField,
      h("div", { class: "row actions" }, playAs, open === "sign-in" ? "" : button("Sign in with a key", () => renderYou("sign-in"))),
      ...signIn,
    );
    signIn[0]?.querySelector("input")?.focus();
  };
  renderYou();

  // The leaderboard of a kind: players who are no longer provisional.
  const boardKind = select("board-kind", KINDS.map((k) => [k, KIND_NAMES[k]]), chosenKind(BOARD_KIND_KEY) ?? "connect_four");
  const board = h("ol", { class: "games leaderboard", "aria-label": "Leaderboard" });
  const loadBoard = async () => {
    const res = await ok(api.GET("/v1/kinds/{kind}/leaderboard", { params: { path: { kind: boardKind.value as Kind }, query: { limit: 10 } } }));
    board.replaceChildren(
      ...res.items.map((row) =>
        h(
          "li",
          {},
          h("a", { href: `/play/players/${encodeURIComponent(row.player)}`, "data-link": "" }, row.name),
          h("small", {}, ` ${Math.round(row.rating)} · ${ratedGames(row.games)}`),
        ),
      ),
    );
    if (res.items.length === 0) board.append(h("li", { class: "empty" }, "No ranked players yet: a player is ranked once their rating settles, after about 14 rated games."));
  };
  boardKind.addEventListener("change", () => {
    localStorage.setItem(BOARD_KIND_KEY, boardKind.value);
    void loadBoard().catch(showError);
  });

  const mine = heldGames();
  const yours = h("ul", { class: "games", "aria-label": "Your games" });
  main.replaceChildren(
    you,
    h("section", { class: "card" }, form),
    h("section", { class: "card" }, quick),
    h("section", { class: "card" }, h("h2", {}, "Open games"), field("Show", filter), list, pager),
    mine.length ? h("section", { class: "card" }, h("h2", {}, "Your games"), yours) : "",
    h("section", { class: "card" }, h("h2", {}, "Leaderboard"), field("Leaderboard kind", boardKind), board),
  );
  const firstBoard = async () => {
    if (!chosenKind(BOARD_KIND_KEY)) {
      const kind = await mostPlayedKind();
      // Unless one was chosen meanwhile.
      if (!chosenKind(BOARD_KIND_KEY)) boardKind.value = kind;
    }
    await loadBoard();
  };
  await Promise.all([load(0), listMine(mine, yours), firstBoard()]);
}

/** The games this browser holds a seat in: kind, status and seat, newest first. */
async function listMine(ids: string[], list: HTMLElement): Promise<void> {
  const games = await Promise.all(
    ids.map(async (id) => {
      const res = await api.GET("/v1/games/{id}", { params: { path: { id } } });
      if (res.response.status === 404) forgetSeat(id);
      return res.data;
    }),
  );
  const found = games.filter((g): g is Game => g !== undefined).sort((a, b) => b.created_at.localeCompare(a.created_at));
  list.replaceChildren(
    ...found.map((g) => {
      const held = heldSeat(g.id);
      const seat = held?.hotseat ? "both seats" : `you play ${held?.seat ?? "?"}`;
      const label = `${KIND_NAMES[g.kind]} · ${statusWord(g)} · ${seat} · ${ago(g.created_at)}`;
      return h("li", {}, h("a", { href: `/play/games/${g.id}`, "data-link": "" }, label));
    }),
  );
}

function statusWord(g: Game): string {
  if (g.status === "waiting") return "waiting for an opponent";
  if (g.status === "in_progress") return `${g.turn} to move`;
  if (g.status === "draw") return "draw";
  return `${g.winner} won`;
}

/** A game's clock as the lobby tells it (` · 10 min + 5 s`), or "". */
function clockText(g: Game): string {
  const c = g.clock;
  if (!c) return "";
  const span = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);
  if (c.per_move_ms !== undefined) return ` · ${span(c.per_move_ms)} a move`;
  if (c.initial_ms === undefined) return "";
  return ` · ${span(c.initial_ms)}${c.increment_ms ? ` + ${Math.round(c.increment_ms / 1000)} s` : ""}`;
}

function creator(g: Game): string {
  const by = g.seats.X.name ?? g.seats.O.name;
  return by ? ` · ${by}` : "";
}

const CLOCKS: [string, string][] = [
  ["", "No clock"],
  ["1+0", "1 min"],
  ["3+2", "3 min + 2 s"],
  ["5+0", "5 min"],
  ["10+5", "10 min + 5 s"],
  ["m30", "30 s a move"],
  ["m60", "1 min a move"],
];

/** The clock of a rated game when none was chosen, and of every rated quick match. */
const RATED_CLOCK = "10+5";

/** A clock choice (`5+3`: minutes and increment seconds; `m30`: per move) as the API's. */
function clockOf(choice: string | null): { initial_ms: number; increment_ms: number } | { per_move_ms: number } | undefined {
  if (!choice) return undefined;
  const perMove = /^m(\d+)$/.exec(choice);
  if (perMove) return { per_move_ms: Number(perMove[1]) * 1000 };
  const fischer = /^(\d+)\+(\d+)$/.exec(choice);
  if (fischer) return { initial_ms: Number(fischer[1]) * 60_000, increment_ms: Number(fischer[2]) * 1000 };
  return undefined;
}

function levelsOf(info: KindInfo[], kind: Kind): Level[] {
  return info.find((k) => k.kind === kind)?.levels ?? LEVELS;
}

/** Where this browser keeps the leaderboard's kind chosen last, and quick match's. */
const BOARD_KIND_KEY = "tabula.leaderboard-kind";
const MATCH_KIND_KEY = "tabula.match-kind";

/** The kind kept under `key` in this browser, if any. */
function chosenKind(key: string): Kind | null {
  const chosen = localStorage.getItem(key) as Kind | null;
  return chosen && KINDS.includes(chosen) ? chosen : null;
}

/** The kind this browser's player has played most rated games of; else Connect Four. */
async function mostPlayedKind(): Promise<Kind> {
  const player = me();
  let most: [Kind, number] = ["connect_four", 0];
  if (!player) return most[0];
  const res = await api.GET("/v1/players/{id}", { params: { path: { id: player.id } } }).catch(() => undefined);
  for (const [kind, rating] of Object.entries(res?.data?.ratings ?? {})) {
    if (KINDS.includes(kind as Kind) && rating && rating.games > most[1]) most = [kind as Kind, rating.games];
  }
  return most[0];
}

const NAME_KEY = "tabula.name";
/** The name last used in this browser, else its player's. */
function savedName(): string {
  return localStorage.getItem(NAME_KEY) ?? me()?.name ?? "";
}
function saveName(name: string | null | undefined): void {
  if (name) localStorage.setItem(NAME_KEY, name);
}

/** This browser's player: the one kept, or a new one named `name` (shown
 * once: its key stays here). Without a name, `field` (where it is typed)
 * takes the focus and the error says why a name is needed. */
async function ensurePlayer(name: string, field?: HTMLInputElement | null, why = "it is your player's name"): Promise<void> {
  if (me()) return;
  if (!name) {
    field?.focus();
    throw new Error(`Enter your name first: ${why}`);
  }
  const created = await ok(api.POST("/v1/players", { body: { name }, headers: { "Idempotency-Key": key() } }));
  setMe({ id: created.player.id, key: created.key, name: created.player.name });
  saveName(name);
}

/** Plays as the player whose key this is, from now on in this browser. */
async function signInWith(playerKey: string): Promise<void> {
  if (!playerKey) throw new Error("Paste your player key first (it begins with tpk_)");
  let player;
  try {
    player = await ok(api.GET("/v1/players/me", { headers: bearer(playerKey) }));
  } catch (e) {
    if (e instanceof ApiFailure && e.status === 401) throw new Error("That is not a player's key: check that it was copied whole");
    throw e;
  }
  setMe({ id: player.id, key: playerKey, name: player.name });
  saveName(player.name);
}

/** Copies `text`, and says so in the status line (`done`). */
async function copy(text: string, done = "Copied"): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    showError("This browser did not let the page copy: select the text and copy it yourself");
    return false;
  }
  status.textContent = done;
  return true;
}

/** Asks quick match for a seat on `terms` (as the seat `held`, when asking
 * again) and keeps the seat given. */
async function askForMatch(terms: MatchTerms, held?: Held): Promise<Schemas["SeatGrant"]> {
  // The same caller as before: its player, else the seat's token (quick
  // match then gives its own waiting game back rather than a new one).
  const caller = me() ? asMe() : held ? bearer(held.token) : {};
  const grant = await ok(
    api.POST("/v1/matches", {
      body: {
        kind: terms.kind,
        ...(terms.name ? { name: terms.name } : {}),
        ...(terms.rated ? { rated: true, clock: terms.clock ?? null } : {}),
      },
      headers: { "Idempotency-Key": key(), ...caller },
    }),
  );
  saveName(terms.name);
  return grant;
}

/** Keeps the seat quick match gave. */
function holdMatched(grant: Schemas["SeatGrant"], terms: MatchTerms): void {
  holdSeat(grant.game.id, { seat: grant.seat, token: grant.token, hotseat: false, match: terms });
}

function openSeat(g: Game): Side | null {
  return !g.seats.X.taken ? "X" : !g.seats.O.taken ? "O" : null;
}

/** "1 rated game", "18 rated games". */
function ratedGames(n: number): string {
  return `${n} rated game${n === 1 ? "" : "s"}`;
}

function ago(when: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(when)) / 1000));
  return s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

async function join(id: string, rated = false, typed = "", field?: HTMLInputElement): Promise<void> {
  if (heldSeat(id)) return navigate(`/play/games/${id}`);
  const name = typed || savedName();
  if (rated) await ensurePlayer(name, field, "a rated game is between players: your name makes you one");
  const grant = await ok(api.POST("/v1/games/{id}/join", { params: { path: { id } }, body: name ? { name } : {}, headers: asMe() }));
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
  const name = q.get("name") ?? "";
  const friend = opponent === "human";
  const rated = friend && q.get("rated") !== null;
  // A rated game needs a clock: without a choice, the rated default.
  const clock = friend ? clockOf(q.get("clock") ?? (rated ? RATED_CLOCK : null)) : undefined;
  status.textContent = "Creating the game…";
  let grant;
  try {
    if (rated) await ensurePlayer(name || savedName());
    grant = await ok(
      api.POST("/v1/games", {
        headers: asMe(),
        body: {
          kind,
          options,
          seat,
          hotseat: opponent === "hotseat",
          opponent: opponent === "bot" ? { type: "bot", level } : { type: "human" },
          ...(name ? { name } : {}),
          ...(friend && q.get("private") ? { visibility: "private" as const } : {}),
          ...(clock ? { clock } : {}),
          ...(q.get("moves") ? { moves: q.get("moves") } : {}),
          ...(rated ? { rated } : {}),
        },
      }),
    );
  } catch (e) {
    // Back to the form, with the reason.
    history.replaceState(null, "", "/play");
    await showLobby();
    status.textContent = "The game could not be created";
    throw e;
  }
  saveName(name);
  const invite = grant.invite ?? undefined;
  holdSeat(grant.game.id, { seat: grant.seat, token: grant.token, hotseat: opponent === "hotseat", invite });
  navigate(`/play/games/${grant.game.id}${invite ? `#invite=${encodeURIComponent(invite)}` : ""}`, true);
}

// ----------------------------------------------------------------- game

/** How a rated round moved the ratings: the viewer's own, or both. */
function ratingText(g: Game, mine: Side | null): string {
  const c = g.rating_change;
  if (!c) return "";
  const move = (s: Side) => `${Math.round(c[s].before)} → ${Math.round(c[s].after)}`;
  return mine ? `; your rating ${move(mine)}` : `; ratings X ${move("X")}, O ${move("O")}`;
}

function statusText(g: Game, held: Held | null): string {
  // A viewer holding one seat hears the result as theirs.
  const mine = held && !held.hotseat ? held.seat : null;
  if (g.status === "won") {
    const how =
      g.end_reason === "resignation"
        ? ` (${g.winner === "X" ? "O" : "X"} resigned)`
        : g.end_reason === "timeout"
          ? ` (${g.winner === "X" ? "O" : "X"} ran out of time)`
          : "";
    const verdict = mine ? (mine === g.winner ? "You won: " : "You lost: ") : "";
    return `${verdict}${g.winner} wins${how}${ratingText(g, mine)}`;
  }
  if (g.status === "draw") {
    const agreed = g.end_reason === "agreement" ? " (agreed)" : "";
    return `${mine ? "Draw: " : ""}It's a draw between X and O${agreed}${ratingText(g, mine)}`;
  }
  const open = openSeat(g);
  if (g.status === "waiting" && open) return `Waiting for ${open} to join; ${g.turn} to move`;
  const who = g.turn ?? "X";
  const seat = g.seats[who];
  const you = held && (held.hotseat || held.seat === who) ? " (you)" : seat.type === "bot" ? " (bot)" : "";
  return `${who} to move${you}`;
}

async function showGame(id: string): Promise<void> {
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
  let held = heldSeat(id);
  // The seats' players' ratings in this kind, shown beside their names.
  const ratings = new Map<string, number>();
  let ratedAt = "";
  const loadRatings = async () => {
    const ids = (["X", "O"] as Side[]).map((s) => game.seats[s].player).filter((p): p is string => !!p);
    const stamp = `${ids.join(",")}|${game.round}|${game.rating_change ? "done" : ""}`;
    if (!ids.length || stamp === ratedAt) return;
    ratedAt = stamp;
    await Promise.all(
      ids.map(async (pid) => {
        const res = await api.GET("/v1/players/{id}", { params: { path: { id: pid } } });
        const r = res.data?.ratings[game.kind];
        if (r) ratings.set(pid, r.rating);
      }),
    );
    render();
  };
  let last: Move[] = [];
  // A move just played: animated once, on the next drawing of the board.
  let fresh: Move | null = null;
  // The round's moves, for the move list and the last-move marker (read
  // back after any load, so a reload or a spectator sees them too).
  let moves: MoveRecord[] = [];
  let confirm: "resign" | "restart" | null = null;
  // The hint levels of this kind (drawn with all until /v1/kinds answers).
  let levels: Level[] = LEVELS;
  let hint: { move: Move; level: Level } | null = null;
  let busy = false;
  let note = "";
  // The position being looked at: null for the live game.
  let view: { round: number; ply: number; plies: number; game: Game } | null = null;
  let live = "connecting";
  let hintLevel: Level = "medium";
  // After a round: each of its moves against the best one (null until asked).
  let review: Reviewed[] | null = null;
  let reviewing: AbortController | null = null;
  // Hints and threat marks: off by default between two people.
  let showThreats = !(!held?.hotseat && game.seats.X.type === "human" && game.seats.O.type === "human");

  const title = h("h2", {});
  const boardBox = h("div", { class: "board-box" });
  const info = h("div", { class: "info" });
  const threats = h("p", { class: "threats", "aria-live": "polite" });
  const controls = h("div", { class: "controls" });
  const stepper = h("nav", { class: "stepper", "aria-label": "History" });
  const invite = h("div", { class: "invite" });
  const clocks = h("div", { class: "clocks" });
  const offerBox = h("div", { class: "offer-box" });
  const dialogBox = h("div", {});
  const moveList = h("ol", { class: "moves", role: "list", "aria-label": "Moves" });
  const reviewBox = h("section", { class: "review", "aria-label": "Analysis" });
  main.replaceChildren(
    h("section", { class: "card game" }, title, info, invite, clocks, boardBox, threats, offerBox, controls, dialogBox, stepper, moveList),
    reviewBox,
  );

  // The score of a series of rematches (`Ann 2 – 1 Bob`), or "".
  let series = "";
  const matching = () => held?.match !== undefined && !held.hotseat && game.status === "waiting";

  const canMove = (g: Game) =>
    !busy && !view && g.status === "in_progress" && held !== null && (held.hotseat || held.seat === g.turn);
  const people = () => !held?.hotseat && game.seats.X.type === "human" && game.seats.O.type === "human";

  /** Reads the round's moves again when the game moved on without them. */
  const syncMoves = async () => {
    const current = moves.length === game.ply && (moves[0]?.round ?? game.round) === game.round;
    if (!current) {
      const res = await ok(api.GET("/v1/games/{id}/moves", { params: { path: { id }, query: { round: game.round } } }));
      moves = res.items;
    }
    // The marker is the round's last move, whatever view drew before.
    const end = moves.at(-1);
    const marked = end ? moveKey(end.move) : null;
    if (!current || (last.at(-1) ? moveKey(last.at(-1) as Move) : null) !== marked) {
      last = end ? [end.move] : [];
      render();
    }
  };

  const fmt = (ms: number) => {
    const t = Math.max(0, Math.ceil(ms / 1000));
    const hh = Math.floor(t / 3600);
    const mm = Math.floor((t % 3600) / 60);
    const ss = String(t % 60).padStart(2, "0");
    return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
  };
  /** The clocks, counted down from the server's deadline for the side to move. */
  const renderClocks = () => {
    const c = game.clock;
    if (!c) return void clocks.replaceChildren();
    const deadline = c.deadline ? Date.parse(c.deadline) : null;
    clocks.replaceChildren(
      ...(["X", "O"] as Side[]).map((s) => {
        const running = c.running === s && deadline !== null && game.status === "in_progress";
        const ms = running ? deadline - Date.now() : c[s].remaining_ms;
        const name = game.seats[s].name;
        return h(
          "span",
          { class: `clock${running ? " running" : ""}${ms <= 10_000 && running ? " low" : ""}` },
          h("span", { class: "who" }, `${name ? `${name} ` : ""}(${s})`),
          h("span", { role: "timer", "aria-label": `${s} clock`, "aria-live": "off" }, fmt(ms)),
        );
      }),
    );
  };
  const tick = window.setInterval(renderClocks, 250);

  const render = () => {
    const shown = view?.game ?? game;
    title.textContent = `${KIND_NAMES[game.kind]}${game.kind === "gomoku" ? ` ${game.options.rows}x${game.options.columns} (${game.options.rule ?? "freestyle"})` : ""}${game.rated ? " · rated" : ""}`;
    const searching = !view && matching();
    status.textContent = view
      ? `Round ${view.round}, after move ${view.ply} of ${view.plies}: ${statusText(shown, null)}`
      : searching
        ? "Looking for an opponent"
        : statusText(game, held);
    // A tab in the background says when it is the viewer's move.
    const mine = game.status === "in_progress" && held !== null && (held.hotseat || held.seat === game.turn);
    document.title = `${mine ? "Your move · " : ""}Tabula: ${KIND_NAMES[game.kind]}`;
    const playable = new Set(canMove(game) ? game.legal_moves.map(moveKey) : []);
    // Keyboard players keep their place on the board across redraws.
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && boardBox.contains(active) ? active.dataset.move : undefined;
    boardBox.replaceChildren(
      drawBoard(
        shown,
        {
          playable,
          threats: view || !showThreats ? [] : game.threats,
          hint: view ? (reviewAt(view)?.best.move ?? null) : (hint?.move ?? null),
          last: view ? [] : last,
          fresh: view ? null : fresh,
        },
        (m) => tap(m),
      ),
    );
    fresh = null;
    const again = focused ? boardBox.querySelector<HTMLElement>(`[data-move="${focused}"]`) : null;
    if (again) {
      boardBox.querySelector('[tabindex="0"]')?.setAttribute("tabindex", "-1");
      again.setAttribute("tabindex", "0");
      again.focus();
    }
    const invitee = !held && game.status === "waiting" ? openSeat(game) : null;
    const role = held
      ? held.hotseat
        ? "You play both seats on this screen"
        : `You play ${held.seat}`
      : invitee
        ? `Join to play ${invitee}`
        : "You are watching";
    const seats = (["X", "O"] as Side[]).flatMap((s, i) => {
      const seat = game.seats[s];
      const sep = i ? " · " : "";
      if (seat.player) {
        const rating = ratings.get(seat.player);
        return [
          `${sep}${s}: `,
          h("a", { href: `/play/players/${encodeURIComponent(seat.player)}`, "data-link": "" }, seat.name ?? "player"),
          rating === undefined ? "" : ` (${Math.round(rating)})`,
        ];
      }
      return [`${sep}${s}: ${seat.type === "bot" ? `bot (${seat.level ?? "?"})` : seat.taken ? (seat.name ?? "human") : "open"}`];
    });
    info.replaceChildren(
      h("span", {}, role),
      h("span", { class: "seats" }, ...seats),
      h("span", {}, `Round ${game.round}`),
      series ? h("span", { class: "series" }, series) : "",
      h("span", { class: `live ${live}` }, live === "live" ? "● live" : live === "connecting" ? "○ connecting…" : "○ reconnecting…"),
    );
    const reviewed = view ? reviewAt(view) : undefined;
    threats.textContent = view
      ? reviewed && !sameMove(reviewed.best.move, reviewed.played.move)
        ? `Best here: ${notationOf(reviewed.best.move)} (${evalText(reviewed.best.evaluation)}); played ${notationOf(reviewed.played.move)} (${evalText(reviewed.played.evaluation)})`
        : ""
      : [
          note,
          ...(showThreats ? game.threats.map((t) => `${t.player} wins at ${nameOf(t.move)} next move`) : []),
          hint ? `Hint (${hint.level}): ${nameOf(hint.move)}` : "",
        ]
          .filter(Boolean)
          .join(". ");
    const actions: (HTMLElement | string)[] = [];
    if (!held && openSeat(game) && game.status === "waiting") {
      const yourName = h("input", { type: "text", maxlength: "32", value: savedName(), class: "name" });
      actions.push(field("Your name", yourName), button("Join", () => void joinHere(yourName.value.trim(), yourName), { class: "primary" }));
    }
    if (held && !view) {
      if (canMove(game) && showThreats && !game.rated) {
        const lv = select("hint-level", levels.map((l) => [l, l]), levels.includes(hintLevel) ? hintLevel : (levels[0] ?? "easy"));
        lv.addEventListener("change", () => (hintLevel = lv.value as Level));
        actions.push(h("span", { class: "hint-box" }, button("Hint", () => void askHint()), field("level", lv)));
      }
      if (game.status === "in_progress") actions.push(button("Resign", () => ((confirm = "resign"), render())));
      const over = game.status === "won" || game.status === "draw";
      // Between two people a round in progress restarts by agreement only.
      if (over || (game.ply > 0 && !people())) {
        const again = () => (game.seats.X.type === "bot" || game.seats.O.type === "bot") && !over ? ((confirm = "restart"), render()) : void act("restart");
        actions.push(button("Restart", again));
      }
      // After a round: a new game of the same terms, the seats swapped (once
      // per game), so that the other side moves first and a series is scored.
      if (over && game.rematch) actions.push(button("Go to the rematch", () => void toRematch(game.rematch as string), { class: "primary" }));
      else if (over) actions.push(button("Rematch", () => void rematch(), { class: "primary" }));
      if (people() && game.status === "in_progress" && !game.offer) actions.push(button("Offer draw", () => void offer("draw")));
      // Against a bot it takes back your last move and its reply; on one screen, the last move.
      if (game.status === "in_progress" && !game.offer) {
        const taken = held.hotseat ? game.ply > 0 : moves.some((m) => m.player === held?.seat);
        actions.push(button("Take back", () => void offer("takeback"), { disabled: taken ? null : "" }));
      }
      if (people() && game.status === "in_progress" && !game.offer) actions.push(button("Offer restart", () => void offer("restart")));
    }
    // No help reaches a rated round in progress (the API refuses it too).
    const rated = game.rated && game.status !== "won" && game.status !== "draw";
    if (held && !held.hotseat && !view && people() && !rated) {
      actions.push(
        h(
          "label",
          { class: "toggle" },
          h("input", { type: "checkbox", checked: showThreats ? "" : null }),
          " Hints and threats",
        ),
      );
    }
    if (game.ply > 0 || game.round > 1) actions.push(button("Copy notation", () => void copyNotation()));
    if (roundOver() && moves.length > 0 && !review && !reviewing) actions.push(button("Analyze the game", () => void analyze()));
    actions.push(h("a", { href: "/play", "data-link": "" }, "Lobby"));
    controls.replaceChildren(...actions, notationBox);
    controls.querySelector<HTMLInputElement>(".toggle input")?.addEventListener("change", (e) => {
      showThreats = (e.target as HTMLInputElement).checked;
      render();
    });
    renderOffer();
    renderDialog();
    renderClocks();
    renderMoves();
    renderStepper();
    renderReview();
    // A waiting game, first thing under its title: who it waits for, and a
    // way to call it off (deleted, back to the lobby).
    const open = openSeat(game);
    const waits = held && open && !held.hotseat && !view && game.status === "waiting" && game.seats[open].type === "human";
    invite.replaceChildren(
      ...(!waits
        ? []
        : searching
          ? [h("span", {}, `Whoever asks for ${KIND_NAMES[game.kind]} next plays you here.`), button("Cancel", () => void cancel())]
          : [
              h("span", {}, `Invite a friend to play ${open}: `),
              h("input", { readonly: "", value: inviteLink(), "aria-label": "Invite link", class: "link" }),
              button("Copy link", () => void copy(inviteLink(), "Copied the invite link")),
              button("Cancel", () => void cancel()),
            ]),
    );
  };

  // The round as one line of the kind's notation, copied; shown only
  // where the browser does not let the page copy.
  const notationBox = h("span", { class: "notation" });
  const copyNotation = async () => {
    try {
      const round = view?.round ?? game.round;
      const res = await ok(api.GET("/v1/games/{id}/notation", { params: { path: { id }, query: { round } } }));
      if (await copy(res.moves)) return void notationBox.replaceChildren();
      notationBox.replaceChildren(h("input", { readonly: "", value: res.moves, "aria-label": "Notation", class: "link" }));
    } catch (e) {
      showError(e);
    }
  };

  const inviteLink = () =>
    `${location.origin}/play/games/${id}${held?.invite ? `#invite=${encodeURIComponent(held.invite)}` : ""}`;

  const renderMoves = () => {
    moveList.replaceChildren(
      ...moves.map((m, i) =>
        h(
          "li",
          {},
          button(`${i + 1}. ${notationOf(m.move)}`, () => void step(game.round, i + 1), {
            "aria-current": view ? (view.ply === i + 1 ? "step" : null) : i === moves.length - 1 ? "step" : null,
          }),
        ),
      ),
    );
  };

  const roundOver = () => game.status === "won" || game.status === "draw";
  const notationOf = (m: Move) => notation({ kind: game.kind, size: game.options.rows }, m);
  const nameOf = (m: Move) => moveName({ kind: game.kind, size: game.options.rows }, m);
  const reviewAt = (v: { round: number; ply: number }) => (v.round === game.round ? review?.[v.ply] : undefined);
  const dropReview = () => {
    reviewing?.abort();
    reviewing = null;
    review = null;
  };

  /** Every position of the finished round analyzed in turn (no token needed
   * once it is over), at `perfect` where the kind has it, else `hard`: one
   * bot budget a position. */
  const analyze = async () => {
    const abort = new AbortController();
    reviewing = abort;
    review = [];
    const round = game.round;
    render();
    try {
      // The kind's own levels (the page draws with all until they arrive).
      const offered = levelsOf(await kinds(), game.kind);
      const level: Level = offered.includes("perfect") ? "perfect" : offered.includes("hard") ? "hard" : (offered.at(-1) ?? "medium");
      for (const [ply, m] of moves.entries()) {
        const res = await ok(
          api.GET("/v1/games/{id}/analysis", { params: { path: { id }, query: { level, round, ply } }, signal: abort.signal }),
        );
        if (abort.signal.aborted) return;
        const played = res.moves.find((c) => sameMove(c.move, m.move));
        const best = res.moves[0];
        if (!played || !best) throw new Error(`move ${ply + 1} is not among the analysis' moves`);
        review.push({ player: m.player, played, best, level: res.level });
        renderReview();
      }
      reviewing = null;
      render();
    } catch (e) {
      if (abort.signal.aborted) return;
      reviewing = null;
      review = null;
      render();
      showError(e);
    }
  };

  const renderReview = () => {
    if (!review) return void reviewBox.replaceChildren();
    reviewBox.className = "card review";
    const done = !reviewing;
    const lost = done ? momentLost(review, game.status === "won" ? (game.winner === "X" ? "O" : "X") : null) : null;
    const items = review.map((r, ply) => {
      const worse = !sameMove(r.played.move, r.best.move) && mistake(r.played.evaluation, r.best.evaluation);
      const label = `${ply + 1}. ${r.player} ${notationOf(r.played.move)}: ${evalText(r.played.evaluation)}${worse ? `; best ${notationOf(r.best.move)}: ${evalText(r.best.evaluation)}` : ""}`;
      return h(
        "li",
        { class: `${worse ? "worse" : ""}${ply === lost ? " lost" : ""}` },
        button(label, () => void step(game.round, ply), { "aria-current": view?.round === game.round && view.ply === ply ? "step" : null }),
      );
    });
    const r = lost === null ? null : review[lost];
    const verdict = !done
      ? `Analyzing move ${review.length + 1} of ${moves.length}…`
      : r && lost !== null
        ? `The game was lost at move ${lost + 1}: ${r.player} played ${notationOf(r.played.move)} (${evalText(r.played.evaluation)}) where ${notationOf(r.best.move)} ${bestText(r.best.evaluation)}.`
        : game.status === "draw"
          ? "A draw: neither side let the game slip."
          : "No move is proven to have lost it at this level: the loser was behind from early on, or the search could not prove where it turned.";
    reviewBox.replaceChildren(
      h("h2", {}, "Analysis"),
      h("p", { class: "verdict-line", "aria-live": "polite" }, verdict),
      evalGraph(review, moves.length, lost),
      h("ol", { class: "review-list", role: "list", "aria-label": "Move evaluations" }, ...items),
      h("p", { class: "muted" }, `Evaluations at ${review[0]?.level ?? "the bot's"} level, for the side that moved; a click shows the position with the best move marked.`),
    );
  };

  const renderOffer = () => {
    const o = game.offer;
    if (!o || !held || held.hotseat || view) return void offerBox.replaceChildren();
    const what = offerWhat(o.type);
    if (o.by === held.seat) {
      offerBox.replaceChildren(h("p", {}, `You offered ${what}. `, button("Withdraw", () => void answer("withdraw"))));
    } else {
      offerBox.replaceChildren(
        h(
          "div",
          { role: "alertdialog", "aria-label": `${o.by} offers ${what}`, class: "dialog" },
          h("p", {}, `${game.seats[o.by].name ?? o.by} offers ${what}.`),
          button("Accept", () => void answer("accept"), { class: "primary" }),
          button("Decline", () => void answer("decline")),
        ),
      );
    }
  };

  const renderDialog = () => {
    if (!confirm) return void dialogBox.replaceChildren();
    const what = confirm;
    const text = what === "resign" ? "Resign this round? Your opponent wins it." : "Restart? This round is lost for good.";
    const yes = what === "resign" ? "Resign" : "Restart";
    dialogBox.replaceChildren(
      h(
        "div",
        { role: "dialog", "aria-modal": "true", "aria-label": `${yes}?`, class: "dialog" },
        h("p", {}, text),
        button(yes, () => ((confirm = null), void act(what)), { class: "danger" }),
        button("Cancel", () => ((confirm = null), render())),
      ),
    );
    dialogBox.querySelector<HTMLElement>("button:last-child")?.focus();
  };

  const offer = async (type: "draw" | "takeback" | "restart") => {
    if (!held) return;
    try {
      const g = await ok(api.POST("/v1/games/{id}/offers", { params: { path: { id } }, headers: bearer(held.token), body: { type } }));
      clearError();
      update(g);
    } catch (e) {
      showError(e);
    }
  };

  const answer = async (what: "accept" | "decline" | "withdraw") => {
    if (!held) return;
    try {
      const g =
        what === "withdraw"
          ? await ok(api.DELETE("/v1/games/{id}/offers", { params: { path: { id } }, headers: bearer(held.token) }))
          : await ok(api.POST(`/v1/games/{id}/offers/${what}`, { params: { path: { id } }, headers: bearer(held.token) }));
      clearError();
      update(g);
    } catch (e) {
      showError(e);
    }
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
    if (g.round !== game.round || (g.status !== "won" && g.status !== "draw")) dropReview();
    if (g.round !== game.round) view = null;
    if (moves.length) last = moves.map((m) => m.move);
    if (g.version > game.version) hint = null;
    const ended = (g.status === "won" || g.status === "draw") && g.status !== game.status;
    game = g;
    render();
    if (ended || (g.rematch && !series)) void loadSeries().catch(() => {});
    void syncMoves().catch(() => {});
    void loadRatings().catch(() => {});
  };

  // On a touch screen a cell smaller than a fingertip takes two taps: the
  // first points at it, the second (on the same cell) plays it.
  let pointer = "mouse";
  let aim: string | null = null;
  boardBox.addEventListener("pointerdown", (e) => (pointer = e.pointerType));
  const tap = (m: Move) => {
    const key = moveKey(m);
    const cell = boardBox.querySelector<HTMLElement>(`[data-move="${key}"]`);
    const small = (cell?.getBoundingClientRect().width ?? 99) < 30;
    if (pointer === "touch" && small && aim !== key) {
      aim = key;
      for (const e of boardBox.querySelectorAll(".aim")) e.classList.remove("aim");
      cell?.classList.add("aim");
      return;
    }
    aim = null;
    void play(m);
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
    fresh = m;
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
        note = res.replies.map((r) => `${r.player} (bot) played ${nameOf(r.move)}`).join("; ");
      }
      fresh = res.replies.at(-1)?.move ?? null;
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

  /** This seat's place in the rematch `next`: the other letter, the same token. */
  const toRematch = (next: string) => {
    if (!held) return;
    const seat = held.hotseat ? held.seat : held.seat === "X" ? "O" : "X";
    holdSeat(next, { ...held, seat, match: undefined });
    navigate(`/play/games/${next}`);
  };

  const rematch = async () => {
    if (!held) return;
    try {
      const grant = await ok(api.POST("/v1/games/{id}/rematch", { params: { path: { id } }, headers: bearer(held.token) }));
      holdSeat(grant.game.id, { ...held, seat: grant.seat, match: undefined });
      navigate(`/play/games/${grant.game.id}`);
    } catch (e) {
      showError(e);
    }
  };

  /** Calls off a waiting game: deleted, and back to the lobby. */
  const cancel = async () => {
    if (!held) return;
    const res = await api.DELETE("/v1/games/{id}", { params: { path: { id } }, headers: bearer(held.token) }).catch(() => null);
    if (!res) return showError(new ApiFailure(0, undefined));
    if (!res.response.ok && res.response.status !== 404) {
      return showError(new ApiFailure(res.response.status, res.error as Partial<Schemas["Problem"]>));
    }
    forgetSeat(id);
    navigate("/play");
  };

  /** While quick match's game waits, asks again now and then: a person who
   * asked meanwhile (whose game this one did not meet: it had waited too
   * long) is met, and this game stays found by those who ask next. */
  const askAgain = async () => {
    const terms = held?.match;
    if (!held || !terms || !matching()) return;
    const grant = await askForMatch(terms, held).catch(() => null);
    if (!grant || grant.game.id === id) return;
    // Seated elsewhere: this game goes, unless someone took it meanwhile.
    const gone = await api.DELETE("/v1/games/{id}", { params: { path: { id } }, headers: bearer(held.token) }).catch(() => null);
    if (gone && !gone.response.ok && gone.response.status !== 404) {
      if (grant.game.status === "waiting") {
        await api.DELETE("/v1/games/{id}", { params: { path: { id: grant.game.id } }, headers: bearer(grant.token) }).catch(() => null);
      }
      return;
    }
    forgetSeat(id);
    holdMatched(grant, terms);
    navigate(`/play/games/${grant.game.id}`, true);
  };
  const asking = window.setInterval(() => void askAgain(), ASK_AGAIN_MS);

  /** The series this game belongs to (its rematches both ways), scored by
   * person: the seats swap with each rematch. */
  const loadSeries = async () => {
    const chain: Game[] = [game];
    const read = async (other: string | null | undefined) =>
      other ? (await api.GET("/v1/games/{id}", { params: { path: { id: other } } })).data : undefined;
    for (let g = await read(game.rematch_of); g && chain.length < SERIES_MAX; g = await read(g.rematch_of)) chain.unshift(g);
    const here = chain.length - 1;
    for (let g = await read(game.rematch); g && chain.length < SERIES_MAX; g = await read(g.rematch)) chain.push(g);
    const first = chain[0];
    if (chain.length < 2 || !first) return void (series = "");
    // Person A sat X in the first game, so X in every other one after it.
    const mineIsA = held && !held.hotseat ? (held.seat === "X") === (here % 2 === 0) : null;
    const label = (s: Side, isA: boolean) => {
      const seat = first.seats[s];
      return seat.name ?? (seat.type === "bot" ? "Bot" : mineIsA === null ? s : mineIsA === isA ? "You" : "Opponent");
    };
    let a = 0;
    let b = 0;
    chain.forEach((g, i) => {
      const current = i === here ? game : g;
      if (current.status !== "won" || !current.winner) return;
      if ((current.winner === "X") === (i % 2 === 0)) a += 1;
      else b += 1;
    });
    series = `${label("X", true)} ${a} – ${b} ${label("O", false)}`;
    render();
  };

  const act = async (what: "restart" | "resign") => {
    if (!held) return;
    try {
      const path = what === "restart" ? "/v1/games/{id}/restart" : "/v1/games/{id}/resign";
      const g = await ok(api.POST(path, { params: { path: { id } }, headers: bearer(held.token) }));
      note = "";
      view = null;
      clearError();
      update(g);
    } catch (e) {
      showError(e);
    }
  };

  const joinHere = async (name: string, nameInput: HTMLInputElement) => {
    try {
      const code = new URLSearchParams(location.hash.slice(1)).get("invite");
      const body = { ...(name ? { name } : {}), ...(code ? { invite: code } : {}) };
      // A rated game seats players only: one is made for this browser if need be.
      if (game.rated) await ensurePlayer(name || savedName(), nameInput, "a rated game is between players: your name makes you one");
      const grant = await ok(api.POST("/v1/games/{id}/join", { params: { path: { id } }, body, headers: asMe() }));
      saveName(name);
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
    for (const type of ["move", "join", "restart", "resign", "offer", "offer_declined", "offer_withdrawn", "takeback", "draw", "timeout", "rematch"]) {
      source.addEventListener(type, (e) => {
        const event = JSON.parse((e as MessageEvent<string>).data) as GameEvent;
        if (!event.game || busy) return;
        if (event.type === "move" && event.move && event.version > game.version) {
          last = [event.move.move];
          fresh = event.move.move;
        }
        if (event.type === "restart" || event.type === "takeback") last = [];
        // The person who offered hears of a decline; the other of a withdrawal.
        const was = game.offer;
        if (was && held && !held.hotseat && event.version > game.version) {
          if (event.type === "offer_declined" && was.by === held.seat) note = `Your offer of ${offerWhat(was.type)} was declined`;
          if (event.type === "offer_withdrawn" && was.by !== held.seat) note = `${game.seats[was.by].name ?? was.by} withdrew the offer of ${offerWhat(was.type)}`;
        }
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
  // A stream can look open while the server is gone (it stops taking
  // connections first): ask it now and then, and say so when it is away.
  const ping = window.setInterval(() => {
    if (live !== "live") return;
    void fetch("/readyz", { cache: "no-store", signal: AbortSignal.timeout(3000) })
      .then((r) => r.ok)
      .catch(() => false)
      .then((up) => {
        if (!up && live === "live") {
          live = "reconnecting";
          render();
          // Start the stream afresh: its `open` says when the server is back.
          source?.close();
          window.clearTimeout(retry);
          retry = window.setTimeout(connect, 1000);
        }
      });
  }, 4000);
  leave = () => {
    reviewing?.abort();
    window.clearInterval(asking);
    source?.close();
    window.clearTimeout(retry);
    window.clearInterval(tick);
    window.clearInterval(ping);
  };
  render();
  void kinds()
    .then((info) => {
      levels = levelsOf(info, game.kind);
      render();
    })
    .catch(() => {});
  void loadRatings().catch(() => {});
  void loadSeries().catch(() => {});
  await syncMoves().catch(() => {});
}

/** What an offer asks for, in words. */
function offerWhat(type: Schemas["OfferType"]): string {
  return type === "draw" ? "a draw" : type === "takeback" ? "to take back a move" : "a new round";
}

/** How often a page waiting in quick match asks again. */
const ASK_AGAIN_MS = 5_000;
/** The most games of a series read for its score. */
const SERIES_MAX = 30;

// --------------------------------------------------------------- player

/** A player: their ratings by kind and their games, newest first. */
async function showPlayer(id: string): Promise<void> {
  let player;
  try {
    player = await ok(api.GET("/v1/players/{id}", { params: { path: { id } } }));
  } catch (e) {
    status.textContent = "No such player";
    main.replaceChildren(h("section", { class: "card" }, h("p", {}, "This player does not exist."), h("a", { href: "/play", "data-link": "" }, "Lobby")));
    throw e;
  }
  document.title = `Tabula: ${player.name}`;
  status.textContent = me()?.id === player.id ? `${player.name} (you)` : player.name;
  const rated = Object.entries(player.ratings);
  const ratingsList = h(
    "ul",
    { class: "games", "aria-label": "Ratings" },
    ...rated.map(([kind, r]) =>
      h(
        "li",
        {},
        h("span", {}, KIND_NAMES[kind as Kind] ?? kind),
        h("small", {}, ` ${Math.round(r.rating)} ± ${Math.round(r.deviation)} · ${ratedGames(r.games)}${r.provisional ? " · provisional" : ""}`),
      ),
    ),
  );
  if (!rated.length) ratingsList.append(h("li", { class: "empty" }, "No rated games yet."));
  const gamesList = h("ul", { class: "games", "aria-label": "Games" });
  const pager = h("div", { class: "row pager" });
  const cursors: (string | null)[] = [null];
  const load = async (page: number) => {
    const cursor = cursors[page];
    const res = await ok(
      api.GET("/v1/players/{id}/games", { params: { path: { id }, query: { limit: 10, ...(cursor ? { cursor } : {}) } } }),
    );
    cursors[page + 1] = res.next_cursor;
    gamesList.replaceChildren(
      ...res.items.map((g) => {
        const side: Side | undefined = g.seats.X.player === id ? "X" : g.seats.O.player === id ? "O" : undefined;
        const other = side ? g.seats[side === "X" ? "O" : "X"] : undefined;
        const against = other?.name ? ` against ${other.name}` : "";
        // The result as this player's: won or lost, not a letter.
        const result = side && g.status === "won" ? (g.winner === side ? `${player.name} won` : `${player.name} lost`) : statusWord(g);
        const label = `${KIND_NAMES[g.kind]}${g.rated ? " (rated)" : ""}${against} · ${result} · ${ago(g.created_at)}`;
        return h("li", {}, h("a", { href: `/play/games/${g.id}`, "data-link": "" }, label));
      }),
    );
    if (!res.items.length) gamesList.append(h("li", { class: "empty" }, "No games yet."));
    pager.replaceChildren(
      page > 0 ? button("Newer", () => void load(page - 1).catch(showError)) : "",
      res.next_cursor ? button("Older", () => void load(page + 1).catch(showError)) : "",
    );
  };
  main.replaceChildren(
    h("section", { class: "card" }, h("h2", {}, player.name), h("h3", {}, "Ratings"), ratingsList),
    h("section", { class: "card" }, h("h2", {}, "Games"), gamesList, pager),
    h("p", {}, h("a", { href: "/play", "data-link": "" }, "Lobby")),
  );
  await load(0);
}

// ---------------------------------------------------------------- review

type Scored = { move: Move; evaluation: Schemas["EvaluationView"] };
type Reviewed = { player: Side; played: Scored; best: Scored; level: Level };

function sameMove(a: Move, b: Move): boolean {
  return moveKey(a) === moveKey(b);
}

/** An evaluation in words, for the side that moves; one the search did
 * not prove is a score, marked as such (`≈ +17`). */
function evalText(e: Schemas["EvaluationView"]): string {
  if (e.outcome === "win") return e.plies === 1 ? "wins at once" : `wins in ${e.plies}`;
  if (e.outcome === "loss") return `loses in ${e.plies}`;
  if (e.outcome === "draw") return "draws";
  return `≈ ${e.score > 0 ? "+" : e.score < 0 ? "−" : ""}${Math.abs(e.score)}`;
}

/** What the best move kept, after "where h8 …". */
function bestText(e: Schemas["EvaluationView"]): string {
  if (e.outcome === "win") return `won (${evalText(e)})`;
  if (e.outcome === "draw") return "held the draw";
  return `was not proven lost (${evalText(e)})`;
}

/** Whether playing `played` rather than `best` was a mistake: a proven
 * loss where the best was not proven lost, a worse proven outcome, or
 * between two unproven scores a lower one. An unproven score is never
 * judged against a proven outcome. */
function mistake(played: Schemas["EvaluationView"], best: Schemas["EvaluationView"]): boolean {
  const rank = { loss: 0, draw: 1, win: 2 } as const;
  if (played.outcome === "loss" && best.outcome !== "loss") return true;
  if (played.outcome && best.outcome) return rank[played.outcome] < rank[best.outcome];
  if (!played.outcome && !best.outcome) return best.score > played.score;
  return false;
}

/** Where the loser's game turned: the first of their moves that made a
 * position not proven lost for them into one proven lost. Nothing else is
 * called the losing move. */
function momentLost(review: Reviewed[], loser: Side | null): number | null {
  if (!loser) return null;
  const at = review.findIndex((r) => r.player === loser && r.played.evaluation.outcome === "loss" && r.best.evaluation.outcome !== "loss");
  return at < 0 ? null : at;
}

/** X's evaluation after each move, as a small line: up is good for X. */
function evalGraph(review: Reviewed[], plies: number, lost: number | null): SVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const w = 300;
  const hgt = 60;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  svg.setAttribute("class", "eval-graph");
  svg.setAttribute("preserveAspectRatio", "xMinYMid meet");
  svg.setAttribute("aria-hidden", "true");
  const x = (ply: number) => (plies <= 1 ? w / 2 : (ply / (plies - 1)) * (w - 8) + 4);
  const y = (r: Reviewed) => {
    const e = r.played.evaluation;
    const mover = e.outcome === "win" ? 1000 : e.outcome === "loss" ? -1000 : e.outcome === "draw" ? 0 : Math.max(-1000, Math.min(1000, e.score));
    const forX = r.player === "X" ? mover : -mover;
    return hgt / 2 - (forX / 1000) * (hgt / 2 - 4);
  };
  const mid = document.createElementNS(ns, "line");
  const attrs = (e: Element, list: [string, string][]) => {
    for (const [k, v] of list) e.setAttribute(k, v);
  };
  attrs(mid, [["x1", "0"], ["x2", String(w)], ["y1", String(hgt / 2)], ["y2", String(hgt / 2)], ["class", "axis"]]);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", review.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" "));
  svg.append(mid, line);
  if (lost !== null && review[lost]) {
    const dot = document.createElementNS(ns, "circle");
    attrs(dot, [["cx", x(lost).toFixed(1)], ["cy", y(review[lost]).toFixed(1)], ["r", "4"], ["class", "lost"]]);
    svg.append(dot);
  }
  return svg;
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
