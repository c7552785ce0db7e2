// The page at /play: a lobby, and games played live. Addresses (the
// contract's "Browsers"): /play, /play/games/{id}, /play/new?kind=…,
// /play/players/{id}, /play/tournaments/{id}, /play/position?kind=…&moves=….
// This file routes an
// address to its view: `lobby.ts` (the lobby, /play/new), `game.ts` (a
// game), `player.ts` (a player), `tournament.ts` (a tournament, and the
// lobby's card of them), `position.ts` (a position without a game);
// `shell.ts` is the frame they share.
import { showGame } from "./game.js";
import { createFromQuery, showLobby } from "./lobby.js";
import { showPlayer } from "./player.js";
import { showPosition } from "./position.js";
import { leaveView, navigate, onNavigate, showError } from "./shell.js";
import { showTournament } from "./tournament.js";

async function route(): Promise<void> {
  leaveView();
  const path = location.pathname.replace(/\/+$/, "");
  const game = /^\/play\/games\/([^/]+)$/.exec(path);
  const player = /^\/play\/players\/([^/]+)$/.exec(path);
  const tournament = /^\/play\/tournaments\/([^/]+)$/.exec(path);
  try {
    if (game?.[1]) await showGame(decodeURIComponent(game[1]));
    else if (player?.[1]) await showPlayer(decodeURIComponent(player[1]));
    else if (tournament?.[1]) await showTournament(decodeURIComponent(tournament[1]));
    else if (path === "/play/new") await createFromQuery(new URLSearchParams(location.search));
    else if (path === "/play/position") await showPosition(new URLSearchParams(location.search));
    else await showLobby();
  } catch (e) {
    showError(e);
  }
}

onNavigate(route);
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
