// Challenges on the page: a signed-in person challenges a player from the
// player's page, and answers the challenges they receive in the lobby.
import { api, asMe, type Game, holdSeat, type Kind, me, ok, type Schemas, type Side } from "./api.js";
import { KIND_NAMES } from "./board.js";
import { button, h } from "./dom.js";
import { clearError, navigate, onLeave, showError } from "./shell.js";
import { clockOf, CLOCKS, field, KINDS, nextId, RATED_CLOCK, select } from "./ui.js";

type Challenge = Schemas["Challenge"];

/** How often a challenge waiting for an answer, and the lobby's list, are read again. */
const POLL_MS = 2000;

const REASONS: Record<string, string> = {
  generic: "declined",
  later: "not now",
  too_fast: "the clock is too fast",
  too_slow: "the clock is too slow",
  time_control: "it wants a clock",
  rated: "not rated",
  casual: "only rated",
  kind: "not this game",
  too_many_games: "it plays as many games as it can",
};

/** "Connect Four · 5 min · rated". */
function terms(c: Challenge): string {
  const clock = c.clock ? CLOCKS.find(([v]) => JSON.stringify(clockOf(v)) === JSON.stringify(c.clock))?.[1] ?? "clock" : "no clock";
  return `${KIND_NAMES[c.kind]} · ${clock}${c.rated ? " · rated" : ""}`;
}

/** Opens an accepted challenge's game, holding the seat this player's key plays. */
async function openGame(gameId: string): Promise<void> {
  const player = me();
  if (!player) return;
  const game: Game = await ok(api.GET("/v1/games/{id}", { params: { path: { id: gameId } } }));
  const seat: Side = game.seats.X.player === player.id ? "X" : "O";
  holdSeat(gameId, { seat, token: player.key, hotseat: false });
  navigate(`/play/games/${gameId}`);
}

/** The card on a player's page with which a signed-in person challenges them. */
export function challengeCard(to: { id: string; name: string }): HTMLElement {
  const kind = select("challenge-kind", KINDS.map((k) => [k, KIND_NAMES[k]]), "connect_four");
  const clock = select("challenge-clock", CLOCKS.map(([v, text]) => [v, text]), "");
  const seat = select("challenge-seat", [["random", "Random"], ["X", "X (moves first)"], ["O", "O"]], "random");
  const rated = h("input", { name: "challenge-rated", type: "checkbox" });
  rated.addEventListener("change", () => {
    if (rated.checked && !clock.value) clock.value = RATED_CLOCK;
  });
  const said = h("p", { role: "status", class: "muted" });
  const form = h(
    "form",
    { class: "create" },
    h("h2", {}, `Challenge ${to.name}`),
    h("div", { class: "row" }, field("Game", kind), field("Clock", clock)),
    h(
      "div",
      { class: "row" },
      field("Your seat", seat),
      h("div", { class: "field check" }, rated, h("label", { for: (rated.id ||= nextId()) }, "Rated")),
    ),
    h("button", { type: "submit", class: "primary" }, "Challenge"),
    said,
  );
  let waiting: ReturnType<typeof setInterval> | undefined;
  const stop = () => clearInterval(waiting);
  onLeave(stop);
  const follow = (c: Challenge) => {
    if (c.status === "accepted" && c.game) {
      stop();
      void openGame(c.game).catch(showError);
    } else if (c.status === "declined") {
      stop();
      said.replaceChildren(`${to.name} declined: ${REASONS[c.reason ?? "generic"] ?? c.reason}.`);
    } else if (c.status === "expired" || c.status === "cancelled") {
      stop();
      said.replaceChildren(`The challenge ${c.status === "expired" ? "expired without an answer" : "was cancelled"}.`);
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    stop();
    if (rated.checked && !clock.value) {
      clock.focus();
      return showError("A rated game needs a clock: choose one");
    }
    const body: Schemas["CreateChallenge"] = {
      to: to.id,
      kind: kind.value as Kind,
      seat: seat.value as "X" | "O" | "random",
      rated: rated.checked,
      clock: clockOf(clock.value) ?? null,
    };
    void ok(api.POST("/v1/challenges", { body, headers: asMe() }))
      .then((c) => {
        clearError();
        said.replaceChildren(`Challenge sent: ${terms(c)}. Waiting for ${to.name} to answer…`, " ");
        said.append(
          button("Cancel challenge", () =>
            void api
              .DELETE("/v1/challenges/{id}", { params: { path: { id: c.id } }, headers: asMe() })
              .then(() => (stop(), said.replaceChildren("Challenge cancelled.")))
              .catch(showError),
          ),
        );
        follow(c);
        if (c.status !== "pending") return;
        waiting = setInterval(() => {
          void ok(api.GET("/v1/challenges/{id}", { params: { path: { id: c.id } }, headers: asMe() }))
            .then(follow)
            .catch((e: unknown) => (stop(), showError(e)));
        }, POLL_MS);
      })
      .catch(showError);
  });
  return h("section", { class: "card", "aria-label": "Challenge" }, form);
}

/** The lobby's card of challenges received (with `Accept` and `Decline`) and
 * made (with `Cancel`), shown while any waits. Read again every few seconds
 * while the lobby shows. */
export function challengesCard(): HTMLElement {
  const card = h("section", { class: "card", "aria-label": "Challenges", hidden: "" });
  const list = h("ul", { class: "games", "aria-label": "Challenges waiting" });
  const render = (player: { id: string }, items: Challenge[]) => {
    const now = Date.now();
    const waiting = items.filter((c) => c.status === "pending" && Date.parse(c.expires_at) > now);
    card.hidden = waiting.length === 0;
    list.replaceChildren(
      ...waiting.map((c) => {
        const incoming = c.to.id === player.id;
        const who = incoming ? c.from : c.to;
        const name = h("a", { href: `/play/players/${encodeURIComponent(who.id)}`, "data-link": "" }, who.name);
        const answer = (path: "accept" | "decline") =>
          path === "accept"
            ? ok(api.POST("/v1/challenges/{id}/accept", { params: { path: { id: c.id } }, headers: asMe() })).then((grant) => {
                holdSeat(grant.game.id, { seat: grant.seat, token: grant.token, hotseat: false });
                navigate(`/play/games/${grant.game.id}`);
              })
            : ok(api.POST("/v1/challenges/{id}/decline", { params: { path: { id: c.id } }, body: {}, headers: asMe() })).then(refresh);
        return h(
          "li",
          { class: "challenge" },
          h(
            "span",
            { class: "who" },
            ...(incoming ? [name, " challenges you"] : ["You challenged ", name]),
            h("small", {}, `${terms(c)}${who.bot ? " · bot" : ""}`),
          ),
          ...(incoming
            ? [
                button("Accept", () => void answer("accept").catch(showError)),
                button("Decline", () => void answer("decline").catch(showError)),
              ]
            : [
                button(
                  "Cancel",
                  () =>
                    void api
                      .DELETE("/v1/challenges/{id}", { params: { path: { id: c.id } }, headers: asMe() })
                      .then(refresh)
                      .catch(showError),
                ),
              ]),
        );
      }),
    );
  };
  // The player is read each time: "Play as" in the lobby makes one without
  // drawing the lobby again.
  const refresh = async () => {
    const player = me();
    if (!player) return;
    const res = await ok(api.GET("/v1/challenges", { params: { query: { limit: 20 } }, headers: asMe() }));
    render(player, res.items);
  };
  card.append(h("h2", {}, "Challenges"), list);
  void refresh().catch(showError);
  const timer = setInterval(() => void refresh().catch(() => undefined), POLL_MS);
  onLeave(() => clearInterval(timer));
  return card;
}
