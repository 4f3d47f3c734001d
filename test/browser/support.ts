import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { test as base, onTestFailed } from 'vitest';
import { graphqlOver, type ServerProcess, startServer } from '../support/server-process.js';

/** Debian's package; CHROMIUM_PATH points elsewhere (another distribution, a local build). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The one way to leave the browser tests out: they are reported as skipped, never passed. */
export const skipBrowserTests = process.env.SKIP_BROWSER_TESTS === '1';

const ROOT = new URL('../..', import.meta.url).pathname;
const CONSOLE_INDEX = join(ROOT, 'console/dist/index.html');
export const OUTPUT_DIR = join(ROOT, '.test-output/browser');
const ADMIN_TOKEN = 'browser-tests-admin-token-0123456789';

/** Profiles the test policy sets up: calls on ASK wait for approval, on AUTO they run at once. */
export const ASK = 'browser-ask';
export const AUTO = 'browser-auto';

/** How long a page may take to show what a test waits for, on a 2-core machine running other suites. */
export const UI_TIMEOUT = 30_000;
const CLOSE_TIMEOUT = 15_000;

export class ChromiumMissing extends Error {
  override name = 'ChromiumMissing';
}
export class ConsoleNotBuilt extends Error {
  override name = 'ConsoleNotBuilt';
}

/** Runs `work` and fails with a named error when it takes longer than `ms`: a hang becomes a message. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Headless Chromium as the machine allows it (no sandbox in containers, no GPU, no network of its own). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new ChromiumMissing(
      `${CHROMIUM_PATH} does not exist: install Debian's chromium (apt-get install chromium, as .ci/run does), ` +
        'point CHROMIUM_PATH at a Chromium, or set SKIP_BROWSER_TESTS=1 to skip the browser tests',
    );
  }
  // launch() gives every browser a fresh temporary profile (user-data-dir) and removes it on close.
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 60_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The real server (`startApp` plus the test tools) as a child process on a real port, over an
 * embedded database in its own data dir; `restart` starts it again on the same port and data.
 */
export class ConsoleServer {
  private constructor(
    private process: ServerProcess,
    readonly dataDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** `env` adds to the server's environment (an IdP, say); `port` 0 picks a free one. */
  static async start(options: { env?: Record<string, string>; port?: number } = {}): Promise<ConsoleServer> {
    const dataDir = mkdtempSync(join(tmpdir(), 'ats-browser-'));
    const env = options.env ?? {};
    return new ConsoleServer(await ConsoleServer.spawn(dataDir, options.port ?? 0, env), dataDir, env);
  }

  private static spawn(dataDir: string, port: number, env: Record<string, string>) {
    return startServer({ ...env, DATA_DIR: dataDir, ADMIN_TOKEN, PORT: String(port) }, [
      'node_modules/.bin/tsx',
      'test/support/test-server.ts',
    ]);
  }

  get url(): string {
    return this.process.url;
  }
  get origin(): string {
    return this.process.origin;
  }
  get port(): number {
    return Number(new URL(this.process.url).port);
  }
  output(): string {
    return this.process.output();
  }

  /** SIGKILL to the process group: no drain, no goodbye to open sockets. */
  kill(): Promise<void> {
    return within(CLOSE_TIMEOUT, 'killing the server', this.process.kill());
  }

  async restart(): Promise<void> {
    const port = this.port;
    await this.kill();
    this.process = await ConsoleServer.spawn(this.dataDir, port, this.env);
  }

  async close(): Promise<void> {
    try {
      await this.kill();
    } finally {
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

export interface GqlResult {
  // biome-ignore lint/suspicious/noExplicitAny: the tests assert the exact shape they read.
  data?: any;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

export interface PendingCall {
  id: string;
  runId: string;
  argumentsHash: string;
}

/** What the tests ask of the API, as the admin unless a token is given. */
export class Api {
  constructor(private readonly server: ConsoleServer) {}

  /** The server's GraphQL URL now (a restart keeps the port). */
  get url(): string {
    return this.server.url;
  }

  gql(query: string, variables?: Record<string, unknown>, token: string = ADMIN_TOKEN): Promise<GqlResult> {
    return graphqlOver(this.server.url, token, query, variables);
  }

  /** Like gql, but an answer with errors is a failure of the set-up, not of the behaviour under test. */
  async must(query: string, variables?: Record<string, unknown>, token?: string): Promise<GqlResult['data']> {
    const res = await this.gql(query, variables, token);
    if (res.errors?.length) throw new Error(`set-up request failed: ${JSON.stringify(res.errors)}`);
    return res.data;
  }

  /** Once per server: calls of test.* tools wait for approval on ASK and run at once on AUTO. */
  async setUpPolicy(): Promise<void> {
    const rule = `mutation($p: String!, $e: PolicyEffect!, $t: String!) {
      setPolicyRule(input: { layer: PROFILE, scopeId: $p, toolPattern: $t, effect: $e }) { id } }`;
    await this.must(rule, { p: ASK, e: 'ASK', t: 'test.*' });
    await this.must(rule, { p: AUTO, e: 'ALLOW', t: 'test.*' });
    await this.must(rule, { p: AUTO, e: 'ALLOW', t: 'workspace.*' });
  }

  /** A token of `role` bound to `users` (every user when omitted); returns its secret. */
  async token(name: string, role: 'APPROVER' | 'VIEWER' | 'ADMIN', users?: string[]): Promise<string> {
    const binding = role === 'ADMIN' ? {} : users ? { users } : { allUsers: true };
    const data = await this.must(
      'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }',
      { input: { name, role, ...binding } },
    );
    return data.createApiToken.token;
  }

  async run(userId: string, profileId = ASK, workspaceId?: string): Promise<string> {
    const data = await this.must('mutation($input: CreateRunInput!) { createRun(input: $input) { id } }', {
      input: { userId, profileId, ...(workspaceId ? { workspaceId } : {}) },
    });
    return data.createRun.id;
  }

  async call(runId: string, name: string, args: Record<string, unknown> = {}) {
    const data = await this.must(
      `mutation($input: RequestToolCallInput!) { requestToolCall(input: $input) {
        id status approvalRequest { argumentsHash } } }`,
      { input: { runId, name, arguments: args } },
    );
    return data.requestToolCall as {
      id: string;
      status: string;
      approvalRequest: { argumentsHash: string } | null;
    };
  }

  /** A call on a new run of `userId` that waits for approval. */
  async pendingCall(userId: string, text = 'hello'): Promise<PendingCall> {
    const runId = await this.run(userId);
    const call = await this.call(runId, 'test.echo', { text });
    if (call.status !== 'AWAITING_APPROVAL')
      throw new Error(`expected a call awaiting approval: ${call.status}`);
    return { id: call.id, runId, argumentsHash: call.approvalRequest!.argumentsHash };
  }

  /** A policy rule (PolicyRuleInput), for tests that need more than the shared test policy. */
  async rule(input: Record<string, unknown>): Promise<string> {
    const data = await this.must(
      'mutation($input: PolicyRuleInput!) { setPolicyRule(input: $input) { id } }',
      {
        input,
      },
    );
    return data.setPolicyRule.id;
  }

  /**
   * One model turn of `runId` (an OpenAI chat response submitted as the run's agent would) making
   * these calls in order; returns the turn's id and its calls.
   */
  async turn(runId: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>) {
    const response = {
      id: `chatcmpl-${runId}-${calls.length}-${Date.now()}`,
      object: 'chat.completion',
      created: 1764665845,
      model: 'browser-test',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '',
            tool_calls: calls.map((call, index) => ({
              index,
              id: `call_${index}_${runId}`,
              type: 'function',
              function: { name: call.name.replace(/\./g, '_'), arguments: JSON.stringify(call.arguments) },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const data = await this.must(
      `mutation($runId: ID!, $response: JSON!) {
        submitModelResponse(runId: $runId, provider: OPENAI_CHAT, response: $response) {
          turn { id } toolCalls { id status turnId approvalRequest { argumentsHash } } } }`,
      { runId, response },
    );
    const submitted = data.submitModelResponse as {
      turn: { id: string };
      toolCalls: Array<{
        id: string;
        status: string;
        turnId: string;
        approvalRequest: { argumentsHash: string };
      }>;
    };
    return { turnId: submitted.toolCalls[0]!.turnId, calls: submitted.toolCalls };
  }

  async approve(callId: string, reason: string): Promise<void> {
    await this.must('mutation($id: ID!, $r: String) { approveToolCall(id: $id, reason: $r) { id } }', {
      id: callId,
      r: reason,
    });
  }

  async status(callId: string): Promise<string> {
    return (await this.must('query($id: ID!) { toolCall(id: $id) { status } }', { id: callId })).toolCall
      .status;
  }

  /** Waits until the call has `status` (a dispatched call runs after the decision's answer). */
  async untilStatus(callId: string, status: string): Promise<void> {
    const deadline = Date.now() + UI_TIMEOUT;
    let seen = await this.status(callId);
    while (seen !== status) {
      if (Date.now() > deadline) throw new Error(`call ${callId} is ${seen}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await this.status(callId);
    }
  }
}

/** Opens signed-in pages, each in a context of its own (its own session storage), closed after the test. */
export interface Consoles {
  open(token: string, options?: { path?: string }): Promise<Page>;
  /** A context without a page signed in, for tests that drive sign-in or routing themselves. */
  context(): Promise<BrowserContext>;
}

export async function signIn(page: Page, origin: string, token: string, path = '/'): Promise<void> {
  await page.goto(`${origin}${path}`);
  await page.locator('[data-testid=token-input]').fill(token);
  await page.locator('[data-testid=sign-in]').click();
  await page.locator('[data-testid=whoami]').waitFor({ timeout: UI_TIMEOUT });
}

/** The ids of the cards the page shows, sorted. */
export function cardIds(page: Page): Promise<string[]> {
  return page
    .locator('[data-testid=call-card]')
    .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-call-id') ?? '').sort());
}

/** Waits until the page shows exactly these cards (in any order); the test then asserts the set itself. */
export async function waitForCards(page: Page, ids: string[]): Promise<void> {
  const expected = [...ids].sort();
  await page.waitForFunction(
    (want) => {
      const have = [...document.querySelectorAll('[data-testid=call-card]')]
        .map((c) => c.getAttribute('data-call-id') ?? '')
        .sort();
      return have.length === want.length && have.every((id, i) => id === want[i]);
    },
    expected,
    { timeout: UI_TIMEOUT, polling: 100 },
  );
}

export function card(page: Page, callId: string) {
  return page.locator(`[data-testid=call-card][data-call-id="${callId}"]`);
}

export async function waitForConnection(
  page: Page,
  state: 'connected' | 'reconnecting' | 'offline',
  timeout = UI_TIMEOUT,
) {
  await page.locator(`[data-testid=connection-state][data-state=${state}]`).waitFor({ timeout });
}

/**
 * Starts recording every value the page's connection-state takes, so a state shown for a moment is
 * not missed; the returned function reads them in order (repeats collapsed).
 */
export async function recordConnectionStates(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    const note = () => {
      const state = document.querySelector('[data-testid=connection-state]')?.getAttribute('data-state');
      if (state && seen[seen.length - 1] !== state) seen.push(state);
    };
    note();
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
    (window as unknown as { connectionStates: string[] }).connectionStates = seen;
  });
  return () =>
    page.evaluate(() => [...(window as unknown as { connectionStates: string[] }).connectionStates]);
}

/**
 * Writes a screenshot of the page into .test-output/browser/ and, when UPDATE_SCREENSHOTS=1, over the
 * one of that name in docs/ (the pictures docs/console.md shows).
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const path = join(OUTPUT_DIR, name);
  await page.screenshot({ path, fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(path, join(ROOT, 'docs', name));
}

interface FileFixtures {
  browser: Browser;
  server: ConsoleServer;
  api: Api;
}
interface TestFixtures {
  consoles: Consoles;
}

/**
 * Chained fixtures: per file one Chromium and one server process (with the test policy), per test
 * the browser contexts it opens. Teardown has time limits, so a hang fails with its name.
 */
export const browserTest = base.extend<{ $test: TestFixtures; $file: FileFixtures }>({
  browser: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
    async ({}, use) => {
      const browser = await launchChromium();
      await use(browser);
      await within(CLOSE_TIMEOUT, 'closing Chromium', browser.close());
    },
    { scope: 'file' },
  ],
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
    async ({}, use) => {
      const server = await ConsoleServer.start();
      try {
        await use(server);
      } finally {
        await server.close();
      }
    },
    { scope: 'file' },
  ],
  api: [
    async ({ server }, use) => {
      const api = new Api(server);
      await api.setUpPolicy();
      await use(api);
    },
    { scope: 'file' },
  ],
  consoles: async ({ browser, server }, use) => {
    if (!existsSync(CONSOLE_INDEX)) {
      throw new ConsoleNotBuilt(
        `${CONSOLE_INDEX} is missing: run \`npm run build:console\` (npm ci runs it through prepare)`,
      );
    }
    const contexts: BrowserContext[] = [];
    const problems: string[] = [];
    onTestFailed(() => {
      if (problems.length) console.error(`page problems:\n${problems.join('\n')}`);
    });
    const context = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      ctx.setDefaultTimeout(UI_TIMEOUT);
      ctx.on('weberror', (error) => problems.push(`page error: ${error.error().message}`));
      ctx.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      contexts.push(ctx);
      return ctx;
    };
    await use({
      context,
      open: async (token, options = {}) => {
        const page = await (await context()).newPage();
        await signIn(page, server.origin, token, options.path);
        return page;
      },
    });
    await within(CLOSE_TIMEOUT, 'closing browser contexts', Promise.all(contexts.map((c) => c.close())));
  },
});
