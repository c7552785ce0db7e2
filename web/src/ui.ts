// Small shared pieces: labelled fields, the kinds and levels, and how
// games, clocks and times are told in words.
import { api, type Game, type Kind, type KindInfo, type Level, ok, type Schemas, type Side } from "./api.js";
import { KIND_NAMES } from "./board.js";
import { h } from "./dom.js";

export const LEVELS: Level[] = ["random", "easy", "medium", "hard", "perfect"];
export const KINDS = Object.keys(KIND_NAMES) as Kind[];

export let kindsCache: KindInfo[] | null = null;

export async function kinds(): Promise<KindInfo[]> {
  kindsCache ??= (await ok(api.GET("/v1/kinds"))).items;
  return kindsCache;
}

let fields = 0;

/** A new id for a control that a label names. */
export function nextId(): string {
  return `field-${++fields}`;
}

/** A labelled control (the label names it exactly, for assistive tools). */
export function field(label: string, control: HTMLElement): HTMLElement {
  control.id ||= `field-${++fields}`;
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

export function select(name: string, options: [string, string][], value: string): HTMLSelectElement {
  const s = h("select", { name });
  for (const [v, text] of options) s.append(h("option", { value: v, selected: v === value ? "" : null }, text));
  return s;
}

export function statusWord(g: Game): string {
  if (g.status === "waiting") return "waiting for an opponent";
  if (g.status === "in_progress") return `${g.turn} to move`;
  if (g.status === "draw") return "draw";
  return `${g.winner} won`;
}

/** A game's clock as the lobby tells it (` · 10 min + 5 s`), or "". */
export function clockText(g: Game): string {
  const c = g.clock;
  if (!c) return "";
  const span = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);
  if (c.per_move_ms !== undefined) return ` · ${span(c.per_move_ms)} a move`;
  if (c.initial_ms === undefined) return "";
  return ` · ${span(c.initial_ms)}${c.increment_ms ? ` + ${Math.round(c.increment_ms / 1000)} s` : ""}`;
}

export function creator(g: Game): string {
  const by = g.seats.X.name ?? g.seats.O.name;
  return by ? ` · ${by}` : "";
}

export const CLOCKS: [string, string][] = [
  ["", "No clock"],
  ["1+0", "1 min"],
  ["3+2", "3 min + 2 s"],
  ["5+0", "5 min"],
  ["10+5", "10 min + 5 s"],
  ["m30", "30 s a move"],
  ["m60", "1 min a move"],
];

/** The clock of a rated game when none was chosen, and of every rated quick match. */
export const RATED_CLOCK = "10+5";

/** A clock choice (`5+3`: minutes and increment seconds; `m30`: per move) as the API's. */
export function clockOf(choice: string | null): { initial_ms: number; increment_ms: number } | { per_move_ms: number } | undefined {
  if (!choice) return undefined;
  const perMove = /^m(\d+)$/.exec(choice);
  if (perMove) return { per_move_ms: Number(perMove[1]) * 1000 };
  const fischer = /^(\d+)\+(\d+)$/.exec(choice);
  if (fischer) return { initial_ms: Number(fischer[1]) * 60_000, increment_ms: Number(fischer[2]) * 1000 };
  return undefined;
}

export function levelsOf(info: KindInfo[], kind: Kind): Level[] {
  return info.find((k) => k.kind === kind)?.levels ?? LEVELS;
}

export function openSeat(g: Game): Side | null {
  return !g.seats.X.taken ? "X" : !g.seats.O.taken ? "O" : null;
}

/** "1 rated game", "18 rated games". */
export function ratedGames(n: number): string {
  return `${n} rated game${n === 1 ? "" : "s"}`;
}

export function ago(when: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(when)) / 1000));
  return s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

/** What an offer asks for, in words. */
export function offerWhat(type: Schemas["OfferType"]): string {
  return type === "draw" ? "a draw" : type === "takeback" ? "to take back a move" : type === "rematch" ? "a rematch" : "a new round";
}

const SOUND_KEY = "tabula.sound";

/** Whether the page plays its sounds (a move of the other side, an offer,
 * a join): on unless turned off, remembered in this browser. */
export function soundOn(): boolean {
  return localStorage.getItem(SOUND_KEY) !== "off";
}

export function toggleSound(on: boolean): void {
  localStorage.setItem(SOUND_KEY, on ? "on" : "off");
}

let audio: AudioContext | null = null;

/** A short tone (made here: no file to load): `move` low, `offer` and
 * `join` two notes. Nothing when sound is off or the browser has none. */
export function chime(what: "move" | "offer" | "join"): void {
  if (!soundOn() || typeof AudioContext === "undefined") return;
  try {
    audio ??= new AudioContext();
    const notes = what === "move" ? [440] : what === "offer" ? [660, 880] : [523, 784];
    notes.forEach((f, i) => {
      const ctx = audio as AudioContext;
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      const t = ctx.currentTime + i * 0.12;
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.08, t);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.15);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + 0.16);
    });
    document.body.dataset.chimed = `${what} ${Date.now()}`;
  } catch {
    // No sound: nothing to tell.
  }
}

export function key(): string {
  return Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 10)).join("");
}

