/**
 * The AWS SDK client settings for a set of credentials, shared by every client denv makes. No SDK
 * import here (types only): the STS and Organizations callers load their SDK on first use.
 */
import type { EcsCredentials } from './aws-clients.js';

/** The SDK client settings for `c` (`region` overrides its region: global services). */
export function sdkConfig(c: EcsCredentials, region = c.region) {
  return {
    region,
    credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}) },
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    ...(c.maxAttempts ? { maxAttempts: c.maxAttempts } : {}),
  };
}
