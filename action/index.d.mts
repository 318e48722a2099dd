// Types for action/index.mjs (plain JS so the Action runs without a build), used by its tests.
export declare const PASSING: readonly string[];
export declare function passes(state: string, strict: boolean): boolean;
export declare function input(env: Record<string, string | undefined>, name: string): string;
export declare function durationMs(text: string): number | null;
export declare function buildPayload(env: Record<string, string | undefined>, now?: number, nonce?: string): Record<string, unknown>;
export declare function signEnvelope(payload: Record<string, unknown>, pem: string): { payload: string; signature: string };
export declare function formatStages(answer: { state: string; endpoint?: string; stages: { name: string; status: string; took_ms: number; detail?: string }[] }): string;
export declare function main(env?: Record<string, string | undefined>, out?: (s: string) => void): Promise<number>;
