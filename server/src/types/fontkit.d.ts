// fontkit (pdfkit's font engine) ships no types; these are the calls the reports make on it directly.
declare module 'fontkit' {
  export interface Font {
    hasGlyphForCodePoint(codePoint: number): boolean;
    layout(text: string): unknown;
  }
  export function create(buffer: Buffer): Font;
}
