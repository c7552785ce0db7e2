// Tournaments on the page: the lobby's list of open and running ones and
// its form to create one; and a tournament's page, /play/tournaments/{id}:
// its status and countdown, Join / Withdraw, the creator's Start and bots,
// the standings, the current round's pairings, and the way to one's game.
import { ensurePlayer, savedName } from "./account.js";
import { api, asMe, holdSeat, type Kind, type Level, me, ok, type Schemas } from "./api.js";
import { KIND_NAMES } from "./board.js";
import { button, h } from "./dom.js";
import { main, navigate, onLeave, showError, status } from "./shell.js";
import { CLOCKS, clockOf, field, KINDS, LEVELS, select } from "./ui.js";

type Tournament = Schemas["Tournament"];
type System = Schemas["TournamentSystem"];

const SYSTEM_NAMES: Record<System, string> = { swiss: "Swiss", round_robin: "Round robin", arena: "Arena" };

/** One line about a tournament: kind, system, entrants, status. */
function summary(t: Tournament): string {
  const size = t.system === "swiss" ? `, ${t.rounds} rounds` : t.system === "arena" ? `, ${Math.round((t.duration_ms ?? 0) / 60000)} min` : "";
  return `${KIND_NAMES[t.kind]} · ${SYSTEM_NAMES[t.system]}${size} · ${t.entrants} entrant${t.entrants === 1 ? "" : "s"} · ${t.status}`;
}

/** The lobby's card: open and running tournaments, and a form for a new one. */
export async function tournamentsCard(): Promise<HTMLElement> {
  const list = h("ul", { class: "games", "aria-label": "Tournaments" });
  const [open, running] = await Promise.all(
    (["open", "running"] as const).map((s) => ok(api.GET("/v1/tournaments", { params: { query: { status: s, limit: 10 } } }))),
  );
  const items = [...(open?.items ?? []), ...(running?.items ?? [])];
  list.replaceChildren(
    ...items.map((t) => h("li", {}, h("a", { href: `/play/tournaments/${t.id}`, "data-link": "" }, t.name), h("small", {}, ` ${summary(t)}`))),
  );
  if (!items.length) list.append(h("li", { class: "empty" }, "No tournaments now. Create one!"));

  const name = h("input", { name: "tournament", type: "text", maxlength: "32", required: "", value: "" });
  const kind = select("tournament-kind", KINDS.map((k) => [k, KIND_NAMES[k]]), "connect_four");
  const system = select("system", (Object.keys(SYSTEM_NAMES) as System[]).map((s) => [s, SYSTEM_NAMES[s]]), "swiss");
  const rounds = h("input", { name: "rounds", type: "number", min: "1", max: "30", value: "5" });
  const minutes = h("input", { name: "minutes", type: "number", min: "1", max: "1440", value: "30" });
  const clock = select("tournament-clock", CLOCKS.filter(([v]) => v !== ""), "3+2");
  const roundsField = field("Rounds", rounds);
  const minutesField = field("Minutes", minutes);
  const sync = () => {
    roundsField.hidden = system.value !== "swiss";
    minutesField.hidden = system.value !== "arena";
  };
  system.addEventListener("change", sync);
  sync();
  const form = h(
    "form",
    { class: "create" },
    h("div", { class: "row" }, field("Tournament name", name), field("System", system)),
    h("div", { class: "row" }, field("Tournament game", kind), field("Tournament clock", clock)),
    h("div", { class: "row" }, roundsField, minutesField),
    h("button", { type: "submit", class: "primary" }, "Create tournament"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void (async () => {
      await ensurePlayer(savedName(), null, "a tournament is created by a player: enter your name above first");
      const body: Schemas["CreateTournament"] = {
        name: name.value.trim(),
        kind: kind.value as Kind,
        system: system.value as System,
        clock: clockOf(clock.value) ?? null,
      };
      if (body.system === "swiss") body.rounds = Number(rounds.value);
      if (body.system === "arena") body.duration_ms = Number(minutes.value) * 60000;
      const t = await ok(api.POST("/v1/tournaments", { body, headers: asMe() }));
      navigate(`/play/tournaments/${t.id}`);
    })().catch(showError);
  });
  return h("section", { class: "card" }, h("h2", {}, "Tournaments"), list, h("h3", {}, "New tournament"), form);
}

/** "in 3:05" / "3:05 ago" until or since `when`. */
function countdown(when: string): string {
  const ms = Date.parse(when) - Date.now();
  const s = Math.max(0, Math.round(Math.abs(ms) / 1000));
  const text = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** A tournament's page. */
export async function showTournament(id: string): Promise<void> {
  let t: Tournament;
  try {
    t = await ok(api.GET("/v1/tournaments/{id}", { params: { path: { id } } }));
  } catch (e) {
    status.textContent = "No such tournament";
    main.replaceChildren(h("section", { class: "card" }, h("p", {}, "This tournament does not exist."), h("a", { href: "/play", "data-link": "" }, "Lobby")));
    throw e;
  }
  const head = h("p", { class: "info" });
  const actions = h("div", { class: "row actions" });
  const standings = h("table", { class: "standings", "aria-label": "Standings" });
  const pairings = h("ul", { class: "games", "aria-label": "Pairings" });
  const yours = h("p", {});
  const pairingsTitle = h("h2", {}, "Pairings");
  main.replaceChildren(
    h("section", { class: "card" }, h("h2", {}, t.name), head, actions, yours),
    h("section", { class: "card" }, h("h2", {}, "Standings"), h("div", { class: "scroll" }, standings)),
    h("section", { class: "card" }, pairingsTitle, pairings),
  );
  // The games this browser has already been taken to (once each).
  const TAKEN = "tabula.taken.";
  let timer = 0;

  const draw = async () => {
    t = await ok(api.GET("/v1/tournaments/{id}", { params: { path: { id } } }));
    document.title = `Tabula: ${t.name}`;
    const player = me();
    const table = await ok(api.GET("/v1/tournaments/{id}/standings", { params: { path: { id } } }));
    const mine = player ? table.items.find((l) => l.player.id === player.id) : undefined;
    const when =
      t.status === "open"
        ? t.starts_at
          ? `starts ${countdown(t.starts_at)}`
          : "starts when its creator starts it"
        : t.status === "running"
          ? t.system === "arena" && t.ends_at
            ? `ends ${countdown(t.ends_at)}`
            : `round ${t.round} of ${t.rounds ?? "?"}`
          : "";
    status.textContent = `${t.name}: ${t.status}${when ? `, ${when}` : ""}`;
    head.textContent = summary(t);
    const entered = !!mine && !mine.withdrawn;
    const canEnter = t.status === "open" || (t.status === "running" && t.system !== "round_robin");
    const creator = player?.id === t.creator;
    const level = select("bot-level", LEVELS.map((l): [string, string] => [l, l]), "easy");
    actions.replaceChildren(
      canEnter && !entered
        ? button("Join", () =>
            void (async () => {
              await ensurePlayer(savedName(), null, "entrants are players: enter your name in the lobby first");
              await ok(api.POST("/v1/tournaments/{id}/entrants", { params: { path: { id } }, headers: asMe() }));
              await draw();
            })().catch(showError),
          )
        : "",
      entered && (t.status === "open" || t.status === "running")
        ? button("Withdraw", () =>
            void (async () => {
              const res = await api.DELETE("/v1/tournaments/{id}/entrants/{player}", {
                params: { path: { id, player: player?.id ?? "" } },
                headers: asMe(),
              });
              if (!res.response.ok) throw new Error("The service did not take the withdrawal: try again");
              await draw();
            })().catch(showError),
          )
        : "",
      creator && t.status === "open"
        ? button("Start", () =>
            void (async () => {
              await ok(api.POST("/v1/tournaments/{id}/start", { params: { path: { id } }, headers: asMe() }));
              await draw();
            })().catch(showError),
          )
        : "",
      creator && canEnter ? field("Bot level", level) : "",
      creator && canEnter
        ? button("Add a bot", () =>
            void (async () => {
              await ok(
                api.POST("/v1/tournaments/{id}/entrants", {
                  params: { path: { id } },
                  body: { bot: { level: level.value as Level } },
                  headers: asMe(),
                }),
              );
              await draw();
            })().catch(showError),
          )
        : "",
    );
    const arena = t.system === "arena";
    standings.replaceChildren(
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Points"), h("th", { scope: "col" }, "Tie-breaks")),
      ),
      h(
        "tbody",
        {},
        ...table.items.map((l) => {
          const tb = l.tiebreaks;
          const breaks = arena
            ? tb.performance !== undefined
              ? `perf. ${tb.performance}`
              : ""
            : t.system === "swiss"
              ? `BH-1 ${tb.buchholz_cut1 ?? 0} · BH ${tb.buchholz ?? 0} · SB ${tb.sonneborn_berger ?? 0}`
              : `SB ${tb.sonneborn_berger ?? 0} · wins ${tb.wins ?? 0}`;
          // The service's bots are named so already ("Bot (easy)").
          const bot = l.player.bot && !l.player.name.startsWith("Bot") ? " (bot)" : "";
          const name = `${l.player.name}${bot}${l.withdrawn ? " (withdrawn)" : ""}${l.on_fire ? " 🔥" : ""}`;
          return h(
            "tr",
            { class: l.player.id === player?.id ? "you" : "" },
            h("td", {}, String(l.rank)),
            h("td", {}, h("a", { href: `/play/players/${encodeURIComponent(l.player.id)}`, "data-link": "" }, name)),
            h("td", {}, String(l.points)),
            h("td", {}, breaks),
          );
        }),
      ),
    );
    // The current round's boards (an arena: its games, latest first).
    const games = await ok(api.GET("/v1/tournaments/{id}/games", { params: { path: { id }, query: { limit: 20 } } }));
    const current = arena ? games.items : games.items.filter((g) => g.tournament?.round === t.round);
    pairingsTitle.textContent = arena ? "Games" : t.round ? `Round ${t.round}` : "Pairings";
    pairings.replaceChildren(
      ...current.map((g) => {
        const result = g.status === "in_progress" ? "playing" : g.status === "won" ? `${g.winner} won` : g.status;
        return h("li", {}, h("a", { href: `/play/games/${g.id}`, "data-link": "" }, `${g.seats.X.name ?? "X"} – ${g.seats.O.name ?? "O"}`), h("small", {}, ` ${result}`));
      }),
    );
    if (!current.length) pairings.append(h("li", { class: "empty" }, t.status === "open" ? "Not paired yet." : "No games in this round."));
    // An entrant is taken to its new game once; then a link leads to it.
    const game = player ? games.items.find((g) => g.status === "in_progress" && (g.seats.X.player === player.id || g.seats.O.player === player.id)) : undefined;
    if (game && player) {
      const seat = game.seats.X.player === player.id ? "X" : "O";
      // The player's key plays the seat: the game's page takes it as the seat's token.
      holdSeat(game.id, { seat, token: player.key, hotseat: false });
      yours.replaceChildren(h("a", { href: `/play/games/${game.id}`, "data-link": "", class: "primary" }, "Your game"));
      if (!sessionStorage.getItem(TAKEN + game.id)) {
        sessionStorage.setItem(TAKEN + game.id, "1");
        navigate(`/play/games/${game.id}`);
        return;
      }
    } else {
      yours.replaceChildren(entered ? "You are entered: you will be taken to your game when you are paired." : "");
    }
  };
  await draw();
  // Follow the tournament: every change redraws; the countdown ticks.
  const events = new EventSource(`/v1/tournaments/${id}/events`);
  events.onmessage = () => void draw().catch(showError);
  for (const name of ["entrant", "withdrawn", "round", "game_start", "game_end", "standings", "finished"]) {
    events.addEventListener(name, () => void draw().catch(showError));
  }
  timer = window.setInterval(() => {
    if (t.status === "open" || t.status === "running") void draw().catch(() => {});
  }, 15000);
  onLeave(() => {
    events.close();
    window.clearInterval(timer);
  });
}
