import { describe, expect, test } from 'vitest';
import { countTokens } from '../../../src/core/tokens.js';
import { assembleFrame } from '../../../src/model/context/assemble.js';
import { headAndTail, keepHead, keepTail } from '../../../src/model/context/fit.js';
import { type ContextPreset, contextPresetSchema } from '../../../src/model/context/preset.js';
import {
  answerFor,
  contextText,
  EMPTY_CONTEXT_TEXT,
  HIDDEN_RESULT_TEXT,
  OLDER_RESULT_TEXT,
  renderModelRequest,
} from '../../../src/model/context/render.js';
import type { ContextSources, ToolCallSource } from '../../../src/model/context/types.js';
import { adapterFor } from '../../../src/model/providers/index.js';

describe('request bodies', () => {
  const empty = assembleFrame(preset({ components: [] }), sources({ toolCalls: [] }));
  const turn = {
    provider: 'ANTHROPIC' as const,
    native: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }],
    parts: [{ kind: 'text' as const, text: 'Hello.' }],
  };
  const names = adapterFor('ANTHROPIC').toolDeclarations([]).names;

  test('a conversation opens with a user turn even when the preset assembles nothing', () => {
    const body = renderModelRequest({
      provider: 'ANTHROPIC',
      frame: empty,
      turns: [{ turn, calls: [] }],
      tools: [],
      names,
    });
    expect(body).toEqual({
      messages: [{ role: 'user', content: [{ type: 'text', text: EMPTY_CONTEXT_TEXT }] }, ...turn.native],
    });
  });

  test('with no context and no turns there is nothing to send but the tools', () => {
    const tools = [{ functionDeclarations: [{ name: 'test_echo' }] }];
    expect(renderModelRequest({ provider: 'GEMINI', frame: empty, turns: [], tools, names })).toEqual({
      contents: [],
      tools,
    });
  });
});

const preset = (raw: unknown): ContextPreset => contextPresetSchema.parse(raw);

const call = (id: string, text: string, overrides: Partial<ToolCallSource> = {}): ToolCallSource => ({
  callId: id,
  providerCallId: `p_${id}`,
  name: 'test.echo',
  status: 'COMPLETED',
  outcome: {
    callId: `p_${id}`,
    outcome: 'result',
    result: {
      callId: id,
      content: [{ type: 'text', text }],
      structured: null,
      isError: false,
      resourceRefs: [],
      usage: null,
    },
  },
  ...overrides,
});

const sources = (over: Partial<ContextSources> = {}): ContextSources => ({
  runId: 'r1',
  chat: {
    source: 'chat:c1',
    messages: [
      { name: 'Ann', text: 'Good morning.' },
      { name: 'Bo', text: 'Morning! Tea?' },
      { name: 'Ann', text: 'Yes, please.' },
    ],
  },
  character: null,
  worldInfo: {
    source: 'worldinfo:a1',
    entries: [{ name: 'Tea', content: 'Tea is served at nine.', atDepth: false, depth: 4, role: 0 }],
  },
  workspace: {
    source: 'workspace:w1',
    files: [
      { path: 'output/a.md', text: 'alpha' },
      { path: 'output/sub/b.md', text: 'beta' },
      { path: 'plan/c.md', text: 'gamma' },
    ],
  },
  toolCalls: [call('1', 'first result'), call('2', 'second result')],
  prompt: null,
  ...over,
});

describe('fitting text to a token budget', () => {
  const text = Array.from({ length: 100 }, (_, i) => `sentence ${i} of the story.`).join(' ');

  test('text within the budget is unchanged', () => {
    expect(keepHead('short', 10)).toEqual({ text: 'short', tokens: countTokens('short') });
  });

  test('keepHead keeps the beginning and says how many tokens were cut, within the budget', () => {
    const fitted = keepHead(text, 40);
    expect(fitted.tokens).toBeLessThanOrEqual(40);
    expect(fitted.text.startsWith('sentence 0 of the story.')).toBe(true);
    const [, cut] = /\n\[… truncated (\d+) tokens\]$/.exec(fitted.text)!;
    const kept = fitted.text.slice(0, fitted.text.lastIndexOf('\n['));
    expect(Number(cut)).toBe(countTokens(text) - countTokens(kept));
  });

  test('keepTail keeps the end behind the marker', () => {
    const fitted = keepTail(text, 40);
    expect(fitted.tokens).toBeLessThanOrEqual(40);
    expect(fitted.text).toMatch(/^\[… truncated \d+ tokens\]\n/);
    expect(fitted.text.endsWith('sentence 99 of the story.')).toBe(true);
  });

  test('headAndTail is deterministic and keeps both ends', () => {
    const a = headAndTail(text, 50);
    expect(a).toEqual(headAndTail(text, 50));
    expect(a.tokens).toBeLessThanOrEqual(50);
    expect(a.text.startsWith('sentence 0')).toBe(true);
    expect(a.text.endsWith('sentence 99 of the story.')).toBe(true);
    expect(a.text).toMatch(/\n\[… \d+ tokens omitted …\]\n/);
  });

  test('tokens are o200k tokens, not characters', () => {
    const cjk = '饕餮獬豸'.repeat(50);
    expect(keepHead(cjk, 1000).tokens).toBe(countTokens(cjk));
    expect(countTokens(cjk)).not.toBe(cjk.length);
  });
});

describe('assembleFrame', () => {
  test('components follow the preset order, the system text first', () => {
    const frame = assembleFrame(
      preset({
        system: 'Be brief.',
        components: [
          { kind: 'TOOL_RESULTS', tokenBudget: 100 },
          { kind: 'CHAT_HISTORY', tokenBudget: 100 },
          { kind: 'WORKSPACE_FILES', tokenBudget: 100, paths: ['output/sub/', 'plan/c.md'] },
          { kind: 'WORLD_INFO', tokenBudget: 100 },
        ],
      }),
      sources(),
    );
    expect(frame.components.map((c) => c.kind)).toEqual([
      'SYSTEM',
      'TOOL_RESULTS',
      'CHAT_HISTORY',
      'WORKSPACE_FILES',
      'WORLD_INFO',
    ]);
    expect(frame.components[3]!.content).toBe('=== output/sub/b.md ===\nbeta\n\n=== plan/c.md ===\ngamma');
    expect(frame.components[2]!.content).toBe('Ann: Good morning.\nBo: Morning! Tea?\nAnn: Yes, please.');
    expect(frame.totalTokens).toBe(frame.components.reduce((n, c) => n + countTokens(c.content), 0));
  });

  test('maxMessages reads only the newest messages', () => {
    const frame = assembleFrame(
      preset({ components: [{ kind: 'CHAT_HISTORY', tokenBudget: 100, maxMessages: 2 }] }),
      sources(),
    );
    expect(frame.components[0]!.content).toBe('Bo: Morning! Tea?\nAnn: Yes, please.');
  });

  const depthInfo = (
    ...entries: Array<{ name: string; depth: number; role: number; atDepth?: boolean }>
  ): ContextSources['worldInfo'] => ({
    source: 'worldinfo:a1',
    entries: entries.map((e) => ({ content: `${e.name} text`, atDepth: true, ...e })),
  });
  const chatAndLore = preset({
    components: [
      { kind: 'WORLD_INFO', tokenBudget: 100 },
      { kind: 'CHAT_HISTORY', tokenBudget: 100 },
    ],
  });

  test('@depth entries go into the chat that many messages from its end, with their role, not into the world-info block', () => {
    const frame = assembleFrame(
      chatAndLore,
      sources({
        worldInfo: depthInfo(
          { name: 'Lore', depth: 4, role: 0, atDepth: false },
          { name: 'Deep', depth: 2, role: 0 },
          { name: 'Also deep', depth: 2, role: 0 },
          { name: 'Voice', depth: 2, role: 2 },
          { name: 'Last', depth: 0, role: 1 },
          { name: 'Beyond', depth: 9, role: 0 },
        ),
      }),
    );
    expect(frame.components.map((c) => c.content)).toEqual([
      '[Lore]\nLore text',
      [
        '[system] Beyond text',
        'Ann: Good morning.',
        '[system] Deep text\nAlso deep text',
        '[assistant] Voice text',
        'Bo: Morning! Tea?',
        'Ann: Yes, please.',
        '[user] Last text',
      ].join('\n'),
    ]);
  });

  test('@depth entries stay in the world-info block, marked, when the context has no chat history', () => {
    const frame = assembleFrame(
      preset({ components: [{ kind: 'WORLD_INFO', tokenBudget: 100 }] }),
      sources({ worldInfo: depthInfo({ name: 'Deep', depth: 3, role: 1 }) }),
    );
    expect(frame.components[0]!.content).toBe(
      '[Deep] (at depth 3, user; no chat history in this context)\nDeep text',
    );
  });

  test("the CHARACTER component is the character's description, personality and scenario, as SillyTavern's story string", () => {
    const frame = assembleFrame(
      preset({ components: [{ kind: 'CHARACTER', tokenBudget: 100 }] }),
      sources({
        character: {
          source: 'character:k1',
          name: 'Seraphina',
          description: 'A guardian of the forest.',
          personality: 'caring',
          scenario: 'Ann wakes up in a glade.',
        },
      }),
    );
    expect(frame.components.map((c) => [c.kind, c.source, c.content])).toEqual([
      [
        'CHARACTER',
        'character:k1',
        "Character: Seraphina\nA guardian of the forest.\nSeraphina's personality: caring\nScenario: Ann wakes up in a glade.",
      ],
    ]);
  });

  test('a component whose source is missing is left out without error', () => {
    const frame = assembleFrame(
      preset({
        components: [
          { kind: 'WORLD_INFO', tokenBudget: 100 },
          { kind: 'CHAT_HISTORY', tokenBudget: 100 },
        ],
      }),
      sources({ worldInfo: null, chat: null }),
    );
    expect(frame.components).toEqual([]);
    expect(frame.dropped).toEqual([]);
  });

  test('tool results are hidden unless the preset has a TOOL_RESULTS component', () => {
    const frame = assembleFrame(
      preset({ components: [{ kind: 'CHAT_HISTORY', tokenBudget: 100 }] }),
      sources(),
    );
    expect(frame.toolResultsVisible).toBe(false);
    expect(frame.toolResults).toEqual([]);
  });

  test('TRUNCATE on tool results keeps the newest whole and leaves the oldest out with a marker', () => {
    const long = Array.from({ length: 80 }, (_, i) => `row ${i}`).join('\n');
    const frame = assembleFrame(
      preset({ components: [{ kind: 'TOOL_RESULTS', tokenBudget: 40, overflow: 'TRUNCATE' }] }),
      sources({ toolCalls: [call('1', long), call('2', 'newest result')] }),
    );
    const [tools] = frame.components;
    expect(tools!.tokens).toBeLessThanOrEqual(40);
    expect(tools!.applied).toBe('TRUNCATE');
    expect(frame.toolResults[1]).toMatchObject({
      callId: '2',
      text: 'newest result',
      truncated: false,
      omitted: false,
    });
    expect(frame.toolResults[0]!.truncated).toBe(true);
    expect(frame.toolResults[0]!.text).toMatch(/\[… truncated \d+ tokens\]$/);
  });

  test('SUMMARIZE on tool results turns the oldest into summaries first', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const frame = assembleFrame(
      preset({ components: [{ kind: 'TOOL_RESULTS', tokenBudget: 150, overflow: 'SUMMARIZE' }] }),
      sources({ toolCalls: [call('1', long), call('2', long)] }),
    );
    expect(frame.components[0]!.applied).toBe('SUMMARIZE');
    expect(frame.toolResults.map((e) => e.form)).toEqual(['SUMMARY', 'SUMMARY']);
    expect(frame.components[0]!.tokens).toBeLessThanOrEqual(150);
  });

  test('answers that are not tool output keep their wording in every form', () => {
    const denied = call('3', '', {
      status: 'DENIED',
      outcome: { callId: 'p_3', outcome: 'denied', message: 'nope' },
    });
    const frame = assembleFrame(
      preset({ components: [{ kind: 'TOOL_RESULTS', tokenBudget: 500, form: 'SUMMARY' }] }),
      sources({ toolCalls: [denied] }),
    );
    expect(frame.toolResults[0]).toMatchObject({
      form: 'RAW',
      text: 'Denied: this tool call was not approved and did not run. Reason: nope',
      isError: true,
    });
  });

  test('DROP records the component; FAIL throws CONTEXT_BUDGET_EXCEEDED', () => {
    const dropped = assembleFrame(
      preset({ components: [{ kind: 'WORLD_INFO', tokenBudget: 2, overflow: 'DROP' }] }),
      sources(),
    );
    expect(dropped.components).toEqual([]);
    expect(dropped.dropped).toEqual([
      {
        kind: 'WORLD_INFO',
        source: 'worldinfo:a1',
        tokens: countTokens('[Tea]\nTea is served at nine.'),
        budget: 2,
        reason: 'component_budget',
      },
    ]);
    expect(() =>
      assembleFrame(
        preset({ components: [{ kind: 'WORLD_INFO', tokenBudget: 2, overflow: 'FAIL' }] }),
        sources(),
      ),
    ).toThrow(expect.objectContaining({ code: 'CONTEXT_BUDGET_EXCEEDED' }));
  });

  test('over the total budget the lowest priority goes first, the later one on a tie', () => {
    const components = [
      { kind: 'WORLD_INFO', tokenBudget: 100, priority: 5 },
      { kind: 'CHAT_HISTORY', tokenBudget: 100, priority: 5 },
      { kind: 'TOOL_RESULTS', tokenBudget: 100, priority: 9 },
    ];
    const whole = assembleFrame(preset({ components }), sources());
    const totalBudget = whole.totalTokens - whole.components[1]!.tokens;
    const frame = assembleFrame(preset({ totalBudget, components }), sources());
    expect(frame.dropped).toEqual([
      {
        kind: 'CHAT_HISTORY',
        source: 'chat:c1',
        tokens: whole.components[1]!.tokens,
        budget: totalBudget,
        reason: 'total_budget',
      },
    ]);
    expect(frame.components.map((c) => c.kind)).toEqual(['WORLD_INFO', 'TOOL_RESULTS']);
    expect(frame.totalTokens).toBe(totalBudget);
  });
});

describe('the agent run prompt', () => {
  test('comes last, whole, as its own block, and stays when the total budget drops the rest', () => {
    const prompt = 'Write a summary of chapter 3 into output/summary.md.';
    const components = [{ kind: 'WORLD_INFO', tokenBudget: 100 }];
    const frame = assembleFrame(
      preset({ totalBudget: countTokens(prompt), components }),
      sources({ prompt }),
    );
    expect(frame.components.map((c) => [c.kind, c.source, c.content, c.required])).toEqual([
      ['PROMPT', 'run:r1', prompt, true],
    ]);
    expect(frame.dropped.map((d) => [d.kind, d.reason])).toEqual([['WORLD_INFO', 'total_budget']]);
    expect(contextText(frame, new Set())).toBe(`<PROMPT source="run:r1">\n${prompt}\n</PROMPT>`);
  });
});

describe('presets', () => {
  test('refuse duplicates, misplaced options and DROP on a required component', () => {
    for (const bad of [
      {
        components: [
          { kind: 'WORLD_INFO', tokenBudget: 1 },
          { kind: 'WORLD_INFO', tokenBudget: 2 },
        ],
      },
      { components: [{ kind: 'CHAT_HISTORY', tokenBudget: 1, paths: ['a'] }] },
      { components: [{ kind: 'WORKSPACE_FILES', tokenBudget: 1 }] },
      { components: [{ kind: 'CHAT_HISTORY', tokenBudget: 1, overflow: 'DROP', required: true }] },
      { components: [{ kind: 'CHAT_HISTORY', tokenBudget: 0 }] },
    ]) {
      expect(contextPresetSchema.safeParse(bad).success).toBe(false);
    }
  });
});

describe('native answers come from the frame', () => {
  const frame = assembleFrame(
    preset({ components: [{ kind: 'TOOL_RESULTS', tokenBudget: 100 }] }),
    sources(),
  );

  test('a result carries the frame text; without TOOL_RESULTS it says the output is hidden', () => {
    const source = sources().toolCalls[0]!;
    const shown = answerFor(frame, '1', source.outcome);
    expect(shown.outcome === 'result' && shown.result.content).toEqual([
      { type: 'text', text: 'first result' },
    ]);
    const none = assembleFrame(preset({ components: [] }), sources());
    const hidden = answerFor(none, '1', source.outcome);
    expect(hidden.outcome === 'result' && hidden.result.content).toEqual([
      { type: 'text', text: HIDDEN_RESULT_TEXT },
    ]);
  });

  test('a result older than those the frame holds says so instead of claiming it is hidden', () => {
    const source = sources().toolCalls[0]!;
    const older = answerFor(frame, 'not-in-the-frame', source.outcome);
    expect(older.outcome === 'result' && older.result.content).toEqual([
      { type: 'text', text: OLDER_RESULT_TEXT },
    ]);
  });

  test('the context block holds only results no turn answers natively', () => {
    expect(contextText(frame, new Set(['1']))).toBe(
      '<TOOL_RESULTS source="run:r1">\n[test.echo · call p_2 · COMPLETED]\nsecond result\n</TOOL_RESULTS>',
    );
    expect(contextText(frame, new Set(['1', '2']))).toBe('');
  });
});
