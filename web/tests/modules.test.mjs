// The page's modules import each other without a circle: each names only
// modules below it (the game's modules reach up through the screen's
// `controls`, see src/game-screen.ts). Type-only imports count too.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const src = new URL("../src/", import.meta.url);

/** Each module's local imports: `game.ts` → ["game-actions.ts", …]. */
function imports() {
  const graph = new Map();
  for (const file of readdirSync(src).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(new URL(file, src), "utf8");
    const names = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"\.\/([\w-]+)\.js"/gms)].map((m) => `${m[1]}.ts`);
    graph.set(file, names);
  }
  return graph;
}

/** A circle of imports, as the list of its modules, or null. */
function circle(graph) {
  const state = new Map();
  const path = [];
  const visit = (file) => {
    if (state.get(file) === "done") return null;
    if (state.get(file) === "open") return [...path.slice(path.indexOf(file)), file];
    state.set(file, "open");
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(file, "done");
    return null;
  };
  for (const file of graph.keys()) {
    const found = visit(file);
    if (found) return found;
  }
  return null;
}

test("the page's modules import each other without a circle", () => {
  const graph = imports();
  assert.ok(graph.get("game.ts")?.includes("game-actions.ts"), "the import reader finds game.ts's imports");
  assert.equal(circle(graph)?.join(" → ") ?? null, null);
});

test("a circle is found when there is one", () => {
  const graph = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]]]);
  assert.deepEqual(circle(graph), ["a.ts", "b.ts", "c.ts", "a.ts"]);
});
