/**
 * Source deploys (DESIGN "Source", issue 13): how a project's linked repository is reached, and
 * what the control plane sends a host so it can run a commit's checkout. Pure.
 */
import { z } from 'zod';

/** How a linked repository is reached when it is not public. Stored as secrets, never echoed. */
export const gitCredentialsSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('token'),
    /** An HTTPS access token (GitHub, GitLab, Gitea …), sent as HTTP Basic auth. */
    token: z.string().min(1).max(4096).regex(/^[\x21-\x7e]+$/, 'expected a token of printable characters without spaces'),
    /** The Basic-auth user name (default `x-access-token`, which GitHub expects; GitLab takes `oauth2`). */
    username: z.string().min(1).max(255).regex(/^[^\s:]+$/, 'expected a user name without spaces or ":"').optional(),
  }),
  z.strictObject({
    kind: z.literal('ssh_key'),
    /** A deploy key: an OpenSSH private key without a passphrase. */
    private_key: z.string().min(1).max(16 * 1024).refine((k) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(k), 'expected a private key in OpenSSH or PEM format'),
    /** known_hosts lines for the server; absent: the first host key seen is pinned. */
    known_hosts: z.string().min(1).max(64 * 1024).optional(),
  }),
]);
export type GitCredentials = z.infer<typeof gitCredentialsSchema>;

/** What a host needs to run a version of a source deploy: it fetches `url` and checks `commit` out. */
export interface SourceCheckout {
  readonly url: string;
  readonly commit: string;
  readonly credentials: GitCredentials | null;
  /** file:// addresses are allowed (the control plane runs under `denv dev` or with --allow-file-repos). */
  readonly allow_file: boolean;
}

export const sourceCheckoutSchema = z.strictObject({
  url: z.string().min(1).max(2048),
  commit: z.string().regex(/^[0-9a-f]{40}$/, 'expected a full commit id'),
  credentials: gitCredentialsSchema.nullable(),
  allow_file: z.boolean(),
});
