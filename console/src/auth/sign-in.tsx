import { type FormEvent, useState } from 'react';

export function SignIn({ onToken, error }: { onToken: (token: string) => void; error: string | null }) {
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim()) onToken(token.trim());
  };
  return (
    <main className="sign-in">
      <h1>Approval console</h1>
      <form onSubmit={submit}>
        <label htmlFor="token">API token</label>
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
        {error && (
          <p className="error" data-testid="sign-in-error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p className="hint">
        The token stays in this tab only (session storage). An admin creates one with{' '}
        <code>npm run cli -- token create --role APPROVER --users alice</code>.
      </p>
    </main>
  );
}
