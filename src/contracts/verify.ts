/**
 * The verify contract (seed 000, DESIGN "Contract details"), shared by the control plane and the
 * agent: what `verify.collect` copies and refuses, its limits, and how a verifier reports its
 * reward. No I/O here; `parseReward` is pure.
 *
 * Reward protocol. The verifier runs with `DENV_COLLECTED` (the collected copy, read it) and
 * `DENV_REWARD_FILE` (a path that does not exist yet). Its reward is:
 *   1. the content of `$DENV_REWARD_FILE` if the verifier created that file — `source: "file"`.
 *      The file is then authoritative: if it does not hold a reward, the reward is null;
 *   2. otherwise its last non-empty stdout line — `source: "stdout"`;
 *   3. otherwise none: reward null, `source: null`.
 * A reward is a finite number written as a JSON number (`0.75`, `1`, `-2e-3`) or a JSON object
 * `{"reward": <number>}` (other keys ignored). The exit code is reported beside the reward and
 * does not change it; a verifier that times out has no reward.
 */

/** Bounds of one collect; exceeding one refuses what is beyond it (fail closed), never blocks. */
export interface CollectLimits {
  /** Entries (files and directories) copied, all paths together. */
  readonly max_files: number;
  /** Bytes copied, all files together; a larger file is refused whole. */
  readonly max_bytes: number;
  /** Directory levels below a declared path. */
  readonly max_depth: number;
}

export const DEFAULT_COLLECT_LIMITS: CollectLimits = { max_files: 10_000, max_bytes: 100 * 1024 * 1024, max_depth: 32 };

/** One path collect did not copy, and why (`symlink`, `fifo`, `escapes the service root` …). */
export interface Refusal {
  readonly path: string;
  readonly reason: string;
}

export interface CollectResult {
  /** Regular files and directories copied. */
  readonly files: number;
  readonly bytes: number;
  /** Declared paths that do not exist. */
  readonly missing: readonly string[];
  /** What was refused (at most REFUSALS_LISTED entries; `refused_count` counts them all). */
  readonly refused: readonly Refusal[];
  readonly refused_count: number;
  /** Whether the agent service was confirmed paused (false when it was not running). */
  readonly paused: boolean;
}

export const REFUSALS_LISTED = 100;

export type RewardSource = 'file' | 'stdout';

export interface VerifyRunResult {
  readonly reward: number | null;
  readonly source: RewardSource | null;
  /** null when the verifier was killed (timeout) or could not be started. */
  readonly exit_code: number | null;
  /** The last 4 KiB of each stream. */
  readonly stdout: string;
  readonly stderr: string;
  readonly timed_out: boolean;
  /** Wall time of the verifier, ms. */
  readonly ran_for: number;
}

/** A reward from one piece of verifier output (a stdout line, the reward file), or null. */
export function parseReward(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) value = (value as { reward?: unknown }).reward;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Apply the reward protocol: `file` is the reward file's content, or null when it was not written. */
export function rewardOf(stdout: string, file: string | null): { reward: number | null; source: RewardSource | null } {
  if (file !== null) return { reward: parseReward(file), source: 'file' };
  const last = stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '').pop();
  if (last === undefined) return { reward: null, source: null };
  const reward = parseReward(last);
  return reward === null ? { reward: null, source: null } : { reward, source: 'stdout' };
}
