/**
 * robots.txt per RFC 9309: groups selected by product token (else `*`), Allow/Disallow with
 * longest-match precedence (Allow wins ties), `*` and `$` in patterns, plus the widely used
 * Crawl-delay and Sitemap extensions.
 */

export interface RobotsPolicy {
  isAllowed(url: string | URL): boolean;
  /** Crawl-delay of the selected group(s), in milliseconds; undefined when none is given. */
  crawlDelayMs: number | undefined;
  /** Absolute Sitemap URLs listed anywhere in the file. */
  sitemaps: string[];
}

interface Rule {
  allow: boolean;
  pattern: string;
  anchored: boolean;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelaySeconds: number | undefined;
}

// Bounds that keep a hostile robots.txt from costing more than a normal one.
const MAX_PATTERN_LENGTH = 2048;
const MAX_RULES = 10_000;

/**
 * Escapes non-ASCII, upper-cases percent escapes and decodes those of unreserved characters (RFC 3986:
 * "%7Euser" is "~user", "%2D" is "-"), so pattern and path compare octet by octet whichever way the site
 * wrote them. Escapes of reserved characters stay escapes: "/a%2Fb" is not "/a/b".
 */
function canonicalPath(value: string): string {
  return value
    .replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char))
    .replace(/%[0-9a-f]{2}/gi, (escape) => {
      const char = String.fromCharCode(parseInt(escape.slice(1), 16));
      return /^[A-Za-z0-9\-._~]$/.test(char) ? char : escape.toUpperCase();
    });
}

function compileRule(allow: boolean, raw: string): Rule | null {
  let pattern = raw.trim();
  if (!pattern) return null; // an empty Disallow allows everything: no rule
  if (pattern.length > MAX_PATTERN_LENGTH) pattern = pattern.slice(0, MAX_PATTERN_LENGTH);
  const anchored = pattern.endsWith('$');
  if (anchored) pattern = pattern.slice(0, -1);
  pattern = canonicalPath(pattern).replace(/\*+/g, '*');
  if (!pattern.startsWith('/') && !pattern.startsWith('*')) pattern = `/${pattern}`;
  return { allow, pattern, anchored };
}

/**
 * Wildcard match of `pattern` against the start of `path` (the whole path when anchored). Iterative
 * two-pointer matching with backtracking to the last `*` only: O(n·m) worst case, unlike a regex
 * built from many `*`, which can backtrack catastrophically.
 */
function matches(rule: Rule, path: string): boolean {
  const pattern = rule.anchored ? rule.pattern : `${rule.pattern}*`;
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (i < path.length) {
    if (j < pattern.length && pattern[j] !== '*' && pattern[j] === path[i]) {
      i++;
      j++;
    } else if (j < pattern.length && pattern[j] === '*') {
      star = j++;
      mark = i;
    } else if (star !== -1) {
      j = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (j < pattern.length && pattern[j] === '*') j++;
  return j === pattern.length;
}

/**
 * Splits the file into groups; Sitemap lines are global and collected on the side. Only the rules of
 * groups that can apply to `token` (ours or every robot's) are kept and counted against MAX_RULES: a file
 * long with other robots' rules must not crowd ours out.
 */
function parseGroups(text: string, token: string): { groups: Group[]; sitemaps: string[] } {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  let ruleCount = 0;
  for (const rawLine of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line
      .slice(0, colon)
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, '-');
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent' || key === 'useragent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], crawlDelaySeconds: undefined };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    if (key === 'sitemap' || key === 'site-map') {
      if (value) sitemaps.push(value);
      continue; // does not end a run of user-agent lines
    }
    lastWasAgent = false;
    if (!current) continue; // rules before any user-agent line belong to no group
    if ((key === 'allow' || key === 'disallow') && ruleCount < MAX_RULES && mayApply(current, token)) {
      const rule = compileRule(key === 'allow', value);
      if (rule) {
        current.rules.push(rule);
        ruleCount++;
      }
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelaySeconds = seconds;
    }
  }
  return { groups, sitemaps };
}

/** The product token of a User-agent line value: `OSINTPlatformBot/1.0` → `osintplatformbot`. */
function agentToken(value: string): string {
  return value.split(/[\s/]/)[0] ?? '';
}

/** Whether a group is addressed to the robot of `token` or to every robot. */
function mayApply(group: Group, token: string): boolean {
  return group.agents.some((agent) => agent === '*' || agentToken(agent) === token);
}

function buildPolicy(rules: Rule[], crawlDelayMs: number | undefined, sitemaps: string[]): RobotsPolicy {
  return {
    crawlDelayMs,
    sitemaps,
    isAllowed(input: string | URL): boolean {
      const url = typeof input === 'string' ? new URL(input) : input;
      const path = canonicalPath(url.pathname + url.search);
      if (url.pathname === '/robots.txt') return true; // always fetchable per RFC 9309
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!matches(rule, path)) continue;
        const longer = !best || rule.pattern.length > best.pattern.length;
        const tieAllow = best && rule.pattern.length === best.pattern.length && rule.allow && !best.allow;
        if (longer || tieAllow) best = rule;
      }
      return best ? best.allow : true;
    },
  };
}

/** Policy for `productToken` (e.g. `OSINTPlatformBot`) from a robots.txt body. */
export function parseRobots(text: string, productToken: string, base?: string | URL): RobotsPolicy {
  const token = productToken.toLowerCase();
  const { groups, sitemaps } = parseGroups(text, token);
  let selected = groups.filter((g) => g.agents.some((agent) => agentToken(agent) === token));
  if (selected.length === 0) selected = groups.filter((g) => g.agents.includes('*'));
  const rules = selected.flatMap((g) => g.rules);
  const delays = selected.map((g) => g.crawlDelaySeconds).filter((d): d is number => d !== undefined);
  const crawlDelayMs = delays.length ? Math.max(...delays) * 1000 : undefined;
  const absolute = sitemaps.flatMap((s) => {
    try {
      return [new URL(s, base).href];
    } catch {
      return [];
    }
  });
  return buildPolicy(rules, crawlDelayMs, absolute);
}

/** No robots.txt (4xx): everything may be crawled. */
export const ALLOW_ALL: RobotsPolicy = buildPolicy([], undefined, []);

/** robots.txt unreachable (5xx, network): RFC 9309 says assume complete disallow until it is back. */
export const DISALLOW_ALL: RobotsPolicy = buildPolicy(
  [{ allow: false, pattern: '/', anchored: false }],
  undefined,
  [],
);

/** Policy for a robots.txt fetch outcome: 2xx parses, 4xx allows all, 5xx or no response disallows all. */
export function robotsFromStatus(
  status: number | undefined,
  body: string,
  productToken: string,
  base?: string,
): RobotsPolicy {
  if (status === undefined || status >= 500 || status === 429) return DISALLOW_ALL;
  if (status >= 400) return ALLOW_ALL;
  if (status >= 200 && status < 300) return parseRobots(body, productToken, base);
  return ALLOW_ALL; // other statuses (e.g. 3xx without Location) carry no rules
}
