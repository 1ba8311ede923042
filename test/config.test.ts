import express from 'express';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import { ConfigError } from '../src/service/config/config-error.js';
import { loadConfig } from '../src/service/config/load-config.js';
import { defaultConfig, describeSettings, SETTINGS } from '../src/service/config/settings.js';

describe('configuration', () => {
  it('has a default for everything', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      environment: 'production',
      nodeEnv: 'development',
      trustProxy: false,
      databasePath: join(PACKAGE_ROOT, 'data', 'animal-store.db'),
    });
  });

  it('reads each variable', () => {
    expect(
      loadConfig({
        PORT: '8080',
        ANIMAL_STORE_ENV: 'staging',
        TRUST_PROXY: '1',
        DATABASE_PATH: '/tmp/x.db',
        LOG_LEVEL: 'warn',
        BAN_SECONDS: '60',
      }),
    ).toMatchObject({ port: 8080, environment: 'staging', trustProxy: 1, databasePath: '/tmp/x.db', logLevel: 'warn', banSeconds: 60 });
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: '80a', ANIMAL_STORE_ENV: 'prod', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT="80a": must be a whole number from 0 to 65535');
    expect(message).toContain('ANIMAL_STORE_ENV="prod": must be one of production, staging');
    expect(message).toContain('LOG_LEVEL="loud": must be one of');
  });

  it('refuses a TRUST_PROXY that Express could not compile, naming the entry', () => {
    for (const good of ['10.0.0.1', '10.0.0.0/8', '10.0.0.0/255.0.0.0', '::1', 'fd00::/8', 'loopback, linklocal, uniquelocal']) {
      expect(loadConfig({ TRUST_PROXY: good }).trustProxy, good).toBe(good);
    }
    for (const bad of ['maybe', '10.0.0.0/33', '10.0.0.300', 'loopback, proxy.internal', '::1/129', '10.0.0.0/8/8']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow('TRUST_PROXY="maybe": must be false, true, a hop count');
    // Every value it accepts, Express takes.
    for (const good of ['10.0.0.0/8', 'loopback, fd00::/8'])
      expect(() => express().set('trust proxy', loadConfig({ TRUST_PROXY: good }).trustProxy)).not.toThrow();
  });

  it('refuses TRUST_PROXY=true in production, saying what to set instead', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY=true must not be used with NODE_ENV=production.*TRUST_PROXY=1 for one load balancer.*TRUST_PROXY=10\.0\.0\.0\/8/,
    );
    for (const good of ['1', '2', 'loopback', '10.0.0.0/8, fd00::/8', 'false'])
      expect(loadConfig({ NODE_ENV: 'production', TRUST_PROXY: good }).nodeEnv, good).toBe('production');
    // Outside production (a test rig, a laptop behind nothing) it stays possible.
    expect(loadConfig({ NODE_ENV: 'development', TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('takes every default from the settings table, also for a variable set to nothing', () => {
    expect(loadConfig({})).toEqual(defaultConfig());
    const empty = Object.fromEntries(Object.values(SETTINGS).map((setting) => [setting.variable, '']));
    expect(loadConfig(empty)).toEqual(defaultConfig());
    expect(defaultConfig()).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      shutdownTimeoutMs: 10_000,
    });
  });

  it('types each value as its setting parses it', () => {
    const config = loadConfig({});
    expectTypeOf(config.port).toEqualTypeOf<number>();
    expectTypeOf(config.environment).toEqualTypeOf<'production' | 'staging'>();
    expectTypeOf(config.databaseUrl).toEqualTypeOf<string | null>();
    expectTypeOf(config.corsOrigins).toEqualTypeOf<string[] | null>();
    expectTypeOf(config.trustProxy).toEqualTypeOf<boolean | number | string>();
  });

  it('lists every setting once in the help, with its default', () => {
    const help = describeSettings();
    const variables = Object.values(SETTINGS).map((setting) => setting.variable);
    expect(new Set(variables).size).toBe(variables.length);
    for (const variable of variables) expect(help).toMatch(new RegExp(`^  ${variable} `, 'm'));
    expect(help).toContain(`${SETTINGS.port.doc} (default: 3000)`);
    // A setting that is off unless set says so in the words of docs/operators.md's table.
    const unset = Object.values(SETTINGS).filter((setting) => setting.default === null);
    expect(unset.length).toBeGreaterThan(0);
    for (const setting of unset) expect(help).toContain(`${setting.doc} (default: unset)`);
  });

  it('refuses settings that are each valid but not together', () => {
    expect(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' })).toThrow("METRICS_PORT must not be the API's PORT");
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrow(
      'HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS',
    );
  });
});
