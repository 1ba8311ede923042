/** The major version of an `info.version` that is a version number: `1.2.0`, `2.0`, `10`, `v3`, `2.0.0-beta.1`. */
export function majorOf(version: string, label: string): number {
  const match = /^v?(\d+)(?:\.\d+(?:\.\d+(?:[-+].*)?)?)?$/.exec(version);
  if (!match) throw new Error(`info.version of ${label} is ${JSON.stringify(version)}, not a version number such as 1.2.0, 2.0 or 10`);
  return Number(match[1]);
}

/** The major version of `version`, or undefined for one that is not a number (a date, a name). */
export function majorOrNone(version: string): number | undefined {
  try {
    return majorOf(version, '');
  } catch {
    return undefined;
  }
}
