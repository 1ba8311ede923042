import type { Clock } from '../../src/service/clock.js';

/** A clock the test moves by hand. Starts 10 s into a minute so windows are predictable. */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.parse('2026-06-01T12:00:10Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}
