import { describe, expect, it } from 'vitest';
import { DEFAULT_URL, parseOptions } from '../../../scripts/demo/options.js';

describe('npm run demo options', () => {
  it('defaults to the local server, a person approving, and alice', () => {
    expect(parseOptions([], {})).toEqual({
      url: DEFAULT_URL,
      urlIsDefault: true,
      adminToken: null,
      embedded: false,
      autoApproveMs: null,
      exitAtEnd: false,
      user: 'alice',
      mcp: false,
      help: false,
    });
  });

  it('--mcp plays an MCP host on the gateway instead of the GraphQL agent', () => {
    expect(parseOptions(['--mcp', '--embedded'], {})).toMatchObject({ mcp: true, embedded: true });
  });

  it('takes the URL and admin token from ATS_URL and ADMIN_TOKEN, and an explicit URL is no default', () => {
    const options = parseOptions([], { ATS_URL: 'http://10.0.0.2:4000/graphql', ADMIN_TOKEN: 'secret' });
    expect([options.url, options.urlIsDefault, options.adminToken]).toEqual([
      'http://10.0.0.2:4000/graphql',
      false,
      'secret',
    ]);
  });

  it('lets --url and --token (also as --name=value) win over the environment', () => {
    const options = parseOptions(['--url=http://h:1/graphql', '--token', 'given'], {
      ATS_URL: 'http://other/graphql',
      ADMIN_TOKEN: 'env',
    });
    expect([options.url, options.adminToken]).toEqual(['http://h:1/graphql', 'given']);
  });

  it('with --embedded names no URL to play against', () => {
    expect(parseOptions(['--embedded'], { ATS_URL: 'http://ignored/graphql' })).toMatchObject({
      url: null,
      embedded: true,
      urlIsDefault: false,
    });
  });

  it('auto-approves after 3 s by default, after --approve-after when given, and then stops at the end', () => {
    expect(parseOptions(['--auto-approve'], {})).toMatchObject({ autoApproveMs: 3_000, exitAtEnd: true });
    expect(parseOptions(['--auto-approve', '--approve-after', '0'], {}).autoApproveMs).toBe(0);
  });

  it.each([
    [['--frobnicate'], /unknown option --frobnicate/],
    [['--url'], /--url needs a value/],
    [['--embedded', '--url', 'http://h/graphql'], /--embedded starts its own server/],
    [['--auto-approve', '--approve-after', '1.5'], /whole number of milliseconds/],
    [['--approve-after', '100'], /--approve-after goes with --auto-approve/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOptions(argv, {})).toThrow(message);
  });
});
