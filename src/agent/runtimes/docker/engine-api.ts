/**
 * Read-only questions to the Docker Engine API over its unix socket: is the engine up, what does
 * a container or an image look like. No program is started for these (they run on every health
 * poll and idempotency check, where spawning the docker CLI would cost tens of milliseconds and a
 * core's worth of CPU); everything that *changes* state goes through the docker and compose CLIs
 * as argv (`docker-argv.ts`).
 *
 * The socket is `$DOCKER_HOST` when it is a `unix://` URL, else /var/run/docker.sock.
 */
import http from 'node:http';

export interface ContainerState {
  readonly id: string;
  readonly name: string;
  /** `created`, `running`, `paused`, `restarting`, `exited`, `dead`. */
  readonly status: string;
  readonly running: boolean;
  readonly restarting: boolean;
  readonly exitCode: number;
  readonly restartCount: number;
  /** The image id (`sha256:…` of the config), not the manifest digest. */
  readonly image: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Docker's own healthcheck status when the container has one: `starting`, `healthy`, `unhealthy`. */
  readonly health: string | null;
  readonly startedAt: string;
}

export interface ImageInfo {
  readonly id: string;
  /** `repo@sha256:…` entries: the registry manifest digests this image was pulled by. */
  readonly repoDigests: readonly string[];
}

interface RawContainer {
  Id: string;
  Name: string;
  Image: string;
  RestartCount?: number;
  State: { Status: string; Running: boolean; Restarting: boolean; ExitCode: number; StartedAt: string; Health?: { Status: string } };
  Config: { Labels: Record<string, string> | null };
}

export function socketPathFrom(env: Readonly<Record<string, string | undefined>>): string | null {
  const host = env.DOCKER_HOST;
  if (!host) return '/var/run/docker.sock';
  return host.startsWith('unix://') ? host.slice('unix://'.length) : null;
}

export class EngineApi {
  constructor(readonly socketPath: string) {}

  private request(method: string, urlPath: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ socketPath: this.socketPath, path: urlPath, method, headers: { host: 'docker' }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`docker engine did not answer ${urlPath} within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  private async getJson<T>(urlPath: string): Promise<T | null> {
    const res = await this.request('GET', urlPath);
    if (res.status === 404) return null;
    if (res.status !== 200) throw new Error(`docker engine answered ${res.status} to GET ${urlPath}: ${res.body.trim().slice(0, 300)}`);
    return JSON.parse(res.body) as T;
  }

  /** The engine's version, or null when it does not answer. */
  async version(): Promise<string | null> {
    try {
      const v = await this.getJson<{ Version?: string }>('/version');
      return v?.Version ?? null;
    } catch {
      return null;
    }
  }

  async image(ref: string): Promise<ImageInfo | null> {
    const raw = await this.getJson<{ Id: string; RepoDigests: string[] | null }>(`/images/${encodeURIComponent(ref)}/json`);
    return raw ? { id: raw.Id, repoDigests: raw.RepoDigests ?? [] } : null;
  }

  async container(idOrName: string): Promise<ContainerState | null> {
    const raw = await this.getJson<RawContainer>(`/containers/${encodeURIComponent(idOrName)}/json`);
    return raw ? toState(raw) : null;
  }

  /** Ids of every container (running or not) carrying all of `labels` (`key=value`). */
  async containerIds(labels: readonly string[]): Promise<string[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: labels }));
    const list = await this.getJson<{ Id: string }[]>(`/containers/json?all=1&filters=${filters}`);
    return (list ?? []).map((c) => c.Id);
  }
}

function toState(raw: RawContainer): ContainerState {
  return {
    id: raw.Id,
    name: raw.Name.replace(/^\//, ''),
    status: raw.State.Status,
    running: raw.State.Running,
    restarting: raw.State.Restarting,
    exitCode: raw.State.ExitCode,
    restartCount: raw.RestartCount ?? 0,
    image: raw.Image,
    labels: raw.Config.Labels ?? {},
    health: raw.State.Health?.Status ?? null,
    startedAt: raw.State.StartedAt,
  };
}
