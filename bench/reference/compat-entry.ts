/**
 * What the reference servers take from encounterd itself, so their answers cannot drift from its:
 * the compat (vendor v4) encounter builder and the claim transition table. Bundled for Node and
 * Bun into `compat.gen.mjs` by `build-compat.ts` (the Fastify server runs on Node, which cannot
 * load TypeScript); shared.mjs imports the bundle.
 */
export { allowedTransitions, isClaimStatus } from "../../lib/domain/claim-status.js"
export { toCompatEncounter } from "../../server/compat/encounter.js"
