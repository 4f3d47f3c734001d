import { isJsonObject } from '../../../core/json.js';

/**
 * What a host may append to a chat: SillyTavern message objects, the lines an import reads after
 * the header. Import keeps any object (ST loads hand-written lines too); an append is a frontend
 * sending messages it just made, so it must carry the fields ST itself writes, with their types.
 */

/** Messages per `appendChatMessages` call; a longer backlog goes in several calls or an import. */
export const MAX_APPEND_MESSAGES = 500;

const typeOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;

/** Why this value is not a SillyTavern message, or null when it is one. */
export function appendedMessageProblem(value: unknown): string | null {
  if (!isJsonObject(value)) return `must be a JSON object, got ${typeOf(value)}`;
  if (typeof value.mes !== 'string') return `\`mes\` must be a string, got ${typeOf(value.mes)}`;
  if (typeof value.name !== 'string') return `\`name\` must be a string, got ${typeOf(value.name)}`;
  for (const flag of ['is_user', 'is_system'] as const) {
    if (flag in value && typeof value[flag] !== 'boolean')
      return `\`${flag}\` must be a boolean, got ${typeOf(value[flag])}`;
  }
  const date = value.send_date;
  if (date !== undefined && typeof date !== 'string' && typeof date !== 'number')
    return `\`send_date\` must be a string or a number, got ${typeOf(date)}`;
  return null;
}

/** The first message that is not a SillyTavern message, with its position in the batch; null when all are. */
export function firstAppendProblem(values: readonly unknown[]): { index: number; problem: string } | null {
  for (const [index, value] of values.entries()) {
    const problem = appendedMessageProblem(value);
    if (problem) return { index, problem };
  }
  return null;
}
