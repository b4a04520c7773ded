/**
 * The undo log of a resumable scan (structure.ts `scanUnits`, validate.ts `scanRules`): the maps
 * and sets a scan grows over the whole history (call ids, item ids) are kept from one session turn
 * to the next, and the changes made from the scan's saved point on are logged, so that the next
 * turn can take them back and scan again from that point. Only changes made while `on` are logged:
 * a scan turns it on at its saved point, the start of its last message.
 *
 * @internal
 * @module
 */

/** The changes to some maps and sets since it was turned on, to take back. @internal */
export class Undo {
  private log: (() => void)[] = [];
  /** Whether changes are logged. */
  on = false;

  /** `map.set(key, value)`, logged. */
  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    if (this.on) {
      const had = map.has(key);
      const old = map.get(key);
      this.log.push(had ? () => map.set(key, old as V) : () => map.delete(key));
    }
    map.set(key, value);
  }

  /** `map.delete(key)`, logged. */
  delete<K, V>(map: Map<K, V>, key: K): boolean {
    if (this.on && map.has(key)) {
      const old = map.get(key) as V;
      this.log.push(() => map.set(key, old));
    }
    return map.delete(key);
  }

  /** `set.add(value)`, logged. */
  add<T>(set: Set<T>, value: T): void {
    if (this.on && !set.has(value)) this.log.push(() => set.delete(value));
    set.add(value);
  }

  /** Takes back every logged change, newest first, and stops logging. */
  rewind(): void {
    for (let k = this.log.length - 1; k >= 0; k--) this.log[k]!();
    this.log = [];
    this.on = false;
  }
}
