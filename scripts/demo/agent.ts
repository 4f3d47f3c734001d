import type { Api, Json } from './api.js';
import type { RunFollower } from './follower.js';
import { chatCompletion, type Earlier, TURNS } from './turns.js';

const SUBMIT = `mutation($runId: ID!, $response: JSON!) {
  submitModelResponse(runId: $runId, provider: OPENAI_CHAT, response: $response) {
    toolCalls { id name status } } }`;
const MODEL_REQUEST = `query($runId: ID!) {
  modelRequest(runId: $runId, provider: OPENAI_CHAT, presetName: "default") { body } }`;
const NAMES = `query($runId: ID!) {
  providerTools(runId: $runId, provider: OPENAI_CHAT) { names { name nativeName } } }`;
const RESULT = 'query($id: ID!) { toolCall(id: $id) { result { structured } } }';

export interface PlayedCall {
  id: string;
  name: string;
  status: string;
}

/**
 * The agent runtime's side of the loop, with a script in place of the model: each turn is
 * submitted as the provider's response, its calls are left to the server (run, wait for a
 * person, fail), and once every call has an answer the next request is assembled, as it would be
 * sent to the model.
 */
export async function playScript(
  agent: Api,
  runId: string,
  follower: RunFollower,
  log: (line: string) => void,
): Promise<PlayedCall[]> {
  const names = (await agent.request(NAMES, { runId })).providerTools.names as Json[];
  const native = new Map<string, string>(names.map((n) => [n.name, n.nativeName]));
  const nativeName = (tool: string) => {
    const name = native.get(tool);
    if (!name) throw new Error(`the run is not offered ${tool}: check the writer profile's rules`);
    return name;
  };
  const earlier: Earlier = new Map();
  const played: PlayedCall[] = [];
  for (const [index, script] of TURNS.entries()) {
    const turn = script(earlier);
    log(`model: ${turn.say}`);
    const submitted = await agent.request(SUBMIT, {
      runId,
      response: chatCompletion(turn, index, runId, nativeName),
    });
    const calls = submitted.submitModelResponse.toolCalls as Array<{ id: string; name: string }>;
    const statuses = await follower.finished(calls.map((c) => c.id));
    for (const [i, call] of calls.entries()) {
      played.push({ id: call.id, name: call.name, status: statuses[i]! });
      const result = statuses[i] === 'COMPLETED' ? await agent.request(RESULT, { id: call.id }) : null;
      earlier.set(call.name, result?.toolCall.result?.structured ?? null);
    }
    if (index < TURNS.length - 1) {
      const request = await agent.request(MODEL_REQUEST, { runId });
      log(`        next request to the model: ${request.modelRequest.body.messages.length} messages`);
    }
  }
  return played;
}
