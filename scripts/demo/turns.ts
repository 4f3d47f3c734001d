import { POST_TOOL } from './extension.js';
import { SKILL } from './setup.js';

/** One scripted assistant turn: what the model says and the tools it calls (by our names). */
export interface Turn {
  say: string;
  calls: Array<{ tool: string; arguments: Record<string, unknown> }>;
}

/** What earlier calls answered, by tool name (the last call of each), for turns that depend on it. */
export type Earlier = Map<string, Record<string, unknown> | null>;

export const DRAFT_PATH = 'output/seraphina-3p.md';

const DRAFT = `# 3P update: the Seraphina chat

Progress: read the whole chat (a greeting, one question, one answer); Seraphina, the forest's guardian, healed the traveller after the beasts' attack.
Plans: continue with the traveller's recovery and a first walk through Eldoria.
Problems: none so far.
`;

const PATCH = `*** Begin Patch
*** Update File: ${DRAFT_PATH}
@@
 Plans: continue with the traveller's recovery and a first walk through Eldoria.
-Problems: none so far.
+Problems: the last reply turns flirtatious, off the tone of a healer's scene; the next one should steer back.
*** End Patch`;

/**
 * The agent's script, as a model would play it: look around, read, write a draft (a person
 * approves), mark it, revise it, think better of the revision and restore the draft (a person
 * approves the restore and sees its diff), post it through an extension (a person approves the
 * filled-in message) and finish.
 */
export const TURNS: Array<(earlier: Earlier) => Turn> = [
  () => ({
    say: 'Let me see what I have to work with: the workspace, the chat and the skills.',
    calls: [
      { tool: 'workspace.list_files', arguments: {} },
      { tool: 'chat.read_history_tail', arguments: { limit: 10 } },
      { tool: 'skill.list', arguments: {} },
    ],
  }),
  () => ({
    say: 'The internal-comms skill has a 3P format. I will search the chat for the scene and read the guide.',
    calls: [
      { tool: 'chat.search', arguments: { query: 'forest' } },
      { tool: 'skill.read', arguments: { name: SKILL, path: 'examples/3p-updates.md' } },
    ],
  }),
  () => ({
    say: 'Here is a first draft of the 3P update.',
    calls: [
      { tool: 'workspace.write_file', arguments: { path: DRAFT_PATH, content: DRAFT, mode: 'create' } },
    ],
  }),
  () => ({
    say: 'Marking the approved draft before I revise it.',
    calls: [{ tool: 'workspace.create_checkpoint', arguments: { label: 'first draft approved' } }],
  }),
  () => ({
    say: 'The Problems line undersells the tone issue; revising it.',
    calls: [{ tool: 'workspace.apply_patch', arguments: { patch: PATCH } }],
  }),
  (earlier) => ({
    say: 'On reflection the 3P guide asks for succinct updates; going back to the approved draft.',
    calls: [
      {
        tool: 'workspace.restore_checkpoint',
        arguments: { checkpoint: Number(earlier.get('workspace.create_checkpoint')?.number ?? 1) },
      },
    ],
  }),
  () => ({
    say: 'Posting the update to the team board.',
    calls: [
      {
        tool: POST_TOOL,
        arguments: { channel: 'writers-room', title: '3P: the Seraphina chat', body: DRAFT },
      },
    ],
  }),
  () => ({
    say: 'Done.',
    calls: [
      {
        tool: 'workspace.finish',
        arguments: {
          summary: 'Wrote and posted a 3P update on the Seraphina chat.',
          artifacts: [DRAFT_PATH],
        },
      },
    ],
  }),
];

/** The turn as an OpenAI Chat Completions response body, with the provider's names for our tools. */
export function chatCompletion(
  turn: Turn,
  index: number,
  runId: string,
  nativeName: (tool: string) => string,
) {
  return {
    id: `chatcmpl-demo-${runId.slice(0, 8)}-${index + 1}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'demo-scripted-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.say,
          tool_calls: turn.calls.map((call, i) => ({
            id: `call_${index + 1}_${i + 1}`,
            type: 'function',
            function: { name: nativeName(call.tool), arguments: JSON.stringify(call.arguments) },
          })),
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}
