// The lobby: who plays, the challenges waiting, a new game, quick match, the
// open games, the tournaments, this browser's games and the leaderboard; and
// /play/new, which creates a game.
import { askForMatch, BOARD_KIND_KEY, chosenKind, ensurePlayer, holdMatched, join, MATCH_CLOCK_KEY, MATCH_KIND_KEY, mostPlayedKind, savedName, saveName, signInWith } from "./account.js";
import { api, asMe, forgetMe, forgetSeat, type Game, heldGames, heldSeat, holdSeat, type Kind, type Level, me, ok, type Side } from "./api.js";
import { KIND_NAMES } from "./board.js";
import { button, h } from "./dom.js";
import { clearError, copy, main, navigate, showError, status } from "./shell.js";
import { challengesCard } from "./challenge.js";
import { tournamentsCard } from "./tournament.js";
import { ago, clockOf, CLOCKS, clockText, creator, field, kinds, KINDS, LEVELS, levelsOf, nextId, openSeat, RATED_CLOCK, ratedGames, select, statusWord } from "./ui.js";

/** The lobby; `again`, the fields of a create that failed, fills the form
 * as it was entered. */
export async function showLobby(again?: URLSearchParams): Promise<void> {
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
  // A friend gets a private game (only the invite link finds it); `Anyone`
  // lists it among the open games.
  const opponent = select(
    "opponent",
    [
      ["friend", "A friend (invite link)"],
      ["anyone", "Anyone"],
      ["bot", "A bot"],
      ["hotseat", "Same screen"],
    ],
    "bot",
  );
  const level = select("level", LEVELS.map((l) => [l, l]), "easy");
  const seat = select("seat", [["X", "X (moves first)"], ["O", "O"]], "X");
  const name = h("input", { name: "name", type: "text", maxlength: "32", autocomplete: "nickname", value: savedName() });
  const clock = select("clock", CLOCKS.map(([v, text]) => [v, text]), "");
  const line = h("input", { name: "moves", type: "text", placeholder: "e.g. 4453", autocomplete: "off", spellcheck: "false" });
  const gomokuFields = h("div", { class: "row" }, field("Size", size), field("Rule", rule));
  const levelField = field("Bot level", level);
  const rated = h("input", { name: "rated", type: "checkbox" });
  const ratedField = h("div", { class: "field check" }, rated, h("label", { for: (rated.id ||= nextId()) }, "Rated"));
  const friendFields = h("div", { class: "row" }, ratedField, field("Clock", clock));
  const person = () => opponent.value === "friend" || opponent.value === "anyone";
  if (again) {
    // What was entered, as it was: a retry is the same request.
    const was = (k: string) => again.get(k);
    const known = (s: HTMLSelectElement, v: string | null) => {
      if (v !== null && [...s.options].some((o) => o.value === v)) s.value = v;
    };
    known(kind, was("kind"));
    known(opponent, was("opponent") === "human" ? (was("private") ? "friend" : "anyone") : was("opponent"));
    known(seat, was("seat"));
    known(rule, was("rule"));
    known(clock, was("clock"));
    if (was("size")) size.value = was("size") ?? size.value;
    if (was("name") !== null) name.value = was("name") ?? "";
    if (was("moves") !== null) line.value = was("moves") ?? "";
    rated.checked = was("rated") !== null;
  }
  const sync = () => {
    gomokuFields.hidden = kind.value !== "gomoku";
    levelField.hidden = opponent.value !== "bot";
    friendFields.hidden = !person();
    // Only the levels this kind offers (`perfect` is Connect Four's).
    const offered = levelsOf(info, kind.value as Kind);
    const wanted = again?.get("level") ?? level.value;
    const keep = offered.includes(wanted as Level) ? wanted : offered.includes("easy") ? "easy" : offered[0];
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
    const q = new URLSearchParams({ kind: kind.value, opponent: person() ? "human" : opponent.value, seat: seat.value });
    if (opponent.value === "bot") q.set("level", level.value);
    if (name.value.trim()) q.set("name", name.value.trim());
    if (line.value.trim()) q.set("moves", line.value.trim());
    if (opponent.value === "friend") q.set("private", "1");
    if (person() && clock.value) q.set("clock", clock.value);
    if (person() && rated.checked) q.set("rated", "1");
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
  const ratedMatchField = h("div", { class: "field check" }, ratedMatch, h("label", { for: (ratedMatch.id ||= nextId()) }, "Rated match"));
  // Quick match meets only games of the same clock (none meets none).
  const matchClock = select("match-clock", CLOCKS.map(([v, text]) => [v, text]), localStorage.getItem(MATCH_CLOCK_KEY) ?? "");
  // A rated match needs a clock: checking it picks the usual one, in view.
  ratedMatch.addEventListener("change", () => {
    if (ratedMatch.checked && !matchClock.value) matchClock.value = RATED_CLOCK;
  });
  const quick = h(
    "form",
    { class: "quick" },
    h("h2", {}, "Quick match"),
    h("div", { class: "row" }, field("Kind", matchKind), field("Clock", matchClock), ratedMatchField, h("button", { type: "submit", class: "primary" }, "Quick match")),
  );
  quick.addEventListener("submit", (e) => {
    e.preventDefault();
    const rated = ratedMatch.checked;
    if (rated && !matchClock.value) {
      matchClock.focus();
      return showError("A rated match needs a clock: choose one");
    }
    localStorage.setItem(MATCH_KIND_KEY, matchKind.value);
    localStorage.setItem(MATCH_CLOCK_KEY, matchClock.value);
    const terms = { kind: matchKind.value as Kind, rated, name: name.value.trim(), clock: clockOf(matchClock.value) ?? null };
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
    const res = await ok(
      api.GET("/v1/kinds/{kind}/leaderboard", { params: { path: { kind: boardKind.value as Kind }, query: { limit: 10, provisional: true } } }),
    );
    // Ranked players first; then those whose rating has not settled yet, marked `?`.
    board.replaceChildren(
      ...res.items.map((row) =>
        h(
          "li",
          { class: row.provisional ? "provisional" : null },
          h("a", { href: `/play/players/${encodeURIComponent(row.player)}`, "data-link": "" }, row.name),
          h(
            "small",
            {},
            ` ${Math.round(row.rating)}${row.provisional ? "?" : ""} · ${ratedGames(row.games)}`,
            row.provisional ? h("span", { class: "muted" }, " · provisional") : "",
          ),
        ),
      ),
    );
    if (res.items.length === 0) board.append(h("li", { class: "empty" }, "No rated games yet: play one, and its players are listed here."));
    else if (res.items.every((r) => r.provisional)) board.append(h("li", { class: "empty" }, "A rating marked ? is provisional: it settles after about 14 rated games."));
  };
  boardKind.addEventListener("change", () => {
    localStorage.setItem(BOARD_KIND_KEY, boardKind.value);
    void loadBoard().catch(showError);
  });

  const mine = heldGames();
  const yours = h("ul", { class: "games", "aria-label": "Your games" });
  // A list that fails to load leaves the rest of the lobby usable.
  const tournaments = await tournamentsCard().catch((e: unknown) => {
    showError(e);
    return "";
  });
  main.replaceChildren(
    you,
    challengesCard(),
    h("section", { class: "card" }, form),
    h("section", { class: "card" }, quick),
    h("section", { class: "card" }, h("h2", {}, "Open games"), field("Show", filter), list, pager),
    tournaments,
    mine.length ? h("section", { class: "card" }, h("h2", {}, "Your games"), yours) : "",
    h("section", { class: "card" }, h("h2", {}, "Leaderboard"), field("Leaderboard kind", boardKind), board),
    h(
      "section",
      { class: "card" },
      h("h2", {}, "Study"),
      h("p", {}, h("a", { href: "/play/position", "data-link": "" }, "A position"), ": paste a line of moves, see the position and its analysis; no game is made."),
    ),
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

export async function createFromQuery(q: URLSearchParams): Promise<void> {
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
    // Back to the form, as it was filled, with the reason.
    history.replaceState(null, "", "/play");
    await showLobby(q);
    status.textContent = "The game could not be created";
    throw e;
  }
  saveName(name);
  const invite = grant.invite ?? undefined;
  holdSeat(grant.game.id, { seat: grant.seat, token: grant.token, hotseat: opponent === "hotseat", invite });
  navigate(`/play/games/${grant.game.id}${invite ? `#invite=${encodeURIComponent(invite)}` : ""}`, true);
}

