import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../../src/model/providers/index.js';
import type { AssistantTurn } from '../../../src/model/providers/types.js';
import { parseJsonLines } from '../../support/sse.js';
import { FIXTURE_TOOLS, fixtureJson, fixtureText, spec, textResult } from './support.js';

const chat = adapterFor('OPENAI_CHAT');
const responses = adapterFor('OPENAI_RESPONSES');
const anthropic = adapterFor('ANTHROPIC');
const gemini = adapterFor('GEMINI');

function turnFrom(
  provider: 'OPENAI_CHAT' | 'OPENAI_RESPONSES' | 'ANTHROPIC' | 'GEMINI',
  body: unknown,
): AssistantTurn {
  const adapter = adapterFor(provider);
  return adapter.parseResponse(body, adapter.toolDeclarations(FIXTURE_TOOLS).names).assistantTurn;
}

function geminiStreamTurn(): AssistantTurn {
  const chunks = parseJsonLines(
    fixtureText('gemini-streamGenerateContent-thought-parallel-functionCall.stream.jsonl'),
  );
  return turnFrom('GEMINI', gemini.assembleStream(chunks));
}

describe('replaying a turn to another provider', () => {
  it('drops Anthropic thinking and its signature when going to OpenAI Chat', () => {
    const turn = turnFrom('ANTHROPIC', fixtureJson('anthropic-messages-thinking-tool_use.json'));
    expect(chat.renderAssistantTurn(turn, chat.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
            type: 'function',
            function: { name: 'checkSandboxErrors', arguments: '{}' },
          },
        ],
      },
    ]);
  });

  it('carries Anthropic text and calls to Gemini without any signature', () => {
    const body = fixtureJson('anthropic-messages-text-tool_use.json');
    const text = (body.content as Array<{ text?: string }>)[0]!.text!;
    const turn = turnFrom('ANTHROPIC', body);
    expect(gemini.renderAssistantTurn(turn, gemini.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      { role: 'model', parts: [{ text }, { functionCall: { name: 'updateIssueList', args: {} } }] },
    ]);
  });

  it('drops Gemini thoughts and thought signatures when going to Anthropic', () => {
    const turn = geminiStreamTurn();
    const ids = turn.parts.flatMap((part) => (part.kind === 'tool_call' ? [part.call.id] : []));
    expect(anthropic.renderAssistantTurn(turn, anthropic.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: ids[0], name: 'read_theme', input: {} },
          { type: 'tool_use', id: ids[1], name: 'read_screen', input: { id: 'A' } },
          { type: 'tool_use', id: ids[2], name: 'read_screen', input: { id: 'B' } },
          { type: 'tool_use', id: ids[3], name: 'read_screen', input: { id: 'C' } },
        ],
      },
    ]);
  });

  it('answers a Gemini turn on Anthropic with tool_result blocks matching the rendered ids', () => {
    const turn = geminiStreamTurn();
    const ids = turn.parts.flatMap((part) => (part.kind === 'tool_call' ? [part.call.id] : []));
    const messages = anthropic.toolResultMessages(
      turn,
      ids.map((id) => ({ callId: id, outcome: 'result', result: textResult(id, 'done') })),
      anthropic.toolDeclarations(FIXTURE_TOOLS).names,
    );
    expect(messages).toEqual([
      {
        role: 'user',
        content: ids.map((id) => ({
          type: 'tool_result',
          tool_use_id: id,
          content: 'done',
          is_error: false,
        })),
      },
    ]);
  });

  it('drops an OpenAI Responses reasoning item and unknown items when going to Anthropic', () => {
    const turn = turnFrom(
      'OPENAI_RESPONSES',
      fixtureJson('openai-responses-reasoning-program-function_call.json'),
    );
    expect(anthropic.renderAssistantTurn(turn, anthropic.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'call_rj6LW6NEyodD5YVKeoexoLNz',
            name: 'getInventory',
            input: { sku: 'sku_123' },
          },
        ],
      },
    ]);
  });

  it('drops DeepSeek reasoning_content when going to OpenAI Responses', () => {
    const turn = turnFrom(
      'OPENAI_CHAT',
      fixtureJson('deepseek-chat-completion-reasoning_content-tool_calls.json'),
    );
    expect(responses.renderAssistantTurn(turn, responses.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      {
        type: 'function_call',
        call_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo',
        name: 'weather',
        arguments: '{"location":"San Francisco"}',
      },
    ]);
  });

  it('carries a final Responses message to Gemini as text, without its reasoning', () => {
    const turn = turnFrom('OPENAI_RESPONSES', fixtureJson('openai-responses-reasoning-message.json'));
    expect(gemini.renderAssistantTurn(turn, gemini.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      { role: 'model', parts: [{ text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570' }] },
    ]);
  });

  it("re-encodes our tool names in the new provider's charset", () => {
    const offered = [spec('workspace.apply_patch'), spec('3d.render')];
    const chatNames = chat.toolDeclarations(offered).names;
    const body = {
      id: 'chatcmpl-1',
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'workspace_apply_patch', arguments: '{"p":1}' },
              },
              { id: 'call_2', type: 'function', function: { name: '3d_render', arguments: '{}' } },
            ],
          },
        },
      ],
    };
    const turn = chat.parseResponse(body, chatNames).assistantTurn;
    expect(gemini.renderAssistantTurn(turn, gemini.toolDeclarations(offered).names)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'workspace_apply_patch', args: { p: 1 } } },
          { functionCall: { name: '_3d_render', args: {} } },
        ],
      },
    ]);
  });

  it('sends a call with unparseable arguments as empty input where the wire needs an object', () => {
    const body = {
      id: 'chatcmpl-2',
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"loc' } },
            ],
          },
        },
      ],
    };
    const turn = turnFrom('OPENAI_CHAT', body);
    expect(anthropic.renderAssistantTurn(turn, anthropic.toolDeclarations(FIXTURE_TOOLS).names)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_9', name: 'weather', input: {} },
        ],
      },
    ]);
  });
});
