/**
 * A team's edge settings (DESIGN §11): `PUT /v1/edge {base_domain?, proxy?, dns?}` and what
 * `GET /v1/edge` answers. The schemas are closed like every body: an unknown field, an unknown
 * provider or a provider's field sent to another is a 400 naming its path.
 *
 * `proxy` and `dns` parse to exactly `ProxyConfig` / `DnsConfig` (src/edge/edge-config.ts), what
 * providers are built from; the store checks that at compile time. PUT is a merge: a field left
 * out keeps its stored value, `null` clears it.
 *
 * No message here ever carries the value it refuses: URLs may hold credentials and secrets are
 * secrets, so every problem is named by its path and a fixed text.
 */
import { z } from 'zod';

/** One DNS label as denv publishes names (names.ts uses the same rule): LDH, 1–63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A DNS name: lower-cased, one trailing dot dropped, LDH labels, at most 253 characters, no
 * wildcard, not an IP address (its last label is not all digits). One label is enough: a base
 * domain `localhost` or a private zone `lan` are names too (a hostname needs two, names.ts).
 */
export const dnsName = z
  .string()
  .max(254)
  .transform((v, ctx) => {
    const name = v.toLowerCase().replace(/\.$/, '');
    const labels = name.split('.');
    if (name.length === 0 || name.length > 253 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
      ctx.addIssue({ code: 'custom', message: 'expected a DNS name like example.com (letters, digits and hyphens; no wildcard, not an IP address)' });
      return z.NEVER;
    }
    return name;
  });

/**
 * The base URL of a provider's API. http or https only; no user or password in it (the URL is
 * shown in answers: secrets go in their own fields), and no query or fragment (paths are
 * appended to it).
 */
export const providerUrl = z
  .string()
  .max(2048)
  .superRefine((v, ctx) => {
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected an http:// or https:// URL such as http://127.0.0.1:8081' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'expected an http:// or https:// URL' });
    else if (url.username !== '' || url.password !== '') ctx.addIssue({ code: 'custom', message: 'must not carry a user or password: secrets have fields of their own' });
    else if (url.search !== '' || url.hash !== '' || v.includes('?') || v.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not carry a query or fragment: API paths are appended to it' });
  });

const port = z.number().int('expected a port between 1 and 65535').min(1, 'expected a port between 1 and 65535').max(65535, 'expected a port between 1 and 65535');

/** A secret sent in an HTTP header (PowerDNS `X-API-Key`, Cloudflare's Bearer): visible ASCII. */
const headerSecret = z.string().min(1, 'must not be empty').max(4096).regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces (it is sent in an HTTP header)');

export const proxySettings = z.discriminatedUnion('provider', [
  z
    .strictObject({
      provider: z.literal('caddy'),
      admin_url: providerUrl,
      http_port: port.optional(),
      https_port: port.optional(),
    })
    .refine((c) => (c.http_port ?? 80) !== (c.https_port ?? 443), { path: ['https_port'], message: 'must differ from http_port (defaults 80 and 443)' }),
  z.strictObject({
    provider: z.literal('npmplus'),
    url: providerUrl,
    email: z.email('expected the e-mail address of an NPMplus user').max(254),
    password: z.string().min(1, 'must not be empty').max(4096),
  }),
  z.strictObject({ provider: z.literal('none') }),
]);

export const dnsSettings = z.discriminatedUnion('provider', [
  z.strictObject({
    provider: z.literal('powerdns'),
    api_url: providerUrl,
    api_key: headerSecret,
    zone: dnsName,
    server_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'expected a server id such as localhost').optional(),
  }),
  z.strictObject({
    provider: z.literal('cloudflare'),
    api_token: headerSecret,
    zone_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected a zone id (Cloudflare's are 32 hex characters)"),
    api_url: providerUrl.optional(),
  }),
  z.strictObject({ provider: z.literal('none') }),
]);

/** `PUT /v1/edge`: left out keeps the stored value, `null` clears it. */
export const putEdgeBody = z.strictObject({
  /** Hostnames are `<env>.<project>.<base_domain>` unless a service names its own. */
  base_domain: dnsName.nullable().optional(),
  proxy: proxySettings.nullable().optional(),
  dns: dnsSettings.nullable().optional(),
});

export type PutEdgeBody = z.output<typeof putEdgeBody>;
export type ProxySettings = z.output<typeof proxySettings>;
export type DnsSettings = z.output<typeof dnsSettings>;

/** What `GET /v1/edge` and `PUT /v1/edge` answer: the settings with their secrets redacted;
 *  `null` where nothing is set (no proxy, no DNS, no base domain). */
export interface EdgeSettings {
  readonly base_domain: string | null;
  readonly proxy: ProxySettings | null;
  readonly dns: DnsSettings | null;
  /** When the settings last changed; null when they never were set. */
  readonly updated_at: string | null;
}
