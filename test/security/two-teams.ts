/**
 * Two teams on one control plane, as the review ran them: the instance's admin (team `default`)
 * creates team `bravo`, and each team gets an ordinary token (scope admin within its team, not the
 * instance's admin token).
 */
import { Api } from '../helpers/api.js';

export interface TwoTeams {
  /** Team A (`default`): a team-admin token that is not the instance's admin token. */
  readonly a: Api;
  readonly aTokenId: string;
  /** Team B (`bravo`). */
  readonly b: Api;
  readonly bTeam: string;
}

export async function twoTeams(url: string, adminToken: string): Promise<TwoTeams> {
  const admin = new Api(url, adminToken);
  const ta = await admin.post('/v1/tokens', { name: 'team-a' });
  if (ta.status !== 201) throw new Error(`token for team A: ${ta.status} ${JSON.stringify(ta.body)}`);
  const team = await admin.post('/v1/teams', { name: 'bravo' });
  if (team.status !== 201) throw new Error(`team bravo: ${team.status} ${JSON.stringify(team.body)}`);
  const tb = await admin.post('/v1/tokens', { name: 'team-b', team: 'bravo' });
  if (tb.status !== 201) throw new Error(`token for team B: ${tb.status} ${JSON.stringify(tb.body)}`);
  return { a: new Api(url, ta.body.token), aTokenId: ta.body.id, b: new Api(url, tb.body.token), bTeam: team.body.id };
}
