// verify.mjs SITE_DIR PINNED_KEY.jwk
//
// Verifies every detached JWS of a skillcat build (<document>.jws beside
// /.well-known/skills.json and each /types/<t>.json) with the jose library,
// an implementation independent of skillcat's: against the pinned key given
// on the command line, and against the site's own /.well-known/jwks.json.
// The payload is the document's exact bytes, put back into the compact
// serialization (RFC 7515 Appendix F). It prints one line per document and
// exits 1 when any signature is refused, 2 on a usage error.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { compactVerify, createLocalJWKSet, importJWK, base64url } from "jose";

const [site, keyFile] = process.argv.slice(2);
if (!site || !keyFile) {
  console.error("usage: node verify.mjs SITE_DIR PINNED_KEY.jwk");
  process.exit(2);
}

const pinned = await importJWK(JSON.parse(readFileSync(keyFile, "utf8")), "EdDSA");
const jwks = createLocalJWKSet(JSON.parse(readFileSync(join(site, ".well-known", "jwks.json"), "utf8")));

const docs = [join(".well-known", "skills.json")];
for (const name of readdirSync(join(site, "types")).sort()) {
  if (name.endsWith(".json")) docs.push(join("types", name));
}

let failed = 0;
for (const doc of docs) {
  const sigFile = join(site, doc + ".jws");
  if (!existsSync(sigFile)) {
    console.log(`FAIL ${doc}: no signature at ${doc}.jws`);
    failed++;
    continue;
  }
  const [header, detached, signature] = readFileSync(sigFile, "utf8").split(".");
  if (detached !== "") {
    console.log(`FAIL ${doc}: the payload is not detached`);
    failed++;
    continue;
  }
  const jws = `${header}.${base64url.encode(readFileSync(join(site, doc)))}.${signature}`;
  try {
    const { protectedHeader } = await compactVerify(jws, pinned, { algorithms: ["EdDSA"] });
    await compactVerify(jws, jwks, { algorithms: ["EdDSA"] });
    console.log(`ok   ${doc}: alg ${protectedHeader.alg}, kid ${protectedHeader.kid}, typ ${protectedHeader.typ}`);
  } catch (err) {
    console.log(`FAIL ${doc}: ${err.code || ""} ${err.message}`);
    failed++;
  }
}
console.log(`${docs.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
