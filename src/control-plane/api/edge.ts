/**
 * `GET /v1/edge` and `PUT /v1/edge` (DESIGN §11): the caller's team's base domain, proxy and DNS
 * provider settings. Both answer the settings with every secret redacted (`redactProxyConfig`,
 * `redactDnsConfig`); the secrets themselves only leave the store towards providers.
 *
 * Writing needs scope admin: a CI (`deploy`) token deploys onto the edge but does not choose it.
 * Every write appends `edge.changed` to the team's subject `edge` (`GET /v1/events?subject=edge`):
 * which fields, which token, the provider kinds — never a secret.
 */
import { dnsSettings, proxySettings, putEdgeBody, type EdgeSettings } from '../../contracts/edge-settings.js';
import { DenvError } from '../../contracts/errors.js';
import { redactDnsConfig, redactProxyConfig, secretsOfDnsConfig, secretsOfProxyConfig } from '../../edge/edge-config.js';
import { appendEvent } from '../store/events.js';
import { readTeamEdge, writeTeamEdge, type TeamEdge } from '../store/team-edge.js';
import { route } from './route.js';

function shown(edge: TeamEdge): EdgeSettings {
  return {
    base_domain: edge.base_domain,
    // Parsed again (it was valid when written) for the schema's field order: jsonb keeps keys in
    // an order of its own.
    proxy: edge.proxy && redactProxyConfig(proxySettings.parse(edge.proxy)),
    dns: edge.dns && redactDnsConfig(dnsSettings.parse(edge.dns)),
    updated_at: edge.updated_at,
  };
}

/**
 * A config whose secret is the redaction marker itself was read from an answer and sent back
 * (a GET answer PUT back whole): stored, it would replace the secret with "[redacted]". Refused.
 */
function refuseRedacted<C extends object>(what: string, config: C | null | undefined, secretsOf: (c: C) => string[], redact: (c: C) => C): void {
  if (config === null || config === undefined) return;
  const marker = secretsOf(redact(config))[0];
  if (marker === undefined || !secretsOf(config).includes(marker)) return;
  const field = Object.entries(config).find(([, v]) => v === marker)?.[0];
  throw new DenvError('BAD_REQUEST', `${what}.${field}: ${JSON.stringify(marker)} is how answers show the stored secret; send the secret itself`);
}

export const edgeRoutes = [
  route({
    method: 'GET', url: '/v1/edge', summary: "The team's edge settings (base_domain, proxy, dns), secrets redacted; null where not set",
    async handler({ db }, { auth }) {
      return shown(await readTeamEdge(db, auth.team));
    },
  }),
  route({
    method: 'PUT', url: '/v1/edge', body: putEdgeBody, scope: 'admin',
    summary: "Change the team's edge settings {base_domain?, proxy?, dns?}: a field left out keeps its value, null clears it; answers the settings, secrets redacted",
    async handler({ db }, { auth, body }) {
      refuseRedacted('proxy', body.proxy, secretsOfProxyConfig, redactProxyConfig);
      refuseRedacted('dns', body.dns, secretsOfDnsConfig, redactDnsConfig);
      return db.tx(async (tx) => {
        const stored = await writeTeamEdge(tx, auth.team, body);
        // Audit: who changed what, never a secret (providers by kind only).
        await appendEvent(tx, {
          team: auth.team,
          subject: 'edge',
          type: 'edge.changed',
          data: { fields: Object.keys(body).sort(), token: auth.tokenId, base_domain: stored.base_domain, proxy: stored.proxy?.provider ?? null, dns: stored.dns?.provider ?? null },
        });
        return shown(stored);
      });
    },
  }),
];
