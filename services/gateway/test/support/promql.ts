import { parser } from '@prometheus-io/lezer-promql';

export interface QueryReferences {
  /** metric names of the query's selectors */
  metrics: string[];
  /** label names it matches on or groups by */
  labels: string[];
  /** a syntax error, if the parser found one */
  error?: string;
}

/** Grafana's variables replaced by values of the same kind, so that the query parses as PromQL. */
export function withoutGrafanaVariables(query: string): string {
  return query.replace(/\$\{?(\w+)(?::\w+)?\}?/g, (_, name: string) => (name.startsWith('__') ? '5m' : 'sample'));
}

/** The metrics and labels a PromQL query names, read with Prometheus's own (lezer) grammar. */
export function queryReferences(query: string): QueryReferences {
  const metrics = new Set<string>();
  const labels = new Set<string>();
  let error: string | undefined;
  const cursor = parser.parse(query).cursor();
  do {
    if (cursor.type.isError) error ??= `syntax error at ${cursor.from}: ${query.slice(cursor.from, cursor.from + 20)}`;
    if (cursor.name === 'VectorSelector') {
      const name = cursor.node.getChild('Identifier');
      if (name) metrics.add(query.slice(name.from, name.to));
    }
    if (cursor.name === 'LabelName') labels.add(query.slice(cursor.from, cursor.to));
  } while (cursor.next());
  return { metrics: [...metrics], labels: [...labels], error };
}
