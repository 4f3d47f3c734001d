import { type FormEvent, useState } from 'react';
import type { SignInConfig } from '../logic/oidc';

export function SignIn({
  onToken,
  onIdp,
  idp,
  error,
}: {
  onToken: (token: string) => void;
  onIdp: () => void;
  /** The IdP this server signs people in with; null when none, undefined while asking the server. */
  idp: SignInConfig | null | undefined;
  error: string | null;
}) {
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim()) onToken(token.trim());
  };
  return (
    <main className="sign-in">
      <h1>Approval console</h1>
      {idp && (
        <section className="idp">
          <button type="button" data-testid="sign-in-idp" onClick={onIdp}>
            Sign in with your company account
          </button>
          <p className="hint">
            at <code>{new URL(idp.issuer).host}</code>; the session ends when the IdP says, and the console
            then asks you to sign in again.
          </p>
        </section>
      )}
      {error && (
        <p className="error" data-testid="sign-in-error" role="alert">
          {error}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="token">{idp ? 'Or paste an API token' : 'API token'}</label>
        <input
          id="token"
          data-testid="token-input"
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          placeholder="paste an ADMIN, APPROVER or VIEWER token"
        />
        <button type="submit" data-testid="sign-in" disabled={!token.trim()}>
          Sign in
        </button>
      </form>
      <p className="hint">
        The token stays in this tab only (session storage). An admin creates one with{' '}
        <code>npm run cli -- token create --role APPROVER --users alice</code>.
      </p>
    </main>
  );
}
