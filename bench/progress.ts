/** Prints what the bench is doing now, on one line when the output is a terminal. */
export function progress(text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else if (text !== '') process.stderr.write(`${text}\n`);
}
