/**
 * Runs each service's own config reader on the settings a Helm rendering gives its
 * container (scripts/validate-deploy.sh, step 9): a value the service would refuse at start
 * (a bound, a pattern, a rule between two settings) fails here instead of crash-looping a
 * rollout. check_deploy.py checks the names; this checks the values, with the readers
 * themselves, so a bound added to a setting is checked against the chart at once.
 *
 *   node deploy/tools/settings-check.ts NAME=RENDERED.yaml [NAME=RENDERED.yaml ...]
 *
 * A container's settings: its ConfigMaps and Secrets (envFrom) and its env values. A Secret
 * the rendering does not hold (production's, created outside the chart) and a secretKeyRef
 * give placeholders of the right form for the variables it carries (EXTERNAL_PLACEHOLDERS);
 * one without a placeholder fails, naming it. Components without a reader here (NATS, the
 * trial databases, a service added by values alone) are skipped.
 * Then the rules between two services' settings (presenceHeartbeatProblems).
 * Exit status 0 when every check passed; one line per check.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { presenceHeartbeatProblems } from '../../libs/platform/src/config.ts';
import { readFriendshipConfig } from '../../services/friendship/src/config.ts';
import { readGatewayConfig } from '../../services/gateway/src/config.ts';
import { readNotificationsConfig } from '../../services/notifications/src/config.ts';
import { readTasksConfig } from '../../services/tasks/src/config.ts';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

if (process.argv.includes('--help') || process.argv.includes('-h') || process.argv.length < 3) {
  say(readFileSync(new URL(import.meta.url), 'utf8').match(/\/\*\*([\s\S]*?)\*\//)![1]!.replace(/^ \* ?/gm, '').trim());
  process.exit(process.argv.length < 3 && !process.argv.includes('--help') && !process.argv.includes('-h') ? 2 : 0);
}

const readers: Record<string, (env: Record<string, string>) => Record<string, unknown>> = {
  gateway: readGatewayConfig,
  friendship: readFriendshipConfig,
  tasks: readTasksConfig,
  notifications: readNotificationsConfig,
};

/** Values of the form each service checks, for variables a Secret outside the rendering holds. */
const EXTERNAL_PLACEHOLDERS: Record<string, () => string> = {
  MONGO_URL: () => 'mongodb://placeholder.invalid:27017/gfts',
  NATS_PASSWORD: () => 'placeholder-nats-password',
  INTERNAL_TOKEN_SECRET: () => 'placeholder-internal-token-secret-0123456789abcdef',
  // production verifies with public keys (RS256/ES256): a P-256 key is of a type it takes
  JWT_PUBLIC_KEY: () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString(),
};
/** What a production Secret of each service carries (deploy/helm/gfts/values-production.yaml, docs/deploy.md). */
const EXTERNAL_SECRET_KEYS: Record<string, string[]> = {
  gateway: ['NATS_PASSWORD', 'JWT_PUBLIC_KEY'],
  friendship: ['MONGO_URL', 'NATS_PASSWORD'],
  tasks: ['MONGO_URL', 'NATS_PASSWORD'],
  notifications: ['MONGO_URL', 'NATS_PASSWORD'],
};

interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: { template?: { spec?: { containers?: Container[] } } };
}
interface Container {
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
}

function placeholder(name: string, problems: string[]): string {
  const make = EXTERNAL_PLACEHOLDERS[name];
  if (!make) {
    problems.push(`${name} comes from a Secret outside the rendering and has no placeholder in deploy/tools/settings-check.ts`);
    return '';
  }
  return make();
}

/** The settings the rendering gives the container, and what could not be told. */
function environmentOf(docs: K8sObject[], service: string, container: Container): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, find('ConfigMap', source.configMapRef.name)?.data ?? {});
    if (source.secretRef) {
      const secret = find('Secret', source.secretRef.name);
      if (secret) {
        for (const [key, value] of Object.entries(secret.data ?? {})) env[key] = Buffer.from(value, 'base64').toString('utf8');
        Object.assign(env, secret.stringData ?? {});
      } else {
        for (const key of EXTERNAL_SECRET_KEYS[service] ?? []) env[key] ??= placeholder(key, problems);
      }
    }
  }
  for (const item of container.env ?? []) env[item.name] = item.value !== undefined ? String(item.value) : placeholder(item.name, problems);
  return { env, problems };
}

let failures = 0;
let checks = 0;
for (const argument of process.argv.slice(2)) {
  const [name, file] = argument.split('=', 2) as [string, string | undefined];
  if (!file) {
    console.error(`settings-check: ${argument}: expected NAME=FILE`);
    process.exit(2);
  }
  const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as K8sObject | null).filter((d): d is K8sObject => d !== null);
  const taken = new Map<string, Record<string, unknown>>();
  for (const workload of docs.filter((d) => d.kind === 'Deployment')) {
    const service = workload.metadata.labels?.['app.kubernetes.io/name'] ?? workload.metadata.name;
    const read = readers[service];
    const container = workload.spec?.template?.spec?.containers?.[0];
    if (!read || !container) continue;
    checks++;
    const { env, problems } = environmentOf(docs, service, container);
    try {
      if (problems.length > 0) throw new Error(problems.join('; '));
      taken.set(service, read(env));
      say(`  ok   ${name}: ${service} takes its ${Object.keys(env).length} settings`);
    } catch (error) {
      failures++;
      say(`  FAIL ${name}: ${service} refuses its settings: ${(error as Error).message}`);
    }
  }
  // rules between two services' settings
  const friendship = taken.get('friendship');
  const notifications = taken.get('notifications');
  if (friendship && notifications) {
    checks++;
    const problems = presenceHeartbeatProblems(notifications.PRESENCE_RECORD_INTERVAL_MS as number, friendship.PRESENCE_ONLINE_WINDOW_MS as number);
    if (problems.length > 0) failures++;
    say(problems.length === 0 ? `  ok   ${name}: the presence heartbeat fits friendship's online window` : `  FAIL ${name}: ${problems.join('; ')}`);
  }
}
say(`  ${checks - failures} checks passed, ${failures} failed`);
process.exit(failures > 0 || checks === 0 ? 1 : 0);
