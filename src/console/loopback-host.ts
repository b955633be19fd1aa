import { isIP } from 'node:net';

/**
 * Whether a host name or address given to `dar ui --host` reaches this machine only:
 * `localhost`, an address in 127.0.0.0/8, or `::1`. Anything else (0.0.0.0, a LAN address,
 * a host name) may be reached by other machines.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/** The host as it is written in a URL: an IPv6 address in brackets. */
export function hostInUrl(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
