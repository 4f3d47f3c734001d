/**
 * Why a call waits for a person, said plainly first: the server's policyReason quotes the rules
 * that decided (`PROFILE rule 3f… (ASK "workspace.*"): drafts need review`); the person reads the
 * rule's own reason, or what the default gate means, and the rule ids stay behind a toggle.
 */

export interface QuotedRule {
  layer: string;
  id: string;
  effect: string;
  toolPattern: string;
  /** The rule's conditions as the server wrote them; null when it has none. */
  when: string | null;
  /** The reason the rule was written with; null when none. */
  reason: string | null;
}

export interface ExplainedReason {
  /** One plain sentence for the person. */
  human: string;
  /** The rules the server's reason quotes, in order. */
  rules: QuotedRule[];
  /** The server's reason as it came. */
  raw: string;
}

const RULE =
  /(PLATFORM|USER|PLAN_NODE|PROFILE|SOURCE) rule (\S+) \((ALLOW|ASK|DENY) "((?:[^"\\]|\\.)*)"(?: when (.*?))?\)(?=: |;|$)(?:: ([^;]*))?/g;

const LAYER_WORDS: Record<string, string> = {
  PLATFORM: 'platform',
  USER: "this user's",
  PLAN_NODE: "this plan step's",
  PROFILE: "this agent profile's",
  SOURCE: "this tool source's",
};

const GATES: Array<[RegExp, string]> = [
  [
    /^destructive tools need approval/,
    'This tool can delete or overwrite data, so a person decides by default.',
  ],
  [/^tools with external side effects/, 'This tool acts outside the server, so a person decides by default.'],
  [/^high-cost tools/, 'This tool is high-cost, so a person decides by default.'],
  [/^MCP tools/, 'This tool comes from an MCP server, so a person decides by default.'],
  [/^EXTENSION tools/, 'This tool comes from an extension, so a person decides by default.'],
];

function quotedRules(raw: string): QuotedRule[] {
  return [...raw.matchAll(RULE)].map((m) => ({
    layer: m[1]!,
    id: m[2]!,
    effect: m[3]!,
    toolPattern: m[4]!,
    when: m[5] ?? null,
    reason: m[6]?.trim() || null,
  }));
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

function humanOf(raw: string, rules: QuotedRule[]): string {
  const asking = /approval required by (?:PLATFORM|USER|PLAN_NODE|PROFILE|SOURCE) rule (\S+)/.exec(raw);
  if (asking) {
    const rule = rules.find((r) => r.id === asking[1]);
    if (rule?.reason) return sentence(rule.reason);
    if (rule) {
      const condition = rule.when ? ' when its arguments match' : '';
      return `A rule of ${LAYER_WORDS[rule.layer] ?? 'the'} policy asks a person to decide calls of ${rule.toolPattern}${condition}.`;
    }
  }
  if (raw.includes('approval required by the tool permission APPROVAL_REQUIRED'))
    return 'This tool always asks a person to decide (its permission is APPROVAL_REQUIRED).';
  const gate = /approval required: ([^;]*)/.exec(raw);
  if (gate) {
    const known = GATES.find(([pattern]) => pattern.test(gate[1]!));
    return known ? known[1] : sentence(gate[1]!);
  }
  // Anything else: the server's words with each quoted rule shortened to "a rule".
  const plain = raw.replace(RULE, 'a rule').trim();
  return plain ? sentence(plain) : 'Policy asks a person to decide this call.';
}

export function explainReason(raw: string | null | undefined): ExplainedReason {
  const text = raw ?? '';
  const rules = quotedRules(text);
  return { human: humanOf(text, rules), rules, raw: text };
}
