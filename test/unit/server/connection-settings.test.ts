import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadTlsConfig } from '../../../src/server/cluster-tls.js';
import {
  ConnectionSettingsError,
  resolveConnectionSettings,
} from '../../../src/server/connection-settings.js';

const cwd = '/projects/app';

describe('resolveConnectionSettings: embedded', () => {
  test('no TEMPORAL_ADDRESS: the embedded server under ./.dar', () => {
    expect(resolveConnectionSettings({}, { cwd })).toEqual({
      kind: 'embedded',
      stateDir: '/projects/app/.dar',
    });
  });

  test('DAR_STATE_DIR, relative to cwd or absolute', () => {
    expect(resolveConnectionSettings({ DAR_STATE_DIR: 'state' }, { cwd })).toEqual({
      kind: 'embedded',
      stateDir: '/projects/app/state',
    });
    expect(resolveConnectionSettings({ DAR_STATE_DIR: '/var/dar' }, { cwd })).toEqual({
      kind: 'embedded',
      stateDir: '/var/dar',
    });
  });

  test('an explicit state folder wins over DAR_STATE_DIR', () => {
    const settings = resolveConnectionSettings(
      { DAR_STATE_DIR: '/var/dar' },
      { cwd, stateDir: 'flag' },
    );
    expect(settings).toEqual({ kind: 'embedded', stateDir: '/projects/app/flag' });
  });

  test('defaults to the process cwd', () => {
    expect(resolveConnectionSettings({})).toEqual({
      kind: 'embedded',
      stateDir: resolve('.dar'),
    });
  });

  test('blank values count as unset', () => {
    expect(
      resolveConnectionSettings({ TEMPORAL_ADDRESS: '  ', TEMPORAL_API_KEY: '' }, { cwd }),
    ).toEqual({ kind: 'embedded', stateDir: '/projects/app/.dar' });
  });

  test('cluster-only variables without TEMPORAL_ADDRESS are a mistake', () => {
    expect(() => resolveConnectionSettings({ TEMPORAL_API_KEY: 'secret' })).toThrow(
      /TEMPORAL_API_KEY is set but TEMPORAL_ADDRESS is not/,
    );
    expect(() =>
      resolveConnectionSettings({ TEMPORAL_TLS_CERT: 'a.pem', TEMPORAL_TLS_KEY: 'a.key' }),
    ).toThrow(/TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY are set but TEMPORAL_ADDRESS is not/);
  });

  test('only the "default" namespace is served by the embedded server', () => {
    expect(resolveConnectionSettings({ TEMPORAL_NAMESPACE: 'default' }, { cwd }).kind).toBe(
      'embedded',
    );
    expect(() => resolveConnectionSettings({ TEMPORAL_NAMESPACE: 'prod' })).toThrow(
      ConnectionSettingsError,
    );
  });
});

describe('resolveConnectionSettings: cluster', () => {
  test('address only: plain connection to the default namespace', () => {
    expect(resolveConnectionSettings({ TEMPORAL_ADDRESS: 'temporal:7233' })).toEqual({
      kind: 'cluster',
      address: 'temporal:7233',
      namespace: 'default',
    });
  });

  test('namespace', () => {
    const settings = resolveConnectionSettings({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'agents',
    });
    expect(settings).toMatchObject({ kind: 'cluster', namespace: 'agents' });
  });

  test('an API key (Temporal Cloud) turns TLS on', () => {
    const settings = resolveConnectionSettings({
      TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'my-ns.a1b2c',
      TEMPORAL_API_KEY: 'secret',
    });
    expect(settings).toEqual({
      kind: 'cluster',
      address: 'my-ns.a1b2c.tmprl.cloud:7233',
      namespace: 'my-ns.a1b2c',
      apiKey: 'secret',
      tls: {},
    });
  });

  test('TEMPORAL_TLS=false keeps an API key on a plain connection', () => {
    const settings = resolveConnectionSettings({
      TEMPORAL_ADDRESS: 'proxy:7233',
      TEMPORAL_API_KEY: 'secret',
      TEMPORAL_TLS: 'false',
    });
    expect(settings).toEqual({
      kind: 'cluster',
      address: 'proxy:7233',
      namespace: 'default',
      apiKey: 'secret',
    });
  });

  test('mTLS: certificate and key paths, CA and server name', () => {
    const settings = resolveConnectionSettings({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TLS_CERT: '/certs/client.pem',
      TEMPORAL_TLS_KEY: '/certs/client.key',
      TEMPORAL_TLS_CA: '/certs/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(settings).toMatchObject({
      tls: {
        clientCertPath: '/certs/client.pem',
        clientKeyPath: '/certs/client.key',
        serverRootCaPath: '/certs/ca.pem',
        serverName: 'temporal.internal',
      },
    });
  });

  test('TEMPORAL_TLS=true alone: TLS with system defaults', () => {
    const settings = resolveConnectionSettings({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TLS: 'TRUE',
    });
    expect(settings).toMatchObject({ tls: {} });
  });

  test('a server name alone turns TLS on', () => {
    const settings = resolveConnectionSettings({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(settings).toMatchObject({ tls: { serverName: 'temporal.internal' } });
  });

  test('a certificate without its key, or the reverse, is a clear error', () => {
    expect(() =>
      resolveConnectionSettings({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS_CERT: '/certs/client.pem',
      }),
    ).toThrow('TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not');
    expect(() =>
      resolveConnectionSettings({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS_KEY: '/certs/client.key',
      }),
    ).toThrow('TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not');
  });

  test('TLS files with TEMPORAL_TLS=false contradict each other', () => {
    expect(() =>
      resolveConnectionSettings({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS: 'false',
        TEMPORAL_TLS_CA: '/certs/ca.pem',
      }),
    ).toThrow(/TEMPORAL_TLS=false contradicts/);
  });

  test('an unreadable TEMPORAL_TLS value is an error', () => {
    expect(() =>
      resolveConnectionSettings({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS: 'maybe' }),
    ).toThrow('TEMPORAL_TLS must be true or false, not "maybe"');
  });

  test('a URL is not an address', () => {
    expect(() =>
      resolveConnectionSettings({ TEMPORAL_ADDRESS: 'https://temporal.example.com:7233' }),
    ).toThrow(/must be host:port/);
  });
});

describe('loadTlsConfig', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'dar-tls-'));
    await writeFile(join(folder, 'client.pem'), 'CERT');
    await writeFile(join(folder, 'client.key'), 'KEY');
    await writeFile(join(folder, 'ca.pem'), 'CA');
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('nothing to customise: plain TLS', async () => {
    expect(await loadTlsConfig({})).toBe(true);
  });

  test('reads the certificate files', async () => {
    const config = await loadTlsConfig({
      clientCertPath: join(folder, 'client.pem'),
      clientKeyPath: join(folder, 'client.key'),
      serverRootCaPath: join(folder, 'ca.pem'),
      serverName: 'temporal.internal',
    });
    expect(config).not.toBe(true);
    if (config === true) return;
    expect(config.serverNameOverride).toBe('temporal.internal');
    expect(Buffer.from(config.serverRootCACertificate ?? []).toString()).toBe('CA');
    expect(Buffer.from(config.clientCertPair?.crt ?? []).toString()).toBe('CERT');
    expect(Buffer.from(config.clientCertPair?.key ?? []).toString()).toBe('KEY');
  });

  test('a missing file names the variable and the path', async () => {
    const missing = join(folder, 'missing.pem');
    await expect(
      loadTlsConfig({ clientCertPath: missing, clientKeyPath: join(folder, 'client.key') }),
    ).rejects.toThrow(`Cannot read TEMPORAL_TLS_CERT file ${missing}`);
  });
});
