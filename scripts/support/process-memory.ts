import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Resident memory of a process, in MiB. */
export interface ResidentMemory {
  /** Now (VmRSS). */
  rssMiB: number;
  /** At its peak so far (VmHWM); only Linux's /proc tells. */
  peakMiB?: number;
}

/** Resident memory of process `pid`, from Linux's /proc, else from ps; null once the process is gone. */
export function residentMemory(pid: number): ResidentMemory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
  } catch {
    // Not Linux, or the process has ended: ps tells which.
  }
  try {
    const kib = execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return kib === '' ? null : { rssMiB: Number(kib) / 1024 };
  } catch {
    return null;
  }
}
