/** A parsed JSON object whose fields are not known yet: the shape every untrusted input starts as. */
export type JsonObject = Record<string, unknown>;

/** A value JSON.parse would give for `{…}`: an object that is neither null nor an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
