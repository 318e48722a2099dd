/**
 * The AWS SDK clients the ECS target uses, built from one set of credentials (the target account's,
 * e.g. from an STS AssumeRole into a vended account). `endpoint` sends every client to one URL:
 * tests point it at the local AWS API server (test/helpers/aws-api-server.ts); unset, each client
 * uses its service's regional endpoint.
 */
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ECSClient } from '@aws-sdk/client-ecs';
import { IAMClient } from '@aws-sdk/client-iam';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sdkConfig } from './sdk-config.js';

export interface EcsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly region: string;
  /** Tests: the local AWS API server's URL. */
  readonly endpoint?: string;
  /** Attempts per call, the SDK's retries of throttling and 5xx included (SDK default 3). */
  readonly maxAttempts?: number;
}

export interface AwsClients {
  readonly ecs: ECSClient;
  readonly iam: IAMClient;
  readonly ec2: EC2Client;
  readonly logs: CloudWatchLogsClient;
  /** The registry-pull secret (ensure-pull-secret.ts). */
  readonly secrets: SecretsManagerClient;
}

export function makeAwsClients(c: EcsCredentials): AwsClients {
  const config = sdkConfig(c);
  return { ecs: new ECSClient(config), iam: new IAMClient(config), ec2: new EC2Client(config), logs: new CloudWatchLogsClient(config), secrets: new SecretsManagerClient(config) };
}

export function closeAwsClients(clients: AwsClients): void {
  for (const client of Object.values(clients)) client.destroy();
}
