// The package as a project outside this repository gets it: `npm pack`, the
// tarball installed into a fresh project, type-checked there with
// `skipLibCheck: false` (a wrong type must fail to compile: the types are
// not `any`), and, with BASE_URL set, a game played through it.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const ours = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const out = mkdtempSync(join(tmpdir(), "tabula-client-"));
const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const tarball = join(out, npm(["pack", "--silent", "--pack-destination", out], here).trim().split("\n").pop());

const project = join(out, "project");
mkdirSync(join(project, "src"), { recursive: true });
writeFileSync(join(project, "package.json"), JSON.stringify({ name: "outside", private: true, type: "module" }));
// Installed without a build: dist/ is in the tarball, and npm has no script
// of the package to run (a `prepare` would warn, or fail, outside the repository).
const installed = execFileSync(
  "npm",
  ["install", "--foreground-scripts", tarball, `typescript@${ours.devDependencies.typescript}`, `@types/node@${ours.devDependencies["@types/node"]}`],
  { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
);
const packed = JSON.parse(readFileSync(join(project, "node_modules", "@tabula", "client", "package.json"), "utf8"));
const lifecycle = ["preinstall", "install", "postinstall", "prepare"].filter((s) => packed.scripts?.[s]);
if (lifecycle.length || /@tabula\/client@[^ ]* (prepare|install|postinstall)/.test(installed)) {
  console.error(`installing the package runs ${lifecycle.join(", ")}: it must install as packed\n${installed}`);
  process.exit(1);
}
const tsconfig = (files) => ({
  compilerOptions: {
    target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"],
    types: ["node"], strict: true, skipLibCheck: false, outDir: "out", rootDir: "src",
  },
  files,
});
writeFileSync(
  join(project, "src", "play.ts"),
  `import { bearer, createTabulaClient, must, type Game } from "@tabula/client";

const base = process.env.BASE_URL;
if (base) {
  const client = createTabulaClient(base);
  const created = await client.POST("/v1/games", { body: { kind: "connect_four", hotseat: true } });
  if (!created.data) throw new Error("not created: " + JSON.stringify(created.error));
  const { game, token } = created.data;
  const played = await client.POST("/v1/games/{id}/moves", {
    params: { path: { id: game.id } },
    headers: bearer(token),
    body: { column: 3 },
  });
  // must(): the data of a checked answer is defined, as the type says.
  const after: Game = must(played).game;
  if (after.ply !== 1 || after.turn !== "O") throw new Error("unexpected: " + JSON.stringify(played));
  console.log("played through the installed package: ply", after.ply, "turn", after.turn);
}
`,
);
writeFileSync(
  join(project, "src", "wrong.ts"),
  `import { createTabulaClient } from "@tabula/client";

const client = createTabulaClient("http://127.0.0.1:8080");
const { data } = await client.GET("/v1/games/{id}", { params: { path: { id: "x" } } });
export const version: string | undefined = data?.version;
`,
);
const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig(["src/play.ts"])));
execFileSync(process.execPath, [tsc, "-p", project], { stdio: "inherit" });
writeFileSync(join(project, "tsconfig.wrong.json"), JSON.stringify({ ...tsconfig(["src/wrong.ts"]), compilerOptions: { ...tsconfig([]).compilerOptions, noEmit: true } }));
let refused = "";
try {
  execFileSync(process.execPath, [tsc, "-p", join(project, "tsconfig.wrong.json")], { encoding: "utf8", stdio: "pipe" });
} catch (e) {
  refused = String(e.stdout);
}
if (!refused.includes("TS2322")) {
  console.error("a number assigned to a string compiled: the package's types do not reach its users\n" + refused);
  process.exit(1);
}
console.log(`${tarball.split("/").pop()}: installed outside the repository, type-checked with skipLibCheck: false (a wrong type refused, TS2322)`);
execFileSync(process.execPath, [join(project, "out", "play.js")], { stdio: "inherit", env: process.env });
