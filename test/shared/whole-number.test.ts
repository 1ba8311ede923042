import { describe, expect, it } from 'vitest';
import { parseWholeNumber, PORT_RANGE } from '../../src/shared/whole-number.js';

// One parser for every whole number the service and its commands read (PORT, --port,
// --per-minute, --rounds, …): plain decimal digits within the range, or a message saying so.
describe('parseWholeNumber', () => {
  it('reads plain decimal digits within the range, both ends included', () => {
    expect(parseWholeNumber('0', PORT_RANGE)).toBe(0);
    expect(parseWholeNumber('65535', PORT_RANGE)).toBe(65535);
    expect(parseWholeNumber('8080', PORT_RANGE)).toBe(8080);
    expect(parseWholeNumber('9007199254740991', { min: 1 })).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each(['', '80a', '-1', '+1', '1e3', '0x10', '80.0', ' 80', '٣'])('refuses %j, saying what it must be', (raw) => {
    expect(() => parseWholeNumber(raw, PORT_RANGE)).toThrow('must be a whole number from 0 to 65535');
  });

  it('refuses a number outside the range', () => {
    expect(() => parseWholeNumber('65536', PORT_RANGE)).toThrow('must be a whole number from 0 to 65535');
    expect(() => parseWholeNumber('9', { min: 10 })).toThrow('must be a whole number of at least 10');
    expect(() => parseWholeNumber('9007199254740993', { min: 1 })).toThrow('at most 9007199254740991');
  });
});
