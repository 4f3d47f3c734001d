import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';

/**
 * The o200k_base (GPT-4o family) encoder, built once. Its 200,000 ranks take about half a second to
 * enter into the encoder's maps (js-tiktoken's constructor takes twice that): done at once, that is
 * half a second of the server's start, or a pause in the first call that counts tokens, where it
 * would stall lease renewal. `warmTokenizer` builds it in slices, one per event-loop turn, after
 * the server listens: a request that comes meanwhile waits for one slice, and one that counts
 * tokens before the end builds the rest at once (`tokenizer`).
 */
let encoder: Tiktoken | null = null;

/** js-tiktoken's own tables (public fields, marked internal): what its constructor fills. */
interface Tables {
  rankMap: Map<string, number>;
  textMap: Map<number, Uint8Array>;
}

interface Build {
  encoder: Tiktoken & Tables;
  /** The ranks still to enter: each line of bpe_ranks is `<name> <first rank> <base64 token>...`. */
  lines: string[][];
  line: number;
  /** Index in the current line of the next token (0 and 1 are the name and the first rank). */
  at: number;
}

let build: Build | null = null;

/** Ranks entered per event-loop turn: about 10 ms of work on a quiet machine. */
const SLICE = 8_000;

function begin(): Build {
  if (build) return build;
  // Required, not imported: importing the ranks (a 2 MB module) costs the start a few hundred ms.
  const ranks = createRequire(import.meta.url)('js-tiktoken/ranks/o200k_base') as TiktokenBPE;
  build = {
    encoder: new Tiktoken({ ...ranks, bpe_ranks: '' }) as Tiktoken & Tables,
    lines: ranks.bpe_ranks
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')),
    line: 0,
    at: 2,
  };
  return build;
}

/** Enters up to `count` ranks as js-tiktoken's constructor does; true when none are left. */
function enter(b: Build, count: number): boolean {
  const { rankMap, textMap } = b.encoder;
  for (let left = count; b.line < b.lines.length; b.line += 1, b.at = 2) {
    const parts = b.lines[b.line]!;
    const first = Number.parseInt(parts[1]!, 10);
    for (; b.at < parts.length; b.at += 1) {
      if (left-- === 0) return false;
      const bytes = new Uint8Array(Buffer.from(parts[b.at]!, 'base64'));
      const rank = first + b.at - 2;
      rankMap.set(bytes.join(','), rank);
      textMap.set(rank, bytes);
    }
  }
  return true;
}

/** The encoder; whatever the warm-up has not built yet is built now. */
export function tokenizer(): Tiktoken {
  if (encoder) return encoder;
  const b = begin();
  enter(b, Number.POSITIVE_INFINITY);
  encoder = b.encoder;
  build = null;
  return encoder;
}

/** Builds the encoder a slice per event-loop turn; resolves when it is complete. */
export async function warmTokenizer(): Promise<void> {
  while (!encoder) {
    await nextTurn();
    if (encoder) return;
    const b = begin();
    if (enter(b, SLICE)) tokenizer();
  }
}
