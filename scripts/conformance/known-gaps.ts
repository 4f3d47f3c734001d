/**
 * Checks of the official suite that the reference server passes directly and the gateway's
 * /mcp/<server> does not pass yet (issue 27 stays open on them). Each needs the upstream's messages
 * during a tools/call to reach the host that made it: its log and progress notifications, and its
 * requests to the client (sampling, elicitation) relayed and answered. The gateway runs upstream
 * calls through the lifecycle over this process's one connection to the server, so nothing yet ties
 * such a message to the host request it belongs to (docs/mcp-gateway.md, "What is not done").
 *
 * The conformance step fails on a missed check that is not listed here, and on a listed one that
 * passes: the list may only shrink.
 */
const relayed = 'the upstream’s requests and notifications during a call are not relayed to the host yet';

export const knownGaps: Record<string, string> = {
  'tools-call-with-logging/tools-call-with-logging': relayed,
  'tools-call-with-progress/tools-call-with-progress': relayed,
  'tools-call-sampling/tools-call-sampling': relayed,
  'tools-call-elicitation/tools-call-elicitation': relayed,
  ...Object.fromEntries(
    ['string', 'integer', 'number', 'enum', 'boolean'].map((kind) => [
      `elicitation-sep1034-defaults/elicitation-sep1034-${kind}-default`,
      relayed,
    ]),
  ),
  ...Object.fromEntries(
    ['untitled-single', 'titled-single', 'legacy-enumnames', 'untitled-multi', 'titled-multi'].map((kind) => [
      `elicitation-sep1330-enums/elicitation-sep1330-${kind}`,
      relayed,
    ]),
  ),
};
