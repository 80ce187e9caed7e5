package skillcat

// The TypeScript declarations of the protocol's documents are generated from
// the JSON Schemas in schemas/; run go generate ./... after changing one.
//go:generate go run ./internal/dtsgen -o skill-sharing-protocol.d.ts
