import { describe, expect, it } from 'vitest';
import type { CpuProfile } from '../../src/cpuprofile.ts';
import { flameGraphSvg, flameTree } from '../../src/flamegraph.ts';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
const route = 'file:///work/main/services/friendship/src/routes/relations.ts';
const bson = 'file:///w/node_modules/.pnpm/bson@6.10.4/node_modules/bson/lib/bson.cjs';

// root ─┬ idle
//       ├ handler ─┬ decode (bson)      node 4
//       │          └ decode (bson)      node 5: the same frame split by V8, merged
//       ├ (garbage collector)
//       └ handler <a second node of the same frame> ─ send
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 6, 7] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('handler', route, 46), children: [4, 5] },
    { id: 4, callFrame: frame('decode', bson, 99) },
    { id: 5, callFrame: frame('decode', bson, 99) },
    { id: 6, callFrame: frame('(garbage collector)') },
    { id: 7, callFrame: frame('handler', route, 46), children: [8] },
    { id: 8, callFrame: frame('send <&>', route, 80) },
  ],
  startTime: 0,
  endTime: 12_000,
  // sample i lasts until sample i+1: idle 0-4 ms, 3: 4-5, 4: 5-7, 5: 7-8, 6: 8-9, 8: 9-11, idle 11-12
  samples: [2, 3, 4, 5, 6, 8, 2],
  timeDeltas: [0, 4000, 1000, 2000, 1000, 1000, 2000],
};

describe('flameTree', () => {
  it('is the call tree of the busy time, idle left out, one node per frame under each caller', () => {
    const tree = flameTree(profile);
    expect(tree.us).toBe(7000);
    const [gc, handler] = tree.children;
    expect(gc).toMatchObject({ name: '(garbage collector)', area: '(V8)', us: 1000 });
    expect(handler).toMatchObject({ name: 'handler services/friendship/src/routes/relations.ts:47', area: 'services/friendship', us: 6000 });
    expect(handler!.children.map((c) => [c.name, c.us])).toEqual([
      ['decode bson/lib/bson.cjs:100', 3000],
      ['send <&> services/friendship/src/routes/relations.ts:81', 2000],
    ]);
  });

  it('counts only the samples of the window', () => {
    // from 6 ms to 10 ms the samples taken at 7 (decode, node 5), 8 (gc) and 9 ms (send, until 11) count
    const tree = flameTree(profile, 6, 10);
    expect(tree.us).toBe(4000);
    expect(tree.children.map((c) => [c.name.split(' ')[0], c.us])).toEqual([['(garbage', 1000], ['handler', 3000]]);
    expect(tree.children[1]!.children.map((c) => c.us)).toEqual([1000, 2000]);
  });
});

describe('flameGraphSvg', () => {
  const svg = flameGraphSvg(flameTree(profile), { title: 'friendship, friend list', per: { count: 7, unit: 'req' }, width: 220 });

  it('draws each frame as wide as its time, with its figures in a tooltip', () => {
    const rects = [...svg.matchAll(/<title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"/g)].map((m) => ({ tip: m[1]!, x: Number(m[2]), y: Number(m[3]), w: Number(m[4]) }));
    expect(rects).toHaveLength(5);
    const root = rects.find((r) => r.tip.startsWith('(root)'))!;
    expect(root.w).toBe(200);
    const decode = rects.find((r) => r.tip.startsWith('decode'))!;
    expect(decode.w).toBeCloseTo((200 * 3) / 7, 1);
    expect(decode.tip).toBe('decode bson/lib/bson.cjs:100 (bson): 3.0 ms, 42.9 %');
    // callees above their callers
    expect(decode.y).toBeLessThan(rects.find((r) => r.tip.startsWith('handler'))!.y);
    expect(svg).toContain('1.00 ms per req');
  });

  it('escapes names and leaves out frames narrower than the least width', () => {
    expect(svg).toContain('send &lt;&amp;&gt;');
    expect(svg).not.toContain('send <&>');
    const narrow = flameGraphSvg(flameTree(profile), { title: 't', width: 220, minWidthPx: 40 });
    expect(narrow).not.toContain('<title>(garbage collector)');
    expect(narrow).toContain('<title>handler');
  });
});
