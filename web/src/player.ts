// A player's page: whether they are a bot, their ratings by kind and their
// games, newest first; a signed-in person challenges them from it.
import { api, type Kind, me, ok, type Side } from "./api.js";
import { KIND_NAMES } from "./board.js";
import { button, h } from "./dom.js";
import { challengeCard } from "./challenge.js";
import { main, showError, status } from "./shell.js";
import { ago, ratedGames, statusWord } from "./ui.js";

/** A player: their ratings by kind and their games, newest first. */
export async function showPlayer(id: string): Promise<void> {
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
  const you = me();
  main.replaceChildren(
    h(
      "section",
      { class: "card" },
      h("h2", {}, player.name, player.bot ? " " : "", player.bot ? h("span", { class: "badge" }, "bot") : ""),
      player.bot ? h("p", { class: "muted" }, "A bot: its moves come from a program.") : "",
      h("h3", {}, "Ratings"),
      ratingsList,
    ),
    you && you.id !== player.id ? challengeCard(player) : "",
    h("section", { class: "card" }, h("h2", {}, "Games"), gamesList, pager),
    h("p", {}, h("a", { href: "/play", "data-link": "" }, "Lobby")),
  );
  await load(0);
}

