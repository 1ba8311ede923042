import type { Framing } from '../contract/openapi-3.2.js';

/**
 * The items of a streamed body as a client reads them: the events of `text/event-stream` (each
 * as its `data`, `event`, `id` and `retry` fields, comments left out, `data` lines joined), the
 * values of JSON Lines or of a JSON text sequence. An item the text does not hold whole (the
 * stream was still open when reading stopped) is left out; one that is no JSON is given as
 * `{ wrong }`.
 */
export function streamItems(framing: Framing, text: string, whole: boolean): ({ item: unknown } | { wrong: string })[] {
  if (framing === 'sse') {
    const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
    if (!whole || blocks.at(-1) !== '') blocks.pop();
    return blocks.flatMap((block) => {
      const event: Record<string, unknown> = {};
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') event.data = event.data === undefined ? value : `${event.data as string}\n${value}`;
        else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
        else if (field === 'event' || field === 'id') event[field] = value;
      }
      // A block of comments alone (a keep-alive) is no event.
      return Object.keys(event).length === 0 ? [] : [{ item: event }];
    });
  }
  const separator = framing === 'seq' ? '\x1e' : '\n';
  const parts = text.split(separator);
  // What comes before a sequence's first record separator is no item.
  if (framing === 'seq') parts.shift();
  // What comes after the last separator is an item once the stream has ended: a last line without its line break.
  const last = parts.pop();
  if (whole && last !== undefined) parts.push(last);
  return parts
    .filter((part) => part.trim() !== '')
    .map((part) => {
      try {
        return { item: JSON.parse(part) as unknown };
      } catch {
        return { wrong: `is no JSON: ${JSON.stringify(part.slice(0, 100))}` };
      }
    });
}
