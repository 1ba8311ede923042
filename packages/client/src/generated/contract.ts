// Written by `contract-kit generate` (scripts/codegen/client-package.ts) from openapi.yaml. Do not edit it by hand: run it again.

/** Version of the contract these files were generated from (`info.version`); the package has the same. */
export const apiVersion = "1.0.0";

/** The deployments of the contract (`servers`), by lower-cased description. */
export const servers = {
  "production": "https://api.animalstore.example/v1",
  "staging": "https://staging-api.animalstore.example/v1"
} as const;
