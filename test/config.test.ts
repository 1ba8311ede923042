import express from 'express';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ConfigError, loadConfig, PACKAGE_ROOT } from '../src/service/config.js';

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
});
