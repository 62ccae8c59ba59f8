import net from 'node:net';

/**
 * Classifies IP addresses the crawler must never connect to (SSRF guard): anything that is not a
 * routable public unicast address. IPv6 forms that embed an IPv4 address (mapped, translated, compatible, NAT64,
 * 6to4) are judged by the embedded address, so `::ffff:127.0.0.1` is as blocked as `127.0.0.1`.
 */

interface Range {
  cidr: string;
  reason: string;
}

const IPV4_RANGES: Range[] = [
  { cidr: '0.0.0.0/8', reason: 'unspecified ("this network")' },
  { cidr: '10.0.0.0/8', reason: 'private (RFC 1918)' },
  { cidr: '100.64.0.0/10', reason: 'carrier-grade NAT (RFC 6598)' },
  { cidr: '127.0.0.0/8', reason: 'loopback' },
  { cidr: '169.254.169.254/32', reason: 'cloud metadata' },
  { cidr: '169.254.0.0/16', reason: 'link-local' },
  { cidr: '172.16.0.0/12', reason: 'private (RFC 1918)' },
  { cidr: '192.0.0.0/24', reason: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', reason: 'documentation' },
  { cidr: '192.88.99.0/24', reason: '6to4 relay anycast' },
  { cidr: '192.168.0.0/16', reason: 'private (RFC 1918)' },
  { cidr: '198.18.0.0/15', reason: 'benchmarking' },
  { cidr: '198.51.100.0/24', reason: 'documentation' },
  { cidr: '203.0.113.0/24', reason: 'documentation' },
  { cidr: '224.0.0.0/4', reason: 'multicast' },
  { cidr: '240.0.0.0/4', reason: 'reserved / broadcast' },
];

const IPV6_RANGES: Range[] = [
  { cidr: '::/128', reason: 'unspecified' },
  { cidr: '::1/128', reason: 'loopback' },
  { cidr: 'fd00:ec2::254/128', reason: 'cloud metadata' },
  { cidr: 'fc00::/7', reason: 'unique local (private)' },
  { cidr: 'fe80::/10', reason: 'link-local' },
  { cidr: 'fec0::/10', reason: 'site-local (deprecated)' },
  { cidr: 'ff00::/8', reason: 'multicast' },
  { cidr: '100::/64', reason: 'discard-only' },
  { cidr: '2001:db8::/32', reason: 'documentation' },
  { cidr: '2001::/32', reason: 'Teredo tunnelling' },
  // Local-use NAT64 (RFC 8215): translated by a site's own gateway, possibly into its private network.
  { cidr: '64:ff9b:1::/48', reason: 'local-use NAT64' },
];

// One BlockList per range so a refusal can say which range matched (helps operators and tests).
function compile(ranges: Range[], family: 'ipv4' | 'ipv6'): Array<{ list: net.BlockList; reason: string }> {
  return ranges.map(({ cidr, reason }) => {
    const [address, prefix] = cidr.split('/') as [string, string];
    const list = new net.BlockList();
    list.addSubnet(address, Number(prefix), family);
    return { list, reason };
  });
}

const V4 = compile(IPV4_RANGES, 'ipv4');
const V6 = compile(IPV6_RANGES, 'ipv6');

/** Parses an IPv6 literal (optionally with a %zone) into its eight 16-bit groups; null when invalid. */
export function parseIPv6(input: string): number[] | null {
  const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!net.isIPv6(address)) return null;
  let text = address.toLowerCase();
  // A trailing dotted quad stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const bytes = dotted[1].split('.').map(Number) as [number, number, number, number];
    const tail = `${((bytes[0] << 8) | bytes[1]).toString(16)}:${((bytes[2] << 8) | bytes[3]).toString(16)}`;
    text = text.slice(0, -dotted[1].length) + tail;
  }
  const [head = '', rest] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (rest === undefined && missing !== 0) return null;
  const groups = [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right].map((g) =>
    parseInt(g, 16),
  );
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function ipv4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The IPv4 address an IPv6 address carries (mapped, translated, compatible, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | null {
  const g = parseIPv6(address);
  if (!g) return null;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroTo3 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  const zeroTo4 = zeroTo3 && g4 === 0;
  if (zeroTo4 && g5 === 0xffff) return ipv4FromGroups(g6, g7); // ::ffff:a.b.c.d (IPv4-mapped)
  // ::ffff:0:a.b.c.d (IPv4-translated, SIIT)
  if (zeroTo3 && g4 === 0xffff && g5 === 0) return ipv4FromGroups(g6, g7);
  if (zeroTo4 && g5 === 0 && (g6 !== 0 || g7 > 1)) return ipv4FromGroups(g6, g7); // ::a.b.c.d (compatible)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return ipv4FromGroups(g6, g7);
  if (g0 === 0x2002) return ipv4FromGroups(g1, g2); // 6to4 carries the IPv4 address in groups 1-2
  return null;
}

/**
 * Why an address must not be contacted, or null when it is a public unicast address.
 * Non-IP input is refused as well: the guard only ever judges resolved addresses.
 */
export function blockedAddressReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare.replace(/%.*$/, ''));
  if (family === 4) return V4.find((r) => r.list.check(bare, 'ipv4'))?.reason ?? null;
  if (family === 6) {
    const plain = bare.replace(/%.*$/, '');
    const inner = embeddedIPv4(plain);
    if (inner) {
      const reason = blockedAddressReason(inner);
      if (reason) return `${reason} (embedded in IPv6)`;
    }
    return V6.find((r) => r.list.check(plain, 'ipv6'))?.reason ?? null;
  }
  return 'not an IP address';
}

export function isBlockedAddress(address: string): boolean {
  return blockedAddressReason(address) !== null;
}
