// fontkit (pdfkit's font engine) ships no types; these are the calls the reports make on it directly.
declare module 'fontkit' {
  export interface Font {
    hasGlyphForCodePoint(codePoint: number): boolean;
    layout(text: string): unknown;
    /** Vertical metrics in font units (descent is negative). */
    ascent: number;
    descent: number;
    lineGap: number;
    unitsPerEm: number;
  }
  export function create(buffer: Buffer): Font;
}
