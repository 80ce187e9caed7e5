// check.mjs validates protocol documents with Ajv, an implementation
// independent of the Go validator, so that the two can be compared file by
// file (crosscheck_test.go does that).
//
// Usage, from the repository root:
//
//   npm ci --prefix scripts/crosscheck          # once; node_modules is git-ignored
//   node scripts/crosscheck/check.mjs testdata   # one JSON line per document
//   (cd scripts/crosscheck && npx --no -- tsc --noEmit -p .)   # type fixtures
//   go test -run 'CrossCheck|Stale' -v ./...    # both, compared with Go
//
// Every *.json file under the given directory whose path holds
// <kind>/good/ or <kind>/bad/, kind being descriptor, index, request or
// response, is checked against that kind's schema, and one line is printed:
//
//   {"file": "testdata/index/bad/duplicate-id.json", "valid": false, "errors": ["..."]}
//
// Structure comes from the four JSON Schemas in schemas/ (draft 2020-12, via
// Ajv2020 and ajv-formats). On top of them this script applies, written
// independently, the rules the Go package adds (SPEC 1.2, 1.3, 1.5, 2, 6):
//
//   - the file is non-empty UTF-8 (a leading byte order mark is skipped)
//     holding one JSON value nested at most 256 levels, without lone
//     surrogate escapes, and the value is an object;
//   - a protocol.version whose major is above 1 is an incompatible version,
//     and nothing else of that document is reported;
//   - no object has two members with one name (JSON.parse cannot tell, so a
//     small scanner walks the text);
//   - descriptor: inputs and output compile as JSON Schemas (a fresh Ajv
//     per schema, draft 2020-12 unless its $schema names 2019-09 or 07, no
//     loading from outside, formats not asserted, multipleOf exact) and each
//     examples[i].inputs / .output validates against them;
//   - index: no id is listed twice;
//   - response: created_at ≤ started_at ≤ completed_at.
//
// date-time is RFC 3339's date-time production: ajv-formats alone also
// accepts a space for "T" and offsets such as "+01" or "+0100", which RFC
// 3339 does not (see rfc3339DateTime).
//
// Exit status: 0 when every file was checked (valid or not), 2 on a usage
// error.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import AjvDraft07 from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const schemaDir = join(here, "..", "..", "schemas");

const schemaFiles = {
  descriptor: "skill-descriptor.schema.json",
  index: "skill-index.schema.json",
  request: "invocation-request.schema.json",
  response: "invocation-response.schema.json",
};

const maxDepth = 256;
const supportedMajor = 1n;

// rfc3339DateTime accepts exactly RFC 3339 section 5.6's date-time, then
// leaves the ranges (month days, leap years, leap seconds) to ajv-formats.
const dateTimeSyntax = /^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;
const ajvDateTime = addFormats.get("date-time");
function rfc3339DateTime(s) {
  return dateTimeSyntax.test(s) && ajvDateTime.validate(s);
}

// newProtocolAjv compiles the protocol's schemas in strict mode, so that an
// unknown keyword in them (a typo) is an error, less two checks that do not
// fit draft 2020-12 schemas written in the usual style: strictTypes (the
// schemas rightly use a union type for output, and "required" in a then
// without repeating "type": "object") and strictRequired (a then requires
// members that the enclosing schema's properties define).
function newProtocolAjv() {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("date-time", { type: "string", validate: rfc3339DateTime });
  const validators = {};
  for (const [kind, file] of Object.entries(schemaFiles)) {
    const schema = JSON.parse(readFileSync(join(schemaDir, file), "utf8"));
    validators[kind] = ajv.compile(schema);
  }
  return validators;
}

// userDrafts are the Ajv classes for the dialects a descriptor's own schema
// may name in $schema; without one it is draft 2020-12.
const userDrafts = {
  "https://json-schema.org/draft/2020-12/schema": Ajv2020,
  "https://json-schema.org/draft/2019-09/schema": Ajv2019,
  "http://json-schema.org/draft-07/schema": AjvDraft07,
};

// compileUserSchema compiles a descriptor's inputs or output schema with an
// Ajv of its own: draft 2020-12 unless $schema names another, unknown
// keywords ignored, formats only annotations (as the Go side compiles them),
// no loading from outside, and an exact multipleOf.
function compileUserSchema(schema) {
  let Draft = Ajv2020;
  if (typeof schema === "object" && typeof schema.$schema === "string") {
    Draft = userDrafts[schema.$schema.replace(/#$/, "")];
    if (!Draft) throw new Error(`unsupported $schema ${JSON.stringify(schema.$schema)}`);
  }
  const ajv = new Draft({ strict: false, allErrors: true, validateFormats: false });
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword({ keyword: "multipleOf", type: "number", schemaType: "number", errors: false, validate: isMultipleOf });
  return ajv.compile(schema);
}

// isMultipleOf tells whether x is an integer multiple of d, exactly. Ajv's
// own multipleOf divides floating-point numbers, so that 52.52 is no
// multiple of 1e-7 (52.52 / 1e-7 = 525200000.00000006). Here both numbers
// are taken as the shortest decimals that denote them, which are the
// literals as written unless those carry more than 17 significant digits.
function isMultipleOf(d, x) {
  if (!Number.isFinite(x)) return false;
  const [a, sa] = decimal(x);
  const [b, sb] = decimal(d);
  const scale = Math.max(sa, sb);
  return (a * 10n ** BigInt(scale - sa)) % (b * 10n ** BigInt(scale - sb)) === 0n;
}

// decimal returns n as digits and scale: n = digits × 10^-scale.
function decimal(n) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n));
  const frac = m[3] ?? "";
  return [BigInt(m[1] + m[2] + frac), frac.length - Number(m[4] ?? 0)];
}

function ajvErrors(errors, prefix = "") {
  return (errors ?? []).map((e) => `${prefix}${e.instancePath || "/"}: ${e.message}`);
}

// scan checks what JSON.parse does not: member names repeated in one object,
// nesting depth, and lone surrogates in escapes. The text is already known to
// be valid JSON. It returns a list of problems.
function scan(text) {
  const problems = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const str = () => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    const raw = text.slice(start, i);
    const s = JSON.parse(raw);
    if (!s.isWellFormed()) problems.push(`string ${raw} holds a lone surrogate`);
    return s;
  };
  const value = (path, depth) => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      if (depth >= maxDepth) {
        problems.push(`nested more than ${maxDepth} levels deep`);
        throw new Error("too deep");
      }
      i++;
      ws();
      if (c === "{") {
        const seen = new Set();
        if (text[i] === "}") {
          i++;
          return;
        }
        for (;;) {
          ws();
          const name = str();
          const p = `${path}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
          if (seen.has(name)) problems.push(`${p}: member ${JSON.stringify(name)} appears more than once in this object`);
          seen.add(name);
          ws();
          i++; // :
          value(p, depth + 1);
          ws();
          if (text[i++] === "}") return;
        }
      }
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}/${n}`, depth + 1);
        ws();
        if (text[i++] === "]") return;
      }
    }
    if (c === '"') {
      str();
      return;
    }
    while (i < text.length && !",]} \t\n\r".includes(text[i])) i++;
  };
  try {
    value("", 0);
  } catch (e) {
    if (e.message !== "too deep") throw e;
  }
  return problems;
}

// instant parses an RFC 3339 date-time into seconds since the epoch (a
// BigInt) and the fraction's digits, for an exact comparison; a leap second
// counts as the last second of its minute plus one. It returns null when the
// string is not a date-time.
function instant(s) {
  const m = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:[Zz]|([+-])(\d\d):(\d\d))$/.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac = "", sign, oh = "0", om = "0"] = m;
  const local = daysFromCivil(+y, +mo, +d) * 86400 + +h * 3600 + +mi * 60 + +sec;
  const offset = (sign === "-" ? -1 : 1) * (+oh * 3600 + +om * 60);
  return { seconds: BigInt(local - offset), frac: frac.replace(/0+$/, "") };
}

// daysFromCivil counts the days from 1970-01-01 to a proleptic Gregorian
// date (Howard Hinnant's algorithm; Date.UTC maps the years 0–99 to 1900–1999).
function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function compareInstants(a, b) {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const n = Math.max(a.frac.length, b.frac.length);
  const fa = a.frac.padEnd(n, "0");
  const fb = b.frac.padEnd(n, "0");
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function extraRules(kind, doc) {
  const errors = [];
  if (kind === "descriptor") {
    const compiled = {};
    for (const member of ["inputs", "output"]) {
      const s = doc[member];
      if (!(isObject(s) || (member === "output" && typeof s === "boolean"))) continue;
      try {
        compiled[member] = compileUserSchema(s);
      } catch (e) {
        errors.push(`/${member}: is not a valid JSON Schema: ${e.message}`);
      }
    }
    if (Array.isArray(doc.examples)) {
      doc.examples.forEach((ex, i) => {
        if (!isObject(ex)) return;
        if (compiled.inputs && isObject(ex.inputs) && !compiled.inputs(ex.inputs)) {
          errors.push(...ajvErrors(compiled.inputs.errors, `/examples/${i}/inputs`));
        }
        if (compiled.output && "output" in ex && !compiled.output(ex.output)) {
          errors.push(...ajvErrors(compiled.output.errors, `/examples/${i}/output`));
        }
      });
    }
  }
  if (kind === "index" && Array.isArray(doc.skills)) {
    const seen = new Map();
    doc.skills.forEach((e, i) => {
      if (!isObject(e) || typeof e.id !== "string") return;
      if (seen.has(e.id)) errors.push(`/skills/${i}/id: id ${JSON.stringify(e.id)} is listed twice (also at /skills/${seen.get(e.id)})`);
      else seen.set(e.id, i);
    });
  }
  if (kind === "response" && isObject(doc.timestamps)) {
    let prev = null;
    for (const name of ["created_at", "started_at", "completed_at"]) {
      const v = doc.timestamps[name];
      if (typeof v !== "string") continue;
      const t = instant(v);
      if (!t) continue; // the schema reports it
      if (prev && compareInstants(t, prev.t) < 0) {
        errors.push(`/timestamps/${name}: ${v} is earlier than ${prev.name} ${prev.v}`);
      }
      prev = { name, v, t };
    }
  }
  return errors;
}

function checkFile(validators, kind, bytes) {
  let text;
  try {
    // A leading byte order mark is dropped, as the Go parser skips it.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return ["file is not valid UTF-8"];
  }
  if (/^[ \t\r\n]*$/.test(text)) return ["file is empty"];
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return [`invalid JSON: ${e.message}`];
  }
  const scanned = scan(text);
  if (scanned.some((p) => p.includes("lone surrogate") || p.includes("levels deep"))) return scanned;
  if (!isObject(doc)) return ["must be a JSON object"];
  const version = doc.protocol?.version;
  if (typeof version === "string") {
    const m = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/.exec(version);
    if (m && BigInt(m[1]) > supportedMajor) {
      return [`/protocol/version: incompatible protocol version ${version} (supported: ${supportedMajor}.x)`];
    }
  }
  const validate = validators[kind];
  const errors = [...scanned];
  if (!validate(doc)) errors.push(...ajvErrors(validate.errors));
  errors.push(...extraRules(kind, doc));
  return errors;
}

function* walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (name.endsWith(".json")) yield p;
  }
}

// kindOf returns the document kind of a path holding <kind>/good/ or
// <kind>/bad/, or null.
function kindOf(path) {
  const parts = path.split(sep);
  for (let i = parts.length - 2; i >= 1; i--) {
    if ((parts[i] === "good" || parts[i] === "bad") && parts[i - 1] in schemaFiles) return parts[i - 1];
  }
  return null;
}

function main(args) {
  if (args.length !== 1) {
    process.stderr.write("usage: node check.mjs DIR\n");
    process.exit(2);
  }
  const root = args[0];
  const validators = newProtocolAjv();
  for (const file of walk(root)) {
    const kind = kindOf(file);
    if (!kind) continue;
    const errors = checkFile(validators, kind, readFileSync(file));
    process.stdout.write(JSON.stringify({ file: file.split(sep).join("/"), valid: errors.length === 0, errors }) + "\n");
  }
}

main(process.argv.slice(2));
