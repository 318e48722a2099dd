/** The `Examples:` block appended to a command's --help. */
export function examples(...lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => (l.startsWith('#') ? `  ${l}` : `  $ ${l}`)).join('\n')}\n`;
}

/** Print one line to stdout. */
export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Print one line to stderr (hints that must not pollute a table or JSON on stdout). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}
