import { readFile } from 'node:fs/promises';
import type { TLSConfig } from '@temporalio/client';
import type { ClusterTlsSettings } from './connection-settings.js';

/**
 * Turns TLS settings into the SDK's TLS option, reading the certificate files. Returns `true`
 * (TLS with system defaults) when there is nothing to customise. Throws an error naming the
 * variable and the path when a file cannot be read.
 */
export async function loadTlsConfig(settings: ClusterTlsSettings): Promise<TLSConfig | true> {
  const config: TLSConfig = {};
  if (settings.serverName) config.serverNameOverride = settings.serverName;
  if (settings.serverRootCaPath) {
    config.serverRootCACertificate = await readTlsFile(
      'TEMPORAL_TLS_CA',
      settings.serverRootCaPath,
    );
  }
  if (settings.clientCertPath && settings.clientKeyPath) {
    config.clientCertPair = {
      crt: await readTlsFile('TEMPORAL_TLS_CERT', settings.clientCertPath),
      key: await readTlsFile('TEMPORAL_TLS_KEY', settings.clientKeyPath),
    };
  }
  return Object.keys(config).length > 0 ? config : true;
}

async function readTlsFile(variable: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot read ${variable} file ${path}: ${reason}`, { cause: error });
  }
}
