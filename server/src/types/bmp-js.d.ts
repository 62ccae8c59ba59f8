// bmp-js ships no types; these are the two calls the project makes.
declare module 'bmp-js' {
  interface BmpImage {
    data: Buffer;
    width: number;
    height: number;
  }
  export function encode(image: BmpImage, quality?: number): { data: Buffer; width: number; height: number };
  export function decode(buffer: Buffer): BmpImage;
  const bmp: { encode: typeof encode; decode: typeof decode };
  export default bmp;
}
