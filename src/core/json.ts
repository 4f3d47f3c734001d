/** A parsed JSON object whose fields are not known yet: the shape every untrusted input starts as. */
export type JsonObject = Record<string, unknown>;
