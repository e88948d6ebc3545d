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
//       └ handler <a second node of the same frame> ─┬ send
//                                                     └ decode      node 9: merged with 4 and 5 one level down
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 6, 7] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('handler', route, 46), children: [4, 5] },
    { id: 4, callFrame: frame('decode', bson, 99) },
    { id: 5, callFrame: frame('decode', bson, 99) },
    { id: 6, callFrame: frame('(garbage collector)') },
    { id: 7, callFrame: frame('handler', route, 46), children: [8, 9] },
    { id: 8, callFrame: frame('send <&>', route, 80) },
    { id: 9, callFrame: frame('decode', bson, 99) },
  ],
  startTime: 0,
  endTime: 13_000,
  // sample i lasts until sample i+1: idle 0-4 ms, 3: 4-5, 4: 5-7, 5: 7-8, 6: 8-9, 8: 9-11, 9: 11-12, idle 12-13
  samples: [2, 3, 4, 5, 6, 8, 9, 2],
  timeDeltas: [0, 4000, 1000, 2000, 1000, 1000, 2000, 1000],
};

describe('flameTree', () => {
  it('is the call tree of the busy time, idle left out, one node per frame under each caller', () => {
    const tree = flameTree(profile);
    expect(tree.us).toBe(8000);
    const [gc, handler] = tree.children;
    expect(gc).toMatchObject({ name: '(garbage collector)', area: '(V8)', us: 1000 });
    expect(handler).toMatchObject({ name: 'handler services/friendship/src/routes/relations.ts:47', area: 'services/friendship', us: 7000 });
    expect(handler!.children.map((c) => [c.name, c.us])).toEqual([
      ['decode bson/lib/bson.cjs:100', 4000],
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

  const rects = [...svg.matchAll(/<title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"/g)].map((m) => ({ tip: m[1]!, x: Number(m[2]), y: Number(m[3]), w: Number(m[4]) }));
  const rect = (start: string) => rects.find((r) => r.tip.startsWith(start))!;

  it('draws each frame as wide as its time, with its figures in a tooltip', () => {
    expect(rects).toHaveLength(5);
    expect(rect('(root)').w).toBe(200);
    expect(rect('decode').w).toBeCloseTo(100, 1);
    expect(rect('decode').tip).toBe('decode bson/lib/bson.cjs:100 (bson): 4.0 ms, 50.0 %');
    expect(svg).toContain('1.14 ms per req');
  });

  it('puts callees above their callers, within them, siblings side by side', () => {
    const [root, gc, handler, decode, send] = ['(root)', '(garbage', 'handler', 'decode', 'send'].map(rect);
    expect([root!.y - gc!.y, gc!.y - handler!.y, handler!.y - decode!.y]).toEqual([16, 0, 16]);
    // the top row sits right under the subtitle
    expect(decode!.y).toBe(44);
    expect(handler!.x).toBeCloseTo(gc!.x + gc!.w, 1);
    expect(send!.x).toBeCloseTo(decode!.x + decode!.w, 1);
    expect(decode!.x).toBe(handler!.x);
    // the handler's own 1 ms is the part of it with nothing above
    expect(handler!.x + handler!.w - (send!.x + send!.w)).toBeCloseTo(25, 1);
  });

  it('escapes names and leaves out frames narrower than the least width', () => {
    expect(svg).toContain('send &lt;&amp;&gt;');
    expect(svg).not.toContain('send <&>');
    const narrow = flameGraphSvg(flameTree(profile), { title: 't', width: 220, minWidthPx: 40 });
    expect(narrow).not.toContain('<title>(garbage collector)');
    expect(narrow).toContain('<title>handler');
  });
});
