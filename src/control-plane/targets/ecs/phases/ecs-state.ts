/** What an ECS deploy's phases leave for later ones (beside deploy/state.ts's version fields). */
export interface EcsDeployState {
  version?: string;
  previous_version?: string | null;
  /** The task definition prepare registered: start waits for the service to run it. */
  task_definition?: string;
  endpoints?: { service: string; url: string }[];
}

export const ecsStateOf = (s: Record<string, unknown>) => s as EcsDeployState;
