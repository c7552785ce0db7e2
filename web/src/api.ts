// The service, through the client generated from the committed spec
// (clients/typescript: openapi-typescript types + openapi-fetch). A change of
// the spec that this page does not follow fails `npm run typecheck`.
import createClient from "openapi-fetch";
import { type components, type paths } from "../../clients/typescript/src/schema.js";

export type Schemas = components["schemas"];
export type Game = Schemas["Game"];
export type Kind = Schemas["Kind"];
export type Move = Schemas["MoveBody"];
export type MoveRecord = Schemas["MoveRecordView"];
export type Problem = Schemas["Problem"];
export type Side = Schemas["Side"];
export type Level = Schemas["BotLevel"];
export type KindInfo = Schemas["KindInfo"];
export type GameEvent = Schemas["GameEvent"];

export const api = createClient<paths>({ baseUrl: location.origin });

/** The `Authorization` header of a seat token. */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** A failed call: the problem's `detail` is what the page shows. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem> | undefined,
    retryAfter: string | null = null,
  ) {
    super(status === 429 ? tooMany(retryAfter) : (problem?.detail ?? `the service answered ${status}`));
  }
}

/** A rate limit in words, with the wait `Retry-After` (seconds) asks for. */
function tooMany(retryAfter: string | null): string {
  const s = Number(retryAfter);
  if (!retryAfter || !Number.isFinite(s)) return "Too many requests from this address: please wait a little and try again.";
  const wait = s < 90 ? `${Math.max(1, Math.round(s))} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return `Too many requests from this address: try again in ${wait}.`;
}

/** The body of a successful answer, or an `ApiFailure` with the problem. */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Exclude<T, undefined>> {
  let result;
  try {
    result = await call;
  } catch {
    throw new ApiFailure(0, { detail: "the service cannot be reached; check your connection" });
  }
  // A body is what the page asks for (it never sends `Prefer: return=minimal`,
  // whose 204 has none): an answer without one is a failure too.
  if (result.data === undefined) {
    const { status, headers } = result.response;
    throw new ApiFailure(status, result.error as Partial<Problem> | undefined, headers.get("retry-after"));
  }
  return result.data as Exclude<T, undefined>;
}

/** Deletes a game with a seat's token: null once it is gone (a 404 too:
 * gone already), else the failure. */
export async function deleteGame(id: string, token: string): Promise<ApiFailure | null> {
  const res = await api.DELETE("/v1/games/{id}", { params: { path: { id } }, headers: bearer(token) }).catch(() => null);
  if (!res) return new ApiFailure(0, undefined);
  if (res.response.ok || res.response.status === 404) return null;
  return new ApiFailure(res.response.status, res.error as Partial<Problem> | undefined);
}

/** What quick match was asked for: the page asks again with it while the game waits. */
export type MatchTerms = { kind: Kind; rated: boolean; name?: string; clock?: Schemas["ClockRequest"] | null };

/** A seat this browser holds: kept in localStorage, per game, never in a URL.
 * `invite`: a private game's invite code, kept by its creator to share the
 * link; `match`: the seat came from quick match. */
export type Held = { seat: Side; token: string; hotseat: boolean; invite?: string | undefined; match?: MatchTerms | undefined };

const KEY = "tabula.seat.";

export function heldSeat(id: string): Held | null {
  try {
    const raw = localStorage.getItem(KEY + id);
    return raw ? (JSON.parse(raw) as Held) : null;
  } catch {
    return null;
  }
}

export function holdSeat(id: string, held: Held): void {
  localStorage.setItem(KEY + id, JSON.stringify(held));
}

export function forgetSeat(id: string): void {
  localStorage.removeItem(KEY + id);
}

/** The ids of the games this browser holds a seat in. */
export function heldGames(): string[] {
  const ids: string[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(KEY)) ids.push(key.slice(KEY.length));
  }
  return ids;
}

/** The player this browser plays as: their id, key and name, kept in localStorage. */
export type Me = { id: string; key: string; name: string };

const ME = "tabula.player";

export function me(): Me | null {
  try {
    const raw = localStorage.getItem(ME);
    return raw ? (JSON.parse(raw) as Me) : null;
  } catch {
    return null;
  }
}

export function setMe(player: Me): void {
  localStorage.setItem(ME, JSON.stringify(player));
}

export function forgetMe(): void {
  localStorage.removeItem(ME);
}

/** The `Authorization` header of this browser's player, if it plays as one. */
export function asMe(): { Authorization: string } | Record<string, never> {
  const player = me();
  return player ? bearer(player.key) : {};
}
