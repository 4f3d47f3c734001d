/** The arguments typed into a call card's edit form, checked before anything is sent. */
export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/**
 * JSON text to a tool's arguments: it must parse and be an object (every tool's input schema is
 * one). Whether it fits the tool's schema is the server's to say.
 */
export function parseArguments(text: string): ParsedArguments {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'the arguments must be a JSON object ({ … })' };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The form's first text: the call's arguments, indented for editing. */
export const argumentsText = (args: unknown) => JSON.stringify(args ?? {}, null, 2);
