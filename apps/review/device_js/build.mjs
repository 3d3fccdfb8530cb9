// Concatenate the review page's device scripts, in the order they depend on each other, and
// minify them into one file (the page-weight budget counts what the browser parses). The first
// line names the sources' SHA-256, checked by tests/review/test_device_bundle.py.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { transform } from "esbuild";

const root = new URL("../../../static/js/", import.meta.url);
export const SOURCES = ["sm2.js", "device-store.js", "review-sync.js", "review-render.js",
  "review-queue.js", "install.js"];
const hash = createHash("sha256");
const parts = SOURCES.map((name) => {
  const text = readFileSync(new URL(name, root), "utf8");
  hash.update(text);
  return text;
});
const { code } = await transform(parts.join("\n;\n"), { minify: true, target: "es2019" });
const out = `/* review-device: ${SOURCES.join(" ")} sha256:${hash.digest("hex")} */\n${code}`;
writeFileSync(new URL("review-device.min.js", root), out);
console.log(`static/js/review-device.min.js: ${out.length} bytes`);
