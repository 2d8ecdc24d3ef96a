// Decodes a LIST response while it arrives: each element of the top-level "items" array is parsed as soon as its last
// byte is in. Parsing then overlaps the transfer (a 10,000-object list is 8 MB; one JSON.parse of it after the last
// byte costs 100+ ms), and no copy of the whole body is ever made. Everything else of the body (apiVersion, kind,
// metadata, in any order) is kept as a small skeleton with an empty items array, parsed at the end.
//
// The scanner works on bytes: every byte that matters to JSON's structure is ASCII, and UTF-8 never uses an ASCII
// byte inside a multi-byte character, so a chunk boundary anywhere (even inside a character) is harmless.

import { parseJson } from "./decode-json.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

// "items" is 5 bytes; a sixth byte kept tells a longer string from it.
const TOP_KEY_BYTES = 5;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Incremental decoder of one `{"items": [...], ...}` body: push() each chunk, then end(). */
export class ListDecoder<T = unknown> {
  private readonly items: T[] = [];
  /** Bytes of the body outside the items' elements. */
  private readonly skeleton: Buffer[] = [];
  /** Pieces of the element being read, from earlier chunks. */
  private readonly element: Buffer[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Inside the top-level "items" array (depth 2 is between its elements). */
  private inItems = false;
  /** An element of items is being read; elementIsScalar: it is a number, true, false or null. */
  private inElement = false;
  private elementIsScalar = false;
  /**
   * The start of the last string read directly in the top-level object (a key), and whether it is being read now.
   * Only whether that key is "items" matters, so at most TOP_KEY_BYTES + 1 bytes are kept, however long the string:
   * a hostile megabyte-long "kind" costs no megabyte-long array of numbers.
   */
  private topString: number[] = [];
  private readingTopString = false;
  private lastTopKey = "";

  constructor(private readonly decodeItem: (item: unknown) => T = (item) => item as T) {}

  push(chunk: Buffer): void {
    const n = chunk.length;
    let skeletonFrom = this.inItems ? -1 : 0; // start of the current run of skeleton bytes in this chunk
    let elementFrom = this.inElement ? 0 : -1;
    let i = 0;
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          if (this.readingTopString) this.keepTopByte(chunk[i]!);
          i++;
          continue;
        }
        // Most bytes of a list are inside strings: run to the next quote or backslash.
        let j = i;
        while (j < n) {
          const c = chunk[j]!;
          if (c === QUOTE || c === BACKSLASH) break;
          j++;
        }
        if (this.readingTopString)
          for (let k = i; k < j && this.topString.length <= TOP_KEY_BYTES; k++) this.topString.push(chunk[k]!);
        if (j === n) break;
        if (chunk[j] === BACKSLASH) {
          if (this.readingTopString) this.keepTopByte(BACKSLASH);
          this.escaped = true;
          i = j + 1;
          continue;
        }
        this.inString = false;
        if (this.readingTopString) {
          this.readingTopString = false;
          this.lastTopKey = Buffer.from(this.topString).toString("utf8");
        }
        if (this.inElement && this.depth === 2) {
          this.finishElement(chunk, elementFrom, j + 1);
          elementFrom = -1;
        }
        i = j + 1;
        continue;
      }
      if (this.depth >= 3) {
        // Inside an element (or a deep part of the skeleton): only quotes and brackets matter.
        let j = i;
        while (j < n) {
          const c = chunk[j]!;
          if (c === QUOTE || c === OPEN_BRACE || c === CLOSE_BRACE || c === OPEN_BRACKET || c === CLOSE_BRACKET) break;
          j++;
        }
        if (j === n) break;
        i = j;
      }
      const b = chunk[i]!;
      if (this.inItems && this.depth === 2 && !this.inElement) {
        // Between two elements of items: commas and spaces are dropped, "]" ends the array, anything else starts one.
        if (b === COMMA || isSpace(b)) {
          i++;
          continue;
        }
        if (b === CLOSE_BRACKET) {
          this.inItems = false;
          this.depth = 1;
          skeletonFrom = i;
          i++;
          continue;
        }
        this.inElement = true;
        elementFrom = i;
        this.elementIsScalar = b !== OPEN_BRACE && b !== OPEN_BRACKET && b !== QUOTE;
        if (this.elementIsScalar) {
          i++;
          continue;
        }
      } else if (this.inElement && this.elementIsScalar) {
        if (b === COMMA || b === CLOSE_BRACKET || isSpace(b)) {
          this.finishElement(chunk, elementFrom, i);
          elementFrom = -1;
          continue; // the between-elements rule takes this byte
        }
        i++;
        continue;
      }
      switch (b) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1) {
            this.readingTopString = true;
            this.topString = [];
          }
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          this.depth++;
          if (this.depth === 2 && b === OPEN_BRACKET && this.lastTopKey === "items") {
            // Keep "[" in the skeleton; the elements go to the decoder.
            this.skeleton.push(chunk.subarray(skeletonFrom, i + 1));
            skeletonFrom = -1;
            this.inItems = true;
          }
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          this.depth--;
          if (this.depth < 0) throw new SyntaxError("unbalanced JSON: more closing than opening brackets");
          if (this.inElement && this.depth === 2) {
            this.finishElement(chunk, elementFrom, i + 1);
            elementFrom = -1;
          }
          break;
      }
      i++;
    }
    if (skeletonFrom >= 0) this.skeleton.push(chunk.subarray(skeletonFrom));
    if (elementFrom >= 0) this.element.push(chunk.subarray(elementFrom));
  }

  /** The whole list: the skeleton's fields with the decoded items. Throws SyntaxError if the body was incomplete. */
  end(): Record<string, unknown> & { items?: T[] } {
    if (this.depth !== 0 || this.inString || this.inItems || this.inElement)
      throw new SyntaxError("unexpected end of JSON");
    const text = Buffer.concat(this.skeleton).toString("utf8");
    const body = parseJson(text);
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new SyntaxError("a list body must be a JSON object");
    const list = body as Record<string, unknown> & { items?: T[] };
    if (Array.isArray(list.items)) list.items = this.items;
    return list;
  }

  private keepTopByte(b: number): void {
    if (this.topString.length <= TOP_KEY_BYTES) this.topString.push(b);
  }

  private finishElement(chunk: Buffer, from: number, to: number): void {
    let text: string;
    if (this.element.length === 0) {
      text = chunk.toString("utf8", from, to);
    } else {
      this.element.push(chunk.subarray(0, to));
      text = Buffer.concat(this.element).toString("utf8");
      this.element.length = 0;
    }
    this.inElement = false;
    this.items.push(this.decodeItem(parseJson(text)));
  }
}
