import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shipmentMachine } from '../../machines/index.ts';
import { activeStates, machineGraph } from '../../src/ops/machine-graph.ts';
import { machineSvg } from '../../src/ops/machine-svg.ts';
import { machinesDocFiles } from '../../src/ops/machines-doc.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('machine diagrams', () => {
  it.each(Object.keys(machinesDocFiles()))('%s is what machines/ generates (npm run docs:machines)', (file) => {
    expect(readFileSync(path.join(root, file), 'utf8'), `${file} is stale: run npm run docs:machines`).toBe(machinesDocFiles()[file]);
  });

  it('reads every state and transition of the shipment machine', () => {
    const g = machineGraph(shipmentMachine);
    const edge = (from: string, to: string) => g.edges.filter((e) => e.from === from && e.to === to).map((e) => e.label);
    expect(edge('start', 'tbd')).toEqual(['[type TBD]']);
    expect(edge('tbd', 'pending')).toEqual(['MOBILE_TRANSFER']);
    expect(edge('pending', 'delivered')).toEqual(['COMPLETE [linkFitsType]']);
    expect(edge('localPickup', 'pending')).toEqual(['MOBILE_TRANSFER [leavesPickup]']);
    expect(edge('localPickup', 'delivered')).toEqual(['done']);
    expect(edge('localPickup.seller.awaiting', 'localPickup.seller.supplied')).toEqual(['SELLER_PICKUP']);
    expect(g.edges.find((e) => e.from === 'pending' && e.targetless)?.label).toBe('MOBILE_TRANSFER');
  });

  it('marks the active states of a snapshot value, parents included', () => {
    const active = activeStates({ localPickup: { seller: 'supplied', buyer: 'awaiting' } });
    expect([...active].sort()).toEqual([
      'localPickup',
      'localPickup.buyer',
      'localPickup.buyer.awaiting',
      'localPickup.seller',
      'localPickup.seller.supplied',
    ]);
    const svg = machineSvg(machineGraph(shipmentMachine), active);
    expect(svg).toContain('class="state atomic active" data-state="localPickup.buyer.awaiting"');
    expect(svg).toContain('class="state final active" data-state="localPickup.seller.supplied"');
    expect(svg).toContain('class="state atomic" data-state="pending"');
    expect(svg).not.toMatch(/<script|href="http/);
  });
});
