/** `--limit` / `--after` paging shared by the list commands (lists answer `{items, next}`). */
import type { Command } from 'commander';
import type { Page } from '../../contracts/domain.js';
import { parsePositiveInt } from '../config.js';
import { note } from '../help.js';

export function addPaging(cmd: Command): Command {
  return cmd.option('--limit <n>', 'at most this many items', parsePositiveInt).option('--after <cursor>', 'start after this cursor (from a previous page)');
}

/** Tell the user (on stderr, so stdout stays a clean table) how to get the next page. */
export function noteNextPage(page: Page<unknown>): void {
  if (page.next !== null && page.next !== undefined) note(`more: add --after ${page.next}`);
}
