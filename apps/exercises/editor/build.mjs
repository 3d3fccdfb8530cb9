// Bundles src/editor.js (CodeMirror 6) into the app's static files, with the licences of
// everything bundled beside it. Run by `make editor`; the output is committed.
import { build } from "esbuild";
import { readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const out = "../static/exercises";
const result = await build({
  entryPoints: ["src/editor.js"],
  bundle: true,
  minify: process.env.MINIFY !== "0",
  format: "iife",
  target: ["es2020"],
  outfile: `${out}/editor.js`,
  metafile: true,
  legalComments: "none",
  banner: { js: "/* RayDeck exercise editor: CodeMirror 6 (MIT). Licences: editor.LICENSES.txt */" },
});

const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (match) packages.add(match[1]);
}
const parts = [];
for (const name of [...packages].sort()) {
  const dir = join("node_modules", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  const text = file && existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : `License: ${pkg.license}`;
  parts.push(`${name} ${pkg.version} (${pkg.license})\n${"-".repeat(72)}\n${text.trim()}\n`);
}
writeFileSync(`${out}/editor.LICENSES.txt`, `Third-party code bundled in editor.js\n\n${parts.join("\n")}`);
console.log(`editor.js: ${packages.size} packages bundled`);
