/**
 * Test images for the docker runtime, built `FROM scratch` with the host's static busybox and
 * pushed to the local registry (127.0.0.1:5000, started by `.ci/docker-up`), so tests deploy them
 * by digest exactly as production would. Nothing is pulled from the internet.
 *
 * Docker and the registry are required: their absence fails loudly (never a skip).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REGISTRY = '127.0.0.1:5000';
const BUSYBOX = '/bin/busybox';

export interface TestImage {
  /** `127.0.0.1:5000/denv-test/<name>` */
  readonly repository: string;
  readonly digest: string;
  /** `repository@digest` */
  readonly ref: string;
}

export interface TestImages {
  /** Serves `v1` at /, 200 at /healthz, the GREETING variable at /cgi-bin/greeting, /data/hello at /cgi-bin/data (?text writes it). */
  readonly v1: TestImage;
  /** Same, serving `v2`. */
  readonly v2: TestImage;
  /** Serves / but has no /healthz: a deploy with health path /healthz fails health. */
  readonly unhealthy: TestImage;
}

function docker(args: string[], input?: string): string {
  return execFileSync('docker', args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'], timeout: 120_000 });
}

/** Throws a clear error when the engine or the registry is missing. */
export async function requireDockerAndRegistry(): Promise<void> {
  try {
    docker(['version', '--format', '{{.Server.Version}}']);
  } catch (err) {
    throw new Error(`the docker-runtime tests need a Docker Engine: start it with .ci/docker-up (dockerd --bridge=none --iptables=false --ip-masq=false). ${(err as Error).message}`);
  }
  const res = await fetch(`http://${REGISTRY}/v2/`).catch((err: unknown) => {
    throw new Error(`the docker-runtime tests need the local registry on ${REGISTRY}: start it with .ci/docker-up. ${(err as Error).message}`);
  });
  if (res.status !== 200) throw new Error(`the registry on ${REGISTRY} answered ${res.status} to /v2/`);
}

/** The manifest digest the registry serves for `repository:tag`. */
async function registryDigest(repository: string, tag: string): Promise<string> {
  const path = repository.slice(REGISTRY.length + 1);
  const res = await fetch(`http://${REGISTRY}/v2/${path}/manifests/${tag}`, {
    method: 'HEAD',
    headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json' },
  });
  const digest = res.headers.get('docker-content-digest');
  if (!digest) throw new Error(`no digest for ${repository}:${tag} (HTTP ${res.status})`);
  return digest;
}

/**
 * Build an httpd image serving `files` (path under /www → content), push it, drop the local copy,
 * return its digest. Every build is unique (a random /www/build-id): test files build in
 * parallel, and two identical builds would share one image that each then tries to remove.
 */
export async function buildHttpdImage(name: string, files: Record<string, string>, o: { listen?: 'loopback' | 'any' } = {}): Promise<TestImage> {
  // `any`: on an env network (bridge) the app must listen on the container's interfaces, not its loopback.
  const address = o.listen === 'any' ? '' : '127.0.0.1:';
  const dir = mkdtempSync(join(tmpdir(), 'denv-image-'));
  try {
    // One COPY of a whole root: no intermediate image shared with another build (the legacy
    // builder's cache would share the busybox layer's, and removing one image removes it).
    mkdirSync(join(dir, 'rootfs', 'bin'), { recursive: true });
    copyFileSync(BUSYBOX, join(dir, 'rootfs', 'bin', 'busybox'));
    for (const [file, content] of Object.entries({ ...files, 'build-id': randomUUID() })) {
      mkdirSync(join(dir, 'rootfs', 'www', file, '..'), { recursive: true });
      writeFileSync(join(dir, 'rootfs', 'www', file), content);
      if (file.startsWith('cgi-bin/')) chmodSync(join(dir, 'rootfs', 'www', file), 0o755);
    }
    writeFileSync(
      join(dir, 'Dockerfile'),
      [
        'FROM scratch',
        'COPY rootfs/ /',
        // The image's own start command: busybox sh expands $PORT inside the container.
        `CMD ["/bin/busybox", "sh", "-c", "exec /bin/busybox httpd -f -p ${address}$PORT -h /www"]`,
        '',
      ].join('\n'),
    );
    const repository = `${REGISTRY}/denv-test/${name}`;
    const tag = `t${randomUUID().slice(0, 12)}`;
    docker(['build', '--quiet', '--tag', `${repository}:${tag}`, dir]);
    docker(['push', '--quiet', `${repository}:${tag}`]);
    docker(['rmi', `${repository}:${tag}`]);
    const digest = await registryDigest(repository, tag);
    return { repository, digest, ref: `${repository}@${digest}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CGI_GREETING = '#!/bin/busybox sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n%s" "$GREETING"\n';
/** Writes the query string to /data/hello (a dataset mount) and answers what the file holds. */
const CGI_DATA = '#!/bin/busybox sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n"\n[ -n "$QUERY_STRING" ] && printf "%s" "$QUERY_STRING" > /data/hello\n/bin/busybox cat /data/hello\n';

export async function buildTestImages(): Promise<TestImages> {
  await requireDockerAndRegistry();
  const [v1, v2, unhealthy] = [
    await buildHttpdImage('web', { 'index.html': 'v1', healthz: 'ok', 'cgi-bin/greeting': CGI_GREETING, 'cgi-bin/data': CGI_DATA }),
    await buildHttpdImage('web', { 'index.html': 'v2', healthz: 'ok', 'cgi-bin/greeting': CGI_GREETING, 'cgi-bin/data': CGI_DATA }),
    await buildHttpdImage('web', { 'index.html': 'broken' }),
  ];
  return { v1, v2, unhealthy };
}
