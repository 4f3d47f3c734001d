/** The IdP's account of who decided, as the API gives it on a decision or an edit. */
export interface Person {
  issuer: string;
  subject: string;
  displayName: string;
}

/**
 * Who decided: the person's name when they signed in with the IdP (their subject and IdP on hover,
 * which is what identifies them for good), else the token's actor (`approver:alice`).
 */
export function Decider({ actor, person }: { actor: string; person?: Person | null }) {
  if (!person) return <strong data-testid="decider">{actor}</strong>;
  return (
    <strong
      data-testid="decider"
      data-subject={person.subject}
      title={`${person.subject} at ${person.issuer} (${actor})`}
    >
      {person.displayName}
    </strong>
  );
}
