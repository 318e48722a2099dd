/**
 * The host credential, received once in exchange for an enrollment key and presented on every
 * later connection: `<dataDir>/credential.json`, mode 0600, written atomically so an agent killed
 * mid-write never loses a credential the control plane already considers issued.
 */
import path from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../files.js';

export interface HostCredential {
  readonly host_id: string;
  readonly credential: string;
}

export function credentialFile(dataDir: string): string {
  return path.join(dataDir, 'credential.json');
}

export async function loadCredential(dataDir: string): Promise<HostCredential | null> {
  const raw = (await readJsonOrNull(credentialFile(dataDir))) as Partial<HostCredential> | null;
  if (!raw || typeof raw.host_id !== 'string' || typeof raw.credential !== 'string') return null;
  return { host_id: raw.host_id, credential: raw.credential };
}

export async function saveCredential(dataDir: string, cred: HostCredential): Promise<void> {
  await writeJsonAtomic(credentialFile(dataDir), cred, 0o600);
}
