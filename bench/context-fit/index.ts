import { countTokens } from '../../src/core/tokens.js';
import { assembleFrame } from '../../src/model/context/assemble.js';
import { type ContextPreset, namedPreset } from '../../src/model/context/preset.js';
import type { ContextSources, ToolCallSource } from '../../src/model/context/types.js';

/**
 * `npm run bench -- context-fit [results] [chars]`: a run with many finished tool calls (default 150
 * results of 8,800 characters: English prose, Chinese prose and one-line JSON) assembled into a
 * frame under the `default` preset (SUMMARIZE) and a TRUNCATE preset, the first time (cold: every
 * text is new) and again (warm: the next model request of the same run, one new result). The
 * baseline is one tokenizer pass over all the results' text, the least any exact count can cost.
 */

const ENGLISH =
  'The caravan reached the river crossing at dusk, and the scouts reported that the ferryman had not been seen for three days. ';
const CHINESE =
  '商队在黄昏时分抵达渡口，斥候回报说摆渡人已经三天没有露面了。城门外的灯笼在风中摇晃，守卫们低声交谈。';

function resultText(i: number, chars: number, salt: string): string {
  const kind = i % 3;
  let text = '';
  if (kind === 2) {
    const rows: unknown[] = [];
    while (JSON.stringify(rows).length < chars)
      rows.push({
        id: `${salt}-${i}-${rows.length}`,
        title: ENGLISH.slice(0, 60),
        score: rows.length * 0.37,
      });
    text = JSON.stringify(rows);
  } else {
    const unit = kind === 0 ? ENGLISH : CHINESE;
    for (let n = 0; text.length < chars; n++) text += `${salt} ${n}: ${unit}${n % 7 === 6 ? '\n' : ''}`;
  }
  return text.slice(0, chars);
}

function sources(results: number, chars: number, salt: string): ContextSources {
  const toolCalls: ToolCallSource[] = Array.from({ length: results }, (_, i) => ({
    callId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    providerCallId: `call_${i}`,
    name: 'workspace.read_file',
    status: 'COMPLETED',
    outcome: {
      callId: `call_${i}`,
      outcome: 'result',
      result: {
        callId: `call_${i}`,
        content: [{ type: 'text', text: resultText(i, chars, salt) }],
        structured: null,
        isError: false,
        resourceRefs: [],
        usage: null,
      },
    },
  }));
  return {
    runId: 'bench',
    chat: null,
    character: null,
    worldInfo: null,
    workspace: null,
    toolCalls,
    prompt: null,
  };
}

const truncate: ContextPreset = {
  name: 'truncate',
  components: [{ kind: 'TOOL_RESULTS', tokenBudget: 8_000, priority: 80, overflow: 'TRUNCATE', form: 'RAW' }],
};

function timed(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

const ms = (value: number) => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`);

export async function main(args: string[]): Promise<void> {
  const results = Number(args[0] ?? 150);
  const chars = Number(args[1] ?? 8_800);
  countTokens('warm the tokenizer up');
  console.log(
    `${results} tool results of ${chars} characters (${((results * chars) / 1e6).toFixed(2)} M characters)\n`,
  );
  console.log('| preset | cold | warm (next request) | one tokenizer pass (baseline) |');
  console.log('|---|---|---|---|');
  for (const [label, preset] of [
    ['default (SUMMARIZE)', namedPreset('default')],
    ['TRUNCATE', truncate],
  ] as const) {
    const salt = `${label}-${process.pid}`;
    const cold = sources(results, chars, salt);
    const baseline = timed(() =>
      countTokens(
        cold.toolCalls
          .map((c) =>
            c.outcome.outcome === 'result' ? (c.outcome.result.content[0] as { text: string }).text : '',
          )
          .join('\n\n'),
      ),
    );
    const first = timed(() => assembleFrame(preset, cold));
    const next = sources(results + 1, chars, salt);
    const warm = timed(() => assembleFrame(preset, next));
    console.log(`| ${label} | ${ms(first)} | ${ms(warm)} | ${ms(baseline)} |`);
  }
}
