// validate.mjs ROOT...: validates every skill folder (a folder holding a
// SKILL.md) under each ROOT with skills-ref's validate(), the Agent Skills
// reference validator's checks, and prints one JSON line per folder:
// {"dir": "...", "errors": [...]}. Exits 1 when any folder has errors, or
// when a ROOT holds no skill at all.
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { validate } from "skills-ref";

async function skillDirs(root) {
  const out = [];
  for (const e of await fs.readdir(root, { withFileTypes: true })) {
    const p = path.join(root, e.name);
    if (e.isDirectory()) {
      out.push(...(await skillDirs(p)));
    } else if (e.name === "SKILL.md") {
      out.push(root);
    }
  }
  return out.sort();
}

const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error("usage: node validate.mjs ROOT...");
  process.exit(2);
}
let failed = false;
for (const root of roots) {
  const dirs = await skillDirs(root);
  if (dirs.length === 0) {
    console.error(`${root}: no SKILL.md found`);
    failed = true;
  }
  for (const dir of dirs) {
    const errors = await validate(dir);
    if (errors.length > 0) failed = true;
    console.log(JSON.stringify({ dir, errors }));
  }
}
process.exit(failed ? 1 : 0);
