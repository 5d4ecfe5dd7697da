// A growable list of 32-bit integers in one typed array: the log's skeleton (a million lines in
// runs, the seqs of matches) is kept in these rather than in arrays of objects, so it costs 4
// bytes an item and the garbage collector never walks it.

export class IntList {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Int32Array(Math.max(4, capacity));
  }

  static of(values: Iterable<number>): IntList {
    const list = new IntList();
    for (const value of values) list.push(value);
    return list;
  }

  get(index: number): number {
    return this.data[index];
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  last(): number {
    return this.length ? this.data[this.length - 1] : -1;
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = value;
  }

  /** Puts `value` at `index`, moving the later items up one. */
  insert(index: number, value: number): void {
    if (this.length === this.data.length) this.grow();
    this.data.copyWithin(index + 1, index, this.length);
    this.data[index] = value;
    this.length++;
  }

  clear(): void {
    this.length = 0;
  }

  /** The items, without copying (valid until the list grows). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }

  /** In a list sorted ascending: the index of the last item <= value, or -1. */
  floor(value: number): number {
    let low = 0;
    let high = this.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.data[middle] <= value) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }

  /** In a list sorted ascending: the index of the first item >= value (length when none). */
  ceil(value: number): number {
    const below = this.floor(value - 1);
    return below + 1;
  }

  /** In a list sorted ascending: the index of `value`, or -1. */
  indexOf(value: number): number {
    const at = this.floor(value);
    return at >= 0 && this.data[at] === value ? at : -1;
  }

  /** Adds `value` to a list sorted ascending, unless it is there; whether it was added. */
  addSorted(value: number): boolean {
    if (!this.length || this.data[this.length - 1] < value) {
      this.push(value);
      return true;
    }
    const at = this.floor(value);
    if (at >= 0 && this.data[at] === value) return false;
    this.insert(at + 1, value);
    return true;
  }

  private grow(): void {
    const bigger = new Int32Array(this.data.length * 2);
    bigger.set(this.data);
    this.data = bigger;
  }
}

/** The last index i in [0, length) with at(i) <= value, or -1 (at ascending). */
export function floorBy(length: number, at: (index: number) => number, value: number): number {
  let low = 0;
  let high = length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (at(middle) <= value) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
