/** The shell: sign-in gate, the top bar, and the page for the current address. */
import { useEffect, useState } from 'preact/hooks';
import { setUnauthorizedHandler } from './api.js';
import { clearToken, getToken } from './auth.js';
import { Link } from './components/ui.js';
import { DeploymentPage } from './pages/deployment.js';
import { EnvPage } from './pages/env.js';
import { Hosts } from './pages/hosts.js';
import { Overview } from './pages/overview.js';
import { SignIn } from './pages/sign-in.js';
import { useRoute } from './router.js';

export function App() {
  const [signedIn, setSignedIn] = useState(() => getToken() !== null);
  const [reason, setReason] = useState<string | null>(null);
  const route = useRoute();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      setReason('The token was refused (unknown or revoked). Sign in again.');
      setSignedIn(false);
    });
  }, []);
  if (!signedIn) return <SignIn reason={reason} onSignedIn={() => (setReason(null), setSignedIn(true))} />;
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">
          denv
        </Link>
        <nav>
          <Link href="/" class={route.page === 'overview' ? 'active' : ''}>
            Overview
          </Link>
          <Link href="/hosts" class={route.page === 'hosts' ? 'active' : ''}>
            Hosts
          </Link>
        </nav>
        <button
          class="button small"
          data-testid="sign-out"
          onClick={() => {
            clearToken();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main class="page">
        {route.page === 'overview' ? <Overview /> : null}
        {route.page === 'hosts' ? <Hosts /> : null}
        {route.page === 'env' ? <EnvPage key={route.id} id={route.id} /> : null}
        {route.page === 'deployment' ? <DeploymentPage key={route.id} id={route.id} /> : null}
        {route.page === 'missing' ? <p class="empty">Nothing at {route.path}. <Link href="/">Back to the overview</Link></p> : null}
      </main>
    </>
  );
}
