/**
 * Groups and dependencies as they cross into the core: the one thing TypeScript does with them is
 * turn labels and ids into indexes. Every rule (units, cycles, refusals, the walks and the repair
 * rounds, the reasons) is the Rust core's (src/constraints/).
 *
 * @internal
 * @module
 */

/** `groupOf` value of an item in no group. */
export const NO_GROUP = 0xffff_ffff;

/** Items' groups and dependencies as typed arrays (CSR for the dependencies). */
export interface Links {
  /** Per item, its group's index (groups numbered by first appearance), or {@link NO_GROUP}; empty when no item has a group. */
  groupOf: Uint32Array;
  /** Item `i` depends on `depTargets[depOffsets[i] .. depOffsets[i + 1]]`; both empty when there are none. */
  depOffsets: Uint32Array;
  depTargets: Uint32Array;
  /** Whether any item has a group, or (when dependencies were asked for) a dependency on another item. */
  any: boolean;
}

/** A `depTargets` entry for an id that names no item: the core skips it; it only keeps positions. */
export const NO_TARGET = 0xffff_ffff;

/**
 * The links of `n` items: `groupAt(i)` item i's group label, `depsAt(i)` the ids it depends on
 * (`undefined` to ignore dependencies), `indexOf(id)` the item an id names. Dependency ids that
 * name no item are ignored (they refer to context outside this call): {@link NO_TARGET} holds
 * their place, so that the core's errors name `dependencies[k]` as the caller wrote it.
 */
export function linksOf(
  n: number,
  groupAt: (i: number) => string | undefined,
  depsAt: ((i: number) => readonly string[] | undefined) | undefined,
  indexOf: (id: string) => number | undefined,
): Links {
  let groupOf = new Uint32Array(0);
  const labels = new Map<string, number>();
  let any = false;
  for (let i = 0; i < n; i++) {
    const g = groupAt(i);
    if (g === undefined) continue;
    if (groupOf.length === 0) groupOf = new Uint32Array(n).fill(NO_GROUP);
    let k = labels.get(g);
    if (k === undefined) labels.set(g, (k = labels.size));
    groupOf[i] = k;
    any = true;
  }
  if (depsAt === undefined) return { groupOf, depOffsets: new Uint32Array(0), depTargets: new Uint32Array(0), any };
  const depOffsets = new Uint32Array(n + 1);
  const targets: number[] = [];
  let named = 0;
  for (let i = 0; i < n; i++) {
    const deps = depsAt(i);
    if (deps !== undefined) {
      for (const id of deps) {
        const j = indexOf(id);
        if (j !== undefined) named++;
        targets.push(j ?? NO_TARGET);
      }
    }
    depOffsets[i + 1] = targets.length;
  }
  if (named === 0) return { groupOf, depOffsets: new Uint32Array(0), depTargets: new Uint32Array(0), any };
  return { groupOf, depOffsets, depTargets: Uint32Array.from(targets), any: true };
}
