/**
 * Flame graphs of a V8 .cpuprofile cut to a time window, as standalone SVG files that a
 * browser opens (hover a frame for its function, time and share). Pure, so it is
 * unit-tested; peer-profile.ts writes one per process and measured phase next to the run's
 * results, because the profiles themselves are tens of MB and are not kept.
 */
import { areaOf, frameLabel, selfTimesUs, type CpuProfile } from './cpuprofile.ts';

/** One frame of the merged call tree: the time of its samples and of everything it called. */
export interface FlameNode {
  name: string;
  area: string;
  /** inclusive time, µs */
  us: number;
  children: FlameNode[];
}

const IDLE = '(idle)';

/**
 * The call tree of the samples between `fromMs` and `toMs` (ms from the profile's start),
 * idle left out, children with the same frame merged (V8 splits a frame by inlining and
 * line), sorted by name so that graphs of two runs line up.
 */
export function flameTree(profile: CpuProfile, fromMs = 0, toMs = Number.POSITIVE_INFINITY): FlameNode {
  const self = selfTimesUs(profile, fromMs, toMs);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const rootNode = profile.nodes.find((n) => n.callFrame.functionName === '(root)') ?? profile.nodes[0];
  const build = (id: number): FlameNode | undefined => {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === IDLE) return undefined;
    const merged = new Map<string, FlameNode>();
    for (const child of (node.children ?? []).map(build)) {
      if (!child || child.us === 0) continue;
      const same = merged.get(child.name);
      if (same) mergeInto(same, child);
      else merged.set(child.name, child);
    }
    const children = [...merged.values()].sort((a, b) => a.name.localeCompare(b.name));
    const name = frameLabel(node.callFrame);
    const area = node.callFrame.functionName.startsWith('(') ? '(V8)' : areaOf(node.callFrame.url);
    return { name, area, us: (self.get(id) ?? 0) + children.reduce((s, c) => s + c.us, 0), children };
  };
  return (rootNode && build(rootNode.id)) ?? { name: '(root)', area: '(V8)', us: 0, children: [] };
}

function mergeInto(into: FlameNode, from: FlameNode): void {
  into.us += from.us;
  for (const child of from.children) {
    const same = into.children.find((c) => c.name === child.name);
    if (same) mergeInto(same, child);
    else into.children.push(child);
  }
  into.children.sort((a, b) => a.name.localeCompare(b.name));
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Warm colours for dependencies and Node, blue for the workspace's own code, grey for V8's pseudo-frames. */
function colorOf(node: FlameNode): string {
  if (node.area.startsWith('services/') || node.area.startsWith('libs/')) return 'hsl(210, 65%, 62%)';
  if (node.area === '(V8)' || node.area === '(native/V8)') return 'hsl(0, 0%, 72%)';
  let hash = 0;
  for (const ch of node.area) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return `hsl(${15 + (Math.abs(hash) % 40)}, 80%, ${55 + (Math.abs(hash >> 8) % 12)}%)`;
}

export interface FlameGraphOptions {
  title: string;
  /** what one unit of the phase is, for the per-unit figure in the subtitle ("req", "pair") */
  per?: { count: number; unit: string };
  width?: number;
  /** frames narrower than this many pixels are left out (with their callees) */
  minWidthPx?: number;
}

/**
 * An SVG flame graph (callers below callees, width = inclusive time) of `tree`. Every frame
 * carries a tooltip with its function, file, area, ms and share of the busy time.
 */
export function flameGraphSvg(tree: FlameNode, options: FlameGraphOptions): string {
  const width = options.width ?? 1200;
  const minWidth = options.minWidthPx ?? 0.5;
  const rowH = 16;
  const top = 44;
  const busy = tree.us;
  const scale = busy > 0 ? (width - 20) / busy : 0;
  // lay out first (depth decides the height), then draw bottom-up
  const placed: { node: FlameNode; x: number; depth: number; w: number }[] = [];
  const place = (node: FlameNode, x: number, depth: number) => {
    const w = node.us * scale;
    if (w < minWidth) return;
    placed.push({ node, x, depth, w });
    let cx = x;
    for (const child of node.children) {
      place(child, cx, depth + 1);
      cx += child.us * scale;
    }
  };
  place(tree, 10, 0);
  const maxDepth = placed.reduce((m, p) => Math.max(m, p.depth), 0);
  const height = top + (maxDepth + 1) * rowH + 24;
  const rects = placed.map(({ node, x, depth, w }) => {
    const y = height - 24 - (depth + 1) * rowH;
    const share = busy > 0 ? (100 * node.us) / busy : 0;
    const tip = `${node.name} (${node.area}): ${(node.us / 1000).toFixed(1)} ms, ${share.toFixed(1)} %`;
    // about 6.5 px per character at 11 px
    const chars = Math.floor((w - 6) / 6.5);
    const label = chars >= 3 ? (node.name.length <= chars ? node.name : `${node.name.slice(0, chars - 1)}…`) : '';
    return `<g><title>${escapeXml(tip)}</title><rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowH - 1}" rx="2" fill="${colorOf(node)}"/>` +
      (label ? `<text x="${(x + 3).toFixed(1)}" y="${y + 11.5}">${escapeXml(label)}</text>` : '') +
      '</g>';
  });
  const perUnit = options.per && options.per.count > 0 ? `, ${(busy / 1000 / options.per.count).toFixed(2)} ms per ${options.per.unit}` : '';
  const subtitle = `busy ${(busy / 1000).toFixed(0)} ms${perUnit} under the profiler; width = time including callees; blue = this workspace's code, grey = V8 and native code; hover a frame for its figures`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Verdana, sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fdfdf8"/>`,
    `<text x="${width / 2}" y="18" font-size="15" text-anchor="middle">${escapeXml(options.title)}</text>`,
    `<text x="${width / 2}" y="34" fill="#555" text-anchor="middle">${escapeXml(subtitle)}</text>`,
    ...rects,
    '</svg>',
    '',
  ].join('\n');
}
