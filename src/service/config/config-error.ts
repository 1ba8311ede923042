/** Thrown for a configuration value that is missing or wrong; the message says which and why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
