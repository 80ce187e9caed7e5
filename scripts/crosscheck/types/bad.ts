// Each @ts-expect-error marks a line the generated declarations must reject;
// tsc fails if any of them type-checks. Run: npx tsc --noEmit -p scripts/crosscheck
import type {
  Auth,
  CapabilityType,
  InvocationRequest,
  InvocationResponse,
  SkillDescriptor,
  SkillIndexEntry,
} from "../../../skill-sharing-protocol.js";

// An oauth2 auth needs token_url.
// @ts-expect-error
export const oauthWithoutTokenURL: Auth = { type: "oauth2", scopes: {} };

// An api_key auth needs in and name.
// @ts-expect-error
export const apiKeyWithoutName: Auth = { type: "api_key", in: "header" };

// api_key goes in a header or a query parameter only.
// @ts-expect-error
export const apiKeyInCookie: Auth = { type: "api_key", in: "cookie", name: "k" };

// A custom auth needs instructions.
// @ts-expect-error
export const customWithoutInstructions: Auth = { type: "custom" };

// "basic" is no auth type.
// @ts-expect-error
export const basicAuth: Auth = { type: "basic" };

// @ts-expect-error: "foo" is no capability type.
export const foo: CapabilityType = "foo";

// Scopes map a scope to its description, a string.
// @ts-expect-error
export const scopeNotString: Auth = { type: "oauth2", token_url: "https://a.example/t", scopes: { read: 1 } };

declare const base: SkillDescriptor;

// @ts-expect-error: a descriptor lacks nothing required; here "access" is missing.
export const noAccess: SkillDescriptor = {
  protocol: base.protocol,
  id: "x",
  name: "X",
  version: "1.0.0",
  capability_type: "api",
  description: "d",
  provider: { name: "P" },
  endpoint: { url: "https://x.example" },
  inputs: { type: "object" },
  output: true,
  auth: { type: "none" },
};

export const badCapability: SkillDescriptor = {
  ...base,
  // @ts-expect-error: capability_type must be one of the four.
  capability_type: "foo",
};

export const badAccess: SkillDescriptor = {
  ...base,
  // @ts-expect-error: access is public, restricted or private.
  access: "internal",
};

export const inputsNotObjectSchema: SkillDescriptor = {
  ...base,
  // @ts-expect-error: the inputs schema's type is "object".
  inputs: { type: "array" },
};

export const outputNotSchema: SkillDescriptor = {
  ...base,
  // @ts-expect-error: a JSON Schema is an object or a boolean.
  output: "string",
};

export const badMethod: SkillDescriptor = {
  ...base,
  // @ts-expect-error: CONNECT is not an endpoint method.
  endpoint: { url: "https://x.example", method: "CONNECT" },
};

export const privateEntry: SkillIndexEntry = {
  id: "x",
  name: "X",
  version: "1.0.0",
  capability_type: "api",
  // @ts-expect-error: an index never lists a private skill.
  access: "private",
  summary: "",
  descriptor_url: "../skills/x.json",
  digest: "sha256:00",
};

export const robotCaller: InvocationRequest = {
  // @ts-expect-error: a caller is a user, an agent or a service.
  caller: { id: "r2", type: "robot" },
  skill_id: "x",
  inputs: {},
};

// @ts-expect-error: a request needs inputs.
export const noInputs: InvocationRequest = { caller: { id: "u", type: "user" }, skill_id: "x" };

export const doneStatus: InvocationResponse = {
  execution_id: "e",
  // @ts-expect-error: "done" is no status.
  status: "done",
  skill_id: "x",
  timestamps: { created_at: "2026-01-31T09:30:00Z" },
};

// @ts-expect-error: timestamps.created_at is required.
export const noCreatedAt: InvocationResponse = { execution_id: "e", status: "accepted", skill_id: "x", timestamps: {} };

export const errorWithoutMessage: InvocationResponse = {
  execution_id: "e",
  status: "failed",
  skill_id: "x",
  timestamps: { created_at: "2026-01-31T09:30:00Z", completed_at: "2026-01-31T09:30:00Z" },
  // @ts-expect-error: an error has a code and a message.
  error: { code: "boom" },
};
