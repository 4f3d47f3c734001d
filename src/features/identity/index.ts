/** Identity from the company's IdP as other modules see it: every bearer secret is authenticated through it. */
export { DEFAULT_ALGORITHMS } from './rules/algorithms.js';
export { type ClaimMapping, claimMappingSchema, DEFAULT_CLAIM_MAPPING } from './rules/claim-mapping.js';
export { IdentityService } from './service.js';
export { DEFAULT_JWKS_COOLDOWN_MS, type IdentitySettings } from './settings.js';
