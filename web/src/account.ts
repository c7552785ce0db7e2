// Who plays in this browser: the name last used, its player (a key kept
// here), and the seats quick match and joining give it.
import { api, ApiFailure, asMe, bearer, type Held, heldSeat, holdSeat, type Kind, type MatchTerms, me, ok, type Schemas, setMe } from "./api.js";
import { button, h } from "./dom.js";
import { copy, navigate } from "./shell.js";
import { key, KINDS, nextId } from "./ui.js";

/** Where this browser keeps the leaderboard's kind chosen last, and quick match's. */
export const BOARD_KIND_KEY = "tabula.leaderboard-kind";
export const MATCH_KIND_KEY = "tabula.match-kind";
/** The clock quick match was asked for last in this browser. */
export const MATCH_CLOCK_KEY = "tabula.match-clock";

/** The kind kept under `key` in this browser, if any. */
export function chosenKind(key: string): Kind | null {
  const chosen = localStorage.getItem(key) as Kind | null;
  return chosen && KINDS.includes(chosen) ? chosen : null;
}

/** The kind this browser's player has played most rated games of; else Connect Four. */
export async function mostPlayedKind(): Promise<Kind> {
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
export function savedName(): string {
  return localStorage.getItem(NAME_KEY) ?? me()?.name ?? "";
}
export function saveName(name: string | null | undefined): void {
  if (name) localStorage.setItem(NAME_KEY, name);
}

/** This browser's player: the one kept, or a new one named `name` (shown
 * once: its key stays here). Without a name, `field` (where it is typed)
 * takes the focus and the error says why a name is needed. */
export async function ensurePlayer(name: string, field?: HTMLInputElement | null, why = "it is your player's name"): Promise<void> {
  if (me()) return;
  if (!name) {
    field?.focus();
    throw new Error(`Enter your name first: ${why}`);
  }
  const created = await ok(api.POST("/v1/players", { body: { name } }));
  setMe({ id: created.player.id, key: created.key, name: created.player.name });
  saveName(name);
  showNewKey(created.player.name, created.key);
}

/** A new player's key, shown as it is made: the only copy is in this
 * browser, so the person is asked to keep it (copied, or saved as a file)
 * before going on. */
export function showNewKey(name: string, playerKey: string): void {
  document.querySelector(".new-key")?.remove();
  const title = nextId();
  const field = h("input", { readonly: "", value: playerKey, class: "link", "aria-label": "Player key" });
  const download = () => {
    const url = URL.createObjectURL(new Blob([`Tabula player key of ${name}\n${playerKey}\n`], { type: "text/plain" }));
    const a = h("a", { href: url, download: `tabula-key-${name.replace(/[^\p{L}\p{N}_-]+/gu, "_")}.txt` });
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const box = h(
    "div",
    { class: "overlay new-key" },
    h(
      "div",
      { role: "dialog", "aria-modal": "true", "aria-labelledby": title, class: "card dialog-card" },
      h("h2", { id: title }, "Keep your player key"),
      h(
        "p",
        {},
        `You now play as ${name}. This key is ${name}: with it you sign in on another device or after this browser forgets its data. `,
        "Only this browser keeps it: copy it, or save it as a file.",
      ),
      h("div", { class: "row key" }, field, button("Copy", () => void copy(playerKey, "Copied the key"))),
      h(
        "div",
        { class: "row" },
        button("Download key", download),
        button("I have kept it", () => box.remove(), { class: "primary" }),
      ),
    ),
  );
  box.addEventListener("keydown", (e) => {
    if (e.key === "Escape") box.remove();
  });
  document.body.append(box);
  field.focus();
  field.select();
}

/** Plays as the player whose key this is, from now on in this browser. */
export async function signInWith(playerKey: string): Promise<void> {
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

/** Asks quick match for a seat on `terms` (as the seat `held`, when asking
 * again); the caller keeps the seat given (`holdMatched`). */
export async function askForMatch(terms: MatchTerms, held?: Held): Promise<Schemas["SeatGrant"]> {
  // The same caller as before: its player, else the seat's token (quick
  // match then gives its own waiting game back rather than a new one).
  const caller = me() ? asMe() : held ? bearer(held.token) : {};
  const grant = await ok(
    api.POST("/v1/matches", {
      body: {
        kind: terms.kind,
        ...(terms.name ? { name: terms.name } : {}),
        ...(terms.rated ? { rated: true } : {}),
        ...(terms.clock ? { clock: terms.clock } : {}),
      },
      headers: { "Idempotency-Key": key(), ...caller },
    }),
  );
  saveName(terms.name);
  return grant;
}

/** Keeps the seat quick match gave. */
export function holdMatched(grant: Schemas["SeatGrant"], terms: MatchTerms): void {
  holdSeat(grant.game.id, { seat: grant.seat, token: grant.token, hotseat: false, match: terms });
}

export async function join(id: string, rated = false, typed = "", field?: HTMLInputElement): Promise<void> {
  if (heldSeat(id)) return navigate(`/play/games/${id}`);
  const name = typed || savedName();
  if (rated) await ensurePlayer(name, field, "a rated game is between players: your name makes you one");
  const grant = await ok(api.POST("/v1/games/{id}/join", { params: { path: { id } }, body: name ? { name } : {}, headers: asMe() }));
  holdSeat(id, { seat: grant.seat, token: grant.token, hotseat: false });
  navigate(`/play/games/${id}`);
}

