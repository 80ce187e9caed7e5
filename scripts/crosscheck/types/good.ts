// Objects that conform to the protocol must type-check against the
// generated declarations. Run: npx tsc --noEmit -p scripts/crosscheck
import type {
  Auth,
  InvocationRequest,
  InvocationResponse,
  SkillDescriptor,
  SkillIndex,
} from "../../../skill-sharing-protocol.js";

export const weather: SkillDescriptor = {
  $schema: "https://raw.githubusercontent.com/skillcat/skillcat/main/schemas/skill-descriptor.schema.json",
  protocol: { version: "1.0.0" },
  id: "weather.forecast",
  name: "Weather Forecast",
  version: "2.3.1",
  capability_type: "api",
  description: "Hourly and daily forecasts for any coordinates.\n\nBacked by a public model.",
  provider: { name: "Example Weather", url: "https://weather.example", email: "ops@weather.example" },
  endpoint: { url: "https://api.weather.example/v2/forecast", method: "POST" },
  inputs: {
    type: "object",
    required: ["lat", "lon"],
    properties: { lat: { type: "number" }, lon: { type: "number" } },
  },
  output: { type: "object" },
  auth: { type: "api_key", in: "header", name: "X-Api-Key" },
  access: "restricted",
  tags: ["weather", "forecast"],
  examples: [{ title: "Berlin", inputs: { lat: 52.52, lon: 13.4 }, output: { hourly: [] } }],
  documentation_url: "https://weather.example/docs",
  "x-internal-team": "forecasting",
};

// The minimal descriptor: only required members, a boolean output schema,
// and an endpoint without method.
export const minimal: SkillDescriptor = {
  protocol: { version: "1.0.0" },
  id: "notes",
  name: "Notes",
  version: "0.1.0-beta.1+build.7",
  capability_type: "knowledge",
  description: "Team notes.",
  provider: { name: "Team" },
  endpoint: { url: "http://localhost:8080/notes" },
  inputs: { type: "object" },
  output: true,
  auth: { type: "none" },
  access: "public",
};

export const auths: Auth[] = [
  { type: "api_key", in: "query", name: "key" },
  {
    type: "oauth2",
    token_url: "https://auth.example/token",
    authorization_url: "https://auth.example/authorize",
    scopes: { "forecast:read": "Read forecasts" },
  },
  { type: "oauth2", token_url: "https://auth.example/token" },
  { type: "custom", instructions: "Email us for a key." },
  { type: "none" },
  // Unknown members are allowed at every level.
  { type: "none", "x-note": 1 },
];

// Narrowing on the discriminant reaches the variant's members.
export function tokenURL(a: Auth): string | undefined {
  if (a.type === "oauth2") {
    return a.token_url;
  }
  return undefined;
}

export const index: SkillIndex = {
  protocol: { version: "1.0.0" },
  skills: [
    {
      id: "weather.forecast",
      name: "Weather Forecast",
      version: "2.3.1",
      capability_type: "api",
      access: "public",
      summary: "Hourly and daily forecasts for any coordinates.",
      descriptor_url: "../skills/weather.forecast.json",
      digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    },
  ],
};

export const request: InvocationRequest = {
  caller: { id: "agent-42", type: "agent" },
  skill_id: "weather.forecast",
  inputs: { lat: 52.52, lon: 13.4 },
  protocol: { version: "1.0.0" },
  request_id: "req-1",
  context: { locale: "de-DE" },
};

export const responses: InvocationResponse[] = [
  {
    execution_id: "exec-1",
    status: "succeeded",
    skill_id: "weather.forecast",
    timestamps: {
      created_at: "2026-01-31T09:30:00Z",
      started_at: "2026-01-31T09:30:01Z",
      completed_at: "2026-01-31T09:30:02.5Z",
    },
    output: { hourly: [] },
  },
  {
    execution_id: "exec-2",
    status: "failed",
    skill_id: "weather.forecast",
    timestamps: { created_at: "2026-01-31T09:30:00Z", completed_at: "2026-01-31T09:30:00Z" },
    error: { code: "upstream_timeout", message: "The model did not answer in time." },
  },
  { execution_id: "exec-3", status: "accepted", skill_id: "weather.forecast", timestamps: { created_at: "2026-01-31T09:30:00Z" } },
];
