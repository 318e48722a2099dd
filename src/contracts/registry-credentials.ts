/**
 * A project's registry credentials (seed 002: the "registry-pull secret" of AWS targets): the login
 * its images are pulled with when they are in a private registry. The password is stored and never
 * shown again (reads show the server and user name only). Which images they apply to is decided by
 * the image reference's registry host, as Docker decides it. Pure.
 */
import { z } from 'zod';

/** Docker Hub's registry: what an image reference without a host (`nginx`, `acme/web:1`) pulls from. */
export const DOCKER_HUB = 'docker.io';
/** Other names Docker Hub is written with; they mean `docker.io`. */
const DOCKER_HUB_ALIASES = new Set(['index.docker.io', 'registry-1.docker.io']);

/** A registry host as an image reference names it: DNS labels, optionally `:port`. */
const HOST_PORT = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::\d{1,5})?$/;
/** Docker reads a reference's first component as a host only when it holds a dot or a port, or is
 *  `localhost` (`acme/web` is Docker Hub's `acme`, not a host `acme`): a server that is not one
 *  could never match an image. */
const isRegistryHost = (s: string) => s === 'localhost' || s.includes('.') || s.includes(':');

export const registryCredentialsSchema = z.strictObject({
  /** The registry's host as image references name it: `ghcr.io`, `registry.example.com:5000`, `docker.io`. */
  server: z
    .string()
    .min(1)
    .max(255)
    .refine((s) => HOST_PORT.test(s) && isRegistryHost(s), 'expected a registry host as image references name it, such as ghcr.io or registry.example.com:5000 (no https://, no path)'),
  username: z.string().min(1).max(255).regex(/^[^\s:]+$/, 'expected a user name without spaces or ":"'),
  /** A password or access token (a GitHub PAT with read:packages, a robot account's token …); never shown again. */
  password: z.string().min(1).max(16 * 1024),
});
export type RegistryCredentials = z.infer<typeof registryCredentialsSchema>;

/** A registry host compared as Docker does: case-insensitively, Docker Hub's aliases as `docker.io`. */
export function normalRegistry(server: string): string {
  const s = server.toLowerCase();
  return DOCKER_HUB_ALIASES.has(s) ? DOCKER_HUB : s;
}

/** The registry an image reference pulls from: its first path component when that is a host (it
 *  holds a dot or a port, or is `localhost`), else Docker Hub. */
export function imageRegistry(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return DOCKER_HUB;
  const first = image.slice(0, slash);
  return isRegistryHost(first) ? normalRegistry(first) : DOCKER_HUB;
}

/** Whether `image` is pulled from `server`. */
export const pullsFrom = (image: string, server: string): boolean => imageRegistry(image) === normalRegistry(server);
