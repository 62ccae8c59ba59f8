/** The file as a data: URL. */
export function readFileAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** The file as base64 without its data: prefix (spec 001 §7 upload-image). */
export async function fileToBase64(file: Blob): Promise<string> {
  return (await readFileAsDataUrl(file)).replace(/^data:[^,]*,/, '');
}
