import { badInput } from '../../src/core/errors.js';
import type { GqlResult } from './fixtures.js';

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badInput(`Stream ${where} is not valid JSON`);
  }
}

/** The `data:` payloads of a Server-Sent Events stream, decoded; the `[DONE]` sentinel is skipped. */
export function parseSse(text: string): unknown[] {
  const events: unknown[] = [];
  text.split(/\r?\n\r?\n/).forEach((block, i) => {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data !== '' && data !== '[DONE]') events.push(parseJson(data, `event ${i + 1}`));
  });
  return events;
}

/** One JSON value per non-empty line. */
export function parseJsonLines(text: string): unknown[] {
  return text
    .split(/\r?\n/)
    .map((line, i) => [line.trim(), i] as const)
    .filter(([line]) => line !== '')
    .map(([line, i]) => parseJson(line, `line ${i + 1}`));
}

/**
 * The first event of a GraphQL subscription's SSE response, or an empty answer when none comes
 * within `waitMs` (an accepted stream that has nothing to say yet).
 */
export async function firstSubscriptionEvent(response: Response, waitMs: number): Promise<GqlResult> {
  const reader = response.body!.getReader();
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs));
  let text = '';
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk === null || chunk.done) return { data: {} };
      text += new TextDecoder().decode(chunk.value);
      const match = /data: (\{.*\})\n/.exec(text);
      if (match) return JSON.parse(match[1]!) as GqlResult;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
