/**
 * Loads the config and criteria from a commit (the base by default, so a
 * change cannot relax its own review). Every problem is one line naming the
 * file and the key.
 */

import type { Config } from '../core/config.js';
import { type AttributeRule, parseLinguistAttributes } from '../core/ignore.js';
import type { Snapshot } from '../core/types.js';
import { sha256 } from '../io/hash.js';
import type { GitBlobs } from '../ports/git.js';
import { ConfigLoadError } from './errors.js';
import { CONFIG_NAMES, configFileAt } from './locate.js';
import { parseConfigText } from './parse.js';

export interface LoadedConfig {
  config: Config;
  configPath: string;
  configDigest: string;
  criteria: string;
  criteriaDigest: string;
  /** The commit both were read from. */
  source: string;
  /** The linguist lines of `.gitattributes` at that commit, when `review.ignoreLinguist` asks (else empty). */
  attributes?: AttributeRule[];
}

export async function loadConfigAt(
  git: GitBlobs,
  repo: string,
  commit: string,
  explicitPath?: string,
): Promise<LoadedConfig> {
  const names = explicitPath ? [explicitPath] : CONFIG_NAMES;
  const file = await configFileAt(git, repo, commit, names);
  if (!file) {
    throw new ConfigLoadError(
      `no ${names.join(' or ')} in commit ${commit.slice(0, 12)} (config is read from that commit: commit it there, or pass --config-from head)`,
      { commit },
    );
  }
  const { name: configPath, bytes } = file;
  const config = parseConfigText(bytes.toString('utf8'), configPath);
  const criteriaBytes = await git.readFile(repo, commit, config.criteria);
  if (!criteriaBytes) {
    // "Not found" would send a user looking for a file that is there, as a directory.
    const kind = await git.pathKind?.(repo, commit, config.criteria).catch(() => null);
    const what = kind ? `is a ${kind}, not a file,` : 'not found';
    throw new ConfigLoadError(
      `${configPath}: criteria: "${config.criteria}" ${what} in commit ${commit.slice(0, 12)}`,
      { key: 'criteria' },
    );
  }
  const attributes = config.review.ignoreLinguist
    ? parseLinguistAttributes((await git.readFile(repo, commit, GITATTRIBUTES))?.toString('utf8') ?? '')
    : [];
  return {
    config,
    configPath,
    configDigest: sha256(bytes),
    criteria: criteriaBytes.toString('utf8'),
    criteriaDigest: sha256(criteriaBytes),
    source: commit,
    attributes,
  };
}

/**
 * Paths whose edit by the change needs a named person's settlement to end
 * clear: the config, the criteria, every repository file the config names
 * as an agent's script or command, its keys, and `protect`.
 */
export function protectedPaths(loaded: LoadedConfig): string[] {
  const c = loaded.config;
  const named = new Set<string>([loaded.configPath, c.criteria, ...c.keys, ...c.protect]);
  // With linguist attributes read, `.gitattributes` is part of the ignore list: editing it edits the config.
  if (c.review.ignoreLinguist) named.add(GITATTRIBUTES);
  const agents = [...c.reviewers, c.refuter, c.fixer].filter((a) => a !== undefined);
  for (const a of agents) for (const path of agentFiles(a)) named.add(path);
  // A check's arguments are not among them: a slash in `npx eslint src/lib` names no file the
  // review trusts, and a check only ever adds evidence of progress, never a clear.
  return [...named].sort();
}

/** The repository files an agent's script or command names (what defines it besides the config). */
export function agentFiles(a: {
  script?: string | undefined;
  command?: readonly string[] | undefined;
}): string[] {
  const out = new Set<string>();
  if (a.script && !a.script.startsWith('/')) out.add(normalizePath(a.script));
  for (const arg of a.command ?? []) {
    if (/^(\.\/)?[\w.-]+(\/[\w.-]+)+$/.test(arg) || /^[\w-]+\.(m?js|ts|py|sh|rb)$/.test(arg))
      out.add(normalizePath(arg));
  }
  return [...out].sort();
}

/**
 * The digest of each repository file an agent of the config names, at the
 * commit the config was read from (null: no such file there): part of each
 * agent's identity, so a script edited under an unchanged config is another
 * reviewer.
 */
export async function agentFileDigests(
  git: GitBlobs,
  repo: string,
  loaded: LoadedConfig,
): Promise<Map<string, string | null>> {
  const c = loaded.config;
  const paths = new Set([...c.reviewers, c.refuter, c.fixer].flatMap((a) => (a ? agentFiles(a) : [])));
  const out = new Map<string, string | null>();
  for (const path of [...paths].sort()) {
    const bytes = await git.readFile(repo, loaded.source, path).catch(() => null);
    out.set(path, bytes ? sha256(bytes) : null);
  }
  return out;
}

const GITATTRIBUTES = '.gitattributes';

const normalizePath = (p: string): string => p.replace(/^\.\//, '');

/**
 * The config a run was admitted under, read again from the commit it was
 * frozen from; refused when those bytes no longer hash to the run's config
 * digest (the commit was rewritten), never silently another config.
 */
export async function loadRunConfig(git: GitBlobs, repo: string, snapshot: Snapshot): Promise<Config> {
  const commit = snapshot.configFrom === 'head' ? snapshot.head : snapshot.base;
  const loaded = await loadConfigAt(git, repo, commit, snapshot.configPath);
  if (loaded.configDigest !== snapshot.configDigest)
    throw new ConfigLoadError(
      `${snapshot.configPath} in commit ${commit.slice(0, 12)} is not the config the run was admitted under`,
      { commit },
    );
  return loaded.config;
}
