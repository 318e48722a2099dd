/** Sign in with an API token (or open any UI address with `#token=<token>`). */
import { useState } from 'preact/hooks';
import { setToken } from '../auth.js';

export function SignIn({ onSignedIn, reason }: { onSignedIn: () => void; reason: string | null }) {
  const [token, setValue] = useState('');
  return (
    <main class="sign-in">
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          if (!token.trim()) return;
          setToken(token);
          onSignedIn();
        }}
      >
        <h1>denv</h1>
        <p>Sign in with an API token. `denv dev` prints a link that signs you in, and writes the admin token to its data dir.</p>
        {reason ? <div class="error-box">{reason}</div> : null}
        <label class="field">
          <span>API token</span>
          <input type="password" autocomplete="off" value={token} onInput={(e) => setValue((e.target as HTMLInputElement).value)} data-testid="token-input" />
        </label>
        <button class="button primary" type="submit" data-testid="sign-in">
          Sign in
        </button>
      </form>
    </main>
  );
}
