// The page's frame: its main area, its one status line and its error box,
// the view shown now (left by `navigate`), and copying to the clipboard.
import { ApiFailure } from "./api.js";

export const main = document.getElementById("app") as HTMLElement;
export const status = document.getElementById("status") as HTMLElement;
const errorBox = document.getElementById("error") as HTMLElement;

/** Leaving the current view: closes its event streams and timers. */
let leaving: (() => void)[] = [];

/** Adds to what leaving the view shown now must do. */
export function onLeave(leave: () => void): void {
  leaving.push(leave);
}

/** Leaves the view shown now and clears the frame. */
export function leaveView(): void {
  for (const leave of leaving) leave();
  leaving = [];
  clearError();
  main.replaceChildren();
  status.textContent = "";
}

export function showError(e: unknown): void {
  const text = e instanceof ApiFailure || e instanceof Error ? e.message : String(e);
  // Problem details quote field names in backticks: plain text here.
  errorBox.textContent = text.replaceAll("`", "");
  errorBox.hidden = false;
}

export function clearError(): void {
  errorBox.hidden = true;
  errorBox.textContent = "";
}

let router: () => Promise<void> = async () => {};

/** Sets what draws the view of the address (the router, in play.ts). */
export function onNavigate(route: () => Promise<void>): void {
  router = route;
}

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  void router();
}

/** Copies `text`, and says so in the status line (`done`) for a few
 * seconds; then the line says again what it said (unless a view has
 * written it since). */
export async function copy(text: string, done = "Copied"): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    showError("This browser did not let the page copy: select the text and copy it yourself");
    return false;
  }
  const before = status.textContent;
  status.textContent = done;
  window.setTimeout(() => {
    if (status.textContent === done) status.textContent = before;
  }, SAID_FOR_MS);
  return true;
}

/** How long "Copied" stays in the status line. */
const SAID_FOR_MS = 4000;

